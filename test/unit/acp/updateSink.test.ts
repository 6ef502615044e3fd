/** updateSink.ts: streaming text is merged while deltas keep coming, never across messages or past other updates. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { UpdateSink } from '../../../bridge/acp/updateSink.ts';

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

  test('a lone delta goes out by itself two event-loop turns later; a steady stream is cut within a few ms', async () => {
    const sent: SessionUpdate[] = [];
    const sink = new UpdateSink((u) => sent.push(u));
    sink.push(chunk('solo'));
    await turns(3);
    assert.deepEqual(sent, [chunk('solo')]);
    // One delta per event-loop turn for ~20 ms: flushed periodically, not only at the end.
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < 20) {
      sink.push(chunk('x'));
      n++;
      await turns(1);
    }
    await turns(3);
    const text = sent.slice(1).map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
    assert.equal(text.length, n);
    assert.ok(sent.length - 1 >= 2, `cut into ${sent.length - 1} updates`);
    assert.ok(sent.length - 1 < n, 'merged');
  });
});
