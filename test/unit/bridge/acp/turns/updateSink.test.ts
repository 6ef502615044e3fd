/** updateSink.ts: streaming text is merged within a burst (until the owner flushes), never across messages, past other updates or beyond 64 KiB. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { UpdateSink } from '../../../../../bridge/acp/turns/updateSink.ts';

const chunk = (text: string, messageId = 'm1', kind: 'agent_message_chunk' | 'agent_thought_chunk' = 'agent_message_chunk'): SessionUpdate => ({
  sessionUpdate: kind,
  content: { type: 'text', text },
  messageId,
});
const turns = (n: number): Promise<void> => (n === 0 ? Promise.resolve() : new Promise((r) => setImmediate(() => void turns(n - 1).then(r))));

describe('UpdateSink', () => {
  test('a burst of deltas of one message becomes one update; a new message or kind starts another', () => {
    const sent: SessionUpdate[] = [];
    const sink = new UpdateSink((u) => sent.push(u));
    for (const t of ['a', 'b', 'c']) sink.push(chunk(t));
    sink.push(chunk('x', 'm1', 'agent_thought_chunk'));
    sink.push(chunk('d', 'm2'));
    sink.flush();
    assert.deepEqual(sent, [chunk('abc'), chunk('x', 'm1', 'agent_thought_chunk'), chunk('d', 'm2')]);
  });

  test('any other update sends the held text first (order is kept)', () => {
    const sent: SessionUpdate[] = [];
    const sink = new UpdateSink((u) => sent.push(u));
    sink.push(chunk('a'));
    sink.push(chunk('b'));
    const usage: SessionUpdate = { sessionUpdate: 'usage_update', used: 1, size: 2 };
    sink.push(usage);
    assert.deepEqual(sent, [chunk('ab'), usage]);
  });

  test('different _meta (a background turn) is never merged with the user turn', () => {
    const sent: SessionUpdate[] = [];
    const sink = new UpdateSink((u) => sent.push(u));
    sink.push(chunk('a'));
    sink.push({ ...chunk('b'), _meta: { zcode: { background: true } } } as SessionUpdate);
    sink.flush();
    assert.equal(sent.length, 2);
  });

  test('no timer sends held text: it waits for the flush that ends the burst, however many turns pass', async () => {
    const sent: SessionUpdate[] = [];
    const sink = new UpdateSink((u) => sent.push(u));
    sink.push(chunk('a'));
    sink.push(chunk('b'));
    await turns(10);
    assert.deepEqual(sent, [], 'held: the burst has not ended');
    assert.equal(sink.holding, true);
    sink.flush();
    assert.deepEqual(sent, [chunk('ab')]);
    assert.equal(sink.holding, false);
  });

  test('a chunk never grows past 64 KiB: a long burst is cut', () => {
    const sent: SessionUpdate[] = [];
    const sink = new UpdateSink((u) => sent.push(u));
    const piece = 'x'.repeat(1024);
    for (let i = 0; i < 100; i++) sink.push(chunk(piece));
    sink.flush();
    assert.equal(sent.length, 2);
    assert.equal(sent.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('').length, 100 * 1024);
  });
});
