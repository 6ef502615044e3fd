/**
 * Self-test of the simulator's current-build profiles (0.16.5, desktop-3.12): every shape that differs from the
 * seed era, checked on the raw wire against zcode's own schemas (docs/zcode-protocol.md).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { isEvent, PREFS, Sim, type Msg } from '../../helpers/simWire.ts';

// A failed assertion leaves its simulator running: end them all, or the test file never exits.
after(() => Sim.killAll());

const WS = { workspacePath: '/tmp/ws-current', workspaceKey: '/tmp/ws-current' };
const desktop = (env: Record<string, string> = {}, args: string[] = []) => new Sim(['--profile', 'desktop-3.12', ...args], env);
const cli = (env: Record<string, string> = {}) => new Sim(['--profile', '0.16.5'], env);
const stateUpdates = (sim: Sim, from = 0) => sim.messages.slice(from).filter((m) => m.method === 'state.updated').map((m) => m.params);
/** Answer every request of `method` with `reply(params)`. */
function answer(sim: Sim, method: string, reply: (params: Msg) => Msg): void {
  const seen = new Set<unknown>();
  const tick = () => {
    for (const m of sim.messages) {
      if (m.method !== method || m.id === undefined || seen.has(m.id)) continue;
      seen.add(m.id);
      sim.write({ id: m.id, ...reply(m.params) });
    }
  };
  const timer = setInterval(tick, 5);
  void sim.exited.then(() => clearInterval(timer));
}

test('desktop-3.12 sends startup/storageState before any request; 0.16.5 does not', async () => {
  const sim = desktop();
  const first = await sim.next((m) => m.method === 'startup/storageState');
  assert.equal(first.params.schemaVersion, 1);
  assert.equal(first.params.sequence, 1);
  await sim.result('session/list', {});
  assert.ok(sim.messages.filter((m) => m.method === 'startup/storageState').length >= 5);
  assert.equal(await sim.close(), 0);
  const old = cli();
  await old.result('session/list', {});
  assert.equal(old.messages.filter((m) => m.method === 'startup/storageState').length, 0);
  await old.close();
});

test('strict envelopes: jsonrpc → invalid-message -32600, non-JSON → parse-error, initialize -32601, notifications dropped', async () => {
  const sim = desktop();
  sim.write({ jsonrpc: '2.0', id: 7, method: 'session/list', params: {} });
  const invalid = await sim.next((m) => m.id === 'invalid-message');
  assert.equal(invalid.error.code, -32600);
  assert.deepEqual(invalid.error.data.issues[0].keys, ['jsonrpc']);
  assert.equal(sim.messages.find((m) => m.id === 7), undefined, 'the request id itself is never answered');
  sim.child.stdin.write('not json\n');
  assert.deepEqual((await sim.next((m) => m.id === 'parse-error')).error, { code: -32700, message: 'Parse error' });
  assert.equal((await sim.request('initialize', {})).error.code, -32601);
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:long] go' });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.started', from);
  sim.write({ method: 'session/stop', params: { sessionId } }); // dropped: the turn goes on
  assert.deepEqual(await sim.result('session/stop', { sessionId }), {}, 'stop is a request answering {}');
  const end = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  assert.equal(end.params.payload.resultType, 'cancelled');
  await sim.stderrMatches(/ZCode Protocol notification ignored: session\/stop/);
  await sim.close();
});

