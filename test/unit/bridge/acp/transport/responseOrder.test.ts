/**
 * "After the response" is stream state (responseOrder.ts): a follow-up registered by a request
 * handler goes out after that request's response however long the handler takes to return — never
 * because a turn of the event loop has passed. Real SDK apps over the in-process link.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agent, client, RequestError } from '@agentclientprotocol/sdk';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { ResponseOrder } from '../../../../../bridge/acp/transport/responseOrder.ts';
import { linkedStreams } from '../../../../../bridge/acp/transport/streams.ts';

/** An agent whose `session/new` registers a follow-up notification, then waits for `gate` before answering (or failing). */
function world() {
  const order = new ResponseOrder();
  const out: AnyMessage[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let registered!: () => void;
  const didRegister = new Promise<void>((resolve) => (registered = resolve));
  const app = agent({ name: 'order-test' })
    .onRequest('initialize', () => ({ protocolVersion: 1 }))
    .onRequest('session/new', async ({ params, client: ctx, requestId }) => {
      order.afterResponse(requestId, () => void ctx.notify('session/update', { sessionId: 's1', update: { sessionUpdate: 'available_commands_update', availableCommands: [] } }));
      registered();
      // The handler keeps working after registering: many turns of the event loop pass.
      await gate;
      if (params.cwd === '/fail') throw RequestError.invalidParams({}, 'refused');
      return { sessionId: 's1' };
    });
  const { agentSide, clientSide } = linkedStreams({ kind: 'local' }, [
    (direction, message) => {
      if (direction === 'out') out.push(message);
    },
  ]);
  app.connect(order.wrap(agentSide));
  const updates: string[] = [];
  const connection = client({ name: 'c' })
    .onNotification('session/update', ({ params }) => void updates.push(params.update.sessionUpdate))
    .connect(clientSide);
  return { order, out, release, didRegister, connection, updates };
}

/** Turns of the event loop, to show that none of them is what orders the follow-up. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

const kinds = (out: AnyMessage[]): string[] => out.map((m) => ('method' in m ? m.method : 'error' in m ? 'error' : 'result'));

describe('ResponseOrder: a follow-up waits for its response to be written', () => {
  test('the notification follows the response even when the handler returns many turns after registering it', async () => {
    const w = world();
    await w.connection.agent.request('initialize', { protocolVersion: 1 });
    const answer = w.connection.agent.request('session/new', { cwd: '/w', mcpServers: [] });
    await w.didRegister;
    await turns(20);
    assert.deepEqual(kinds(w.out), ['result'], 'only the initialize response: the follow-up waits for its own response');
    assert.equal(w.order.pending, 1);
    w.release();
    assert.deepEqual(await answer, { sessionId: 's1' });
    // The notification is queued when the response is written: the client's own handler proves it arrived.
    await w.connection.agent.request('initialize', { protocolVersion: 1 });
    assert.deepEqual(kinds(w.out), ['result', 'result', 'session/update', 'result']);
    assert.deepEqual(w.updates, ['available_commands_update']);
    assert.equal(w.order.pending, 0);
    w.connection.close();
  });

  test('an error response drops the follow-up (nothing follows a request that failed)', async () => {
    const w = world();
    await w.connection.agent.request('initialize', { protocolVersion: 1 });
    const answer = w.connection.agent.request('session/new', { cwd: '/fail', mcpServers: [] });
    await w.didRegister;
    w.release();
    await assert.rejects(answer, /refused/);
    await w.connection.agent.request('initialize', { protocolVersion: 1 });
    assert.deepEqual(kinds(w.out), ['result', 'error', 'result'], 'no notification after the error');
    assert.equal(w.order.pending, 0);
    w.connection.close();
  });

  test('closing drops what waits; no request id (a notification handler) registers nothing', () => {
    const order = new ResponseOrder();
    let ran = 0;
    order.afterResponse(undefined, () => ran++);
    order.afterResponse(null, () => ran++);
    order.afterResponse(3, () => ran++);
    assert.equal(order.pending, 1);
    order.close();
    order.afterResponse(4, () => ran++);
    assert.equal(order.pending, 0);
    assert.equal(ran, 0);
  });
});
