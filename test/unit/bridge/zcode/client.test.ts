import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendErrorCode, ZcodeError } from '../../../../bridge/zcode/backend.ts';
import type { BackendOptions, BackendState, ExitInfo, ZcodeBackend } from '../../../../bridge/zcode/backend.ts';
import { createZcodeBackend } from '../../../../bridge/zcode/client.ts';
import { workspaceKeyFor } from '../../../../bridge/zcode/legacy/legacyMethods.ts';
import type { Interaction, ZcodeEvent } from '../../../../bridge/zcode/protocol.ts';
import { RUNTIME_PREFERENCES_REPLY } from '../../../../bridge/zcode/hostRequests.ts';
import { testLogger } from '../../../helpers/sim.ts';
import type { TestLogger } from '../../../helpers/sim.ts';
import { FakeZcode, NO_REPLY } from './fakeZcode.ts';
import type { MethodScript } from './fakeZcode.ts';

const CREATED = { session: { sessionId: 'sess_1', title: 'New session', traceId: 't' } };

interface Harness {
  backend: ZcodeBackend;
  logger: TestLogger;
  fakes: FakeZcode[];
  /** The fake of the current (latest) process. */
  readonly fake: FakeZcode;
}

function harness(scripts: Record<string, MethodScript> = {}, options: Partial<BackendOptions> = {}): Harness {
  const logger = testLogger('client');
  const fakes: FakeZcode[] = [];
  const backend = createZcodeBackend(
    { logger, timeouts: { requestMs: 2000, killGraceMs: 100 }, ...options },
    {
      locate: () => ({ command: 'fake-zcode', args: [], tried: [] }),
      startProcess: async () => {
        const fake = new FakeZcode(scripts);
        fakes.push(fake);
        return fake;
      },
    },
  );
  return {
    backend,
    logger,
    fakes,
    get fake() {
      return fakes[fakes.length - 1];
    },
  };
}

async function rejectsWith(promise: Promise<unknown>, code: number, message?: RegExp): Promise<ZcodeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ZcodeError, `expected ZcodeError, got ${String(error)}`);
    assert.equal(error.code, code, `code of: ${error.message}`);
    if (message) assert.match(error.message, message);
    return error;
  }
  assert.fail('expected a rejection');
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('starts lazily and walks stopped → starting → ready', async () => {
  const h = harness({ 'session/list': () => ({ sessions: [] }) });
  const states: BackendState[] = [];
  h.backend.onDidChangeState((s) => states.push(s));
  assert.equal(h.backend.state, 'stopped');
  assert.equal(h.fakes.length, 0);
  await h.backend.listSessions({});
  assert.deepEqual(states, ['starting', 'ready']);
  await h.backend.listSessions({});
  assert.equal(h.fakes.length, 1, 'one process for many calls');
  h.backend.dispose();
});

test('concurrent first calls share one start', async () => {
  const h = harness({ 'session/list': () => ({ sessions: [] }) });
  await Promise.all([h.backend.listSessions({}), h.backend.listSessions({}), h.backend.start()]);
  assert.equal(h.fakes.length, 1);
  h.backend.dispose();
});

test('createSession sends workspace {workspacePath, workspaceKey} and mode; parses the result', async () => {
  const h = harness({ 'session/create': () => CREATED });
  const result = await h.backend.createSession({ workspacePath: '/w/proj/', mode: 'build' });
  assert.equal(result.session.sessionId, 'sess_1');
  const sent = await h.fake.waitFor((m) => m.method === 'session/create');
  assert.deepEqual(sent.params, { workspace: { workspacePath: '/w/proj/', workspaceKey: '/w/proj' }, mode: 'build' });
  assert.equal(workspaceKeyFor('/w/proj'), workspaceKeyFor('/w/proj/'));
  assert.equal(workspaceKeyFor('/'), '/');
  h.backend.dispose();
});

test('runtime preferences are answered at once during create; no message carries jsonrpc', async () => {
  const h = harness({
    'session/create': (_p, msg, fake) => {
      fake.send({ id: 'server-1', method: 'session/requestRuntimePreferences', params: { sessionId: 'sess_1', scope: 'session' } });
      void fake.replyTo('server-1').then(() => fake.send({ id: msg.id, result: CREATED }));
      return NO_REPLY;
    },
  });
  await h.backend.createSession({ workspacePath: '/w' });
  const reply = await h.fake.replyTo('server-1');
  assert.deepEqual(reply, { id: 'server-1', result: RUNTIME_PREFERENCES_REPLY });
  assert.ok(h.fake.rawLines.every((l) => !l.includes('"jsonrpc"')), h.fake.rawLines.join('\n'));
  h.backend.dispose();
});