test('create: runtime-materialization preferences, then the snapshot (session id in session, projection "unknown", ModelOption refs, level objects)', async () => {
  const sim = desktop();
  sim.autoPrefs = false;
  sim.write({ id: 'create-1', method: 'session/create', params: { workspace: WS, mode: 'plan' } });
  const prefs = await sim.next((m) => m.method === 'session/requestRuntimePreferences');
  assert.equal(prefs.params.scope, 'runtime-materialization');
  sim.write({ id: prefs.id, result: PREFS });
  const { result } = await sim.next((m) => m.id === 'create-1');
  assert.deepEqual(Object.keys(result).sort(), ['messages', 'projection', 'protocol', 'runtime', 'session', 'settings', 'slashCommands', 'todoGroups', 'todos']);
  assert.deepEqual(result.protocol, { name: 'ZCode Protocol', version: 1 });
  assert.equal(result.projection.sessionId, 'unknown');
  assert.match(result.session.sessionId, /^sess_/);
  assert.equal(result.session.sessionKind, 'interactive');
  assert.deepEqual(result.settings.mode, { current: 'plan' });
  const model = result.settings.model.available[0];
  assert.deepEqual(model.ref, { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.2' });
  assert.equal(model.reasoning.defaultLevel, 'max');
  assert.deepEqual(result.settings.thoughtLevel.available[0], { value: 'low', label: 'Low' });
  assert.equal(typeof result.runtime.eventSeq, 'number');
  const mcp = await sim.next((m) => m.method === 'interaction/requestOfficialMcpAuthHeaders');
  assert.deepEqual(Object.keys(mcp.params).sort(), ['mcpKey', 'pluginId', 'requestId', 'targetOrigin', 'workspace']);
  sim.write({ id: mcp.id, result: { ok: false, reason: 'official_auth_unavailable' } });
  const unknown = await sim.request('session/create', { workspace: WS, extra: 1 });
  assert.equal(unknown.error.code, -32602);
  assert.deepEqual(unknown.error.data.issues[0], { code: 'unrecognized_keys', keys: ['extra'], path: [], message: 'Unrecognized key(s): extra' });
  await sim.close();
});

test('runtime preferences: a 15 s timeout fails create with -32022; -32601 means defaults; another error fails create', async () => {
  const sim = desktop({ ZCODE_SIM_PREFS_TIMEOUT_MS: '150' });
  sim.autoPrefs = false;
  const timedOut = await sim.request('session/create', { workspace: WS });
  assert.deepEqual(timedOut.error, { code: -32022, message: 'Client request timed out: session/requestRuntimePreferences' });
  sim.write({ id: 'c2', method: 'session/create', params: { workspace: WS } });
  const second = await sim.next((m) => m.method === 'session/requestRuntimePreferences' && m.id !== 'server-1');
  sim.write({ id: second.id, error: { code: -32601, message: 'Method not found' } });
  assert.ok((await sim.next((m) => m.id === 'c2')).result.session.sessionId);
  sim.write({ id: 'c3', method: 'session/create', params: { workspace: WS } });
  const third = await sim.next((m) => m.method === 'session/requestRuntimePreferences' && ![second.id, 'server-1'].includes(m.id) && m.params.scope === 'runtime-materialization' && m.id !== 'server-3');
  sim.write({ id: third.id, error: { code: -32000, message: 'host is shutting down' } });
  assert.deepEqual((await sim.next((m) => m.id === 'c3')).error, { code: -32000, message: 'host is shutting down' });
  await sim.close();
});

test('a turn: send {sessionId, accepted, stateRevision}; state.updated → titleUpdated → turn.started; envelopes; no turn.terminal; checkpoint.created', async () => {
  const sim = desktop();
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  const events = await sim.turn(sessionId, '[scenario:tools] Look around the repo');
  const prefs = sim.messages.slice(from).find((m) => m.method === 'session/requestRuntimePreferences');
  assert.equal(prefs.params.scope, 'user-execution');
  const order = sim.messages.slice(from).filter((m) => m.method === 'state.updated' || isEvent(m, sessionId)).map((m) => (m.method === 'state.updated' ? 'state.updated' : m.params.type));
  assert.deepEqual(order.slice(0, 3), ['state.updated', 'session.titleUpdated', 'turn.started']);
  for (const e of events) {
    assert.match(e.eventId, /^evt_/);
    assert.equal(typeof e.timestamp, 'number');
  }
  const title = events.find((e) => e.type === 'session.titleUpdated');
  assert.deepEqual(title.payload, { previousTitle: 'New session', source: 'first_input', title: 'Look around the repo' });
  const started = events.find((e) => e.type === 'turn.started');
  assert.match(started.turnId, /^turn_/);
  assert.equal(started.payload.turnNumber, 1);
  assert.equal(typeof started.payload.input, 'string');
  assert.equal(events.some((e) => e.type === 'turn.terminal'), false);
  const delta = events.find((e) => e.type === 'model.streaming' && e.payload.kind === 'text_delta');
  assert.equal(delta.payload.messageId, undefined);
  assert.match(delta.payload.assistantMessageId, /^msg_/);
  const tools = events.filter((e) => e.type === 'tool.updated').map((e) => e.payload);
  assert.ok(tools.filter((p) => p.kind === 'started').every((p) => typeof p.startedAt === 'number'));
  assert.ok(tools.filter((p) => p.kind === 'result').every((p) => typeof p.duration === 'number'));
  const batch = tools.find((p) => p.kind === 'batch');
  assert.deepEqual(Object.keys(batch).sort(), ['errorCount', 'kind', 'successCount', 'toolCallIds']);
  const completed = events.at(-1);
  assert.equal(completed.type, 'turn.completed');
  assert.deepEqual(Object.keys(completed.payload).sort(), ['duration', 'response', 'resultType', 'tokenCount', 'toolCallCount', 'usage']);
  assert.ok(completed.payload.toolCallCount >= 3);
  assert.ok(events.some((e) => e.type === 'checkpoint.created' && /^ckpt_/.test(e.payload.checkpointId)));
  await sim.close();
});

test('tool errors are objects; turn.failed carries error.type, a string code, turnPhase and the scenario cause', async () => {
  const sim = cli();
  const sessionId = await sim.session(WS.workspacePath);
  const bash = await sim.turn(sessionId, '[scenario:bash-fail]');
  const error = bash.find((e) => e.type === 'tool.updated' && e.payload.kind === 'error').payload.error;
  assert.equal(error.type, 'ToolExecutionError');
  assert.equal(error.data.exitCode, 1);
  const captcha = (await sim.turn(sessionId, '[scenario:fail-captcha]')).at(-1);
  assert.equal(captcha.type, 'turn.failed');
  assert.equal(captcha.payload.error.code, '3007');
  assert.equal(captcha.payload.error.type, 'ProviderBusinessError');
  assert.equal(captcha.payload.error.attribution.statusCode, 400);
  assert.equal(captcha.payload.turnPhase, 'model_request');
  const auth = (await sim.turn(sessionId, '[scenario:fail-auth]')).at(-1).payload.error;
  assert.equal(auth.attribution.reason, 'auth_failed');
  assert.equal((await sim.turn(sessionId, '[scenario:fail-provider]')).at(-1).payload.error.code, 'provider_not_configured');
  const rate = (await sim.turn(sessionId, '[scenario:fail-rate-limit]')).at(-1).payload.error;
  assert.deepEqual([rate.code, rate.retryable], ['rate_limit', true]);
  await sim.close();
});

test('subscribe needs deliveryKind and returns {sessionId, eventSeq, events}; afterSeq events come in the result', async () => {
  const sim = desktop();
  const created = await sim.result('session/create', { workspace: WS });
  const sessionId = created.session.sessionId;
  assert.equal((await sim.request('session/subscribe', { sessionId })).error.code, -32602);
  const first = await sim.result('session/subscribe', { sessionId, deliveryKind: 'desktop-continuous' });
  assert.deepEqual(first, { sessionId, eventSeq: 0, events: [] });
  await sim.turn(sessionId, '[scenario:text]');
  const again = await sim.result('session/subscribe', { sessionId, deliveryKind: 'desktop-continuous', afterSeq: 2 });
  assert.ok(again.events.length > 3 && again.events.every((e: Msg) => e.seq > 2));
  await sim.close();
});

test('setModel: the legacy {modelId} is refused like 0.16.9; the current shape changes the model; changes are top-level state.updated {current}', async () => {
  const sim = desktop();
  const sessionId = await sim.session(WS.workspacePath);
  const legacy = await sim.request('session/setModel', { sessionId, modelId: 'GLM-4.6' });
  assert.equal(legacy.error.code, -32602);
  assert.match(legacy.error.message, /expected object, received undefined; Unrecognized key: "modelId"/);
  const from = sim.messages.length;
  await sim.result('session/setModel', { sessionId, model: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.1-Air', options: { reasoningLevel: 'high' } }, persistAsWorkspaceLastUsed: false });
  await sim.result('session/setMode', { sessionId, mode: 'plan' });
  await sim.result('session/setThoughtLevel', { sessionId, thoughtLevel: 'low' });
  await sim.next((m) => m.method === 'state.updated' && m.params.patch.thoughtLevel, from);
  const patches = stateUpdates(sim, from);
  assert.deepEqual(patches.map((p) => p.patch), [
    { model: { current: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.1-Air', options: { reasoningLevel: 'high' } } } },
    { mode: { current: 'plan' } },
    { thoughtLevel: { current: 'low' } },
  ]);
  assert.ok(patches.every((p) => p.type === 'state.updated' && p.scope === 'session' && p.sessionId === sessionId && typeof p.revision === 'number'));
  const unknown = await sim.request('session/setModel', { sessionId, model: { providerId: 'x', modelId: 'nope' } });
  assert.equal(unknown.error.code, -32603);
  assert.match(unknown.error.message, /^Unsupported model: x\/nope\. Available models: /);
  // A model with levels switched to without one fails its next turn.
  await sim.result('session/setModel', { sessionId, model: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.2' } });
  const failed = (await sim.turn(sessionId, '[scenario:text]')).at(-1);
  assert.equal(failed.payload.error.message, 'ModelProtocolError: Reasoning level is required');
  await sim.close();
});

test('permissions: riskLevel and per-option responses; "always allow" sticks; questions carry value and header', async () => {
  const sim = desktop();
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  sim.write({ id: 90, method: 'session/send', params: { sessionId, content: '[scenario:permission]' } });
  const ask = await sim.next((m) => m.method === 'interaction/requestPermission', from);
  assert.equal(ask.params.riskLevel, 'medium');
  assert.match(ask.params.turnId, /^turn_/);
  const always = ask.params.options.find((o: Msg) => o.kind === 'allow_always');
  assert.deepEqual(always.response, { decision: 'allow', permissionUpdates: [{ type: 'addRules', behavior: 'allow', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }] }] });
  sim.write({ id: ask.id, result: always.response });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  const second = sim.messages.length;
  await sim.turn(sessionId, '[scenario:permission]');
  assert.equal(sim.messages.slice(second).some((m) => m.method === 'interaction/requestPermission'), false, 'not asked again');
  sim.write({ id: 91, method: 'session/send', params: { sessionId, content: '[scenario:questions]' } });
  const questions = await sim.next((m) => m.method === 'interaction/requestUserInput', second);
  assert.ok(questions.params.questions.every((q: Msg) => typeof q.header === 'string' && q.options.every((o: Msg) => typeof o.value === 'string' && typeof o.label === 'string')));
  sim.write({ id: questions.id, result: { action: 'decline', reason: 'cancelled' } });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed' && sim.messages.indexOf(m) > sim.messages.indexOf(questions));
  await sim.close();
});

test('compact / goal / fork answer {response, snapshot}; a failed compaction is only a reason; goal at snapshot.projection.target', async () => {
  const sim = desktop();
  const sessionId = await sim.session(WS.workspacePath);
  const empty = sim.messages.length;
  const accepted = await sim.result('session/compact', { sessionId });
  assert.equal(accepted.compact.state, 'accepted');
  assert.equal(typeof accepted.response, 'string');
  await sim.next((m) => m.method === 'state.updated' && m.params.reason === 'session_compact_failed', empty);
  const failure = stateUpdates(sim, empty).find((p) => p.reason === 'session_compact_failed');
  assert.equal(failure.patch.compaction, undefined, 'no compaction status: the reason is the outcome');
  await sim.turn(sessionId, '[scenario:text]');
  const done = sim.messages.length;
  await sim.result('session/compact', { sessionId });
  await sim.next((m) => m.method === 'state.updated' && m.params.reason === 'session_compacted', done);
  const goal = await sim.result('session/goal', { sessionId, action: 'set', objective: 'ship it' });
  assert.equal(goal.snapshot.projection.target.objective, 'ship it');
  assert.equal(goal.snapshot.projection.target.status, 'active');
  assert.equal(goal.goal, undefined);
  const fork = await sim.result('session/fork', { sessionId });
  assert.match(fork.forkedSessionId, /^sess_/);
  assert.equal(fork.snapshot.session.sessionKind, 'fork');
  await sim.close();
});

test('list entries and message infos have the current fields; removed methods are -32601; workspace/* only on 0.16.5', async () => {
  const sim = desktop();
  const sessionId = await sim.session(WS.workspacePath);
  await sim.turn(sessionId, '[scenario:text] hi');
  const { sessions } = await sim.result('session/list', { workspace: WS });
  for (const key of ['sessionId', 'title', 'titleSource', 'sessionKind', 'status', 'mode', 'traceId', 'createdAt', 'updatedAt', 'workspace']) assert.ok(key in sessions[0], key);
  const { messages } = await sim.result('session/messages', { sessionId });
  const info = messages[0].info;
  assert.deepEqual([info.messageId !== undefined, info.sessionId, typeof info.time.created], [true, sessionId, 'number']);
  assert.equal(info.id, undefined);
  for (const method of ['session/steer', 'session/rewind', 'session/rewindCascade', 'session/checkpoints', 'automation/list', 'workspace/readState']) {
    assert.equal((await sim.request(method, { sessionId })).error.code, -32601, method);
  }
  await sim.close();
  const old = cli();
  assert.equal((await old.request('workspace/readState', {})).error.code, -32602, 'present on the 3.10.2-era 0.16.5');
  await old.close();
});

test('provider runtime headers (desktop-3.12, Start Plan): false fails the turn with the host message, true lets it run, -32601 fails auth', async () => {
  const sim = desktop();
  const sessionId = await sim.session(WS.workspacePath);
  await sim.result('session/setModel', { sessionId, model: { providerId: 'account:zai-start-plan', modelId: 'GLM-5.2-Start', options: { reasoningLevel: 'max' } } });
  let mode: 'false' | 'true' | 'missing' = 'false';
  answer(sim, 'interaction/requestProviderRuntimeHeaders', () =>
    mode === 'false' ? { result: { headersApplied: false, errorMessage: 'Use the desktop app for Start Plan' } } : mode === 'true' ? { result: { headersApplied: true, requestAuth: { apiKey: 'k' } } } : { error: { code: -32601, message: 'Method not found' } },
  );
  const refused = (await sim.turn(sessionId, '[scenario:text]')).at(-1);
  assert.equal(refused.payload.error.message, 'Use the desktop app for Start Plan');
  const ask = sim.messages.find((m) => m.method === 'interaction/requestProviderRuntimeHeaders');
  assert.deepEqual(ask.params.accountAccess, { type: 'zhipu-account', accountType: 'zai', mode: 'start-plan', entitled: true });
  assert.equal(ask.params.reason, 'model-request');
  mode = 'true';
  assert.equal((await sim.turn(sessionId, '[scenario:text]')).at(-1).type, 'turn.completed');
  mode = 'missing';
  assert.equal((await sim.turn(sessionId, '[scenario:text]')).at(-1).payload.error.attribution.reason, 'auth_failed');
  await sim.close();
  // 0.16.5 (no desktop host) never asks.
  const old = cli();
  const other = await old.session(WS.workspacePath);
  await old.result('session/setModel', { sessionId: other, model: { providerId: 'account:zai-start-plan', modelId: 'GLM-5.2-Start', options: { reasoningLevel: 'max' } } });
  assert.equal((await old.turn(other, '[scenario:text]')).at(-1).type, 'turn.completed');
  assert.equal(old.messages.some((m) => m.method === 'interaction/requestProviderRuntimeHeaders'), false);
  await old.close();
});
