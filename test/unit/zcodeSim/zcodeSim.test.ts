/**
 * Self-test of the zcode simulator (test/zcode-sim/): spawns it as a real child process and speaks raw
 * ndjson to it (no bridge code), at ZCODE_SIM_SPEED=0.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isEvent, PREFS, readRecord, Sim, tempDir, textOf, type Msg } from '../../helpers/simWire.ts';

// A failed assertion leaves its simulator running: end them all, or the test file never exits.
after(() => Sim.killAll());

test('session/create answers only after session/requestRuntimePreferences is answered', async () => {
  const sim = new Sim();
  sim.autoPrefs = false;
  sim.write({ id: 1, method: 'session/create', params: { workspace: { workspacePath: '/tmp/ws', workspaceKey: '/tmp/ws' }, mode: 'yolo' } });
  const prefs = await sim.next((m) => m.method === 'session/requestRuntimePreferences');
  assert.equal(prefs.id, 'server-1');
  assert.equal(prefs.params.scope, 'session');
  assert.match(prefs.params.sessionId, /^sess_/);
  // A round trip instead of a sleep: once a later request is answered, the create has been read
  // and is waiting (the simulator reads in order); it has not been answered.
  sim.write({ id: 2, method: 'session/list', params: {} });
  await sim.next((m) => m.id === 2);
  assert.equal(sim.messages.find((m) => m.id === 1), undefined, 'create must wait for the preferences reply');
  sim.write({ id: prefs.id, result: PREFS });
  const created = await sim.next((m) => m.id === 1);
  assert.equal(created.result.session.sessionId, prefs.params.sessionId);
  assert.equal(created.result.settings.mode.current, 'yolo');
  assert.equal(await sim.close(), 0);
});

test('a wrong runtime-preferences reply fails create and is recorded as a violation', async () => {
  const dir = tempDir();
  const record = join(dir, 'record.jsonl');
  const sim = new Sim([], { ZCODE_SIM_RECORD: record });
  sim.autoPrefs = false;
  sim.write({ id: 1, method: 'session/create', params: { workspace: { workspacePath: dir } } });
  const prefs = await sim.next((m) => m.method === 'session/requestRuntimePreferences');
  sim.write({ id: prefs.id, result: { ...PREFS, memoryEnabled: true } });
  const reply = await sim.next((m) => m.id === 1);
  assert.equal(reply.error.code, -32602);
  await sim.close();
  assert.ok(readRecord(record).some((e) => /requestRuntimePreferences/.test(e.violation ?? '')));
  rmSync(dir, { recursive: true, force: true });
});

test('the record file holds every received message exactly as sent', async () => {
  const dir = tempDir();
  const record = join(dir, 'record.jsonl');
  const sim = new Sim([], { ZCODE_SIM_RECORD: record });
  const sessionId = await sim.session(dir);
  await sim.result('session/read', { sessionId });
  sim.write({ method: 'session/stop', params: { sessionId } });
  await sim.close();
  const entries = readRecord(record);
  assert.deepEqual(entries.map((e) => e.msg.method ?? 'response'), ['session/create', 'response', 'session/subscribe', 'session/read', 'session/stop']);
  assert.deepEqual(entries[1].msg, { id: 'server-1', result: PREFS });
  assert.deepEqual(entries[3].msg, { id: 3, method: 'session/read', params: { sessionId } });
  assert.ok(entries.every((e) => typeof e.t === 'number' && e.violation === undefined));
  rmSync(dir, { recursive: true, force: true });
});

test('a message carrying "jsonrpc" gets -32600 and a violation record; no-reject-jsonrpc accepts it', async () => {
  const dir = tempDir();
  const record = join(dir, 'record.jsonl');
  const sim = new Sim([], { ZCODE_SIM_RECORD: record });
  sim.write({ jsonrpc: '2.0', id: 7, method: 'session/list', params: {} });
  const reply = await sim.next((m) => m.id === 7);
  assert.equal(reply.error.code, -32600);
  assert.deepEqual(await sim.result('session/list', {}), { sessions: [] });
  await sim.close();
  const violations = readRecord(record).filter((e) => e.violation);
  assert.equal(violations.length, 1);
  assert.match(violations[0].violation, /jsonrpc/);
  assert.equal(violations[0].msg.id, 7);

  const lax = new Sim(['--quirks', 'no-reject-jsonrpc']);
  const ok = await lax.request('session/list', undefined);
  assert.deepEqual(ok.result, { sessions: [] });
  lax.write({ jsonrpc: '2.0', id: 99, method: 'session/list' });
  assert.deepEqual((await lax.next((m) => m.id === 99)).result, { sessions: [] });
  await lax.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a non-JSON line and a non-object message are violations, and the simulator keeps working', async () => {
  const dir = tempDir();
  const record = join(dir, 'record.jsonl');
  const sim = new Sim([], { ZCODE_SIM_RECORD: record });
  sim.child.stdin.write('Debugger listening on ws://127.0.0.1\r\n[1,2]\r\n');
  assert.deepEqual(await sim.result('session/list', {}), { sessions: [] });
  await sim.close();
  const violations = readRecord(record).filter((e) => e.violation).map((e) => e.violation);
  assert.deepEqual(violations, ['line is not JSON', 'message is not a JSON object']);
  rmSync(dir, { recursive: true, force: true });
});

test('profiles: 0.14.6 has no subscribe, 0.16 removed steer/rewind, unknown methods are -32601', async () => {
  const old = new Sim(['--profile', '0.14.6']);
  const sessionId = (await old.result('session/create', { workspace: { workspacePath: '/tmp/ws' } })).session.sessionId;
  assert.equal((await old.request('session/subscribe', { sessionId, deliveryKind: 'desktop-continuous', includeSnapshot: false, afterSeq: 0 })).error.code, -32601);
  await old.close();

  const next = new Sim([], { ZCODE_SIM_PROFILE: '0.16' });
  const sid = await next.session();
  for (const method of ['session/steer', 'session/rewind', 'session/rewindCascade']) {
    assert.equal((await next.request(method, { sessionId: sid, content: 'x', target: { kind: 'latestCheckpoint' } })).error.code, -32601, method);
  }
  assert.equal((await next.request('session/frobnicate', { sessionId: sid })).error.code, -32601);
  assert.equal((await next.request('session/checkpoints', { sessionId: sid })).result.checkpoints.length, 0);
  await next.close();
});

test('the text scenario streams markdown and completes with per-turn usage and turn.terminal', async () => {
  const sim = new Sim();
  const sessionId = await sim.session();
  const events = await sim.turn(sessionId, 'Show me a helper [scenario:text]');
  const seqs = events.map((e) => e.seq);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
  assert.equal(new Set(seqs).size, seqs.length);
  assert.equal(events[0].type, 'turn.started');
  assert.match(events[0].payload.turnId, /^turn_/);
  const text = textOf(events);
  assert.match(text, /```ts\nexport function greet\(name: string\): string \{/);
  const types = events.map((e) => e.type);
  assert.deepEqual(types.slice(-2), ['turn.terminal', 'turn.completed']);
  const { resultType, usage } = events.at(-1).payload;
  assert.equal(resultType, 'success');
  for (const key of ['modelRequestCount', 'inputTokens', 'outputTokens', 'totalTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens', 'webFetchRequests', 'webSearchRequests']) {
    assert.equal(typeof usage[key], 'number', key);
  }
  assert.equal(usage.totalTokens, usage.inputTokens + usage.outputTokens);
  assert.ok(usage.outputTokens >= Math.ceil(text.length / 4));
  const terminal = events.at(-2).payload;
  assert.deepEqual([terminal.status, terminal.resultType, terminal.totalTokens], ['success', 'end_turn', usage.totalTokens]);
  const usageUpdate = events.filter((e) => e.type === 'session.updated').at(-1).payload;
  assert.equal(usageUpdate.contextWindow, 200000);
  const read = await sim.result('session/read', { sessionId });
  assert.equal(read.projection.contextUsed, usageUpdate.usage.inputTokens);
  assert.equal(read.projection.title, 'Show me a helper');
  const { messages } = await sim.result('session/messages', { sessionId });
  assert.deepEqual(messages.map((m: Msg) => m.info.role), ['user', 'assistant']);
  assert.equal(messages[1].parts[0].text, text);
  assert.equal((await sim.result('session/checkpoints', { sessionId })).checkpoints.length, 1);

  // A resubscribe with afterSeq replays the missed events, in order, right after the reply.
  const from = sim.messages.length;
  const last = events.at(-1).seq;
  const again = await sim.result('session/subscribe', { sessionId, deliveryKind: 'desktop-continuous', includeSnapshot: true, afterSeq: last - 3 });
  assert.equal(again.eventSeq, last);
  assert.equal(again.snapshot.projection.status, 'idle');
  await sim.next((m) => isEvent(m, sessionId) && m.params.seq === last, from);
  assert.deepEqual(sim.events(sessionId, from), events.slice(-3));
  await sim.close();
});

test('the usage scenario reports its fixed usage; 0.14.8 sends no turn.terminal', async () => {
  const sim = new Sim(['--profile=0.14.8']);
  const sessionId = await sim.session();
  const events = await sim.turn(sessionId, '/sim usage');
  assert.equal(events.find((e) => e.type === 'turn.terminal'), undefined);
  assert.deepEqual(events.at(-1).payload.usage, {
    source: 'provider', modelRequestCount: 3, inputTokens: 12345, outputTokens: 678, totalTokens: 13023,
    cacheReadTokens: 8000, cacheWriteTokens: 1024, reasoningTokens: 256, webFetchRequests: 1, webSearchRequests: 2,
  });
  await sim.close();
});

test('resend-interactions re-sends an unanswered permission request with the same requestId and new ids', async () => {
  const sim = new Sim(['--quirks', 'resend-interactions'], { ZCODE_SIM_RESEND_MS: '60' });
  const sessionId = await sim.session();
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:permission]' });
  await sim.next((m) => m.method === 'interaction/requestPermission' && sim.messages.filter((x) => x.method === 'interaction/requestPermission').length >= 3, from);
  const asks = sim.messages.filter((m) => m.method === 'interaction/requestPermission');
  assert.equal(new Set(asks.map((a) => a.params.requestId)).size, 1);
  assert.equal(new Set(asks.map((a) => a.id)).size, asks.length);
  assert.ok(asks.every((a) => typeof a.id === 'string' && a.id.startsWith('server-')));
  assert.deepEqual(asks[0].params.options.map((o: Msg) => o.optionId), ['allow', 'allow_always', 'deny']);
  assert.equal(asks[0].params.toolName, 'Bash');
  for (const a of sim.messages.filter((m) => m.method === 'interaction/requestPermission')) sim.write({ id: a.id, result: { decision: 'allow' } });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  assert.match(textOf(sim.events(sessionId, from)), /Permission granted/);
  await sim.close();
});

test('permission denied: the tool fails with "denied by user: <reason>" and the text echoes it', async () => {
  const sim = new Sim();
  const sessionId = await sim.session();
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:permission]' });
  const ask = await sim.next((m) => m.method === 'interaction/requestPermission', from);
  sim.write({ id: ask.id, result: { decision: 'deny', reason: 'not now' } });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  const events = sim.events(sessionId, from);
  const err = events.find((e) => e.type === 'tool.updated' && e.payload.kind === 'error');
  assert.equal(err.payload.error, 'denied by user: not now');
  assert.equal(err.payload.toolCallId, ask.params.toolCallId);
  assert.match(textOf(events), /Permission denied \(not now\)/);
  await sim.close();
});

test('a reply of the wrong shape is recorded as a violation and fails the turn', async () => {
  const dir = tempDir();
  const record = join(dir, 'record.jsonl');
  const sim = new Sim([], { ZCODE_SIM_RECORD: record });
  const sessionId = await sim.session(dir);
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:questions]' });
  const ask = await sim.next((m) => m.method === 'interaction/requestUserInput', from);
  assert.equal(ask.params.questions.length, 2);
  assert.equal(ask.params.questions[1].multiSelect, true);
  sim.write({ id: ask.id, result: { action: 'accept', content: { answer_0: 'TypeScript' } } });
  const failed = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.failed', from);
  assert.match(failed.params.payload.error.message, /invalid reply to interaction\/requestUserInput/);
  await sim.close();
  const violation = readRecord(record).find((e) => e.violation);
  assert.match(violation.violation, /invalid reply to interaction\/requestUserInput/);
  assert.deepEqual(violation.msg, { id: ask.id, result: { action: 'accept', content: { answer_0: 'TypeScript' } } });
  rmSync(dir, { recursive: true, force: true });
});

test('questions under input.questions: answers are reflected in the text', async () => {
  const sim = new Sim();
  const sessionId = await sim.session();
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:questions-input]' });
  const ask = await sim.next((m) => m.method === 'interaction/requestUserInput', from);
  assert.equal(ask.params.questions, undefined);
  const [q1, q2] = ask.params.input.questions;
  sim.write({ id: ask.id, result: { action: 'accept', content: { answers: { [q1.question]: 'Go', [q2.question]: 'Lint, Type check' } } } });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  assert.match(textOf(sim.events(sessionId, from)), /You chose: Go; Lint, Type check\./);
  await sim.close();
});

test('plan approval switches to build mode; long + session/stop cancels; busy while running', async () => {
  const sim = new Sim();
  const sessionId = await sim.session();
  let from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:plan]' });
  const ask = await sim.next((m) => m.method === 'interaction/requestUserInput', from);
  assert.equal(ask.params.schema.interaction, 'plan_approval');
  assert.match(ask.params.input.plan, /## Plan/);
  sim.write({ id: ask.id, result: { action: 'accept', content: { answer_0: 'approve' } } });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  const events = sim.events(sessionId, from);
  assert.deepEqual(events.find((e) => e.type === 'state.updated').payload, { patch: { mode: 'build' }, reason: 'plan_approved' });
  assert.match(textOf(events), /Plan approved, starting\./);

  from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:long]' });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'model.streaming', from);
  assert.deepEqual((await sim.request('session/send', { sessionId, content: 'again' })).error, { code: 1308, message: 'prompt is running' });
  sim.write({ method: 'session/stop', params: { sessionId } });
  const done = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  assert.equal(done.params.payload.resultType, 'cancelled');
  assert.equal((await sim.result('session/checkpoints', { sessionId })).checkpoints.length, 1, 'no checkpoint for a cancelled turn');
  await sim.close();
});

test('steer: queued, drained, and the steer text shows up in the reply', async () => {
  const sim = new Sim();
  const sessionId = await sim.session();
  assert.equal((await sim.request('session/steer', { sessionId, content: 'too early' })).error.code, -32000);
  const from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:steer]' });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'model.streaming', from);
  assert.deepEqual(await sim.result('session/steer', { sessionId, content: 'use a Map instead' }), { accepted: true });
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed', from);
  const events = sim.events(sessionId, from);
  const types = events.map((e) => e.type);
  assert.ok(types.indexOf('turn.steerQueued') < types.indexOf('turn.steerDrained'));
  assert.match(textOf(events), /Steer received: "use a Map instead"/);
  await sim.close();
});

test('bash-bg: launch result, then session.updated on the same toolCallId, then a background_task turn', async () => {
  const sim = new Sim();
  const sessionId = await sim.session();
  const events = await sim.turn(sessionId, '[scenario:bash-bg]');
  const launch = events.find((e) => e.type === 'tool.updated' && e.payload.kind === 'result');
  const taskId = /Command running in background with ID: (exec_[\w-]+)/.exec(launch.payload.result.content)?.[1];
  assert.ok(taskId);
  const bgTurn = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.started' && m.params.payload.inputSource === 'background_task');
  assert.equal(bgTurn.params.payload.inputVisibility, 'model-only');
  assert.match(bgTurn.params.payload.input, /^<task-notification>/);
  await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed' && m.params.payload.turnId === bgTurn.params.payload.turnId);
  const lifecycle = sim.events(sessionId).filter((e) => e.type === 'session.updated' && e.payload.taskId);
  assert.ok(lifecycle.every((e) => e.payload.taskId === taskId && e.payload.toolCallId === launch.payload.toolCallId && e.payload.toolName === 'Bash'));
  assert.deepEqual([...new Set(lifecycle.map((e) => e.payload.status))], ['running', 'completed']);
  assert.match(lifecycle.at(-1).payload.outputTail, /compiled 42 files\ndone in 1\.8s/);
  assert.ok(lifecycle.at(-1).seq < bgTurn.params.seq);
  await sim.close();
});

test('state dir: a restarted simulator lists the session, wants a resume (-32004), then fork/rewind work', async () => {
  const dir = tempDir();
  const env = { ZCODE_SIM_STATE_DIR: join(dir, 'state') };
  const first = new Sim([], env);
  const sessionId = await first.session(dir);
  await first.turn(sessionId, 'first question [scenario:text]');
  await first.turn(sessionId, 'second question [scenario:todo]');
  await first.close();

  const sim = new Sim([], env);
  const { sessions } = await sim.result('session/list', { workspace: { workspacePath: dir } });
  assert.deepEqual(sessions.map((s: Msg) => [s.sessionId, s.title]), [[sessionId, 'first question']]);
  assert.equal((await sim.request('session/send', { sessionId, content: 'hi' })).error.code, -32004);
  await sim.result('session/resume', { sessionId, workspace: { workspacePath: dir } });
  const read = await sim.result('session/read', { sessionId });
  assert.deepEqual(read.todos.map((t: Msg) => t.status), ['completed', 'in_progress', 'pending']);
  const { checkpoints } = await sim.result('session/checkpoints', { sessionId });
  assert.equal(checkpoints.length, 2);
  const { forkedSessionId } = await sim.result('session/fork', { sessionId, target: { kind: 'checkpoint', checkpointId: checkpoints[0].checkpointId } });
  assert.equal((await sim.result('session/messages', { sessionId: forkedSessionId })).messages.length, 2);
  await sim.result('session/rewind', { sessionId, target: { kind: 'checkpoint', checkpointId: checkpoints[0].checkpointId } });
  assert.equal((await sim.result('session/messages', { sessionId })).messages.length, 2);
  assert.equal((await sim.request('session/fork', { sessionId, target: { kind: 'nope' } })).error.code, -32602);
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test('quirks: split-lines + noise + toolcall-before-scheduled + result-without-toolname; deltas:N is exact', async () => {
  const sim = new Sim(['--quirks', 'split-lines,noise,toolcall-before-scheduled,result-without-toolname']);
  const sessionId = await sim.session();
  const events = await sim.turn(sessionId, '[scenario:bash]');
  assert.ok(sim.noise.includes('Debugger attached.'));
  const [call, scheduled] = events.filter((e) => e.payload.kind === 'tool_call' || e.payload.kind === 'scheduled');
  assert.equal(call.payload.kind, 'tool_call');
  assert.equal(call.payload.input.command, 'npm test');
  assert.equal(scheduled.payload.input, undefined);
  const progress = events.filter((e) => e.payload.kind === 'progress').map((e) => e.payload.stdoutTail);
  assert.ok(progress.every((tail, i) => i === 0 || tail.startsWith(progress[i - 1])), 'tails are cumulative');
  const result = events.find((e) => e.payload.kind === 'result').payload;
  assert.equal(result.toolName, undefined);
  assert.equal(result.result.exitCode, 0);
  await sim.close();

  const fast = new Sim();
  const sid = await fast.session();
  const deltas = await fast.turn(sid, '[scenario:deltas:5000]');
  assert.equal(deltas.filter((e) => e.payload.kind === 'text_delta').length, 5000);
  assert.equal(textOf(deltas), 'x'.repeat(5000));
  await fast.close();
});

test('evict-once, busy-once and busy-32010: the first send is refused, resume/retry works', async () => {
  const sim = new Sim(['--quirks', 'evict-once,busy-once,busy-32010']);
  const sessionId = await sim.session();
  assert.equal((await sim.request('session/read', { sessionId })).error.code, -32004);
  assert.equal((await sim.request('session/send', { sessionId, content: 'hi' })).error.code, -32004, 'stays evicted until resumed');
  await sim.result('session/resume', { sessionId, workspace: { workspacePath: process.cwd() } });
  assert.deepEqual((await sim.request('session/send', { sessionId, content: 'hi' })).error, { code: -32010, message: 'a prompt is already running' });
  const events = await sim.turn(sessionId, 'hello there');
  assert.match(textOf(events), /You said: \*\*hello there\*\*/);
  await sim.close();
});

