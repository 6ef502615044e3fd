/**
 * What a failed zcode call and a zcode exit mean in the user's words: a missing method says which
 * builds have it, a missing `session/subscribe` that zcode is too old (docs/zcode-protocol.md
 * "Build families"). zcode's own code is kept so that callers can still branch on it.
 */
import { BackendErrorCode, ZcodeError } from './backend.ts';

/**
 * Turn "method not found" into what it means for the user (docs/zcode-protocol.md "Build families"):
 * no `session/subscribe` → zcode is too old; anything else → this build does not have it (0.16
 * removed steer and rewind). zcode's code is kept so callers can still branch on -32601.
 */
export function explainError(method: string, error: unknown): ZcodeError {
  if (!(error instanceof ZcodeError)) return new ZcodeError(`${method} failed: ${String(error)}`, BackendErrorCode.ProcessExited, method);
  if (error.code !== -32601) return error;
  if (method === 'session/subscribe') {
    return new ZcodeError(
      'zcode 0.14.8 or newer is required (this build has no session/subscribe). Update ZCode, or point "zcode.path" at a newer zcode.',
      BackendErrorCode.Incompatible,
      method,
      error.data,
    );
  }
  return new ZcodeError(`${method} is not supported by this zcode version (zcode answered: ${error.message})`, error.code, method, error.data);
}

/** The last line of zcode's stderr: what an exit message quotes. */
export function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
