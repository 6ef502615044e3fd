/**
 * ACP v2 (draft) beside v1, chosen per connection by `initialize` (transport/v2/): the real
 * `zcode-acp` process and the real simulator, spoken to in raw JSON-RPC and through the official
 * SDK's `experimental/v2` client, over stdio and over the remote WebSocket endpoint. Every message
 * the bridge sends a v2 client is validated against schema/v2/schema.json; a v1 client on the same
 * process still gets v1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { buildCli } from './harness.ts';
import { WORKSPACE } from './helpers.ts';
import { RawV2Client, spawnCli, until, V2SdkClient, v2Initialize } from './v2Client.ts';
import { startHarness } from '../remote/bridgeHarness.ts';
import { inProcessStreams, wsClientStream } from '../remote/harness.ts';

const T = { timeout: 90_000 };
type Msg = Record<string, unknown>;

let cli = '';
const cleanups: Array<() => void> = [];

before(async () => {
  cli = await buildCli();
});

after(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
});

/** A fresh `zcode-acp` on the simulator, killed after the file's tests. */
function startCli(): { child: ChildProcess; stream: ReturnType<typeof spawnCli>['stream']; stderr: () => string } {
  const store = mkdtempSync(path.join(tmpdir(), 'zcode-acp-v2-'));
  const spawned = spawnCli(cli, store);
  cleanups.push(() => {
    spawned.child.kill('SIGKILL');
    rmSync(store, { recursive: true, force: true });
  });
  return spawned;
}

const text = (t: string): Msg[] => [{ type: 'text', text: t }];
const stateOf = (u: Msg): unknown => (u.sessionUpdate === 'state_update' ? u.state : undefined);

