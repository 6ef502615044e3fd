/**
 * Errors in plain words. Failures reach the extension as `ZcodeError` (starting zcode directly)
 * or as ACP `RequestError`s from the bridge; both carry a numeric code (typed errors, never strings), which
 * is what we classify on — the message text is only a fallback.
 */
import * as vscode from 'vscode';
import { BackendErrorCode } from '../bridge/zcode/backend.ts';
import { errorCode, errorMessage, REQUEST_CANCELLED } from './errorValues.ts';

export type ErrorKind = 'notFound' | 'incompatible' | 'unsupported' | 'noSession' | 'cancelled' | 'other';

/** JSON-RPC "method not found": a zcode build without this feature (or a bridge without the method). */
const METHOD_NOT_FOUND = -32601;

/** The code of the error, or of the zcode error it wraps (`data.code`). */
function codes(error: unknown): number[] {
  const out: number[] = [];
  const code = errorCode(error);
  if (code !== undefined) out.push(code);
  const data = typeof error === 'object' && error !== null && 'data' in error ? (error as { data?: unknown }).data : undefined;
  const inner = errorCode(data);
  if (inner !== undefined) out.push(inner);
  const zcode = typeof data === 'object' && data !== null && 'zcode' in data ? errorCode((data as { zcode?: unknown }).zcode) : undefined;
  if (zcode !== undefined) out.push(zcode);
  return out;
}

export function classifyError(error: unknown): ErrorKind {
  const all = codes(error);
  const message = errorMessage(error);
  if (all.includes(BackendErrorCode.NotFound) || /zcode was not found|no Node\.js was found/i.test(message)) return 'notFound';
  if (all.includes(BackendErrorCode.Incompatible) || /older than 0\.14\.8|session\/subscribe/i.test(message)) return 'incompatible';
  if (all.includes(METHOD_NOT_FOUND) || /not supported by this zcode/i.test(message)) return 'unsupported';
  if (all.includes(REQUEST_CANCELLED)) return 'cancelled';
  if (/no active zcode session/i.test(message)) return 'noSession';
  return 'other';
}

/** One sentence for the user about a failed `what` (e.g. "Fork Session"). */
export function describeError(what: string, error: unknown): string {
  switch (classifyError(error)) {
    case 'incompatible':
      return vscode.l10n.t('{0} failed: this zcode is too old. ZCode for VS Code needs zcode 0.14.8 or newer (0.15 or newer for every feature). Update zcode and restart it.', what);
    case 'unsupported': {
      // The bridge says which builds have the method: "… (removed in zcode 0.16; use …)".
      const detail = /\(([^()]+)\)\s*$/.exec(errorMessage(error))?.[1];
      return detail ? vscode.l10n.t('{0} is not supported by this zcode version: {1}.', what, detail) : vscode.l10n.t('{0} is not supported by this zcode version.', what);
    }
    default:
      return vscode.l10n.t('{0} failed: {1}', what, errorMessage(error));
  }
}
