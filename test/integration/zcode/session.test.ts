// The backend client against the simulator as a real child process: sessions, turns, events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUNTIME_PREFERENCES_REPLY } from '../../../bridge/zcode/hostRequests.ts';
import { openSession, runTurn, simBackend } from './setup.ts';

test('create: runtime preferences answered with the exact shape; no message carries jsonrpc', async (t) => {
  const h = simBackend(t);
  const created = await h.backend.createSession({ workspacePath: h.workspace, mode: 'build' });
  assert.match(created.session.sessionId, /^sess_/);
  const { received, violations } = h.record();
  assert.deepEqual(violations, []);
  const create = received.find((m) => m.method === 'session/create');
  assert.deepEqual(create?.params, { workspace: { workspacePath: h.workspace, workspaceKey: h.workspace }, mode: 'build' });
  const prefsReply = received.find((m) => typeof m.id === 'string' && m.method === undefined);
  assert.deepEqual(prefsReply, { id: prefsReply?.id, result: RUNTIME_PREFERENCES_REPLY });
  assert.ok(received.length >= 2);
  assert.ok(received.every((m) => !('jsonrpc' in m)), 'no jsonrpc field in any message');
});

test('send + subscribe: a text turn streams parsed events in seq order', async (t) => {
  const h = simBackend(t);
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:text] say something');
  const types = events.map((e) => e.type);
  // Current builds announce the state change and the title before the turn starts (docs/zcode-protocol.md "Events").
  assert.equal(types.find((type) => type.startsWith('turn.')), 'turn.started');
  assert.equal(types.at(-1), 'turn.completed');
  const deltas = events.flatMap((e) => (e.type === 'model.streaming' && e.payload.kind === 'text_delta' ? [e.payload.delta] : []));
  assert.ok(deltas.length > 1, `expected streamed text, got ${types.join(',')}`);
  const seqs = events.map((e) => e.seq ?? 0);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'seq increases');
  const end = events.at(-1);
  assert.ok(end?.type === 'turn.completed' && end.payload.resultType === 'success');
  assert.equal(h.logger.find('warn').length, 0, h.logger.find('warn').join('\n'));
  assert.deepEqual(h.record().violations, []);
});

test('list / resume / read / messages', async (t) => {
  const h = simBackend(t);
  const sessionId = await openSession(h);
  await runTurn(h, sessionId, '[scenario:text] remember this');
  const listed = await h.backend.listSessions({ workspacePath: h.workspace });
  assert.ok(listed.sessions.some((s) => s.sessionId === sessionId));
  assert.equal(typeof listed.sessions[0].updatedAt, 'number');
  const all = await h.backend.listSessions({});
  assert.ok(all.sessions.length >= 1);
  await h.backend.resumeSession({ sessionId, workspacePath: h.workspace });
  const read = await h.backend.read({ sessionId });
  assert.equal(read.projection?.status, 'idle');
  assert.ok(read.settings?.mode?.current);
  const history = await h.backend.messages({ sessionId });
  const roles = history.messages.map((m) => m.info.role);
  assert.deepEqual(roles.slice(0, 2), ['user', 'assistant']);
  assert.deepEqual(h.record().violations, []);
});

for (const profile of ['desktop-3.12', '0.16.5', '0.15.2']) {
  test(`stop cancels a running turn (${profile}): a request on current builds, the notification a seed build asks for`, async (t) => {
    const h = simBackend(t, { profile });
    const sessionId = await openSession(h);
    const from = h.events.all.length;
    await h.backend.send({ sessionId, content: '[scenario:long] take your time' });
    await h.events.waitFor((e) => e.sessionId === sessionId && e.type === 'turn.started', 'turn.started');
    h.backend.stop({ sessionId });
    const end = await h.events.turnEnd(sessionId, from);
    assert.ok(end.type === 'turn.completed' && end.payload.resultType === 'cancelled', JSON.stringify(end));
    const stops = h.record().received.filter((m) => m.method === 'session/stop');
    assert.equal(typeof stops[0].id, 'number', 'first as a request');
    assert.deepEqual(stops[0].params, { sessionId });
    if (profile === '0.15.2') {
      // The seed build refused the request (-32601): the notification follows.
      assert.deepEqual(stops[1], { method: 'session/stop', params: { sessionId } });
    } else {
      assert.equal(stops.length, 1, 'current builds answer the request; no notification (they would drop it)');
    }
    assert.deepEqual(h.record().violations, []);
  });
}

test('extension methods round-trip (fork, goal, setMode, setThoughtLevel, setModel, compact)', async (t) => {
  const h = simBackend(t, { profile: '0.15.2' });
  const sessionId = await openSession(h);
  await runTurn(h, sessionId, '[scenario:text] a checkpoint please');
  const forked = await h.backend.fork({ sessionId, target: { kind: 'latestCheckpoint' } });
  assert.ok(forked.sessionId ?? forked.forkedSessionId ?? forked.session?.sessionId);
  await h.backend.goal({ sessionId, action: 'set', objective: 'ship it' });
  const goal = await h.backend.goal({ sessionId, action: 'show' });
  assert.equal(goal.goal?.objective, 'ship it');
  await h.backend.setMode({ sessionId, mode: 'plan' });
  await h.backend.setThoughtLevel({ sessionId, thoughtLevel: 'max' });
  await h.backend.setModel({ sessionId, modelId: 'GLM-4.6' });
  const read = await h.backend.read({ sessionId });
  assert.equal(read.settings?.mode?.current, 'plan');
  assert.equal(read.settings?.thoughtLevel?.current, 'max');
  assert.equal(read.settings?.model?.current?.modelId, 'GLM-4.6');
  await h.backend.compact({ sessionId });
  assert.deepEqual(h.record().violations, []);
});
