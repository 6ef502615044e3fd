/**
 * The hand-written fast path for streaming deltas (`parseStreamingDelta`) against the schema it
 * stands in front of (`ZcodeEvent`). Property style: many variants of the hot shape, each a JSON
 * text parsed the way the line reader parses it, and for every one:
 *
 * - the fast path accepts ⇔ the schema accepts it as a text/reasoning delta (the one documented
 *   exception: an own `__proto__` key, which zod drops, is left to zod);
 * - when it accepts, it returns exactly what the schema returns (deep-equal);
 * - `parseZcodeEvent` (fast path, then schema) always returns what the schema alone returns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStreamingDelta, parseZcodeEvent, sessionEventLane } from '../../../../../bridge/zcode/legacy/sessionEvents.ts';
import { ZcodeEvent } from '../../../../../bridge/zcode/protocol.ts';
import { testLogger } from '../../../../helpers/sim.ts';

/** A JSON fragment for one key: `undefined` leaves the key out. */
type Part = string | undefined;

const PARAMS_NON_OBJECTS = ['null', '1', '"model.streaming"', '[]', '[{"type":"model.streaming"}]', 'true'];
const TYPES: Part[] = ['"model.streaming"', undefined, '"model.streamingx"', '"turn.started"', '"Model.Streaming"', '5', 'null'];
const SESSION_IDS: Part[] = ['"sess_1"', '""', undefined, '5', 'null', '["sess_1"]', '{}'];
const SEQS: Part[] = [undefined, '0', '7', '-1', '1.5', '1e400', '-1e400', '"7"', 'null', 'true', '[]'];
const ENVELOPE_EXTRAS: string[] = ['', ',"extra":1', ',"jsonrpc":"2.0"', ',"payloadType":"x"', ',"__proto__":{"x":1}'];
const PAYLOAD_NON_OBJECTS = ['null', '"text_delta"', '[]', '5', undefined];
const KINDS: Part[] = ['"text_delta"', '"reasoning_delta"', '"tool_call"', '"TEXT_DELTA"', undefined, '5', 'null'];
const DELTAS: Part[] = ['"x"', '""', '"héllo ✓\\n\\"quoted\\""', undefined, '5', 'null', '{}', '["x"]'];
const MESSAGE_IDS: Part[] = [undefined, '"msg_1"', '""', 'null', '5', '{}'];
const PAYLOAD_EXTRAS: string[] = ['', ',"extra":{"a":[1,null]}', ',"kind2":1', ',"toolCallId":"c"', ',"__proto__":{"polluted":true}', ',"constructor":1'];

function object(fields: [string, Part][], extra = ''): string {
  const body = fields.filter(([, v]) => v !== undefined).map(([k, v]) => `"${k}":${v}`);
  const joined = body.join(',');
  return `{${joined}${joined === '' ? extra.replace(/^,/, '') : extra}}`;
}

function payload(kind: Part, delta: Part, messageId: Part, extra: string): string {
  return object(
    [
      ['kind', kind],
      ['delta', delta],
      ['messageId', messageId],
    ],
    extra,
  );
}

function envelope(type: Part, sessionId: Part, seq: Part, payloadJson: Part, extra: string): string {
  return object(
    [
      ['sessionId', sessionId],
      ['seq', seq],
      ['type', type],
      ['payload', payloadJson],
    ],
    extra,
  );
}

