/**
 * The client registry (clients.ts) and first-answer-wins requests (races.ts), against real SDK
 * apps linked in-process: a tiny agent app that only registers clients, and SDK client apps.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agent, client, RequestError } from '@agentclientprotocol/sdk';
import type { ClientCapabilities, ClientConnection, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { ClientRegistry, connectionKey, mergeCapabilities, supportsForms, supportsTerminalOutput } from '../../../../../bridge/acp/transport/clients.ts';
import { RequestRaces } from '../../../../../bridge/acp/turns/races.ts';
import { testLogger } from '../../../../helpers/sim.ts';

type Answer = (signal: AbortSignal) => Promise<RequestPermissionResponse>;

/** An agent app whose only job is to register clients, plus helpers to add clients. */
function world() {
  const registry = new ClientRegistry(testLogger());
  const races = new RequestRaces(registry, testLogger());
  const app = agent({ name: 'test-agent' })
    .onConnect((connection) => void registry.add(connection, { kind: 'local' }))
    .onRequest('initialize', ({ params, client: ctx }) => {
      const me = registry.of(ctx);
      if (me) registry.initialized(me, params.clientCapabilities);
      return { protocolVersion: 1 };
    });
  const clients: ClientConnection[] = [];
  async function addClient(caps: ClientCapabilities, answer: Answer) {
    const seen: AbortSignal[] = [];
    const app2 = client({ name: 'c' }).onRequest('session/request_permission', ({ signal }) => {
      seen.push(signal);
      return answer(signal);
    });
    const connection = app2.connect(app);
    clients.push(connection);
    await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: caps });
    return { connection, seen };
  }
  const params = { sessionId: 's', toolCall: { toolCallId: 't' }, options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' as const }] };
  const race = (extra: Partial<Parameters<RequestRaces['run']>[0]> = {}) =>
    races.run<RequestPermissionResponse>({
      sessionId: 's',
      method: 'session/request_permission',
      params,
      isDismissal: (v) => v.outcome.outcome !== 'selected',
      ...extra,
    });
  return { registry, races, addClient, race, close: () => clients.forEach((c) => c.close()) };
}

const selected = (): Promise<RequestPermissionResponse> => Promise.resolve({ outcome: { outcome: 'selected', optionId: 'ok' } });
const cancelledOnAbort: Answer = (signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ outcome: { outcome: 'cancelled' } }), { once: true }));
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves when `signal` aborts (at once if it already has): the event itself, not a guess at its timing. */
const abortOf = (signal: AbortSignal): Promise<void> => (signal.aborted ? Promise.resolve() : new Promise((r) => signal.addEventListener('abort', () => r(), { once: true })));
/** Resolves once the registry has changed so that `check` holds. */
const registryWhen = (registry: ClientRegistry, check: () => boolean): Promise<void> =>
  check()
    ? Promise.resolve()
    : new Promise((resolve) => {
        const sub = registry.onDidChange(() => {
          if (!check()) return;
          sub.dispose();
          resolve();
        });
      });

describe('capabilities', () => {
  test('OR-merge: booleans union, nested objects merged, _meta shallow-merged, null = not declared', () => {
    const merged = mergeCapabilities([
      { fs: { readTextFile: true, writeTextFile: false }, terminal: false, elicitation: null, _meta: { a: 1, terminal_output: false } },
      { fs: { readTextFile: false, writeTextFile: true }, terminal: true, elicitation: { form: {} }, _meta: { b: 2, terminal_output: true } },
    ]);
    assert.deepEqual(merged, { fs: { readTextFile: true, writeTextFile: true }, terminal: true, elicitation: { form: {} }, _meta: { a: 1, terminal_output: true, b: 2 } });
    assert.ok(supportsForms(merged));
    assert.ok(supportsTerminalOutput(merged));
    assert.ok(!supportsForms({ elicitation: { form: null } }));
    assert.ok(!supportsForms({}));
    assert.ok(!supportsTerminalOutput({ _meta: { terminal_output: 'yes' } }));
    assert.deepEqual(mergeCapabilities([]), {});
  });

  test('connectionKey finds the same per-connection object for every request of a connection (SDK internals guard)', async () => {
    const keys: object[] = [];
    const app = agent()
      .onConnect((connection) => void keys.push(connectionKey(connection.client)!))
      .onRequest('initialize', ({ client: ctx }) => {
        keys.push(connectionKey(ctx)!);
        return { protocolVersion: 1 };
      });
    const a = client().connect(app);
    const b = client().connect(app);
    await a.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await b.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await a.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(keys.length, 5);
    assert.ok(keys.every((k) => typeof k === 'object' && k !== null));
    const [connA, connB, reqA1, reqB, reqA2] = keys;
    assert.equal(reqA1, connA);
    assert.equal(reqA2, connA);
    assert.equal(reqB, connB);
    assert.notEqual(connA, connB);
    a.close();
    b.close();
  });

  test('the registry merges the capabilities of connected clients and forgets a client that leaves', async () => {
    const w = world();
    const { connection } = await w.addClient({ elicitation: { form: {} } }, selected);
    await w.addClient({ _meta: { terminal_output: true } }, selected);
    assert.ok(supportsForms(w.registry.capabilities) && supportsTerminalOutput(w.registry.capabilities));
    connection.close();
    await registryWhen(w.registry, () => w.registry.all.length === 1);
    assert.equal(w.registry.all.length, 1);
    assert.ok(!supportsForms(w.registry.capabilities));
    assert.ok(supportsTerminalOutput(w.registry.capabilities));
    w.close();
  });
});

