/**
 * `session/event` notifications, parsed once at the boundary (no `as` on wire data).
 *
 * Unknown event types are normal (zcode adds them: resource samples, new lifecycle steps): they
 * are logged at debug and skipped. A KNOWN type whose payload does not match is a real surprise
 * and is logged as a warning, but is skipped too — an event never brings the bridge down.
 *
 * Streaming deltas are nearly every event of a turn (one per token), so their one shape has a
 * hand-written check (`parseStreamingDelta`) in front of the `ZcodeEvent` schema. It is a fast
 * path, not a second opinion: it accepts only what the schema accepts, returns what the schema
 * would return (deep-equal), and hands everything else — including every input it rejects — to
 * the schema, whose verdict and log message are the only ones. test/unit/bridge/zcode/events.test.ts
 * compares the two on many variants; keep it passing when either side changes.
 */
import type { Logger } from '../../logger.ts';
import type { NotificationLane } from '../lineReader.ts';
import { StateUpdatedPayload, ZcodeEvent } from '../protocol.ts';
import type { EventOf, ModelStreamingPayload } from '../protocol.ts';
import type { UnknownFields } from '../unknownFields.ts';

export const SESSION_EVENT_METHOD = 'session/event';
/** Current builds send state changes as their own notification (docs/zcode-protocol.md "Events", the era differences). */
export const STATE_UPDATED_METHOD = 'state.updated';

/**
 * A top-level `state.updated` notification `{type, scope, sessionId?, revision, reason?, patch}` as
 * the `state.updated` session event the rest of the bridge knows. Server- and workspace-scoped
 * changes (no `sessionId`) concern no session and are skipped, like a malformed notification.
 */
export function stateUpdatedEvent(params: unknown, logger: Logger): EventOf<'state.updated'> | undefined {
  if (!isRecord(params) || typeof params.sessionId !== 'string' || params.sessionId === '') {
    logger.debug(`ignoring a state.updated without a session (scope ${isRecord(params) ? String(params.scope) : 'unknown'})`);
    return undefined;
  }
  const parsed = StateUpdatedPayload.safeParse(params);
  if (!parsed.success) {
    logger.warn(`skipping malformed state.updated: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return undefined;
  }
  return { sessionId: params.sessionId, type: 'state.updated', payload: parsed.data };
}

/** The `type`s `ZcodeEvent` knows, read from the schema itself so the two never drift. */
const KNOWN_TYPES: ReadonlySet<string> = new Set(ZcodeEvent.options.map((option) => option.shape.type.value));

/** Parse one `session/event` params object; undefined when it is skipped (and logged). */
export function parseZcodeEvent(params: unknown, logger: Logger): ZcodeEvent | undefined {
  const fast = parseStreamingDelta(params);
  if (fast) return fast;
  const parsed = ZcodeEvent.safeParse(params);
  if (parsed.success) return parsed.data;
  const type = isRecord(params) ? params.type : undefined;
  if (typeof type === 'string' && !KNOWN_TYPES.has(type)) {
    logger.debug(`skipping zcode event of unknown type "${type}"`);
  } else {
    logger.warn(`skipping malformed zcode event${typeof type === 'string' ? ` "${type}"` : ''}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return undefined;
}

/** The two payloads the fast path knows: a text or a reasoning delta. */
export type DeltaPayload = Extract<ModelStreamingPayload, { kind: 'text_delta' | 'reasoning_delta' }>;

/**
 * The hot shape, `model.streaming` with a `text_delta` / `reasoning_delta` payload, checked by
 * hand. Returns the event `ZcodeEvent.parse` would return, or undefined when `params` is anything
 * else (valid or not): the caller then asks the schema. Never logs.
 *
 * Mirrors the schema exactly: the envelope is rebuilt with only its declared keys (zod strips the
 * others; `seq` is kept when present, as zod does for an optional key); the payload is
 * `.passthrough()`, so the parsed object itself is kept — the schema would copy it key for key,
 * which only changes key order.
 */
export function parseStreamingDelta(params: unknown): EventOf<'model.streaming'> | undefined {
  if (!isRecord(params) || params.type !== 'model.streaming') return undefined;
  const { sessionId, payload } = params;
  if (typeof sessionId !== 'string' || !isDeltaPayload(payload)) return undefined;
  if (!('seq' in params)) return { sessionId, type: 'model.streaming', payload };
  const { seq } = params;
  // z.number() refuses NaN and ±Infinity (`1e400` parses to Infinity).
  if (seq !== undefined && !(typeof seq === 'number' && Number.isFinite(seq))) return undefined;
  return { sessionId, seq, type: 'model.streaming', payload };
}

function isDeltaPayload(value: unknown): value is DeltaPayload {
  if (!isRecord(value)) return false;
  const { kind, delta, messageId, assistantMessageId } = value;
  return (
    (kind === 'text_delta' || kind === 'reasoning_delta') &&
    typeof delta === 'string' &&
    (messageId === undefined || typeof messageId === 'string') &&
    (assistantMessageId === undefined || typeof assistantMessageId === 'string') &&
    // zod never copies an undeclared `__proto__` key into its output; leave that oddity to it.
    !Object.hasOwn(value, '__proto__')
  );
}

/** A plain object, as z.object() means it (not null, not an array). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `session/event` as a lane of the line reader (lineReader.ts): delivered as its line is read, in
 * stream order. Streaming deltas take the hand-checked fast path; every other event is validated
 * by the schema.
 */
export function sessionEventLane(logger: Logger, fire: (event: ZcodeEvent) => void, unknownFields?: UnknownFields): NotificationLane {
  return {
    deliver(params) {
      const delta = parseStreamingDelta(params);
      if (delta) return fire(delta);
      unknownFields?.noteEvent(params);
      const event = parseZcodeEvent(params, logger);
      if (event) fire(event);
    },
  };
}

/**
 * A zcode notification as a session event, or undefined: `state.updated` (its own notification on
 * current builds) reaches the translator as the seed-era `state.updated` session event would have;
 * `session/event` is parsed; anything else (`startup/storageState`, telemetry, resource samples)
 * is not for the bridge.
 */
export function eventOfNotification(method: string, params: unknown, logger: Logger, unknownFields: UnknownFields): ZcodeEvent | undefined {
  if (method === STATE_UPDATED_METHOD) return stateUpdatedEvent(params, logger);
  if (method !== SESSION_EVENT_METHOD) {
    logger.debug(`ignoring zcode notification ${method}`);
    return undefined;
  }
  unknownFields.noteEvent(params);
  return parseZcodeEvent(params, logger);
}