test('typed methods send the documented params', async () => {
  const echo: MethodScript = () => ({});
  const h = harness({
    'session/list': () => ({ sessions: [{ sessionId: 's', workspace: { workspacePath: '/w' }, title: 't', updatedAt: 1 }] }),
    'session/resume': echo,
    'session/send': () => ({ accepted: true }),
    'session/read': () => ({ projection: { status: 'idle' } }),
    'session/messages': () => ({ messages: [{ info: { id: 'm', role: 'user' }, parts: [{ type: 'text', text: 'hi' }, { type: 'future', x: 1 }] }] }),
    'session/subscribe': () => ({ eventSeq: 3 }),
    'session/fork': () => ({ forkedSessionId: 's2' }),
    'session/rewind': echo,
    'session/rewindCascade': echo,
    'session/goal': () => ({ goal: { objective: 'x', status: 'active' } }),
    'session/compact': echo,
    'session/steer': echo,
    'session/setMode': echo,
    'session/setThoughtLevel': echo,
    'session/setModel': echo,
    'session/cancelBackgroundTask': () => ({ cancelled: true }),
    'session/checkpoints': () => ({ checkpoints: [] }),
  });
  const b = h.backend;
  const sessionId = 's';
  assert.equal((await b.listSessions({ workspacePath: '/w' })).sessions[0].sessionId, 's');
  await b.resumeSession({ sessionId, workspacePath: '/w' });
  assert.deepEqual(await b.send({ sessionId, content: 'hello' }), { accepted: true });
  await b.send({ sessionId, content: 'img', attachments: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] });
  assert.equal((await b.read({ sessionId })).projection?.status, 'idle');
  assert.equal((await b.messages({ sessionId })).messages[0].parts.length, 2);
  assert.equal((await b.subscribe({ sessionId, afterSeq: 2 })).eventSeq, 3);
  await b.subscribe({ sessionId, includeSnapshot: true });
  assert.equal((await b.fork({ sessionId, target: { kind: 'latestCheckpoint' } })).forkedSessionId, 's2');
  await b.rewind({ sessionId, target: { kind: 'checkpoint', checkpointId: 'c1' } });
  await b.rewind({ sessionId, target: { kind: 'latestCheckpoint' }, cascade: true });
  assert.equal((await b.goal({ sessionId, action: 'set', objective: 'x' })).goal?.objective, 'x');
  await b.compact({ sessionId });
  await b.steer({ sessionId, content: 'also' });
  await b.setMode({ sessionId, mode: 'plan' });
  await b.setThoughtLevel({ sessionId, thoughtLevel: 'high' });
  await b.setModel({ sessionId, modelId: 'GLM-5' });
  assert.equal((await b.cancelBackgroundTask({ sessionId, taskId: 'task1' })).cancelled, true);
  assert.deepEqual(await b.checkpoints({ sessionId }), { checkpoints: [] });
  const sent = (method: string) => h.fake.received.filter((m) => m.method === method).map((m) => m.params);
  assert.deepEqual(sent('session/list'), [{ workspace: { workspacePath: '/w', workspaceKey: '/w' } }]);
  assert.deepEqual(sent('session/resume'), [{ sessionId, workspace: { workspacePath: '/w', workspaceKey: '/w' } }]);
  assert.deepEqual(sent('session/send'), [
    { sessionId, content: 'hello' },
    { sessionId, content: 'img', attachments: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] },
  ]);
  assert.deepEqual(sent('session/subscribe'), [
    { sessionId, deliveryKind: 'desktop-continuous', includeSnapshot: false, afterSeq: 2 },
    { sessionId, deliveryKind: 'desktop-continuous', includeSnapshot: true },
  ]);
  assert.deepEqual(sent('session/fork'), [{ sessionId, target: { kind: 'latestCheckpoint' } }]);
  assert.deepEqual(sent('session/rewind'), [{ sessionId, target: { kind: 'checkpoint', checkpointId: 'c1' } }]);
  assert.deepEqual(sent('session/rewindCascade'), [{ sessionId, target: { kind: 'latestCheckpoint' } }]);
  assert.deepEqual(sent('session/goal'), [{ sessionId, action: 'set', objective: 'x' }]);
  assert.deepEqual(sent('session/setModel'), [{ sessionId, modelId: 'GLM-5' }]);
  assert.deepEqual(sent('session/setThoughtLevel'), [{ sessionId, thoughtLevel: 'high' }]);
  assert.deepEqual(sent('session/cancelBackgroundTask'), [{ sessionId, taskId: 'task1' }]);
  b.dispose();
});