/** A small deterministic PRNG, so a failure names a reproducible variant. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function variants(): string[] {
  const out = new Set<string>();
  const validPayload = payload('"text_delta"', '"x"', '"msg_1"', '');
  // Every payload variant in a valid envelope (with and without seq).
  for (const kind of KINDS)
    for (const delta of DELTAS)
      for (const messageId of MESSAGE_IDS)
        for (const extra of PAYLOAD_EXTRAS) {
          out.add(envelope('"model.streaming"', '"sess_1"', '3', payload(kind, delta, messageId, extra), ''));
          out.add(envelope('"model.streaming"', '"sess_1"', undefined, payload(kind, delta, messageId, extra), ''));
        }
  for (const p of PAYLOAD_NON_OBJECTS) out.add(envelope('"model.streaming"', '"sess_1"', '3', p, ''));
  // Every envelope variant around a valid payload.
  for (const type of TYPES) for (const sessionId of SESSION_IDS) for (const seq of SEQS) for (const extra of ENVELOPE_EXTRAS) out.add(envelope(type, sessionId, seq, validPayload, extra));
  for (const p of PARAMS_NON_OBJECTS) out.add(p);
  // And a random sample of the whole product.
  const next = rng(0x5eed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  for (let i = 0; i < 20_000; i++) {
    const p = next() < 0.05 ? pick(PAYLOAD_NON_OBJECTS) : payload(pick(KINDS), pick(DELTAS), pick(MESSAGE_IDS), pick(PAYLOAD_EXTRAS));
    out.add(envelope(pick(TYPES), pick(SESSION_IDS), pick(SEQS), p, pick(ENVELOPE_EXTRAS)));
  }
  return [...out];
}

function isHotKind(data: ZcodeEvent): boolean {
  return data.type === 'model.streaming' && (data.payload.kind === 'text_delta' || data.payload.kind === 'reasoning_delta');
}

function hasOwnProtoInPayload(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !('payload' in value)) return false;
  const p = value.payload;
  return typeof p === 'object' && p !== null && Object.hasOwn(p, '__proto__');
}

test('fast path ⇔ schema on every variant of the streaming-delta shape', () => {
  const all = variants();
  assert.ok(all.length > 10_000, `only ${all.length} variants`);
  const logger = testLogger('events');
  let fastAccepted = 0;
  let schemaAccepted = 0;
  for (const text of all) {
    const params: unknown = JSON.parse(text);
    const schema = ZcodeEvent.safeParse(params);
    const fast = parseStreamingDelta(params);
    const context = `variant ${text}`;
    if (fast) {
      fastAccepted++;
      assert.ok(schema.success, `fast path accepted what the schema rejects: ${context}`);
      assert.deepStrictEqual(fast, schema.data, context);
    } else if (schema.success && isHotKind(schema.data)) {
      assert.ok(hasOwnProtoInPayload(params), `fast path refused a valid delta: ${context}`);
    }
    if (schema.success) schemaAccepted++;
    // The combination the bridge uses is the schema, exactly.
    const combined = parseZcodeEvent(params, logger);
    if (schema.success) assert.deepStrictEqual(combined, schema.data, context);
    else assert.equal(combined, undefined, context);
  }
  // The variants must exercise both sides, or the comparison proves nothing.
  assert.ok(fastAccepted > 200, `fast path accepted only ${fastAccepted}`);
  assert.ok(schemaAccepted > fastAccepted, 'some valid non-delta events too');
  assert.ok(all.length - schemaAccepted > 5_000, 'and many invalid ones');
});

test('fast path on values JSON cannot produce: undefined keys, NaN, Infinity', () => {
  const cases: unknown[] = [
    { sessionId: 's', seq: undefined, type: 'model.streaming', payload: { kind: 'text_delta', delta: 'x' } },
    { sessionId: 's', seq: NaN, type: 'model.streaming', payload: { kind: 'text_delta', delta: 'x' } },
    { sessionId: 's', seq: Infinity, type: 'model.streaming', payload: { kind: 'text_delta', delta: 'x' } },
    { sessionId: 's', type: 'model.streaming', payload: { kind: 'reasoning_delta', delta: 'x', messageId: undefined } },
    { sessionId: 's', type: 'model.streaming', payload: { kind: 'text_delta', delta: 'x', other: undefined } },
  ];
  for (const params of cases) {
    const schema = ZcodeEvent.safeParse(params);
    const fast = parseStreamingDelta(params);
    if (fast) {
      assert.ok(schema.success, String(params));
      assert.deepStrictEqual(fast, schema.data);
    } else {
      assert.ok(!schema.success || !isHotKind(schema.data), 'a valid delta took the slow path');
    }
  }
});

test('the session/event lane: deltas on the fast path, everything else (valid or not) through the schema, logged as before', () => {
  const logger = testLogger('lane');
  const fired: ZcodeEvent[] = [];
  const lane = sessionEventLane(logger, (e) => fired.push(e));
  lane.deliver({ sessionId: 's', seq: 1, type: 'model.streaming', payload: { kind: 'text_delta', delta: 'a' } });
  lane.deliver({ sessionId: 's', seq: 2, type: 'turn.started', payload: {} });
  lane.deliver({ sessionId: 's', seq: 3, type: 'model.streaming', payload: { kind: 'text_delta', delta: 5 } });
  lane.deliver({ sessionId: 's', seq: 4, type: 'resource.sample', payload: {} });
  assert.deepEqual(
    fired.map((e) => e.seq),
    [1, 2],
  );
  assert.equal(logger.find('warn', 'malformed zcode event "model.streaming"').length, 1);
  assert.equal(logger.find('debug', 'unknown type "resource.sample"').length, 1);
});
