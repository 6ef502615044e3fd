/**
 * Typed errors across the protocol boundary (CONTRIBUTING.md "House style"): whatever goes wrong inside the
 * bridge leaves as a `RequestError` with a meaningful code, never as a plain `Error` (which the SDK
 * would turn into an anonymous -32603).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { ZcodeError } from '../zcode/backend.ts';
import type { Logger } from '../logger.ts';
import { ZcodeErrorCode } from '../zcode/protocol.ts';

/** Convert anything thrown inside a handler into the `RequestError` the client receives. */
export function toRequestError(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof ZcodeError) return fromZcodeError(error);
  if (error instanceof z.ZodError) return RequestError.invalidParams(z.treeifyError(error), z.prettifyError(error));
  const message = error instanceof Error ? error.message : String(error);
  return RequestError.internalError({ message }, message);
}

/**
 * Runs a request handler so that nothing but a `RequestError` leaves it (the core's handlers and
 * the `_zcode/*` methods alike). An internal error (-32603) is logged with its stack under `label`:
 * the client sees only its message.
 */
export async function answerOrRequestError<R>(logger: Pick<Logger, 'error'>, label: string, run: () => Promise<R>): Promise<R> {
  try {
    return await run();
  } catch (error) {
    const converted = toRequestError(error);
    if (converted.code === -32603) logger.error(`${label} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw converted;
  }
}

/**
 * A zcode failure as the client's error (docs/acp.md "Errors"). zcode's codes never become the
 * JSON-RPC code: they mean other things in ACP (zcode answers -32000 for "a goal is already set",
 * which ACP reads as "authentication required" and sends a client into a login flow; 1308, 500 or
 * -32004 mean nothing to an ACP client). So: an unknown session is -32002 (resource not found);
 * zcode's -32601 / -32602 keep their JSON-RPC meaning (the capability is missing / the params are
 * wrong); everything else, including the bridge's own backend codes (-33xxx), is -32603 with
 * zcode's message. zcode's code, and the method that failed, travel under `data.zcode`.
 */
function fromZcodeError(error: ZcodeError): RequestError {
  const data: Record<string, unknown> = { zcode: { code: error.code, ...(error.method ? { method: error.method } : {}) } };
  if (error.data !== undefined) data.details = error.data;
  if (isSessionNotFound(error)) return new RequestError(-32002, error.message, data);
  const kept = error.code === -32601 || error.code === -32602;
  return new RequestError(kept ? error.code : -32603, error.message, data);
}

/**
 * zcode says the session does not exist. The wording differs between builds: current ones answer
 * -32602 `Session ID 不存在` ("does not exist"), the simulator `session not found: <id>`.
 */
export function isSessionNotFound(error: unknown): boolean {
  if (!(error instanceof ZcodeError)) return false;
  if (error.code === -32002) return true;
  return /session (?:not found|does not exist|unknown)|no such session|unknown session|session\s*id\s*不存在/i.test(error.message);
}

/** What zcode says when a session is busy (docs/zcode-protocol.md "Errors zcode answers": "A prompt is already running for this session"). */
const BUSY_TEXT = /already running|prompt is running|is busy|still running/i;

/**
 * "A prompt is already running", by code AND message: -32010 also carries other
 * refusals ("Subagent sessions are read-only") that a retry cannot fix and that must reach the user
 * at once. 1308 (older builds) is busy by code alone.
 */
export function isBusy(error: unknown): boolean {
  if (!(error instanceof ZcodeError)) return false;
  if (error.code === ZcodeErrorCode.Busy) return true;
  return BUSY_TEXT.test(error.message) && (error.code === ZcodeErrorCode.AlreadyRunning || error.code < 0);
}

/** The session was evicted after idling: resume it and retry once. */
export function isNotActive(error: unknown): boolean {
  return error instanceof ZcodeError && error.code === ZcodeErrorCode.SessionNotActive;
}

/** Exhaustiveness guard for switches over the bridge's own unions: a new variant must fail to compile, not fall through. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