test('stop is a request (current builds drop notifications), and does not start a process', async () => {
  const h = harness({ 'session/stop': () => ({}) });
  h.backend.stop({ sessionId: 's' });
  assert.equal(h.fakes.length, 0);
  await h.backend.start();
  h.backend.stop({ sessionId: 's' });
  const msg = await h.fake.waitFor((m) => m.method === 'session/stop');
  assert.equal(typeof msg.id, 'number', 'sent with an id');
  assert.deepEqual(msg.params, { sessionId: 's' });
  h.backend.dispose();
});

test('a build that refuses session/stop as a request gets the notification, and only that from then on', async () => {
  const h = harness({ 'session/stop': () => ({ error: { code: -32601, message: 'Method not found: session/stop' } }) });
  await h.backend.start();
  h.backend.stop({ sessionId: 's' });
  const fallback = await h.fake.waitFor((m) => m.method === 'session/stop' && m.id === undefined);
  assert.deepEqual(fallback, { method: 'session/stop', params: { sessionId: 's' } });
  h.backend.stop({ sessionId: 't' });
  const second = await h.fake.waitFor((m) => m.method === 'session/stop' && (m.params as { sessionId?: string }).sessionId === 't');
  assert.equal(second.id, undefined, 'the second stop goes straight as a notification');
  assert.equal(h.fake.received.filter((m) => m.method === 'session/stop' && m.id !== undefined).length, 1);
  h.backend.dispose();
});

test('zcode error replies keep their code and message', async () => {
  const h = harness({
    'session/send': () => ({ error: { code: 1308, message: 'prompt is running' } }),
    'session/read': () => ({ error: { code: -32004, message: 'session not active' } }),
  });
  const e = await rejectsWith(h.backend.send({ sessionId: 's', content: 'x' }), 1308, /prompt is running/);
  assert.equal(e.method, 'session/send');
  await rejectsWith(h.backend.read({ sessionId: 's' }), -32004, /session not active/);
  h.backend.dispose();
});

test('-32601: subscribe means incompatible zcode; steer/rewind mean "not supported by this version"', async () => {
  const h = harness({});
  await rejectsWith(h.backend.subscribe({ sessionId: 's' }), BackendErrorCode.Incompatible, /zcode 0\.14\.8 or newer is required \(this build has no session\/subscribe\)/);
  await rejectsWith(h.backend.steer({ sessionId: 's', content: 'x' }), -32601, /session\/steer is not supported by this zcode version/);
  await rejectsWith(h.backend.rewind({ sessionId: 's', target: { kind: 'latestCheckpoint' } }), -32601, /session\/rewind is not supported/);
  h.backend.dispose();
});

test('a malformed result is a clear InvalidResponse error, and logged', async () => {
  const h = harness({ 'session/create': () => ({ session: { title: 'no id' } }) });
  await rejectsWith(h.backend.createSession({ workspacePath: '/w' }), BackendErrorCode.InvalidResponse, /session\/create.*session\.sessionId/);
  assert.equal(h.logger.find('error', 'unexpected result').length, 1);
  h.backend.dispose();
});

test('every request has a timeout', async () => {
  const h = harness({ 'session/read': () => NO_REPLY }, { timeouts: { requestMs: 50 } });
  await rejectsWith(h.backend.read({ sessionId: 's' }), BackendErrorCode.Timeout, /did not answer session\/read within 50 ms/);
  assert.equal(h.backend.state, 'ready', 'a timeout does not kill the backend');
  h.backend.dispose();
});