test('big-output makes the first tool result line >= 1 MB; fail-transient alternates; crash exits 1', async () => {
  const sim = new Sim(['--quirks', 'big-output']);
  const sessionId = await sim.session();
  const from = sim.messages.length;
  await sim.turn(sessionId, '[scenario:bash]');
  const result = sim.messages.slice(from).find((m) => m.params?.payload?.kind === 'result');
  assert.ok(JSON.stringify(result).length >= 1_000_000);
  const failed = await sim.turn(sessionId, '[scenario:fail-transient]');
  assert.deepEqual(failed.at(-1).payload.error.code, 429);
  const retried = await sim.turn(sessionId, '[scenario:fail-transient]');
  assert.equal(retried.at(-1).type, 'turn.completed');
  const fail = await sim.turn(sessionId, '[scenario:fail]');
  assert.deepEqual(fail.at(-1).payload.error, { code: 500, message: 'upstream model error' });
  await sim.result('session/send', { sessionId, content: '[scenario:crash]' });
  assert.equal(await sim.exited, 1);
});

test('compact, goal, setMode/setModel/setThoughtLevel and cancelBackgroundTask', async () => {
  const dir = tempDir();
  const record = join(dir, 'record.jsonl');
  const sim = new Sim([], { ZCODE_SIM_RECORD: record, ZCODE_SIM_SPEED: '0.5' });
  const sessionId = await sim.session();
  assert.deepEqual(await sim.result('session/goal', { sessionId, action: 'show' }), { goal: null });
  assert.deepEqual(await sim.result('session/goal', { sessionId, action: 'set', objective: 'ship it' }), { goal: { objective: 'ship it', status: 'active' } });
  assert.equal((await sim.request('session/goal', { sessionId, action: 'set', objective: 'again' })).error.code, -32000);
  assert.equal((await sim.result('session/goal', { sessionId, action: 'pause' })).goal.status, 'paused');
  assert.equal((await sim.request('session/goal', { sessionId, action: 'set' })).error.code, -32602);

  let from = sim.messages.length;
  assert.deepEqual(await sim.result('session/compact', { sessionId }), { accepted: true });
  const empty = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'state.updated' && m.params.payload.reason === 'compaction', from);
  assert.equal(empty.params.payload.patch.compaction.status, 'failed');
  await sim.turn(sessionId, '[scenario:text]');
  from = sim.messages.length;
  await sim.result('session/compact', { sessionId });
  const compacted = await sim.next((m) => isEvent(m, sessionId) && m.params.payload.reason === 'compaction', from);
  assert.equal(compacted.params.payload.patch.compaction.status, 'compacted');

  const settings = (await sim.result('session/setModel', { sessionId, modelId: 'GLM-4.6' })).settings;
  assert.equal(settings.model.current.modelId, 'GLM-4.6');
  await sim.result('session/setMode', { sessionId, mode: 'plan' });
  await sim.result('session/setThoughtLevel', { sessionId, thoughtLevel: 'max' });
  assert.equal((await sim.request('session/setMode', { sessionId, mode: 'turbo' })).error.code, -32602);
  const read = await sim.result('session/read', { sessionId });
  assert.deepEqual([read.settings.mode.current, read.settings.thoughtLevel.current, read.projection.contextWindow], ['plan', 'max', 128000]);

  from = sim.messages.length;
  await sim.turn(sessionId, '[scenario:subagent-bg]');
  const running = await sim.next((m) => isEvent(m, sessionId) && m.params.payload.taskId && m.params.payload.status === 'running', from);
  assert.match(running.params.payload.taskId, /^agent_/);
  assert.deepEqual(await sim.result('session/cancelBackgroundTask', { sessionId, taskId: running.params.payload.taskId }), { cancelled: true });
  const cancelled = await sim.next((m) => isEvent(m, sessionId) && m.params.payload.status === 'cancelled', from);
  assert.equal(cancelled.params.payload.toolName, 'Agent');
  assert.deepEqual(await sim.result('session/cancelBackgroundTask', { sessionId, taskId: running.params.payload.taskId }), { cancelled: false });
  await sim.close();
  const violations = readRecord(record).filter((e) => e.violation).map((e) => e.violation);
  assert.equal(violations.length, 2, violations.join('\n')); // goal set without objective, unknown mode
  rmSync(dir, { recursive: true, force: true });
});

test('SIGTERM exits cleanly', async () => {
  const sim = new Sim();
  await sim.result('session/list', {});
  sim.child.kill('SIGTERM');
  assert.equal(await sim.exited, 0);
});
