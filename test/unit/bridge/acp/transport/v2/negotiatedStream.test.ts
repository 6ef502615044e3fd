/**
 * The version of a connection is chosen by its first `initialize` (negotiatedStream.ts): a v1
 * connection passes every message through as the same object, both ways; a v2 one is translated;
 * a message before `initialize` goes through untouched; the choice is never revisited.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { negotiatedStream, requestedVersion } from '../../../../../../bridge/acp/transport/v2/negotiatedStream.ts';

/** A transport whose input the test feeds and whose output it collects, wrapped by `negotiatedStream`. */
function wrapped() {
  const input = new TransformStream<AnyMessage, AnyMessage>();
  const written: AnyMessage[] = [];
  const versions: number[] = [];
  const transport: Stream = { readable: input.readable, writable: new WritableStream({ write: (m) => void written.push(m) }) };
  let n = 0;
  const stream = negotiatedStream(transport, (v) => versions.push(v), () => `id${++n}`);
  const feeder = input.writable.getWriter();
  const reader = stream.readable.getReader();
  const writer = stream.writable.getWriter();
  return {
    written,
    versions,
    async deliver(message: Msg): Promise<AnyMessage> {
      void feeder.write(message as unknown as AnyMessage);
      const { value } = await reader.read();
      return value as AnyMessage;
    },
    async answer(message: Msg): Promise<void> {
      await writer.write(message as unknown as AnyMessage);
    },
  };
}

type Msg = Record<string, unknown>;

describe('negotiatedStream', () => {
  test('a v1 connection is passed through untouched, both ways, even when a later initialize asks for 2', async () => {
    const w = wrapped();
    const early = { jsonrpc: '2.0', id: 0, method: 'session/new', params: { cwd: '/w' } };
    assert.equal(await w.deliver(early), early as unknown, 'before initialize: untouched');
    assert.deepEqual(w.versions, []);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } };
    assert.equal(await w.deliver(init), init as unknown);
    const again = { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 2, info: { name: 'c', version: '1' } } };
    assert.equal(await w.deliver(again), again as unknown, 'the choice is not revisited');
    const update = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'plan', entries: [] } } };
    await w.answer(update);
    assert.equal(w.written[0], update as unknown);
    assert.deepEqual(w.versions, [1]);
  });

  test('a v2 connection is translated: its initialize reaches the handlers as v1, their answer leaves as v2', async () => {
    const w = wrapped();
    const init = await w.deliver({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 2, info: { name: 'c', version: '1' } } });
    assert.deepEqual((init as { params: Msg }).params.clientInfo, { name: 'c', version: '1' });
    await w.answer({ jsonrpc: '2.0', id: 1, result: { protocolVersion: 1, agentInfo: { name: 'zcode-acp', version: '0' }, agentCapabilities: {}, authMethods: [] } });
    assert.deepEqual((w.written[0] as { result: Msg }).result.info, { name: 'zcode-acp', version: '0' });
    await w.answer({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'current_mode_update', currentModeId: 'plan' } } });
    assert.equal(w.written.length, 1, 'no v2 form: not sent');
    // A request the translator answers itself never reaches the handlers; the next message does.
    const next = w.deliver({ jsonrpc: '2.0', id: 2, method: 'session/resume', params: { sessionId: 's', cwd: '/w', replayFrom: { type: '_x' } } });
    void w.deliver({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} });
    assert.equal(((await next) as { id: unknown }).id, 3);
    assert.equal((w.written[1] as { error: { code: number } }).error.code, -32602);
    assert.deepEqual(w.versions, [2]);
  });

  test('the version asked: 2 and above is v2, anything else in an initialize is v1, other messages none', () => {
    const init = (params: unknown): AnyMessage => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params }) as AnyMessage;
    assert.equal(requestedVersion(init({ protocolVersion: 2 })), 2);
    assert.equal(requestedVersion(init({ protocolVersion: 9 })), 2);
    assert.equal(requestedVersion(init({ protocolVersion: 1 })), 1);
    assert.equal(requestedVersion(init({ protocolVersion: '2' })), 1);
    assert.equal(requestedVersion(init(undefined)), 1);
    assert.equal(requestedVersion({ jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: 2 } } as AnyMessage), undefined);
  });
});