test('events: parsed and delivered; unknown types logged at debug; malformed known ones warned; never fatal', async () => {
  const h = harness({ 'session/list': () => ({ sessions: [] }) });
  const events: ZcodeEvent[] = [];
  h.backend.onEvent((e) => events.push(e));
  h.backend.onEvent(() => {
    throw new Error('listener bug');
  });
  await h.backend.start();
  h.fake.send({ method: 'session/event', params: { sessionId: 's', seq: 1, type: 'turn.started', payload: { turnId: 't1' } } });
  h.fake.send({ method: 'session/event', params: { sessionId: 's', seq: 2, type: 'resource.sample', payload: { cpu: 1 } } });
  h.fake.send({ method: 'session/event', params: { sessionId: 's', seq: 3, type: 'model.streaming', payload: { kind: 'text_delta' } } });
  h.fake.send({ method: 'session/somethingElse', params: {} });
  h.fake.send('not json at all\n');
  h.fake.send({ method: 'session/event', params: { sessionId: 's', seq: 4, type: 'tool.updated', payload: { kind: 'result', toolCallId: 'c', result: { success: true } } } });
  await h.backend.listSessions({});
  assert.deepEqual(
    events.map((e) => [e.seq, e.type]),
    [
      [1, 'turn.started'],
      [4, 'tool.updated'],
    ],
  );
  assert.equal(h.logger.find('debug', 'unknown type "resource.sample"').length, 1);
  assert.equal(h.logger.find('warn', 'malformed zcode event "model.streaming"').length, 1);
  assert.equal(h.logger.find('error', 'listener bug').length, 2);
  assert.equal(h.backend.state, 'ready');
  h.backend.dispose();
});

test('unknown server requests are answered -32601; malformed interactions -32602', async () => {
  const h = harness({});
  await h.backend.start();
  h.fake.send({ id: 'server-7', method: 'workspace/somethingNew', params: {} });
  const reply = await h.fake.replyTo('server-7');
  assert.equal((reply.error as { code: number }).code, -32601);
  h.fake.send({ id: 'server-8', method: 'interaction/requestPermission', params: { sessionId: 's' } });
  const bad = await h.fake.replyTo('server-8');
  assert.equal((bad.error as { code: number }).code, -32602);
  h.backend.dispose();
});

test('re-sent interactions: handler called once, every id gets the one answer, late copies answered at once', async () => {
  const h = harness({});
  const seen: Interaction[] = [];
  let answer!: () => void;
  h.backend.setInteractionHandler(async (interaction) => {
    seen.push(interaction);
    await new Promise<void>((resolve) => (answer = resolve));
    return { decision: 'allow' };
  });
  await h.backend.start();
  const params = { requestId: 'req-1', sessionId: 's', toolCallId: 'c1', toolName: 'Bash', input: { command: 'ls' }, options: [] };
  h.fake.send({ id: 'server-1', method: 'interaction/requestPermission', params });
  h.fake.send({ id: 'server-2', method: 'interaction/requestPermission', params });
  h.fake.send({ id: 3, method: 'interaction/requestPermission', params });
  while (seen.length === 0) await tick();
  await tick();
  answer();
  for (const id of ['server-1', 'server-2', 3]) assert.deepEqual((await h.fake.replyTo(id)).result, { decision: 'allow' });
  h.fake.send({ id: 'server-4', method: 'interaction/requestPermission', params });
  assert.deepEqual((await h.fake.replyTo('server-4')).result, { decision: 'allow' });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].kind, 'permission');
  h.backend.dispose();
});

test('interactions are classified: plan approval vs questions (top level or under input)', async () => {
  const h = harness({});
  const kinds: string[] = [];
  h.backend.setInteractionHandler(async (i) => {
    kinds.push(i.kind);
    if (i.kind === 'plan') return { action: 'accept', content: { answer_0: 'approve' } };
    if (i.kind === 'questions') return { action: 'accept', content: { answers: { [i.questions[0].question]: 'A' } } };
    return { decision: 'allow' };
  });
  await h.backend.start();
  h.fake.send({ id: 1, method: 'interaction/requestUserInput', params: { requestId: 'p', sessionId: 's', schema: { interaction: 'plan_approval' }, input: { plan: '1. do' } } });
  h.fake.send({ id: 2, method: 'interaction/requestUserInput', params: { requestId: 'q', sessionId: 's', questions: [{ question: 'Which?', multiSelect: false, options: [{ label: 'A' }] }] } });
  h.fake.send({ id: 3, method: 'interaction/requestUserInput', params: { requestId: 'q2', sessionId: 's', input: { questions: [{ question: 'Under input?', options: [] }] } } });
  assert.deepEqual((await h.fake.replyTo(1)).result, { action: 'accept', content: { answer_0: 'approve' } });
  assert.deepEqual((await h.fake.replyTo(2)).result, { action: 'accept', content: { answers: { 'Which?': 'A' } } });
  assert.deepEqual((await h.fake.replyTo(3)).result, { action: 'accept', content: { answers: { 'Under input?': 'A' } } });
  assert.deepEqual(kinds, ['plan', 'questions', 'questions']);
  h.backend.dispose();
});

