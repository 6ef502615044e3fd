/**
 * Self-test of the simulator's desktop-3.15 profile (CLI 0.16.9) on the raw wire: deferred drafts
 * (`session/create {persistence:"deferred"}`: never listed, gone on close, `expectedPersistence`
 * checked, promoted by the first send), the `guarded` mode, the strict 3.15 `session/create` keys,
 * the optional event fields 3.15 added, and sub-agent tool events. desktop-3.12 is the contrast:
 * its create schema lists no `persistence` and no `guarded`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { isEvent, Sim } from '../../helpers/simWire.ts';

after(() => Sim.killAll());

const WS = { workspacePath: '/tmp/ws-315', workspaceKey: '/tmp/ws-315' };
const sim315 = () => new Sim(['--profile', 'desktop-3.15']);
const sim312 = () => new Sim(['--profile', 'desktop-3.12']);
const listedIds = async (sim: Sim): Promise<string[]> => ((await sim.result('session/list', {})).sessions as Array<{ sessionId: string }>).map((s) => s.sessionId);

test('a deferred draft: settings like any snapshot, never listed, closed with expectedPersistence, then gone', async () => {
  const sim = sim315();
  const draft = await sim.result('session/create', { workspace: WS, persistence: 'deferred' });
  const id: string = draft.session.sessionId;
  assert.ok(draft.settings.model.available.length > 1, 'the model list a picker needs');
  assert.ok(draft.settings.thoughtLevel.available.length > 0);
  assert.deepEqual(await listedIds(sim), [], 'a draft is not listed');
  const wrong = await sim.request('session/close', { sessionId: id, expectedPersistence: 'immediate' });
  assert.equal(wrong.error.code, -32602, 'a close meant for a real session does not close a draft');
  assert.deepEqual(await sim.result('session/close', { sessionId: id, expectedPersistence: 'deferred' }), { closed: true });
  assert.equal((await sim.request('session/read', { sessionId: id })).error.code, -32602, 'gone with its record');
  assert.deepEqual(await listedIds(sim), []);
  await sim.close();
});

test('the first send promotes a draft to a listed session; expectedPersistence "deferred" then no longer matches', async () => {
  const sim = sim315();
  const id: string = (await sim.result('session/create', { workspace: WS, persistence: 'deferred' })).session.sessionId;
  await sim.result('session/subscribe', { sessionId: id, deliveryKind: 'desktop-continuous' });
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId: id, content: '[scenario:text] hi' });
  await sim.next((m) => isEvent(m, id) && m.params.type === 'turn.completed', from);
  assert.deepEqual(await listedIds(sim), [id]);
  assert.equal((await sim.request('session/close', { sessionId: id, expectedPersistence: 'deferred' })).error.code, -32602);
  await sim.close();
});

test('strict 3.15 create: agentMemory / officialMcpServers / confineFileToolsToWorkspace → -32602 naming the key; dynamicWorkflowMode is listed', async () => {
  const sim = sim315();
  for (const [key, value] of [['agentMemory', true], ['officialMcpServers', []], ['confineFileToolsToWorkspace', true]] as const) {
    const answer = await sim.request('session/create', { workspace: WS, [key]: value });
    assert.equal(answer.error?.code, -32602, key);
    assert.deepEqual(answer.error.data.issues.find((i: { code: string }) => i.code === 'unrecognized_keys').keys, [key]);
  }
  assert.ok((await sim.result('session/create', { workspace: WS, dynamicWorkflowMode: 'onDemand' })).session.sessionId);
  assert.equal((await sim.request('session/create', { workspace: WS, dynamicWorkflowMode: 'sometimes' })).error.code, -32602);
  // 3.12 still lists agentMemory, and knows neither drafts nor dynamicWorkflowMode.
  const old = sim312();
  assert.ok((await old.result('session/create', { workspace: WS, agentMemory: true })).session.sessionId);
  const noDrafts = await old.request('session/create', { workspace: WS, persistence: 'deferred' });
  assert.equal(noDrafts.error.code, -32602);
  assert.match(noDrafts.error.message, /persistence/);
  await Promise.all([sim.close(), old.close()]);
});

test('guarded is a mode on 3.15 (create and setMode), not on 3.12', async () => {
  const sim = sim315();
  const created = await sim.result('session/create', { workspace: WS, mode: 'guarded' });
  assert.deepEqual(created.settings.mode, { current: 'guarded' });
  assert.equal(created.session.mode, 'guarded');
  const id: string = created.session.sessionId;
  assert.equal((await sim.result('session/setMode', { sessionId: id, mode: 'plan' })).settings.mode.current, 'plan');
  const old = sim312();
  assert.equal((await old.request('session/create', { workspace: WS, mode: 'guarded' })).error.code, -32602);
  await Promise.all([sim.close(), old.close()]);
});

test('create takes a model selection: the turn runs on it (scenario `model` names it)', async () => {
  const sim = sim315();
  const created = await sim.result('session/create', { workspace: WS, model: { providerId: 'account:zai-coding-plan', modelId: 'GLM-4.6' } });
  assert.equal(created.settings.model.current.modelId, 'GLM-4.6');
  const id: string = created.session.sessionId;
  await sim.result('session/subscribe', { sessionId: id, deliveryKind: 'desktop-continuous' });
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId: id, content: '[scenario:model]' });
  const end = await sim.next((m) => isEvent(m, id) && m.params.type === 'turn.completed', from);
  assert.match(end.params.payload.response, /ran on model GLM-4\.6/);
  assert.equal((await sim.request('session/create', { workspace: WS, model: { providerId: 'nope', modelId: 'GLM-9' } })).error.code, -32603);
  await sim.close();
});

test('3.15 event fields: turn.started.executionStartedAt, scheduled schedule fields, sub-agent tools name their Agent call', async () => {
  const sim = sim315();
  const id = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId: id, content: '[scenario:subagent] survey' });
  await sim.next((m) => isEvent(m, id) && m.params.type === 'turn.completed', from);
  const events = sim.messages.slice(from).filter((m) => isEvent(m, id)).map((m) => m.params);
  const started = events.find((e) => e.type === 'turn.started');
  assert.equal(typeof started.payload.executionStartedAt, 'number');
  const tools = events.filter((e) => e.type === 'tool.updated').map((e) => e.payload);
  const agent = tools.find((p) => p.kind === 'scheduled' && p.toolName === 'Agent');
  assert.ok(agent, 'the Agent call');
  assert.deepEqual([agent.dependencies, agent.parallelGroupIndex, agent.canRunParallel], [[], 0, false]);
  assert.equal(agent.parentToolCallId, undefined, 'the Agent call itself belongs to the main agent');
  const inner = tools.filter((p) => p.parentToolCallId === agent.toolCallId);
  assert.deepEqual([...new Set(inner.filter((p) => p.kind === 'scheduled').map((p) => p.toolName))], ['Read', 'Grep']);
  for (const p of inner) {
    assert.equal(p.source, 'subagent');
    assert.equal(p.agentType, 'general-purpose');
    assert.equal(p.description, 'Survey the test setup');
    assert.match(p.childToolCallId, /^child_/);
  }
  await sim.close();
});

test('desktop-3.12 sends none of the 3.15 event fields', async () => {
  const sim = sim312();
  const id = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId: id, content: '[scenario:subagent] survey' });
  await sim.next((m) => isEvent(m, id) && m.params.type === 'turn.completed', from);
  const events = sim.messages.slice(from).filter((m) => isEvent(m, id)).map((m) => m.params);
  assert.equal(events.find((e) => e.type === 'turn.started').payload.executionStartedAt, undefined);
  assert.ok(events.filter((e) => e.type === 'tool.updated').every((e) => e.payload.parentToolCallId === undefined && e.payload.canRunParallel === undefined));
  await sim.close();
});
