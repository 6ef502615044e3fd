/**
 * Self-test of the simulator's v4 surface (profiles desktop-3.15 and desktop-3.12): the probe per profile, the
 * envelope and every ACK status with its reason code, idempotency, CAS, serial processing, sendText start /
 * guide / queue with the legacy steer events, and the queue commands. Driven on the raw wire (no bridge code).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { isEvent, Sim, tempDir } from '../../helpers/simWire.ts';
import { WS, assertSentValid, cas, command, event, newId, rows, turnEnd, v4Sim, v4Turn, violations } from '../../helpers/simV4.ts';

after(() => Sim.killAll());

test('probe: desktop-3.15 and desktop-3.12 answer "unknown"; 0.16.5 and the seed era answer -32601 to every v4/* method', async () => {
  for (const profile of ['desktop-3.15', 'desktop-3.12']) {
    const { sim, record } = v4Sim(profile);
    const probe = await sim.result('v4/commands/query', { commands: [{ sessionId: null, commandId: 'probe-1' }] });
    assert.deepEqual(probe, { results: [{ key: { sessionId: null, commandId: 'probe-1' }, result: 'unknown' }] });
    // strict params: a clock probe naming a session, or an unknown key, is a -32603 zod error
    const clock = await sim.request('v4/commands/query', { commands: [{ sessionId: 'sess_x', commandId: 'a' }], clock: true });
    assert.equal(clock.error.code, -32603);
    assert.match(clock.error.message, /clock probes cannot query session commands/);
    assert.equal((await sim.request('v4/commands/query', { commands: [{ sessionId: null, commandId: 'a' }], extra: 1 })).error.code, -32603);
    assert.equal((await sim.request('v4/commands/query', { commands: [] })).error.code, -32603);
    await sim.close();
    assertSentValid(record);
  }
  for (const profile of ['0.16.5', '0.15.2']) {
    const sim = new Sim(['--profile', profile]);
    for (const method of ['v4/commands/query', 'v4/command', 'v4/conversation/rowsRange']) {
      assert.deepEqual((await sim.request(method, { commands: [{ sessionId: null, commandId: 'p' }] })).error, { code: -32601, message: `Method not found: ${method}` });
    }
    await sim.close();
  }
});

test('envelope: malformed → rejected/proto.invalidPayload with the zod issues (a recorded violation); unknown keys dropped; unknown session → proto.sessionNotFound', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const noIssuedAt = await sim.result('v4/command', { commandId: 'bad-1', clientId: 't', sessionId, type: 'sendText', payload: { text: 'x' } });
  assert.deepEqual({ ...noIssuedAt, message: undefined }, { commandId: 'bad-1', status: 'rejected', reasonCode: 'proto.invalidPayload', revisionAtDecision: 0, message: undefined });
  assert.deepEqual(JSON.parse(noIssuedAt.message)[0].path, ['issuedAt']);
  const noText = await command(sim, sessionId, 'sendText', {});
  assert.equal(noText.reasonCode, 'proto.invalidPayload');
  assert.deepEqual(JSON.parse(noText.message)[0].path, ['text']);
  const unknownType = await command(sim, sessionId, 'teleport', {});
  assert.equal(unknownType.status, 'rejected');
  const casMissing = await command(sim, sessionId, 'setFollowupMode', { mode: 'guide' });
  assert.equal(casMissing.reasonCode, 'proto.invalidPayload');
  assert.match(casMissing.message, /CAS commands require baseRevision and baseLogEpoch/);
  assert.equal(violations(record).filter((v) => v.startsWith('v4/command: invalid command')).length, 4);
  // unknown envelope and payload keys are dropped, not refused
  const extra = await command(sim, sessionId, 'switchCollaborationMode', { mode: 'plan', future: true }, { ...cas(await rows(sim, sessionId)), future: 1 });
  assert.equal(extra.status, 'accepted');
  assert.deepEqual(await command(sim, 'sess_nope', 'sendText', { text: 'hi' }).then((a) => [a.status, a.reasonCode, a.revisionAtDecision, a.message]), ['rejected', 'proto.sessionNotFound', 0, undefined]);
  assert.equal((await command(sim, null, 'compact', {})).reasonCode, 'proto.sessionNotFound');
  await sim.close();
  assertSentValid(record);
});

test('CAS, idempotency and query: stale epoch / revision (not remembered), duplicate replays the ACK, failed stays failed, noop config.unchanged', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const range = await rows(sim, sessionId);
  // the epoch is checked first, and only for row-targeting commands
  const staleEpoch = await command(sim, sessionId, 'retryTurn', { target: { rowId: 0, entityId: 'x' } }, { baseRevision: 999, baseLogEpoch: 'ep_old' });
  assert.deepEqual([staleEpoch.status, staleEpoch.reasonCode], ['stale', 'proto.staleLogEpoch']);
  assert.equal((await command(sim, sessionId, 'setFollowupMode', { mode: 'queue' }, { baseRevision: range.atRevision, baseLogEpoch: 'ep_old' })).status, 'accepted');
  const params = { commandId: newId('mode'), clientId: 't', sessionId, type: 'switchCollaborationMode', payload: { mode: 'plan' }, issuedAt: 0, baseRevision: 999999 };
  const stale = await sim.result('v4/command', params);
  assert.deepEqual([stale.status, stale.reasonCode, stale.revisionAtDecision], ['stale', 'proto.staleRevision', (await rows(sim, sessionId)).atRevision]);
  // a stale decision is not remembered: the same commandId with the current revision goes through
  const ok = await sim.result('v4/command', { ...params, baseRevision: stale.revisionAtDecision });
  assert.deepEqual([ok.status, ok.commandId], ['accepted', params.commandId]);
  assert.equal((await rows(sim, sessionId)).atRevision, stale.revisionAtDecision + 1, 'a config change moves the revision by one');
  const again = await sim.result('v4/command', { ...params, baseRevision: 0 });
  assert.deepEqual(again, { ...ok, status: 'duplicate' });
  const query = await sim.result('v4/commands/query', { commands: [{ sessionId, commandId: params.commandId }, { sessionId, commandId: 'never-sent' }] });
  assert.deepEqual(query.results.map((r: { result: unknown }) => r.result), [ok, 'unknown']);
  const same = await command(sim, sessionId, 'switchCollaborationMode', { mode: 'plan' }, cas(await rows(sim, sessionId)));
  assert.deepEqual([same.status, same.reasonCode], ['noop', 'config.unchanged']);
  const empty = { commandId: newId('empty'), clientId: 't', sessionId, type: 'sendText', payload: { text: '  ' }, issuedAt: 0 };
  const failed = await sim.result('v4/command', empty);
  assert.deepEqual([failed.status, failed.reasonCode, failed.message], ['failed', 'proto.invalidPayload', 'input must not be empty']);
  assert.equal((await sim.result('v4/command', empty)).status, 'failed', 'a failed command stays failed');
  await sim.close();
  assertSentValid(record);
});

test('guarded: switchCollaborationMode accepts it on desktop-3.15 only (3.12 has the 3.14.4 command set)', async () => {
  for (const [profile, status] of [['desktop-3.15', 'accepted'], ['desktop-3.12', 'rejected']]) {
    const { sim } = v4Sim(profile);
    const sessionId = await sim.session(WS.workspacePath);
    assert.equal((await command(sim, sessionId, 'switchCollaborationMode', { mode: 'guarded' }, cas(await rows(sim, sessionId)))).status, status);
    const metrics = await command(sim, sessionId, 'setHighspeedMetrics', {}, { baseLogEpoch: 'x' });
    assert.equal(JSON.parse(metrics.message)[0].path[0], profile === 'desktop-3.15' ? 'target' : 'type');
    await sim.close();
  }
});

test('sendText on an idle session starts a turn on the legacy stream; turn.started.inputId is the commandId; the ACK says startNow', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const { ack, end, from } = await v4Turn(sim, sessionId, '[scenario:text] hello');
  assert.deepEqual(ack.result, { type: 'inputAccepted', delivery: 'startNow', inputId: ack.commandId });
  const started = await event(sim, sessionId, 'turn.started', from);
  assert.equal(started.params.payload.inputId, ack.commandId);
  assert.equal(started.params.payload.queryId, ack.commandId);
  assert.equal(end.params.type, 'turn.completed');
  assert.equal(end.params.turnId, started.params.turnId);
  await sim.close();
  assertSentValid(record);
});

test('guide: steerQueued on the running turn, steerDrained at the next tool boundary, the answer obeys; the ACK reports "queue"', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:guide] work' });
  const started = await event(sim, sessionId, 'turn.started', from);
  const guide = await command(sim, sessionId, 'sendText', { text: 'Reply with STEERED-OK', requestedDelivery: 'guide' });
  assert.deepEqual(guide.result, { type: 'inputAccepted', delivery: 'queue', inputId: guide.commandId });
  const queued = (await event(sim, sessionId, 'turn.steerQueued', from)).params;
  assert.equal(queued.turnId, started.params.turnId);
  assert.equal(queued.payload.targetTurnId, started.params.turnId);
  assert.equal(queued.payload.delivery, 'guide');
  assert.equal(queued.payload.pendingInputId, `queue_${guide.commandId}`);
  assert.equal(queued.payload.inputPreview, 'Reply with STEERED-OK');
  assert.equal(queued.payload.intent.admittedDelivery, 'guide');
  const drained = (await event(sim, sessionId, 'turn.steerDrained', from)).params;
  assert.equal(drained.turnId, started.params.turnId);
  assert.deepEqual(drained.payload.pendingInputIds, [`queue_${guide.commandId}`]);
  assert.equal(drained.payload.drainedInputs[0].text, 'Reply with STEERED-OK');
  const end = await turnEnd(sim, sessionId, from);
  assert.equal(end.params.turnId, started.params.turnId);
  assert.match(end.params.payload.response, /STEERED-OK/);
  // the drain came after a tool result (the tool-batch boundary)
  const order = sim.messages.slice(from).filter((m) => isEvent(m, sessionId)).map((m) => (m.params.type === 'tool.updated' ? m.params.payload.kind : m.params.type));
  assert.ok(order.indexOf('result') < order.indexOf('turn.steerDrained'));
  const messages = (await sim.result('session/messages', { sessionId })).messages;
  assert.deepEqual(messages.filter((m: { info: { role: string } }) => m.info.role === 'user').map((m: { info: { messageId: string } }) => m.info.messageId).slice(1), drained.payload.injectedMessageIds);
  await sim.close();
  assertSentValid(record);
});

test('guide when the turn ends first (scenario guide-late): no drain; the input starts the next turn by itself (autoDrain)', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:guide-late] go' });
  const first = await event(sim, sessionId, 'turn.started', from);
  const guide = await command(sim, sessionId, 'sendText', { text: '[scenario:text] later please', requestedDelivery: 'guide' });
  const end = await turnEnd(sim, sessionId, from);
  assert.equal(end.params.turnId, first.params.turnId);
  const next = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.started' && m.params.turnId !== first.params.turnId, from);
  assert.equal(next.params.payload.inputId, guide.commandId);
  await turnEnd(sim, sessionId, sim.messages.indexOf(next));
  assert.equal(sim.messages.slice(from).some((m) => isEvent(m, sessionId) && m.params.type === 'turn.steerDrained'), false);
  await sim.close();
  assertSentValid(record);
});

test('queue: a queued input can be edited (CAS) and deleted; deleting it again is noop/queue.itemMissing; nothing starts after the turn', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:guide-late] go' });
  await event(sim, sessionId, 'turn.started', from);
  const queued = await command(sim, sessionId, 'sendText', { text: 'queued one', requestedDelivery: 'queue' });
  const queueItemId = `queue_${queued.commandId}`;
  assert.equal((await event(sim, sessionId, 'turn.steerQueued', from)).params.payload.delivery, 'queue');
  assert.equal((await command(sim, sessionId, 'editQueueItem', { queueItemId, newText: 'edited' }, { baseRevision: 0 })).status, 'stale');
  assert.equal((await command(sim, sessionId, 'editQueueItem', { queueItemId, newText: 'edited' }, cas(await rows(sim, sessionId)))).status, 'accepted');
  assert.equal((await command(sim, sessionId, 'deleteQueueItem', { queueItemId }, cas(await rows(sim, sessionId)))).status, 'accepted');
  const gone = await command(sim, sessionId, 'deleteQueueItem', { queueItemId }, cas(await rows(sim, sessionId)));
  assert.deepEqual([gone.status, gone.reasonCode], ['noop', 'queue.itemMissing']);
  // let the scenario finish (it waits for a steer): the late guide is the only queue item left, so it runs next
  const guide = await command(sim, sessionId, 'sendText', { text: '[scenario:text] guide now', requestedDelivery: 'guide' });
  const first = await turnEnd(sim, sessionId, from);
  const second = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.started' && m.params.turnId !== first.params.turnId, from);
  assert.equal(second.params.payload.inputId, guide.commandId);
  await turnEnd(sim, sessionId, sim.messages.indexOf(second));
  // a round trip after the second turn: no third turn was started by the deleted item
  assert.equal((await command(sim, sessionId, 'deleteQueueItem', { queueItemId: 'queue_x' }, cas(await rows(sim, sessionId)))).status, 'noop');
  const starts = sim.messages.slice(from).filter((m) => isEvent(m, sessionId) && m.params.type === 'turn.started');
  assert.equal(starts.length, 2);
  await sim.close();
  assertSentValid(record);
});

test('serial processing: a v4 request waits behind a session/create that awaits its runtime preferences; session/stop bypasses the line', async () => {
  const { sim } = v4Sim();
  sim.autoPrefs = false;
  sim.write({ id: 'create', method: 'session/create', params: { workspace: WS } });
  const prefs = await sim.next((m) => m.method === 'session/requestRuntimePreferences');
  sim.write({ id: 'probe', method: 'v4/commands/query', params: { commands: [{ sessionId: null, commandId: 'p' }] } });
  // session/stop is outside the line: its answer proves the simulator read past the probe
  const stop = await sim.request('session/stop', { sessionId: 'sess_unknown' });
  assert.ok(stop.error);
  assert.equal(sim.messages.some((m) => m.id === 'probe'), false, 'the probe waits for the create');
  sim.write({ id: prefs.id, result: { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false } });
  const created = await sim.next((m) => m.id === 'create');
  const probe = await sim.next((m) => m.id === 'probe');
  assert.ok(sim.messages.indexOf(created) < sim.messages.indexOf(probe));
  await sim.close();
});

test('a legacy session/send turn takes a v4 guide (the live 3.12.3 path); followupMode guide makes a plain sendText a guide', async () => {
  const { sim, record } = v4Sim('desktop-3.12');
  const sessionId = await sim.session(WS.workspacePath);
  let from = sim.messages.length;
  await sim.result('session/send', { sessionId, content: '[scenario:guide] legacy turn' });
  const started = await event(sim, sessionId, 'turn.started', from);
  const guide = await command(sim, sessionId, 'sendText', { text: 'STEER-LEGACY', requestedDelivery: 'guide' });
  assert.equal(guide.result.delivery, 'queue');
  assert.equal((await event(sim, sessionId, 'turn.steerDrained', from)).params.turnId, started.params.turnId);
  assert.match((await turnEnd(sim, sessionId, from)).params.payload.response, /STEER-LEGACY/);
  assert.equal((await command(sim, sessionId, 'setFollowupMode', { mode: 'guide' }, cas(await rows(sim, sessionId)))).status, 'accepted');
  from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:guide] again' });
  await event(sim, sessionId, 'turn.started', from);
  await command(sim, sessionId, 'sendText', { text: 'PLAIN-GUIDE' });
  assert.equal((await event(sim, sessionId, 'turn.steerQueued', from)).params.payload.delivery, 'guide');
  assert.match((await turnEnd(sim, sessionId, from)).params.payload.response, /PLAIN-GUIDE/);
  await sim.close();
  assertSentValid(record);
});

test('startNow preempts the running turn; a stop holds a non-empty queue until setAutoDrain true', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  let from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:long] first' });
  const first = await event(sim, sessionId, 'turn.started', from);
  const now = await command(sim, sessionId, 'sendText', { text: '[scenario:text] now', requestedDelivery: 'startNow' });
  assert.equal(now.result.delivery, 'startNow');
  const firstEnd = await turnEnd(sim, sessionId, from);
  assert.deepEqual([firstEnd.params.turnId, firstEnd.params.payload.resultType], [first.params.turnId, 'cancelled']);
  const second = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.started' && m.params.payload.inputId === now.commandId, from);
  await turnEnd(sim, sessionId, sim.messages.indexOf(second));
  from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:long] third' });
  await event(sim, sessionId, 'turn.started', from);
  const queued = await command(sim, sessionId, 'sendText', { text: '[scenario:text] waiting', requestedDelivery: 'queue' });
  assert.equal((await command(sim, sessionId, 'stop', {})).status, 'accepted');
  await turnEnd(sim, sessionId, from);
  // a round trip after the stop: the queued input did not start
  const range = await rows(sim, sessionId);
  assert.equal(sim.messages.slice(from).filter((m) => isEvent(m, sessionId) && m.params.type === 'turn.started').length, 1);
  assert.equal((await command(sim, sessionId, 'setAutoDrain', { autoDrain: true }, cas(range))).status, 'accepted');
  const resumed = await sim.next((m) => isEvent(m, sessionId) && m.params.type === 'turn.started' && m.params.payload.inputId === queued.commandId, from);
  await turnEnd(sim, sessionId, sim.messages.indexOf(resumed));
  await sim.close();
  assertSentValid(record);
});

test('v4 commands never cold-resume a stored session (proto.sessionNotFound); rowsRange does, and commands work after it', async () => {
  const stateDir = tempDir();
  const first = v4Sim('desktop-3.15', { ZCODE_SIM_STATE_DIR: stateDir });
  const sessionId = await first.sim.session(WS.workspacePath);
  await v4Turn(first.sim, sessionId, '[scenario:text] remember me');
  await first.sim.close();
  const { sim, record } = v4Sim('desktop-3.15', { ZCODE_SIM_STATE_DIR: stateDir });
  assert.equal((await command(sim, sessionId, 'renameSession', { title: 'x' })).reasonCode, 'proto.sessionNotFound');
  const range = await rows(sim, sessionId);
  assert.deepEqual(range.rows.filter((r: { kind: string }) => r.kind === 'userInput').map((r: { text: string }) => r.text), ['[scenario:text] remember me']);
  assert.equal((await command(sim, sessionId, 'renameSession', { title: 'Renamed after resume' })).status, 'accepted');
  await sim.close();
  assertSentValid(record);
});