test('without a handler (or when it fails or answers nonsense) interactions are declined safely', async () => {
  const h = harness({});
  await h.backend.start();
  h.fake.send({ id: 1, method: 'interaction/requestPermission', params: { requestId: 'a', sessionId: 's', options: [] } });
  h.fake.send({ id: 2, method: 'interaction/requestUserInput', params: { requestId: 'b', sessionId: 's', schema: { interaction: 'plan_approval' }, input: { plan: 'p' } } });
  h.fake.send({ id: 3, method: 'interaction/requestUserInput', params: { requestId: 'c', sessionId: 's', questions: [{ question: 'Q', options: [] }] } });
  assert.equal(((await h.fake.replyTo(1)).result as { decision: string }).decision, 'deny');
  assert.deepEqual((await h.fake.replyTo(2)).result, { action: 'decline', reason: 'rejected' });
  assert.deepEqual((await h.fake.replyTo(3)).result, { action: 'decline', reason: 'cancelled' });

  h.backend.setInteractionHandler(async () => {
    throw new Error('ui gone');
  });
  h.fake.send({ id: 4, method: 'interaction/requestPermission', params: { requestId: 'd', sessionId: 's', options: [] } });
  assert.equal(((await h.fake.replyTo(4)).result as { decision: string }).decision, 'deny');
  h.backend.setInteractionHandler(async () => ({ decision: 'allow' }));
  h.fake.send({ id: 5, method: 'interaction/requestUserInput', params: { requestId: 'e', sessionId: 's', questions: [] } });
  assert.deepEqual((await h.fake.replyTo(5)).result, { action: 'decline', reason: 'cancelled' }, 'a permission reply to a question is not sent');
  h.backend.dispose();
});

test('crash: pending requests rejected promptly, interactions aborted, onDidExit after, next call starts a fresh process', async () => {
  const h = harness({ 'session/read': () => NO_REPLY, 'session/list': () => ({ sessions: [] }) }, { timeouts: { requestMs: 10_000 } });
  let aborted: unknown;
  let asked = false;
  h.backend.setInteractionHandler(
    (_i, signal) =>
      new Promise((_resolve, reject) => {
        asked = true;
        signal.addEventListener('abort', () => {
          aborted = signal.reason;
          reject(signal.reason);
        });
      }),
  );
  const states: BackendState[] = [];
  h.backend.onDidChangeState((s) => states.push(s));
  await h.backend.start();
  h.fake.send({ id: 'server-1', method: 'interaction/requestPermission', params: { requestId: 'r', sessionId: 's', options: [] } });
  const pending = h.backend.read({ sessionId: 's' });
  await h.fake.waitFor((m) => m.method === 'session/read');
  while (!asked) await tick();
  const exit = new Promise<ExitInfo>((resolve) => h.backend.onDidExit(resolve));
  h.fake.crash(3);
  // ProcessExited, not Timeout: the exit itself settled the request.
  const error = await rejectsWith(pending, BackendErrorCode.ProcessExited, /exited unexpectedly \(code 3\): panic: simulated/);
  const info = await exit;
  assert.equal(info.expected, false);
  assert.equal(info.code, 3);
  assert.ok(aborted instanceof ZcodeError);
  assert.equal(h.backend.state, 'crashed');
  assert.ok(error.message.length > 0);
  await h.backend.listSessions({});
  assert.equal(h.fakes.length, 2, 'a fresh process');
  assert.deepEqual(states, ['starting', 'ready', 'crashed', 'starting', 'ready']);
  h.backend.dispose();
});

test('dispose: pending requests rejected with Disposed, process stopped, later calls rejected', async () => {
  const h = harness({ 'session/read': () => NO_REPLY });
  const exits: ExitInfo[] = [];
  h.backend.onDidExit((i) => exits.push(i));
  await h.backend.start();
  const pending = h.backend.read({ sessionId: 's' });
  await h.fake.waitFor((m) => m.method === 'session/read');
  h.backend.dispose();
  await rejectsWith(pending, BackendErrorCode.Disposed);
  assert.equal(h.fake.stopCalls, 1);
  await rejectsWith(h.backend.read({ sessionId: 's' }), BackendErrorCode.Disposed);
  await tick();
  assert.equal(exits.length, 1);
  assert.equal(exits[0].expected, true);
  assert.equal(h.backend.state, 'stopped');
});