describe('ACP v2 over stdio, raw JSON-RPC', () => {
  test('initialize, a session, turns with tool calls, a plan, a permission, cancel, resume with replayFrom and a _zcode method, all valid v2', T, async () => {
    const { stream, stderr } = startCli();
    const c = new RawV2Client(stream);
    try {
      const init = await c.request(0, 'initialize', v2Initialize('raw-v2'));
      const result = init.result as Msg;
      assert.equal(result.protocolVersion, 2, JSON.stringify(init));
      assert.equal((result.info as Msg).name, 'zcode-acp');
      assert.ok(!('agentCapabilities' in result), 'one capabilities object');

      const created = (await c.request(1, 'session/new', { cwd: WORKSPACE })).result as Msg;
      const sessionId = created.sessionId as string;
      const options = created.configOptions as Msg[];
      assert.ok(options.some((o) => o.category === 'model' && typeof o.configId === 'string'), 'the model is a config option, named by configId');

      // A turn with tool calls and a plan: acknowledged with a message id, ended by an idle state_update.
      await c.send({ id: 2, method: 'session/prompt', params: { sessionId, prompt: text('[scenario:todo]') } });
      const ack = await c.answer(2);
      assert.equal(typeof (ack.result as Msg).messageId, 'string', JSON.stringify(ack));
      const ended = await c.waitUpdate('the end of the todo turn', (u) => stateOf(u) === 'idle' && u.stopReason === 'end_turn', sessionId);
      assert.ok(ended);
      const turn = c.updates(sessionId);
      assert.equal(stateOf(turn.find((u) => u.sessionUpdate === 'state_update') as Msg), 'running', 'running comes first');
      assert.ok(turn.some((u) => u.sessionUpdate === 'plan_update'), 'TodoWrite is a plan_update');
      assert.ok(turn.some((u) => u.sessionUpdate === 'tool_call_update'), 'the tool call is an upsert');
      assert.ok(!turn.some((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'plan'), 'no v1 kinds');
      assert.ok(turn.filter((u) => String(u.sessionUpdate).endsWith('_chunk')).every((u) => typeof u.messageId === 'string'), 'every chunk has a message id');
      const ackAt = c.received.indexOf(ack);
      assert.ok(c.received.findIndex((m) => m.method === 'session/update' && ((m.params as Msg).update as Msg).sessionUpdate === 'plan_update') > ackAt, 'the acknowledgement precedes the turn');
      assert.ok(!c.received.some((m) => m.method === '_zcode/session/promptStarted'), 'the name the translator gave is its own');

      // Two prompts at once: the second is acknowledged when it holds the session, after the first ended.
      const idles = (): Msg[] => c.received.filter((m) => m.method === 'session/update' && stateOf((m.params as Msg).update as Msg) === 'idle');
      const idlesBefore = idles().length;
      await c.send({ id: 20, method: 'session/prompt', params: { sessionId, prompt: text('[scenario:text]') } });
      await c.send({ id: 21, method: 'session/prompt', params: { sessionId, prompt: text('and then') } });
      await until('both queued turns to end', () => idles().length >= idlesBefore + 2);
      const firstEnd = c.received.indexOf(idles()[idlesBefore]);
      assert.ok(c.received.indexOf(await c.answer(20)) < firstEnd);
      assert.ok(c.received.indexOf(await c.answer(21)) > firstEnd, 'the queued prompt starts after the first ends');

      // A permission: v2's shape (title, subject), answered; the turn ends normally.
      const idlesBeforePermission = idles().length;
      await c.send({ id: 3, method: 'session/prompt', params: { sessionId, prompt: text('[scenario:permission]') } });
      await until('the permission request', () => c.received.some((m) => m.method === 'session/request_permission'));
      const asked = c.received.find((m) => m.method === 'session/request_permission') as Msg;
      const permission = asked.params as Msg;
      assert.equal((permission.subject as Msg).type, 'tool_call');
      assert.equal(typeof permission.title, 'string');
      const allow = (permission.options as Msg[]).find((o) => String(o.kind).startsWith('allow')) as Msg;
      await c.send({ id: asked.id, result: { outcome: { outcome: 'selected', optionId: allow.optionId } } });
      await until('the end of the permission turn', () => idles().length > idlesBeforePermission);
      assert.equal(((idles()[idlesBeforePermission].params as Msg).update as Msg).stopReason, 'end_turn');

      // Cancel mid-turn: the turn ends with stopReason cancelled.
      await c.send({ id: 4, method: 'session/prompt', params: { sessionId, prompt: text('[scenario:long]') } });
      await c.answer(4);
      await c.send({ method: 'session/cancel', params: { sessionId } });
      const cancelled = await c.waitUpdate('the cancelled end', (u) => stateOf(u) === 'idle' && u.stopReason === 'cancelled', sessionId);
      assert.ok(cancelled);

      // $/cancel_request on a running prompt ends it as cancelled too, never an internal error.
      const before3 = c.updates(sessionId).filter((u) => stateOf(u) === 'idle').length;
      await c.send({ id: 5, method: 'session/prompt', params: { sessionId, prompt: text('[scenario:long]') } });
      await c.answer(5);
      await c.send({ method: '$/cancel_request', params: { requestId: 5 } });
      await until('the end of the cancelled request', () => c.updates(sessionId).filter((u) => stateOf(u) === 'idle').length > before3);
      const last = c.updates(sessionId).filter((u) => stateOf(u) === 'idle').at(-1) as Msg;
      assert.equal(last.stopReason, 'cancelled', JSON.stringify(last));

      // The model is set with a v2 `type: "id"` value.
      const model = options.find((o) => o.category === 'model') as Msg;
      const value = ((model.options as Msg[]).at(-1) as Msg).value;
      const set = await c.request(6, 'session/set_config_option', { sessionId, configId: model.configId, type: 'id', value });
      assert.equal((((set.result as Msg).configOptions as Msg[]).find((o) => o.configId === model.configId) as Msg).currentValue, value, JSON.stringify(set));

      // Resume with replayFrom: the history comes first, then the state snapshot, then the answer.
      const resumeFrom = c.received.length;
      const resumed = await c.request(7, 'session/resume', { sessionId, cwd: WORKSPACE, replayFrom: { type: 'start' } });
      assert.ok('result' in resumed, JSON.stringify(resumed));
      const replay = c.received.slice(resumeFrom);
      const answerAt = replay.findIndex((m) => m.id === 7);
      const replayed = replay.slice(0, answerAt).filter((m) => m.method === 'session/update').map((m) => (m.params as Msg).update as Msg);
      assert.ok(replayed.some((u) => u.sessionUpdate === 'user_message_chunk'), 'the history is replayed before the answer');
      assert.equal(replayed.at(-1)?.sessionUpdate, 'state_update', 'the state snapshot is last before the answer');
      const unknownReplay = await c.request(8, 'session/resume', { sessionId, cwd: WORKSPACE, replayFrom: { type: '_somewhere' } });
      assert.equal((unknownReplay.error as Msg).code, -32602);

      // Signing in is v2's auth/login (zcode holds its own credentials: nothing to do).
      const login = await c.request(12, 'auth/login', { methodId: ((result.authMethods as Msg[])[0] as Msg).methodId });
      assert.deepEqual(login.result, {}, JSON.stringify(login));

      // A _zcode method, unchanged.
      const caps = await c.request(9, '_zcode/agent/capabilities', {});
      assert.ok('result' in caps, JSON.stringify(caps));

      const list = (await c.request(10, 'session/list', {})).result as Msg;
      assert.ok((list.sessions as Msg[]).some((s) => s.sessionId === sessionId));
      assert.deepEqual((await c.request(11, 'session/close', { sessionId })).result, {});
      assert.deepEqual(c.violations, [], `v2 schema violations:\n${c.violations.join('\n')}\n${stderr().slice(-2000)}`);
    } finally {
      await stream.writable.close().catch(() => undefined);
    }
  });

  test('a v1 client of the same program still gets v1, and a client asking a newer version than 2 gets 2', T, async () => {
    const v1 = new RawV2Client(startCli().stream);
    const answer = (await v1.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} })).result as Msg;
    assert.equal(answer.protocolVersion, 1);
    assert.ok('agentCapabilities' in answer && 'agentInfo' in answer);
    const newer = new RawV2Client(startCli().stream);
    const newerAnswer = (await newer.request(0, 'initialize', { ...v2Initialize('newer'), protocolVersion: 3 })).result as Msg;
    assert.equal(newerAnswer.protocolVersion, 2);
    assert.deepEqual(newer.violations, []);
  });
});