describe('first-answer-wins requests', () => {
  test('the first answer wins; the others are aborted ($/cancel_request)', async () => {
    const w = world();
    const slow = await w.addClient({}, cancelledOnAbort);
    const fast = await w.addClient({}, async () => {
      await delay(20);
      return { outcome: { outcome: 'selected', optionId: 'ok' } };
    });
    const result = await w.race();
    assert.equal(result.kind, 'answered');
    assert.equal(result.kind === 'answered' && result.clientId, 2);
    await abortOf(slow.seen[0]);
    assert.ok(slow.seen[0].aborted, 'the loser was told');
    assert.ok(!fast.seen[0].aborted);
    w.close();
  });

  test('errors and dismissals do not win while someone may still answer; all dismiss → dismissed; all fail → failed', async () => {
    const w = world();
    await w.addClient({}, async () => {
      throw RequestError.internalError();
    });
    await w.addClient({}, async () => ({ outcome: { outcome: 'cancelled' } }));
    await w.addClient({}, async () => {
      await delay(20);
      return { outcome: { outcome: 'selected', optionId: 'ok' } };
    });
    assert.equal((await w.race()).kind, 'answered');
    w.close();

    const w2 = world();
    await w2.addClient({}, async () => ({ outcome: { outcome: 'cancelled' } }));
    await w2.addClient({}, async () => {
      throw RequestError.internalError();
    });
    assert.equal((await w2.race()).kind, 'dismissed');
    w2.close();

    const w3 = world();
    await w3.addClient({}, async () => {
      throw new RequestError(-32099, 'nope');
    });
    const failed = await w3.race();
    assert.equal(failed.kind, 'failed');
    assert.equal(failed.kind === 'failed' && failed.error.code, -32099);
    w3.close();

    const nobody = world();
    assert.equal((await nobody.race()).kind, 'failed');
  });

  test('eligibility, withdrawal, timeout and late joiners', async () => {
    const w = world();
    const plain = await w.addClient({}, cancelledOnAbort);
    const controller = new AbortController();
    const pending = w.race({ signal: controller.signal, eligible: (c) => supportsForms(c.capabilities) === false });
    // The request has reached the client: its handler saw it.
    while (plain.seen.length === 0) await new Promise((r) => setImmediate(r));
    assert.equal(w.races.openCount('s'), 1);
    controller.abort();
    assert.deepEqual(await pending, { kind: 'withdrawn', reason: 'aborted' });
    await abortOf(plain.seen[0]);
    assert.ok(plain.seen[0].aborted);

    assert.deepEqual(await w.race({ timeoutMs: 30 }), { kind: 'withdrawn', reason: 'timeout' });

    const joining = w.race();
    const late = await w.addClient({}, selected);
    const lateClient = w.registry.all.at(-1)!;
    w.races.join(lateClient, 's', 's');
    const result = await joining;
    assert.equal(result.kind, 'answered');
    assert.equal(late.seen.length, 1);
    assert.equal(w.races.openCount(), 0);
    w.close();
  });
});