test('restart: the old process stops, pending calls fail, the next call gets a new process', async () => {
  const h = harness({ 'session/read': () => NO_REPLY, 'session/list': () => ({ sessions: [] }) });
  await h.backend.start();
  const pending = h.backend.read({ sessionId: 's' });
  await h.fake.waitFor((m) => m.method === 'session/read');
  await h.backend.restart();
  await rejectsWith(pending, BackendErrorCode.ProcessExited, /restarted/);
  assert.equal(h.backend.state, 'stopped');
  await h.backend.listSessions({});
  assert.equal(h.fakes.length, 2);
  h.backend.dispose();
});

test('locate failure: NotFound, state back to stopped, and the next call tries again', async () => {
  const logger = testLogger('client');
  let attempts = 0;
  const backend = createZcodeBackend(
    { logger },
    {
      locate: () => {
        attempts++;
        throw new ZcodeError('zcode was not found. Tried: PATH: /x/zcode.', BackendErrorCode.NotFound);
      },
    },
  );
  await rejectsWith(backend.start(), BackendErrorCode.NotFound, /not found/);
  assert.equal(backend.state, 'stopped');
  await rejectsWith(backend.listSessions({}), BackendErrorCode.NotFound);
  assert.equal(attempts, 2);
  backend.dispose();
});

test('setModel: the current shape first; a build refusing it (-32602 about the keys) gets {modelId}, and only that from then on', async () => {
  const h = harness({
    'session/setModel': (params) =>
      (params as { model?: unknown }).model !== undefined ? { error: { code: -32602, message: 'Invalid params: Unrecognized key: "options"' } } : {},
  });
  await h.backend.setModel({ sessionId: 's', modelId: 'GLM-4.6', providerId: 'account:zai-coding-plan', reasoningLevel: 'high' });
  await h.backend.setModel({ sessionId: 's', modelId: 'GLM-5.2', providerId: 'account:zai-coding-plan' });
  const sent = h.fake.received.filter((m) => m.method === 'session/setModel').map((m) => m.params);
  assert.deepEqual(sent, [
    { sessionId: 's', model: { providerId: 'account:zai-coding-plan', modelId: 'GLM-4.6', options: { reasoningLevel: 'high' } }, persistAsWorkspaceLastUsed: false },
    { sessionId: 's', modelId: 'GLM-4.6' },
    { sessionId: 's', modelId: 'GLM-5.2' },
  ]);
  assert.equal(h.logger.find('info', 'legacy {modelId} shape').length, 1);
  h.backend.dispose();
});

test('setModel: an unknown model is a real error, not a shape fallback', async () => {
  const h = harness({ 'session/setModel': () => ({ error: { code: -32603, message: 'Unsupported model: x/y. Available models: a/b' } }) });
  await assert.rejects(h.backend.setModel({ sessionId: 's', modelId: 'y', providerId: 'x' }), /Unsupported model/);
  assert.equal(h.fake.received.filter((m) => m.method === 'session/setModel').length, 1);
  h.backend.dispose();
});

test('a top-level state.updated notification (current builds) is delivered as the session\'s state.updated event', async () => {
  const h = harness();
  const events: unknown[] = [];
  let both!: () => void;
  const arrived = new Promise<void>((resolve) => (both = resolve));
  h.backend.onEvent((e) => {
    events.push(e);
    if (events.length === 2) both();
  });
  await h.backend.start();
  h.fake.send({ method: 'state.updated', params: { type: 'state.updated', scope: 'session', sessionId: 's9', revision: 4, reason: 'session_mode_updated', patch: { mode: { current: 'plan' } } } });
  h.fake.send({ method: 'startup/storageState', params: { schemaVersion: 1 } });
  h.fake.send({ method: 'session/event', params: { sessionId: 's9', seq: 1, type: 'turn.steerQueued', payload: {} } });
  await arrived;
  assert.deepEqual(events[0], { sessionId: 's9', type: 'state.updated', payload: { type: 'state.updated', scope: 'session', sessionId: 's9', revision: 4, reason: 'session_mode_updated', patch: { mode: 'plan' } } });
  h.backend.dispose();
});