describe('ACP v2 through the official SDK v2 client', () => {
  /** The same conversation on any transport: a session, a permission turn, resume with replay. */
  async function converse(c: V2SdkClient, cwd: string): Promise<void> {
    const init = await c.agent.request('initialize', v2Initialize('sdk-v2'));
    assert.equal(init.protocolVersion, 2);
    const { sessionId } = await c.agent.request('session/new', { cwd });
    const ack = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '[scenario:permission]' }] });
    assert.equal(typeof ack.messageId, 'string');
    const end = await c.idle(sessionId, 1);
    assert.equal(end.stopReason, 'end_turn');
    assert.equal(c.permissions.length, 1);
    assert.equal(c.permissions[0].subject?.type, 'tool_call');
    assert.ok(c.of(sessionId).some((u) => u.sessionUpdate === 'tool_call_update'));
    // A form (zcode's questions), declined: the turn goes on and ends.
    await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '[scenario:questions]' }] });
    assert.equal((await c.idle(sessionId, 2)).stopReason, 'end_turn');
    assert.equal(c.forms.length, 1);
    assert.equal(c.forms[0].mode, 'form');
    assert.ok(c.notifications.some((n) => n.method === '_zcode/session/queue'), 'the _zcode notifications reach a v2 client');
    // Cancel once the turn runs: it ends cancelled.
    await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '[scenario:long]' }] });
    await c.agent.notify('session/cancel', { sessionId });
    assert.equal((await c.idle(sessionId, 3)).stopReason, 'cancelled');
    assert.ok(await c.agent.request('_zcode/agent/capabilities', {}), 'a _zcode method');
    const { sessions } = await c.agent.request('session/list', {});
    assert.ok(sessions.some((s) => s.sessionId === sessionId));
    const before = c.of(sessionId).length;
    await c.agent.request('session/resume', { sessionId, cwd, replayFrom: { type: 'start' } });
    const replayed = c.of(sessionId).slice(before);
    assert.ok(replayed.some((u) => u.sessionUpdate === 'agent_message_chunk'), 'replayed history');
    assert.equal(replayed.at(-1)?.sessionUpdate, 'state_update');
    await c.agent.request('session/close', { sessionId });
    assert.deepEqual(c.tap.violations, [], c.tap.violations.join('\n'));
  }

  test('over stdio', T, async () => {
    const c = new V2SdkClient(startCli().stream);
    await converse(c, WORKSPACE);
    c.close();
  });

  test('over the remote WebSocket endpoint and in-process, beside a v1 client whose turns a v2 client sees start and end', T, async () => {
    const h = await startHarness();
    try {
      const v1 = await h.remote('v1-beside');
      const c = new V2SdkClient(wsClientStream(h.server.url, { header: h.token }));
      await converse(c, h.cwd);
      const { agentSide, clientSide } = inProcessStreams();
      h.bridge.connect(agentSide, { kind: 'local', label: 'v2-local' });
      const local = new V2SdkClient(clientSide);
      await converse(local, h.cwd);

      // A session of the v1 client, resumed by the v2 one: the v1 client's turn is a running, then an idle state.
      const sessionId = await h.newSession(v1);
      await c.agent.request('session/resume', { sessionId, cwd: h.cwd });
      const idleBefore = c.idles(sessionId).length;
      const answer = await v1.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
      assert.equal(answer.stopReason, 'end_turn');
      await c.idle(sessionId, idleBefore + 1);
      const states = c.of(sessionId).filter((u) => u.sessionUpdate === 'state_update').map((u) => (u as { state: string }).state);
      assert.deepEqual(states.slice(-2), ['running', 'idle'], JSON.stringify(states));
      assert.ok(c.of(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'), 'the v1 turn streams to the v2 client');
      assert.deepEqual(c.tap.violations, [], c.tap.violations.join('\n'));
      c.close();
      local.close();
    } finally {
      await h.close();
    }
  });
});
