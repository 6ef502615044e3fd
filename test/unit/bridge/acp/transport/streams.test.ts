/**
 * The in-process link (bridge/acp/transport/streams.ts): every tap sees every message in order; a
 * notification a tap says it `'delivered'` is not passed on to the other side (its SDK would only
 * parse it again), while requests and responses always are; a throwing tap does not break the link.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { linkedStreams, type MessageTap } from '../../../../../bridge/acp/transport/streams.ts';

const update = (text: string): AnyMessage => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
const label = (m: AnyMessage): string => ('method' in m ? m.method : `answer ${String(m.id)}`);

/** Writes `messages` on the agent side and reads what reaches the client side, up to a last marker request. */
async function carry(taps: MessageTap[], messages: AnyMessage[]): Promise<string[]> {
  const { agentSide, clientSide } = linkedStreams({ kind: 'local' }, taps);
  const writer = agentSide.writable.getWriter();
  for (const m of [...messages, { jsonrpc: '2.0', id: 'end', method: 'end' } as AnyMessage]) void writer.write(m);
  const reader = clientSide.readable.getReader();
  const read: string[] = [];
  for (;;) {
    const { value } = await reader.read();
    assert.ok(value);
    if ('id' in value && value.id === 'end') return read;
    read.push(label(value));
  }
}

describe('in-process link', () => {
  test('a notification a tap delivered itself is not passed on; the others, requests and answers are, and every tap saw all', async () => {
    const seen: string[] = [];
    const deliverUpdates: MessageTap = (direction, m) => ('method' in m && m.method === 'session/update' ? 'delivered' : undefined);
    const watch: MessageTap = (direction, m) => void seen.push(`${direction} ${label(m)}`);
    const read = await carry([watch, deliverUpdates], [
      update('one'),
      { jsonrpc: '2.0', method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'queued' } },
      { jsonrpc: '2.0', id: 3, method: 'session/request_permission', params: {} },
      update('two'),
      { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
    ]);
    assert.deepEqual(read, ['_zcode/session/steerState', 'session/request_permission', 'answer 1']);
    assert.deepEqual(seen, ['out session/update', 'out _zcode/session/steerState', 'out session/request_permission', 'out session/update', 'out answer 1', 'out end']);
  });

  test('a request or an answer is passed on even when a tap says it delivered it', async () => {
    const read = await carry([() => 'delivered'], [
      { jsonrpc: '2.0', id: 3, method: 'session/request_permission', params: {} },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
    assert.deepEqual(read, ['session/request_permission', 'answer 1']);
  });

  test('without a delivering tap every message is passed on; a throwing tap breaks nothing', async () => {
    const read = await carry([() => { throw new Error('tap broke'); }], [update('one'), update('two')]);
    assert.deepEqual(read, ['session/update', 'session/update']);
  });
});
