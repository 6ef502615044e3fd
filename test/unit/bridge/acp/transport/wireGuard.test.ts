/** The ACP input boundary: depth, envelope, id peeking, bounded line splitting, stray responses. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedLineSplitter } from '../../../../../bridge/acp/transport/stdioStream.ts';
import { checkIncoming, markBroadcast, oversizedResponse, ResponseCorrelation, scanEnvelope, serialise } from '../../../../../bridge/acp/transport/wireGuard.ts';
import { LogThrottle } from '../../../../../bridge/zcode/logThrottle.ts';
import { testLogger } from '../../../../helpers/sim.ts';

test('scanEnvelope reads the top-level id wherever it is, ignoring ids nested or inside strings', () => {
  assert.deepEqual(scanEnvelope('{"method":"x","params":{"id":9,"s":"\\"id\\":3"},"id":"abc"}', 10), { depthExceeded: false, id: 'abc' });
  assert.deepEqual(scanEnvelope('{"id" : -12.5e3, "x": [[[]]]}', 2), { depthExceeded: true, id: -12500 });
  assert.deepEqual(scanEnvelope('{"id":{"a":1}}', 10).id, null);
  assert.deepEqual(scanEnvelope('{"params":"\\\\","id":4}', 10).id, 4);
});

test('checkIncoming: too deep → -32600 with the id before any parse; invalid JSON → -32700; no envelope → -32600 without echo', () => {
  const deep = checkIncoming(`{"jsonrpc":"2.0","method":"x","params":${'['.repeat(300)}${']'.repeat(300)},"id":3}`);
  assert.equal(deep.ok, false);
  assert.deepEqual(!deep.ok && deep.response, { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: the message nests deeper than 256 levels' } });
  const bad = checkIncoming('{"id":1,');
  assert.equal(!bad.ok && bad.response.error.code, -32700);
  const batch = checkIncoming('[{"jsonrpc":"2.0","id":1,"method":"x"}]');
  assert.equal(!batch.ok && batch.response.error.code, -32600);
  const noVersion = checkIncoming('{"id":2,"method":"initialize","params":{"secret":"s3cr3t"}}');
  assert.equal(!noVersion.ok && noVersion.response.id, 2);
  assert.ok(!JSON.stringify(noVersion).includes('s3cr3t'));
  assert.equal(checkIncoming('"just a string"').ok, false);
  const fine = checkIncoming(`{"jsonrpc":"2.0","id":1,"method":"x","params":${'['.repeat(255)}${']'.repeat(255)}}`);
  assert.equal(fine.ok, true);
  assert.equal(checkIncoming('{"jsonrpc":"2.0","id":1,"result":{}}').ok, true);
});

test('an oversized line is reported once and skipped; the splitter never holds more than the limit', () => {
  const splitter = new BoundedLineSplitter(1024);
  const events: string[] = [];
  const chunk = new Uint8Array(4096).fill(0x7a);
  const head = new TextEncoder().encode('{"jsonrpc":"2.0","id":77,"method":"x","params":"');
  for (const e of splitter.push(head)) events.push(e.kind);
  // 50 MiB of one line in 4 KiB chunks.
  for (let i = 0; i < 12_800; i++) {
    for (const e of splitter.push(chunk)) {
      events.push(e.kind);
      if (e.kind === 'oversized') assert.equal(oversizedResponse(new TextDecoder().decode(e.prefix), 1024).id, 77);
    }
    assert.ok(splitter.bufferedBytes <= 1024, `held ${splitter.bufferedBytes}`);
  }
  for (const e of splitter.push(new TextEncoder().encode('"}\n{"a":1}\r\n{"b"'))) events.push(e.kind === 'line' ? new TextDecoder().decode(e.bytes) : e.kind);
  assert.deepEqual(events, ['oversized', '{"a":1}\r']);
  assert.deepEqual(new TextDecoder().decode(splitter.flush()), '{"b"');
});

test('ResponseCorrelation accepts only answers to requests that were sent, once', () => {
  const correlation = new ResponseCorrelation();
  correlation.noteOutgoing({ jsonrpc: '2.0', id: 0, method: 'session/request_permission', params: {} });
  assert.equal(correlation.acceptIncoming({ jsonrpc: '2.0', id: 1, result: {} }), false);
  assert.equal(correlation.acceptIncoming({ jsonrpc: '2.0', id: '0', result: {} }), false);
  assert.equal(correlation.acceptIncoming({ jsonrpc: '2.0', id: 0, result: {} }), true);
  assert.equal(correlation.acceptIncoming({ jsonrpc: '2.0', id: 0, result: {} }), false);
  assert.equal(correlation.acceptIncoming({ jsonrpc: '2.0', method: 'session/cancel', params: {} }), true);
});

test('LogThrottle writes a burst per key and window, then reports what it suppressed', () => {
  let now = 0;
  const logger = testLogger();
  const throttle = new LogThrottle(logger, { burst: 3, windowMs: 1000, now: () => now });
  for (let i = 0; i < 100; i++) throttle.log('warn', 'stray', `stray ${i}`);
  throttle.log('warn', 'other', 'other kind');
  assert.deepEqual(
    logger.find('warn'),
    ['warn stray 0', 'warn stray 1', 'warn stray 2 (further similar lines suppressed for 1 s)', 'warn other kind'],
  );
  now = 1000;
  throttle.log('warn', 'stray', 'stray again');
  assert.deepEqual(logger.find('warn', 'stray again'), ['warn (97 similar line(s) suppressed) stray again']);
});

test('a broadcast notification is serialised once for every connection; other messages each time', () => {
  const log = new LogThrottle(testLogger());
  let stringified = 0;
  const counted = { toJSON: () => (stringified++, 'chunk') };
  const params = { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: counted } };
  markBroadcast('session/update', params);
  // The SDK wraps the same params in a fresh envelope per connection.
  const texts = Array.from({ length: 8 }, () => serialise({ jsonrpc: '2.0', method: 'session/update', params }, log));
  assert.equal(stringified, 1);
  assert.deepEqual(new Set(texts), new Set(['{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":"chunk"}}}']));
  // Same params under another method, as a request, or unmarked: serialised as they are.
  assert.equal(serialise({ jsonrpc: '2.0', method: '_zcode/other', params }, log), '{"jsonrpc":"2.0","method":"_zcode/other","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":"chunk"}}}');
  assert.equal(JSON.parse(serialise({ jsonrpc: '2.0', id: 4, method: 'session/update', params }, log)!).id, 4);
  assert.equal(stringified, 3);
  const unmarked = { sessionId: 's2', update: { content: counted } };
  serialise({ jsonrpc: '2.0', method: 'session/update', params: unmarked }, log);
  serialise({ jsonrpc: '2.0', method: 'session/update', params: unmarked }, log);
  assert.equal(stringified, 5);
});
