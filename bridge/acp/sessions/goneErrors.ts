/**
 * The -32002 (resource not found) answers for a conversation that is gone, with the reason under
 * `data` (docs/acp.md "Errors"): the client learns that retrying will not help and why.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { ZcodeError } from '../../zcode/backend.ts';

/** zcode no longer has the conversation (it answered "not found" or "not active" to the resume). */
export function goneError(sessionId: string, cause: unknown): RequestError {
  const zcode = cause instanceof ZcodeError ? { zcode: { code: cause.code, message: cause.message } } : {};
  return new RequestError(-32002, `Session ${sessionId} not found: zcode no longer has this conversation`, { sessionId, reason: 'goneInZcode', ...zcode });
}

/** A client deleted the conversation (`session/delete`). */
export function deletedError(sessionId: string): RequestError {
  return new RequestError(-32002, `Session ${sessionId} not found: it was deleted`, { sessionId, reason: 'deleted' });
}
