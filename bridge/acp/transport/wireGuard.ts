/**
 * The ACP input boundary shared by the stdio and WebSocket transports: one decoded message text
 * in, either a message the SDK may see or the error response to send instead.
 *
 * Why this exists: the SDK answers a message that is not a JSON-RPC envelope with a
 * -32600 that echoes the whole message back (`RequestError.invalidRequest(message)`). Echoing a
 * 5,000-deep array overflows `JSON.stringify`, the write rejects, the output stream errors and the
 * bridge ends. So everything that could be echoed or walked recursively is checked here first,
 * on the raw text, without recursion: nesting depth, then the envelope shape. A rejected message
 * is answered with a short error carrying the request's id when one can be read (so the client's
 * request does not hang), never with the input itself.
 */
import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { LogThrottle } from '../../zcode/logThrottle.ts';

/** Deepest nesting accepted. ACP messages are shallow; 256 leaves room for `_meta` and tool input. */
export const MAX_NESTING_DEPTH = 256;
/** Same limit as the SDK's ndjson framing (`DEFAULT_MAX_MESSAGE_BYTES`): room for image prompts. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export type JsonRpcId = string | number | null;

export interface ErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: { code: number; message: string };
}

export type Checked =
  | { ok: true; message: AnyMessage }
  /** `reason` is for the log: short, and never the input. */
  | { ok: false; response: ErrorResponse; reason: string };

