/**
 * What any error says about itself, without vscode (the chat's host side uses these too): its
 * message, its JSON-RPC or zcode code, and whether it is JSON-RPC's "request cancelled".
 * Classifying an error for the user is errors.ts.
 */

/** JSON-RPC's "request cancelled" (a `$/cancel_request`, or an abort while waiting). */
export const REQUEST_CANCELLED = -32800;

/** Turns an error of any origin (RequestError, ZcodeError, Error, string) into one plain sentence. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return String(error);
}

/** The JSON-RPC / backend error code of an error, when it has one. */
export function errorCode(error: unknown): number | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'number') return error.code;
  return undefined;
}

/** The error is JSON-RPC's "request cancelled". */
export function isRequestCancelled(error: unknown): boolean {
  return errorCode(error) === REQUEST_CANCELLED;
}
