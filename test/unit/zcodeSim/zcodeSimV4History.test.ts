/**
 * Self-test of the simulator's v4 history and session commands: rows and their actions, editUserQuery
 * (preserve and rewind), retryTurn, forkAssistant, renameSession, file rewind (preview, changes, apply), stop,
 * compact, model/mode switches and createSession drafts. Raw wire, no bridge code.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEvent, Sim, tempDir, type Msg } from '../../helpers/simWire.ts';
import { WS, assertSentValid, cas, command, event, rows, targetOf, turnEnd, v4Sim, v4Turn } from '../../helpers/simV4.ts';

after(() => Sim.killAll());

const userRows = (range: Msg) => range.rows.filter((r: Msg) => r.kind === 'userInput');
const textRows = (range: Msg) => range.rows.filter((r: Msg) => r.kind === 'assistantText');

test('rowsRange: ascending rows with CAS values; canEdit only on the latest real query, canFork/canRetry on assistant text; beforeRowId pages', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const before = (await rows(sim, sessionId)).atRevision;
  const { from } = await v4Turn(sim, sessionId, '[scenario:text] first');
  const deltas = sim.messages.slice(from).filter((m) => m.method === 'session/event' && m.params.type === 'model.streaming').length;
  const moved = (await rows(sim, sessionId)).atRevision - before;
  assert.ok(moved > 0 && moved < deltas / 2, `streaming text does not move the revision (${moved} commits for ${deltas} deltas)`);
  await v4Turn(sim, sessionId, '[scenario:tools] second');
  const range = await rows(sim, sessionId);
  assert.deepEqual(range.rows.map((r: Msg) => r.rowId), range.rows.map((_: Msg, i: number) => i));
  assert.equal(typeof range.atSeq, 'number');
  assert.match(range.atLogEpoch, /^ep_/);
  assert.equal(range.hasMore, false);
  const queries = userRows(range);
  assert.deepEqual(queries.map((r: Msg) => r.actions), [undefined, { canEdit: true, editDisposition: 'rewind' }]);
  assert.ok(queries.every((r: Msg) => r.origin === 'realUser' && typeof r.sourceCommandId === 'string'));
  const texts = textRows(range);
  assert.deepEqual(texts.at(-1).actions, { canFork: true, canRetry: true });
  assert.ok(range.rows.some((r: Msg) => r.kind === 'toolCall' && r.status === 'success'));
  assert.equal(range.rows.filter((r: Msg) => r.kind === 'turnHeader').length, 2);
  const page = await sim.result('v4/conversation/rowsRange', { sessionId, limit: 2, beforeRowId: 4 });
  assert.deepEqual(page.rows.map((r: Msg) => r.rowId), [2, 3]);
  assert.equal(page.hasMore, true);
  const bad = await sim.request('v4/conversation/rowsRange', { sessionId, limit: 0 });
  assert.equal(bad.error.code, -32603);
  await sim.close();
  assertSentValid(record);
});

test('editUserQuery: an older query fails guard.latestQueryEditOnly; the latest is cut (new logEpoch, state.updated) and re-asked', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  await v4Turn(sim, sessionId, '[scenario:text] first');
  await v4Turn(sim, sessionId, '[scenario:text] second');
  const range = await rows(sim, sessionId);
  const [older, latest] = userRows(range);
  const refused = await command(sim, sessionId, 'editUserQuery', { target: targetOf(older), newText: 'x' }, cas(range));
  assert.deepEqual([refused.status, refused.reasonCode], ['failed', 'guard.latestQueryEditOnly']);
  assert.equal((await command(sim, sessionId, 'editUserQuery', { target: { rowId: latest.rowId, entityId: 'other' }, newText: 'x' }, cas(range))).reasonCode, 'proto.staleTarget');
  const from = sim.messages.length;
  const edit = await command(sim, sessionId, 'editUserQuery', { target: targetOf(latest), newText: '[scenario:text] second, edited' }, cas(range));
  assert.deepEqual(edit.result, { type: 'editUserQuery', disposition: 'rewind', sessionId });
  const rewound = await sim.next((m) => m.method === 'state.updated' && m.params.reason === 'session_rewound', from);
  assert.equal(rewound.params.sessionId, sessionId);
  const started = await event(sim, sessionId, 'turn.started', from);
  assert.equal(started.params.payload.inputId, edit.commandId);
  await turnEnd(sim, sessionId, from);
  const after = await rows(sim, sessionId);
  assert.notEqual(after.atLogEpoch, range.atLogEpoch);
  assert.deepEqual(userRows(after).map((r: Msg) => r.text), ['[scenario:text] first', '[scenario:text] second, edited']);
  assert.equal(after.rows.find((r: Msg) => r.kind === 'turnHeader' && r.sourceCommandId === edit.commandId).origin, 'editRerun');
  await sim.close();
  assertSentValid(record);
});

test('retryTurn: only the latest reply (guard.latestAssistantRetryOnly); the input runs again and session/messages keeps one user message', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  await v4Turn(sim, sessionId, '[scenario:text] one');
  await v4Turn(sim, sessionId, '[scenario:text] two');
  const range = await rows(sim, sessionId);
  const [older, latest] = textRows(range);
  const refused = await command(sim, sessionId, 'retryTurn', { target: targetOf(older) }, cas(range));
  assert.deepEqual([refused.status, refused.reasonCode], ['failed', 'guard.latestAssistantRetryOnly']);
  const from = sim.messages.length;
  const retry = await command(sim, sessionId, 'retryTurn', { target: targetOf(latest) }, cas(range));
  assert.deepEqual([retry.status, retry.result], ['accepted', undefined]);
  const started = await event(sim, sessionId, 'turn.started', from);
  assert.equal(started.params.payload.inputId, retry.commandId);
  await turnEnd(sim, sessionId, from);
  const messages = (await sim.result('session/messages', { sessionId })).messages;
  assert.deepEqual(messages.map((m: Msg) => m.info.role), ['user', 'assistant', 'user', 'assistant']);
  assert.equal(messages[2].parts[0].text, '[scenario:text] two');
  assert.equal(messages[3].info.parentMessageId !== undefined, true);
  await sim.close();
  assertSentValid(record);
});

test('forkAssistant: a new session with the conversation up to that reply; renameSession: custom title in titleUpdated and session/list, refused on a draft', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  await v4Turn(sim, sessionId, '[scenario:text] one');
  await v4Turn(sim, sessionId, '[scenario:text] two');
  const range = await rows(sim, sessionId);
  const [first] = textRows(range);
  const fork = await command(sim, sessionId, 'forkAssistant', { target: targetOf(first) }, cas(range));
  assert.equal(fork.result.type, 'forkAssistant');
  assert.notEqual(fork.result.sessionId, sessionId);
  const copied = (await sim.result('session/messages', { sessionId: fork.result.sessionId })).messages;
  assert.deepEqual(copied.map((m: Msg) => m.info.role), ['user', 'assistant']);
  const from = sim.messages.length;
  const renamed = await command(sim, sessionId, 'renameSession', { title: 'My custom title' });
  assert.equal(renamed.status, 'accepted');
  const title = await event(sim, sessionId, 'session.titleUpdated', from);
  assert.deepEqual({ source: title.params.payload.source, title: title.params.payload.title }, { source: 'custom', title: 'My custom title' });
  const listed = (await sim.result('session/list', { workspace: WS })).sessions.find((s: Msg) => s.sessionId === sessionId);
  assert.deepEqual([listed.title, listed.titleSource], ['My custom title', 'custom']);
  const draft = await command(sim, null, 'createSession', { workspaceId: WS.workspacePath });
  assert.equal(draft.result.type, 'createSession');
  const onDraft = await command(sim, draft.result.sessionId, 'renameSession', { title: 'x' });
  assert.deepEqual([onDraft.status, onDraft.reasonCode, onDraft.message], ['failed', 'fault.command.executionFailed', `Session not found: ${draft.result.sessionId}`]);
  const listedIds = async () => (await sim.result('session/list', { workspace: WS })).sessions.map((s: Msg) => s.sessionId);
  assert.equal((await listedIds()).includes(draft.result.sessionId), false, 'a draft is not listed');
  const other = await command(sim, null, 'createSession', { workspaceId: WS.workspacePath });
  assert.equal((await command(sim, other.result.sessionId, 'deleteSession', {})).status, 'accepted');
  assert.equal((await command(sim, other.result.sessionId, 'renameSession', { title: 'x' })).reasonCode, 'proto.sessionNotFound', 'a deleted draft is gone');
  // a v4 draft has no legacy delivery until session/subscribe
  await sim.result('session/subscribe', { sessionId: draft.result.sessionId, deliveryKind: 'desktop-continuous' });
  await v4Turn(sim, draft.result.sessionId, '[scenario:text] first input');
  assert.equal((await listedIds()).includes(draft.result.sessionId), true, 'the first input promotes the draft');
  assert.equal((await command(sim, draft.result.sessionId, 'renameSession', { title: 'Now persisted' })).status, 'accepted');
  await sim.close();
  assertSentValid(record);
});

test('file rewind (ZCODE_SIM_APPLY_EDITS=1): fileChanges, preview (exact CAS, -32603 otherwise), applyFileRewind deletes the created file', async () => {
  const workspace = tempDir();
  const { sim, record } = v4Sim('desktop-3.15', { ZCODE_SIM_APPLY_EDITS: '1' });
  const sessionId = await sim.session(workspace);
  await v4Turn(sim, sessionId, '[scenario:rewind-files] write notes');
  const file = join(workspace, 'sim-rewind/notes.txt');
  assert.equal(existsSync(file), true);
  const range = await rows(sim, sessionId);
  const header = range.rows.find((r: Msg) => r.kind === 'turnHeader');
  assert.deepEqual(header.fileChanges, { additions: header.fileChanges.additions, deletions: header.fileChanges.deletions, files: 1, state: 'active' });
  assert.deepEqual(header.actions, { canRewindFiles: true });
  const query = { sessionId, target: targetOf(header), ...cas(range) };
  const changes = await sim.result('v4/conversation/fileChanges', query);
  assert.deepEqual([changes.files, changes.items[0].path, changes.items[0].writeCount, changes.items[0].toolNames], [1, file, 2, ['Write', 'Edit']]);
  for (const [params, text] of [[{ ...query, baseRevision: query.baseRevision + 1 }, 'Error: proto.staleRevision'], [{ ...query, baseLogEpoch: 'ep_x' }, 'Error: proto.staleLogEpoch'], [{ ...query, target: { rowId: 0, entityId: 'nope' } }, 'Error: proto.staleTarget']]) {
    assert.deepEqual((await sim.request('v4/conversation/fileRewindPreview', params)).error, { code: -32603, message: text });
  }
  const preview = await sim.result('v4/conversation/fileRewindPreview', query);
  assert.deepEqual(preview, { canApply: true, ignoredFiles: [], safeFiles: [{ action: 'delete', operationCount: 2, path: file, toolNames: ['Write', 'Edit'] }], unsafeFiles: [] });
  const applied = await command(sim, sessionId, 'applyFileRewind', { target: targetOf(header) }, cas(range));
  assert.deepEqual([applied.result.applied, applied.result.preview], [true, preview]);
  assert.equal(existsSync(file), false);
  const after = await rows(sim, sessionId);
  assert.equal(after.atLogEpoch, range.atLogEpoch, 'a file rewind does not cut the conversation');
  const again = await command(sim, sessionId, 'applyFileRewind', { target: targetOf(header) }, cas(after));
  assert.deepEqual([again.result.applied, again.result.preview.safeFiles], [false, []]);
  await sim.close();
  assertSentValid(record);
});

test('editUserQuery workspaceMode:rewind: blocked (accepted + reason + preview) on no files or an externally changed file; otherwise restores and re-asks', async () => {
  const workspace = tempDir();
  const { sim, record } = v4Sim('desktop-3.15', { ZCODE_SIM_APPLY_EDITS: '1' });
  const sessionId = await sim.session(workspace);
  await v4Turn(sim, sessionId, '[scenario:text] no files here');
  let range = await rows(sim, sessionId);
  const noFiles = await command(sim, sessionId, 'editUserQuery', { target: targetOf(userRows(range)[0]), newText: 'again', workspaceMode: 'rewind' }, cas(range));
  assert.deepEqual([noFiles.status, noFiles.result.disposition, noFiles.result.reasonCode], ['accepted', 'blocked', 'guard.workspaceRewindUnavailable']);
  await v4Turn(sim, sessionId, '[scenario:rewind-files] write notes');
  const file = join(workspace, 'sim-rewind/notes.txt');
  writeFileSync(file, 'changed by someone else\n');
  range = await rows(sim, sessionId);
  const latest = userRows(range).at(-1);
  const unsafe = await command(sim, sessionId, 'editUserQuery', { target: targetOf(latest), newText: 'again', workspaceMode: 'rewind' }, cas(range));
  assert.deepEqual([unsafe.result.disposition, unsafe.result.reasonCode, unsafe.result.preview.unsafeFiles[0].reason], ['blocked', 'guard.workspaceRewindUnsafeFiles', 'external_modified']);
  writeFileSync(file, 'first line\nsecond line, edited\n');
  const from = sim.messages.length;
  const ok = await command(sim, sessionId, 'editUserQuery', { target: targetOf(latest), newText: '[scenario:text] without the file', workspaceMode: 'rewind' }, cas(await rows(sim, sessionId)));
  assert.deepEqual(ok.result, { type: 'editUserQuery', disposition: 'rewind', sessionId });
  assert.equal(existsSync(file), false);
  await turnEnd(sim, sessionId, from);
  await sim.close();
  assertSentValid(record);
});

test('stop: a mismatched expectedForegroundExecutionId is noop/guard.stopTargetChanged; legacy session/stop does not reach a v4 turn; v4 stop does', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const from = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:long] go' });
  const started = await event(sim, sessionId, 'turn.started', from);
  const fg = started.params.payload.foregroundExecutionId;
  assert.equal(typeof fg, 'string');
  const wrong = await command(sim, sessionId, 'stop', { expectedForegroundExecutionId: 'fx_other' });
  assert.deepEqual([wrong.status, wrong.reasonCode], ['noop', 'guard.stopTargetChanged']);
  assert.deepEqual(await sim.result('session/stop', { sessionId }), {});
  // a round trip after the legacy stop (a cancel ends a turn at once): the turn is still running
  await rows(sim, sessionId);
  assert.equal(sim.messages.slice(from).some((m) => isEvent(m, sessionId) && m.params.type === 'turn.completed'), false, 'the legacy stop did not end the v4 turn');
  const stop = await command(sim, sessionId, 'stop', { expectedForegroundExecutionId: fg });
  assert.deepEqual([stop.status, stop.result], ['accepted', undefined]);
  const end = await turnEnd(sim, sessionId, from);
  assert.equal(end.params.payload.resultType, 'cancelled');
  await sim.close();
  assertSentValid(record);
});

test('config and maintenance: switchModelConfig (noop, provider.notInRegistry, accepted), compact and its lock, createSession with a first input', async () => {
  const { sim, record } = v4Sim();
  const sessionId = await sim.session(WS.workspacePath);
  const provider = 'account:zai-coding-plan';
  const same = await command(sim, sessionId, 'switchModelConfig', { provider, model: 'GLM-5.2', thought: '' }, cas(await rows(sim, sessionId)));
  assert.deepEqual([same.status, same.reasonCode], ['noop', 'config.unchanged']);
  const unknown = await command(sim, sessionId, 'switchModelConfig', { provider: 'nobody', model: 'x', thought: '' }, cas(await rows(sim, sessionId)));
  assert.deepEqual([unknown.status, unknown.reasonCode], ['failed', 'provider.notInRegistry']);
  const from = sim.messages.length;
  assert.equal((await command(sim, sessionId, 'switchModelConfig', { provider, model: 'GLM-4.6', thought: '' }, cas(await rows(sim, sessionId)))).status, 'accepted');
  assert.equal((await sim.next((m) => m.method === 'state.updated' && m.params.reason === 'session_model_updated', from)).params.patch.model.current.modelId, 'GLM-4.6');
  // while a turn runs a compact is queued; a second one meets the lock
  const turnFrom = sim.messages.length;
  await command(sim, sessionId, 'sendText', { text: '[scenario:long] busy' });
  assert.equal((await command(sim, sessionId, 'compact', {})).status, 'accepted');
  assert.equal((await event(sim, sessionId, 'turn.steerQueued', turnFrom)).params.payload.intent.kind, 'compact');
  const locked = await command(sim, sessionId, 'compact', {});
  assert.deepEqual([locked.status, locked.reasonCode], ['failed', 'compactOperationLock']);
  assert.equal((await command(sim, sessionId, 'stop', {})).status, 'accepted');
  await turnEnd(sim, sessionId, turnFrom);
  const unmodelled = await command(sim, sessionId, 'resolveInteraction', { interactionId: 'perm_x', answer: { optionId: 'allow' } });
  assert.deepEqual([unmodelled.status, unmodelled.reasonCode], ['failed', 'fault.command.notImplemented']);
  const created = await command(sim, null, 'createSession', { workspaceId: WS.workspacePath, firstInput: { text: '[scenario:text] hi' } });
  assert.deepEqual(created.result.input, { delivery: 'startNow', inputId: created.commandId });
  const listed = (await sim.result('session/list', { workspace: WS })).sessions.map((s: Msg) => s.sessionId);
  assert.ok(listed.includes(created.result.sessionId));
  const query = await sim.result('v4/commands/query', { commands: [{ sessionId: null, commandId: created.commandId }] });
  assert.deepEqual(query.results[0].result, created);
  await sim.close();
  assertSentValid(record);
});