/** The JSON-RPC error answer (`-32700` parse error, `-32600` invalid request) for `id`. */
export function errorResponse(id: JsonRpcId, code: number, message: string): ErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Check one incoming message text (a stdio line or a WebSocket text frame). */
export function checkIncoming(text: string, maxDepth = MAX_NESTING_DEPTH): Checked {
  const scan = scanEnvelope(text, maxDepth);
  if (scan.depthExceeded) {
    return reject(scan.id, -32600, `Invalid Request: the message nests deeper than ${maxDepth} levels`, `nesting deeper than ${maxDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reject(null, -32700, 'Parse error: the message is not valid JSON', 'malformed JSON');
  }
  if (Array.isArray(value)) return reject(null, -32600, 'Invalid Request: JSON-RPC batches are not supported', 'a batch');
  if (!isEnvelope(value)) {
    return reject(scan.id, -32600, 'Invalid Request: expected a JSON-RPC 2.0 request, response or notification object', 'not a JSON-RPC 2.0 message');
  }
  return { ok: true, message: value };
}

/** The answer to a message that was too large to read (only its first bytes are known). */
export function oversizedResponse(prefix: string, maxBytes: number): ErrorResponse {
  return errorResponse(scanEnvelope(prefix, Number.MAX_SAFE_INTEGER).id, -32600, `Invalid Request: the message exceeds ${maxBytes} bytes`);
}

function reject(id: JsonRpcId, code: number, message: string, reason: string): Checked {
  return { ok: false, response: errorResponse(id, code, message), reason };
}

/**
 * The SDK's own acceptance rule, minus the echo: a `jsonrpc:"2.0"` object with a string method
 * (request / notification), or a response-shaped object (which the SDK correlates or drops).
 */
function isEnvelope(value: unknown): value is AnyMessage {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if ('method' in record) return record.jsonrpc === '2.0' && typeof record.method === 'string';
  return 'id' in record || 'result' in record || 'error' in record;
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * One linear pass over the text, no recursion: whether the nesting goes past `maxDepth`, and
 * the top-level `"id"` when it is a string or a number (the pass goes on after a too-deep part,
 * since the id may follow it). Works on truncated text (the prefix of an oversized line). Not a validator: it trusts
 * JSON.parse for that, and only needs to be right on valid JSON.
 */
export function scanEnvelope(text: string, maxDepth: number): { depthExceeded: boolean; id: JsonRpcId } {
  let depth = 0;
  let depthExceeded = false;
  let id: JsonRpcId = null;
  let idFound = false;
  /** At depth 1 of an object, the next string is a key. */
  let expectKey = false;
  let lastKey: string | undefined;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      if (depth === 1 && expectKey) {
        lastKey = end - i === 3 && text.startsWith('"id"', i) ? 'id' : '';
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > maxDepth) depthExceeded = true;
      if (depth === 1) expectKey = c === OPEN_BRACE;
      lastKey = undefined;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && depth === 1) {
      expectKey = true;
      lastKey = undefined;
    } else if (c === COLON && depth === 1 && lastKey === 'id' && !idFound) {
      idFound = true;
      id = readScalarId(text, i + 1);
    }
    i++;
  }
  return { depthExceeded, id };
}

/** Index of the closing quote of the string starting at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let k = quote - 1; k > start && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** A string or number value starting at `from` (after whitespace); anything else is null. */
function readScalarId(text: string, from: number): JsonRpcId {
  const match = /^\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,20}(?:\.\d{1,20})?(?:[eE][+-]?\d{1,5})?)/.exec(text.slice(from, from + 300));
  if (!match) return null;
  try {
    const value: unknown = JSON.parse(match[1]);
    return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? value : null;
  } catch {
    return null;
  }
}

/** Outgoing requests remembered for correlation; beyond this the oldest is forgotten (bounded memory). */
const MAX_TRACKED_REQUESTS = 10_000;

/**
 * Which incoming responses answer a request the agent side really sent. The SDK logs every other
 * one with `console.error` ("Got response to unknown request"), unthrottled, so a peer sending
 * stray responses in a loop could flood stderr: the transports drop them here, with a throttled
 * log line, before the SDK sees them.
 */
export class ResponseCorrelation {
  private readonly outstanding = new Set<string | number>();

  /** Call for every message written to the peer. */
  noteOutgoing(message: AnyMessage): void {
    if (!('method' in message) || !('id' in message)) return;
    const id = (message as { id: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    this.outstanding.add(id);
    if (this.outstanding.size > MAX_TRACKED_REQUESTS) this.outstanding.delete(this.outstanding.values().next().value as string | number);
  }

  /** False for a response to nothing we asked (drop it); true for everything else. */
  acceptIncoming(message: AnyMessage): boolean {
    if ('method' in message) return true;
    const id = (message as { id?: unknown }).id;
    if ((typeof id === 'string' || typeof id === 'number') && this.outstanding.delete(id)) return true;
    return false;
  }
}

/**
 * JSON text of an outgoing message, or undefined when it cannot be serialised (logged). A response
 * that cannot be serialised becomes a -32603 for the same id, so the peer's request still ends.
 */
export function serialise(message: AnyMessage, log: LogThrottle): string | undefined {
  try {
    return sharedText(message) ?? JSON.stringify(message);
  } catch (error) {
    const id = (message as { id?: unknown }).id;
    const what = 'method' in message ? `${String((message as { method: unknown }).method)}` : 'a response';
    log.log('error', 'serialise', `could not serialise outgoing ${what}: ${error instanceof Error ? error.message : String(error)}`);
    if (!('method' in message) && (typeof id === 'string' || typeof id === 'number')) {
      return JSON.stringify(errorResponse(id, -32603, 'Internal error: the response could not be serialised'));
    }
    return undefined;
  }
}

/**
 * Broadcast notifications: the params object every client's connection was handed, with its method
 * and, once the first transport serialised it, the message text. The SDK builds a fresh
 * `{jsonrpc, method, params}` per connection around the same params, so without this an update to
 * 8 clients is stringified 8 times. Only objects `ClientRegistry.broadcast` marks are
 * cached, and the bridge never mutates an update after broadcasting it.
 */
const broadcastText = new WeakMap<object, { method: string; text?: string }>();

/** Mark `params` as broadcast under `method`: the transports serialise its notification once. */
export function markBroadcast(method: string, params: unknown): void {
  if (typeof params === 'object' && params !== null) broadcastText.set(params, { method });
}

function sharedText(message: AnyMessage): string | undefined {
  if (!('method' in message) || 'id' in message) return undefined;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const entry = broadcastText.get(params);
  if (entry?.method !== message.method) return undefined;
  entry.text ??= JSON.stringify(message);
  return entry.text;
}
