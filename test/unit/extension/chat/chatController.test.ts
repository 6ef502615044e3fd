/**
 * The chat's host side with an in-memory host and session manager (fakes that behave like the
 * real ones: events, an active session, prompts that resolve when the test's "agent" says so).
 */
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  AnswerElicitationCommand,
  AnswerPermissionCommand,
  CopyTranscriptCommand,
  DEFAULT_CHAT_SETTINGS,
  DidChangeSettingsNotification,
  DidChangeSnapshotNotification,
  ListSessionsRequest,
  LoadSessionCommand,
  OpenDiffCommand,
  ReadyCommand,
  RetryCommand,
  RewindToCommand,
  ForkFromCommand,
  SendPromptCommand,
  UndoChangesCommand,
  SteerCommand,
  LoadEarlierCommand,
  RemoveSteerCommand,
  DidRestoreDraftNotification,
  RewindMessageCommand,
} from '../../../../webview-ui/contract.ts';
import type { ChatSnapshot } from '../../../../webview-ui/viewModel.ts';
import { LoadEarlierRequest, RemoveQueuedRequest, RetryTurnRequest, SteerRequest } from '../../../../bridge/acp/extensions/contractDescriptors.ts';
import type { ZcodeCapabilities } from '../../../../bridge/acp/extensions/contractDescriptors.ts';
import type { ChatFeatures } from '../../../../extension/chat/chatFeatures.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChangeStore } from '../../../../extension/changes/changeStore.ts';
import { ChangeTracker } from '../../../../extension/changes/changeTracker.ts';
import { nodeFiles } from '../../../helpers/nodeFiles.ts';
import { Emitter } from '../../../helpers/emitter.ts';
import { deferred, setup, tick, type Deferred } from './chatHarness.ts';
import { allAvailable } from '../../../helpers/capabilities.ts';

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const d of disposers.splice(0)) d();
});

describe('chat controller', () => {
  test('ready → snapshot; a prompt streams as patches; the turn ends on the stop reason', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, { reason: 'start' });
    await tick();
    t.sync();
    // Opening the chat makes its new session at once: the pickers are there before the first prompt.
    assert.equal(t.view.session?.sessionId, 's1');
    t.send(SendPromptCommand, { text: 'Explain a.ts', attachments: [{ kind: 'file', id: 'f', name: 'a.ts', uri: 'file:///w/a.ts' }] });
    await tick();
    // Named, so the chat hears when it starts and its answer in order (extension/bridgeInbox.ts).
    const promptId = t.host.prompts[0]?.promptId;
    assert.match(promptId ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(t.host.requests.at(-1), {
      method: 'session/prompt',
      params: { sessionId: 's1', prompt: [{ type: 'text', text: 'Explain a.ts' }, { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' }], _meta: { zcode: { promptId } } },
    });
    for (const chunk of ['It ', 'exports ', 'a function.']) t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } });
    t.host.update('other-session', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'not ours' } });
    t.sync();
    assert.equal(t.view.session?.running, true);
    assert.deepEqual(t.view.list.items.map((i) => [i.type, 'text' in i ? i.text : '']), [
      ['user', 'Explain a.ts'],
      ['agent', 'It exports a function.'],
    ]);
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.sync();
    assert.equal(t.view.session?.running, false);
    assert.equal(t.view.gaps, 0, 'patch numbers are contiguous');
    assert.deepEqual(t.view.list.items, t.controller.items, 'the webview state equals the host state');
  });

  test('nothing is posted before ready; ready delivers everything as one snapshot', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'early' } });
    t.controller.flush();
    assert.equal(t.posted.length, 0);
    t.send(ReadyCommand, {});
    assert.equal(t.posted.length, 2, 'the snapshot, then the settings');
    assert.ok(DidChangeSnapshotNotification.is(t.posted[0]));
    assert.equal((t.posted[0].params as ChatSnapshot).items[0].type, 'agent');
    assert.ok(DidChangeSettingsNotification.is(t.posted[1]));
    assert.deepEqual(t.posted[1].params, DEFAULT_CHAT_SETTINGS);
  });

  test('retry: the last prompt\'s error re-sends that prompt; an older error card\'s Retry does nothing', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.host.prompts[0].reject(new Error('model overloaded'));
    await tick();
    t.sync();
    const firstError = t.view.list.items.find((i) => i.type === 'error')!;
    assert.equal(firstError.type === 'error' && firstError.retryable, true);
    t.send(SendPromptCommand, { text: 'second', attachments: [] });
    await tick();
    t.host.prompts[1].reject(new Error('model overloaded'));
    await tick();
    t.sync();
    const errors = t.view.list.items.filter((i) => i.type === 'error');
    assert.equal(errors.length, 2);
    // The first card's Retry belongs to "first", which is no longer the last prompt: nothing is sent.
    t.send(RetryCommand, { itemId: firstError.id });
    await tick();
    assert.equal(t.host.prompts.length, 2);
    t.send(RetryCommand, { itemId: errors[1].id });
    await tick();
    assert.equal(t.host.prompts.length, 3);
    const last = t.host.requests.at(-1)!.params as { prompt: Array<{ text: string }> };
    assert.equal(last.prompt[0].text, 'second');
  });

  test('permission: an answer is an option or a dismissal (cancelled); one with neither is ignored', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    await tick();
    const answer = t.controller.requestPermission(
      { sessionId: 's1', toolCall: { toolCallId: 'c1', title: 'Run npm test' }, options: [{ optionId: 'allow', name: 'Allow once', kind: 'allow_once' }] },
      new AbortController().signal,
    );
    t.sync();
    const card = t.view.list.items.find((i) => i.type === 'permission')!;
    t.send(AnswerPermissionCommand, { id: card.id });
    t.sync();
    const still = t.view.list.items.find((i) => i.id === card.id);
    assert.ok(still?.type === 'permission' && still.state === 'pending', 'an answer naming no option and no dismissal leaves the card waiting');
    t.send(AnswerPermissionCommand, { id: card.id, optionId: 'allow', cancelled: true });
    assert.deepEqual(await answer, { outcome: { outcome: 'cancelled' } });
  });

  test('permission: the webview answers with an option; unknown options are ignored', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    // Opening the chat restores (re-loads) the active session: let that finish first.
    await tick();
    const answer = t.controller.requestPermission(
      { sessionId: 's1', toolCall: { toolCallId: 'c1', title: 'Run npm test' }, options: [{ optionId: 'allow', name: 'Allow once', kind: 'allow_once' }] },
      new AbortController().signal,
    );
    t.sync();
    const card = t.view.list.items.find((i) => i.type === 'permission')!;
    t.send(AnswerPermissionCommand, { id: card.id, optionId: 'made-up' });
    t.send(AnswerPermissionCommand, { id: card.id, optionId: 'allow' });
    assert.deepEqual(await answer, { outcome: { outcome: 'selected', optionId: 'allow' } });
    t.sync();
    assert.deepEqual([(t.view.list.items[0] as { state: string }).state, (t.view.list.items[0] as { answer: string }).answer], ['answered', 'Allow once']);
  });

  test('attention: a finished or failed turn is reported with its answer, a stopped one is not; waiting requests are counted', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    await tick();
    t.send(SendPromptCommand, { text: 'hi', attachments: [] });
    await tick();
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '## All tests pass\nDetails…' } });
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.send(SendPromptCommand, { text: 'again', attachments: [] });
    await tick();
    t.host.prompts[1].reject(new Error('model overloaded'));
    await tick();
    t.send(SendPromptCommand, { text: 'stop me', attachments: [] });
    await tick();
    t.host.prompts[2].resolve({ stopReason: 'cancelled' });
    await tick();
    assert.deepEqual(t.notified, [
      { kind: 'turnEnded', summary: '## All tests pass\nDetails…' },
      { kind: 'turnFailed', message: 'model overloaded' },
    ]);

    const signal = new AbortController();
    const first = t.controller.requestPermission({ sessionId: 's1', toolCall: { toolCallId: 'c1', title: 'rm -rf build' }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] }, new AbortController().signal);
    const second = t.controller.createElicitation({ sessionId: 's1', mode: 'form', message: 'Which database?', requestedSchema: { type: 'object', properties: { db: { type: 'string' } } } }, signal.signal);
    assert.deepEqual(t.notified.slice(2), [
      { kind: 'needsInput', title: 'rm -rf build' },
      { kind: 'needsInput', title: 'Which database?' },
    ]);
    t.sync();
    const card = t.view.list.items.find((i) => i.type === 'permission')!;
    t.send(AnswerPermissionCommand, { id: card.id, optionId: 'allow' });
    await first;
    signal.abort();
    await second;
    assert.deepEqual(t.pendingCounts, [1, 2, 1, 0]);
  });

  test('Copy All: the conversation as markdown, tool calls as collapsed sections, diffs as diff blocks', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    await tick();
    t.send(SendPromptCommand, { text: 'Fix the greeting', attachments: [] });
    await tick();
    t.host.update('s1', {
      sessionUpdate: 'tool_call',
      toolCallId: 'e1',
      title: 'Edit src/greet.js',
      kind: 'edit',
      status: 'completed',
      content: [{ type: 'diff', path: '/w/src/greet.js', oldText: 'hello\n', newText: 'hello, world\n' }],
    });
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done: it says **hello, world**.' } });
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.send(CopyTranscriptCommand, {});
    const md = t.copied.at(-1)!;
    assert.match(md, /^# /);
    assert.match(md, /\*\*You:\*\*\n\nFix the greeting/);
    assert.match(md, /<details>\n<summary>Tool: Edit src\/greet\.js \(completed\)<\/summary>/);
    assert.match(md, /```diff\n--- \/w\/src\/greet\.js\n\+\+\+ \/w\/src\/greet\.js\n(.*\n)*-hello\n\+hello, world\n```/);
    assert.match(md, /<\/details>\n\n\*\*zcode:\*\*\n\nDone: it says \*\*hello, world\*\*\./);
    const agent = t.controller.items.find((i) => i.type === 'agent')!;
    assert.equal(t.controller.itemMarkdown(agent.id), 'Done: it says **hello, world**.');
    assert.equal(t.controller.itemMarkdown('nope'), undefined);
  });

  test('elicitation: the raw content goes to the bridge untouched; a withdrawn form disappears', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    const form = {
      mode: 'form' as const,
      sessionId: 's1',
      message: 'Please answer 2 question(s).',
      requestedSchema: { type: 'object' as const, properties: { q_0: { type: 'string' as const, oneOf: [{ const: 'a', title: 'a' }] }, q_0_other: { type: 'string' as const } }, required: [] },
    };
    const answered = t.controller.createElicitation(form, new AbortController().signal);
    const withdrawn = new AbortController();
    const second = t.controller.createElicitation(form, withdrawn.signal);
    t.sync();
    const [first, other] = t.view.list.items;
    const content = { q_0: 'a', q_0_other: '', q_1: ['x'], q_1_other: 'custom' };
    t.send(AnswerElicitationCommand, { id: first.id, response: { action: 'accept', content } });
    assert.deepEqual(await answered, { action: 'accept', content });
    withdrawn.abort();
    assert.deepEqual(await second, { action: 'cancel' });
    t.sync();
    assert.equal((t.view.list.items.find((i) => i.id === other.id) as { state: string }).state, 'withdrawn');
    // A late answer to the withdrawn form is ignored.
    t.send(AnswerElicitationCommand, { id: other.id, response: { action: 'accept', content: {} } });
  });

  test('busy: a prompt sent during a turn goes to the bridge at once and waits as a chip until it starts; steer goes to _zcode/session/steer', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SendPromptCommand, { text: 'second', attachments: [] });
    await tick();
    t.sync();
    // Both are in the bridge's queue: the chat keeps none of its own.
    assert.equal(t.host.requests.filter((r) => r.method === 'session/prompt').length, 2);
    assert.deepEqual(t.host.waiting('s1').map((p) => p.params.prompt), [[{ type: 'text', text: 'second' }]]);
    assert.deepEqual(t.view.session?.queue.map((q) => [q.id, q.text]), [[t.host.prompts[1].promptId, 'second']]);
    t.send(SteerCommand, { text: 'use vitest' });
    await tick();
    assert.deepEqual(t.host.requests.at(-1), { method: '_zcode/session/steer', params: { sessionId: 's1', content: 'use vitest' } });
    t.host.ext.fire({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'queued' } });
    t.sync();
    assert.equal(t.view.session?.steer, 'queued');
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    t.sync();
    assert.deepEqual(t.view.session?.queue, []);
    assert.equal(t.view.session?.steer, 'none');
    assert.equal(t.view.session?.running, true, "the second prompt's turn runs");
    assert.deepEqual(t.view.list.items.filter((i) => i.type === 'user').map((i) => i.text), ['first', 'use vitest', 'second']);
    t.host.prompts[1].resolve({ stopReason: 'end_turn' });
    t.sync();
    assert.equal(t.view.session?.running, false);
  });

  test('Open Diff hands the full texts to the editor; list sessions answers the request', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    t.host.update('s1', { sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/w/a.ts', oldText: 'a\n', newText: 'b\n' }] });
    t.send(OpenDiffCommand, { toolCallId: 'e1', index: 0 });
    await tick();
    assert.deepEqual(t.opened, [{ path: '/w/a.ts', oldText: 'a\n', newText: 'b\n' }]);
    t.send(ListSessionsRequest, {});
    await tick();
    t.sync();
    const reply = t.replies.find((m) => m.completionId !== undefined)!;
    assert.equal(reply.method, ListSessionsRequest.response.method);
    assert.deepEqual(reply.params, { ok: true, value: { sessions: [{ sessionId: 'old', title: 'Earlier work', updatedAt: '2026-01-01T00:00:00Z' }] } });
  });

  test('the session menu lists what the environment gives (every folder, the user\'s titles) when it gives one', async () => {
    const t = setup(undefined, { listSessions: async () => [{ sessionId: 'old', cwd: '/w2', title: 'two: Renamed', updatedAt: '2026-01-02T00:00:00Z' }] });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(ListSessionsRequest, {});
    await tick();
    t.sync();
    const reply = t.replies.find((m) => m.completionId !== undefined)!;
    assert.deepEqual(reply.params, { ok: true, value: { sessions: [{ sessionId: 'old', title: 'two: Renamed', updatedAt: '2026-01-02T00:00:00Z' }] } });
  });

  test('switching sessions sends a fresh snapshot (then the replay); pending forms stay answerable', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    await t.sessions.newSession();
    t.send(ReadyCommand, {});
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'in s1' } });
    const pending = t.controller.requestPermission({ sessionId: 's1', toolCall: { toolCallId: 'c' }, options: [{ optionId: 'ok', name: 'OK', kind: 'allow_once' }] }, new AbortController().signal);
    await t.sessions.loadSession('old');
    t.sync();
    assert.equal(t.view.session?.sessionId, 'old');
    assert.deepEqual(t.view.list.items.map((i) => i.type), ['permission', 'user', 'agent']);
    t.send(AnswerPermissionCommand, { id: t.view.list.items[0].id, optionId: 'ok' });
    assert.deepEqual(await pending, { outcome: { outcome: 'selected', optionId: 'ok' } });
  });

  test('the plan quota reaches the view and stays there across a session switch (it is the account\'s)', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    const quota = { label: '5-hour window', remainingPercent: 40, stale: false };
    t.controller.setPlanQuota(quota);
    t.sync();
    assert.deepEqual(t.view.session?.planQuota, quota);
    await t.sessions.loadSession('old');
    t.sync();
    assert.equal(t.view.session?.sessionId, 'old');
    assert.deepEqual(t.view.session?.planQuota, quota);
  });

  test('re-loading the shown session (restore, palette, chat menu) shows its history exactly once', async () => {
    const t = setup('old');
    disposers.push(() => t.controller.dispose());
    const shown = () => {
      t.sync();
      assert.deepEqual(t.view.list.items, t.controller.items, 'the webview state equals the host state');
      return t.view.list.items.map((i) => [i.type, 'text' in i ? i.text : '']);
    };
    const once = [
      ['user', 'history'],
      ['agent', 'answer'],
    ];
    // Opening the chat restores the remembered session (already the shown one: no change of the active session).
    t.send(ReadyCommand, {});
    await tick();
    assert.deepEqual(shown(), once);
    assert.equal(t.view.session?.sessionId, 'old');
    // "ZCode: Resume Session" of the shown session goes straight to the session manager.
    await t.sessions.loadSession('old');
    assert.deepEqual(shown(), once);
    // The chat's own session menu.
    t.send(LoadSessionCommand, { sessionId: 'old' });
    await tick();
    assert.deepEqual(shown(), once);
    assert.equal(t.view.gaps, 0, 'patch numbers are contiguous');
  });
});

/** Ticks until `check` holds (the host's work is async file I/O), bounded. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`never: ${what}`);
}

/** One turn ("first") whose message zcode lists checkpoint c1 for; resolves with the message once marked. */
async function turnWithCheckpoint(t: ReturnType<typeof setup>) {
  t.host.answers.set('_zcode/session/checkpoints', () => ({ checkpoints: [{ checkpointId: 'c1', label: 'first' }] }));
  t.send(ReadyCommand, {});
  t.send(SendPromptCommand, { text: 'first', attachments: [] });
  await until(() => t.host.prompts.length === 1, 'the prompt sent');
  t.host.prompts[0].resolve({ stopReason: 'end_turn' });
  await until(() => t.controller.items.some((i) => i.type === 'user' && i.checkpointId === 'c1'), 'the checkpoint on the message');
  return t.controller.items.find((i) => i.type === 'user')!;
}

describe('chat controller: changed files and checkpoints', () => {
  test('an edit turn ends with a changes card; Undo from the card restores the file and marks it undone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zcode-chat-changes-'));
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'one\ntwo\n');
    const tracker = new ChangeTracker(nodeFiles, new ChangeStore(nodeFiles, join(dir, '.storage')), { review: async () => {}, refused: async () => {} });
    const t = setup(undefined, { changes: tracker });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'edit a.txt', attachments: [] });
    await until(() => t.host.prompts.length === 1, 'the prompt sent');
    t.host.update('s1', { sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit a.txt', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: file, oldText: 'two', newText: 'TWO' }] });
    writeFileSync(file, 'one\nTWO\n');
    t.host.update('s1', { sessionUpdate: 'tool_call_update', toolCallId: 'e1', status: 'completed' });
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await until(() => t.controller.items.some((i) => i.type === 'changes'), 'the changes card');
    t.sync();
    const card = t.view.list.items.find((i) => i.type === 'changes');
    assert.ok(card?.type === 'changes');
    assert.deepEqual(card.files.map((f) => [f.path, f.status, f.added, f.removed, f.undone]), [[file, 'modified', 1, 1, false]]);
    t.send(UndoChangesCommand, { changeSetId: card.changeSetId, path: file });
    await until(() => readFileSync(file, 'utf8') === 'one\ntwo\n', 'the file restored');
    await until(() => t.controller.items.some((i) => i.type === 'changes' && i.files[0].undone), 'the card updated');
    t.sync();
    assert.deepEqual(t.view.list.items, JSON.parse(JSON.stringify(t.controller.items)), 'the webview holds what the host holds (as JSON carries it)');
  });

  test('messages get their checkpoints after a turn; Rewind to here rewinds and reloads; Fork from here forks at it', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.host.answers.set('_zcode/session/rewind', () => ({ rewound: true, checkpointId: 'c1' }));
    const user = await turnWithCheckpoint(t);
    t.send(RewindToCommand, { itemId: user.id });
    await until(() => t.host.requests.some((r) => r.method === '_zcode/session/rewind'), 'the rewind request');
    assert.deepEqual(t.host.requests.find((r) => r.method === '_zcode/session/rewind')?.params, { sessionId: 's1', checkpointId: 'c1' });
    // The reload: a fresh transcript, then the checkpoints asked again for it.
    await until(() => t.host.requests.filter((r) => r.method === '_zcode/session/checkpoints').length === 2, 'checkpoints after the reload');
    assert.equal(t.controller.items.length, 0, 'the transcript was rebuilt from the replay (none in this fake)');
  });

  test('a build without session/rewind: the reason is kept for the tooltip, fork still goes to the checkpoint', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.host.answers.set('_zcode/session/rewind', () => {
      throw Object.assign(new Error('session/rewind is not supported by this zcode version'), { code: -32601 });
    });
    const user = await turnWithCheckpoint(t);
    t.send(RewindToCommand, { itemId: user.id });
    await until(() => t.controller.session.checkpointUnavailable?.rewind !== undefined, 'the reason');
    assert.match(t.controller.session.checkpointUnavailable?.rewind ?? '', /not supported/);
    assert.ok(t.controller.items.some((i) => i.type === 'error' && /not supported/.test(i.message)));
    t.send(ForkFromCommand, { itemId: user.id });
    await until(() => t.sessions.forks.length === 1, 'the fork');
    assert.deepEqual(t.sessions.forks, ['c1']);
  });
});

describe('long sessions: earlier pages', () => {
  /** What the bridge sends for a `_zcode/session/loadEarlier` page: marked updates, then (when the test says so) the answer. */
  function pagedBridge(t: ReturnType<typeof setup>, pages: Record<string, { texts: [string, string]; cursor?: string }>) {
    const answers: Deferred<unknown>[] = [];
    t.host.answers.set(LoadEarlierRequest.method, (params) => {
      const { sessionId, cursor } = params as { sessionId: string; cursor: string };
      const page = pages[cursor];
      if (!page) throw new Error(`${LoadEarlierRequest.method}: unknown cursor ${cursor}`);
      const earlierPage = { zcode: { earlierPage: cursor } };
      t.host.update(sessionId, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: page.texts[0] }, _meta: earlierPage });
      t.host.update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: page.texts[1] }, _meta: earlierPage });
      const answer = deferred<unknown>();
      answers.push(answer);
      void answer.promise.catch(() => {});
      return answer.promise.then(() => ({ messages: 2, ...(page.cursor ? { cursor: page.cursor } : {}) }));
    });
    return answers;
  }
  const texts = (t: ReturnType<typeof setup>) => t.view.list.items.map((i) => ('text' in i ? i.text : i.type));

  test('the tail shows first; each page goes before it once its answer arrived; no cursor, no affordance', async () => {
    const t = setup('old');
    disposers.push(() => t.controller.dispose());
    t.sessions.earlierCursors.set('old', 'c2');
    const answers = pagedBridge(t, { c2: { texts: ['q1', 'a1'], cursor: 'c0' }, c0: { texts: ['q0', 'a0'] } });
    t.send(ReadyCommand, { reason: 'start' });
    await until(() => t.controller.session.earlier === 'available', 'the load');
    t.sync();
    assert.deepEqual(texts(t), ['history', 'answer']);
    assert.equal(t.view.session?.earlier, 'available');

    t.send(LoadEarlierCommand, {});
    t.send(LoadEarlierCommand, {}); // a second scroll while the page is on its way asks nothing more
    await until(() => answers.length === 1, 'the page request');
    // The page's updates arrived, its answer not yet: nothing is shown of it, nothing appended.
    t.host.update('old', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: ' (live)' } });
    t.sync();
    assert.deepEqual(texts(t), ['history', 'answer (live)']);
    assert.equal(t.view.session?.earlier, 'loading');
    assert.deepEqual(t.host.requests.filter((r) => r.method === LoadEarlierRequest.method).map((r) => r.params), [{ sessionId: 'old', cursor: 'c2' }]);

    answers[0].resolve(undefined);
    await until(() => t.controller.session.earlier === 'available', 'the first page');
    t.sync();
    assert.deepEqual(texts(t), ['q1', 'a1', 'history', 'answer (live)']);

    t.send(LoadEarlierCommand, {});
    await until(() => answers.length === 2, 'the second page request');
    answers[1].resolve(undefined);
    await until(() => t.controller.session.earlier === 'none', 'the last page');
    t.sync();
    assert.deepEqual(texts(t), ['q0', 'a0', 'q1', 'a1', 'history', 'answer (live)']);
    assert.equal(t.view.session?.earlier, 'none', 'the start of the history: no affordance');
    assert.equal(new Set(t.view.list.items.map((i) => i.id)).size, 6, 'every item has its own id');
    t.send(LoadEarlierCommand, {});
    await tick();
    assert.equal(t.host.requests.filter((r) => r.method === LoadEarlierRequest.method).length, 2, 'nothing more to ask for');
    assert.equal(t.view.gaps, 0, 'patch numbers are contiguous');
    assert.deepEqual(t.view.list.items, t.controller.items, 'the webview state equals the host state');
  });

  test('a whole replay offers no earlier page; a stray marked update is never appended', async () => {
    const t = setup('old');
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, { reason: 'start' });
    await until(() => t.controller.items.length === 2, 'the load');
    t.host.update('old', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'stale page' }, _meta: { zcode: { earlierPage: 'c9' } } });
    t.send(LoadEarlierCommand, {});
    await tick();
    t.sync();
    assert.equal(t.view.session?.earlier, 'none');
    assert.deepEqual(texts(t), ['history', 'answer']);
    assert.equal(t.host.requests.filter((r) => r.method === LoadEarlierRequest.method).length, 0);
  });

  test('a failed page says why and stays available; a page that answers after a reload is dropped', async () => {
    const t = setup('old');
    disposers.push(() => t.controller.dispose());
    t.sessions.earlierCursors.set('old', 'c2');
    const answers = pagedBridge(t, { c2: { texts: ['q1', 'a1'], cursor: 'c0' } });
    t.send(ReadyCommand, { reason: 'start' });
    await until(() => t.controller.session.earlier === 'available', 'the load');
    t.send(LoadEarlierCommand, {});
    await until(() => answers.length === 1, 'the page request');
    answers[0].reject(new Error('cursor c2 is not in this history'));
    await until(() => t.controller.items.some((i) => i.type === 'error'), 'the error card');
    t.sync();
    assert.equal(t.view.session?.earlier, 'available');
    assert.deepEqual(texts(t), ['history', 'answer', 'error']);

    t.send(LoadEarlierCommand, {});
    await until(() => answers.length === 2, 'the retry');
    t.send(LoadSessionCommand, { sessionId: 'old' });
    await until(() => t.controller.items.length === 2 && t.controller.session.earlier === 'available', 'the reload');
    answers[1].resolve(undefined);
    await tick();
    await tick();
    t.sync();
    assert.deepEqual(texts(t), ['history', 'answer'], 'the old page went with the old transcript');
  });
});

/** What the running zcode supports, as the chat's environment gives it (extension/zcodeFeatures.ts). */
function features(overrides: Partial<ZcodeCapabilities> = {}): ChatFeatures & { change(next: Partial<ZcodeCapabilities>): void } {
  let current: ZcodeCapabilities = allAvailable(overrides);
  const changes = new Emitter<ZcodeCapabilities>();
  return {
    get capabilities() {
      return current;
    },
    noReason: 'not with this zcode',
    onDidChange: changes.event,
    change(next) {
      current = { ...current, ...next };
      changes.fire(current);
    },
  };
}

const restored = (t: ReturnType<typeof setup>): string[] => t.replies.filter((m) => DidRestoreDraftNotification.is(m)).map((m) => (m.params as { text: string }).text);

describe('chat: what the running zcode supports, steer outcomes, zcode rewind and retry', () => {
  test('the session view carries why an action is unavailable, and follows changes', async () => {
    const f = features({ steer: { available: false, reason: 'needs a newer zcode' } });
    const t = setup(undefined, { features: f });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    await tick();
    t.sync();
    assert.deepEqual(t.view.session?.featureUnavailable, { steer: 'needs a newer zcode' });
    f.change({ steer: { available: true }, fileRewind: { available: false } });
    t.sync();
    assert.deepEqual(t.view.session?.featureUnavailable, { fileRewind: 'not with this zcode' });
  });

  test('a steer the session cannot make is not sent: the reason is shown and the text goes back', async () => {
    const t = setup(undefined, { features: features({ steer: { available: false, reason: 'no v4 on this build' } }) });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SteerCommand, { text: 'use vitest' });
    await tick();
    t.sync();
    assert.equal(t.host.requests.filter((r) => r.method === SteerRequest.method).length, 0, 'zcode was asked anyway');
    assert.ok(t.view.list.items.some((i) => i.type === 'error' && i.message === 'no v4 on this build'));
    assert.deepEqual(restored(t), ['use vitest']);
  });

  test('a steer the bridge refuses puts its text back into the composer', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.host.answers.set(SteerRequest.method, () => {
      throw new Error('the turn is not steerable');
    });
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SteerCommand, { text: 'also the docs' });
    await tick();
    t.sync();
    assert.deepEqual(restored(t), ['also the docs']);
    assert.equal(t.view.session?.steer, 'none');
  });

  test('a steer answered after its turn ended: the turn stays ended, its message stays where it was sent', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    const answer = deferred<{ accepted: boolean }>();
    t.host.answers.set(SteerRequest.method, () => answer.promise);
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SteerCommand, { text: 'use vitest' });
    await tick();
    t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } });
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    // zcode's answer to the steer comes only now (the turn ran on as soon as zcode had taken it).
    answer.resolve({ accepted: true });
    await tick();
    await tick();
    t.sync();
    assert.equal(t.view.session?.running, false, 'a late steer answer does not start a turn');
    assert.deepEqual(
      t.view.list.items.filter((i) => i.type === 'user' || i.type === 'agent').map((i) => [i.type, 'text' in i ? i.text : '']),
      [['user', 'first'], ['user', 'use vitest'], ['agent', 'Done.']],
    );
  });

  test('drained: the chip says the running turn took the steer in', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.host.answers.set(SteerRequest.method, () => ({ accepted: true, queueItemId: 'queue_1' }));
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SteerCommand, { text: 'use vitest' });
    await tick();
    t.host.ext.fire({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'queued', queueItemId: 'queue_1' } });
    t.host.ext.fire({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'drained', queueItemId: 'queue_1' } });
    t.sync();
    assert.equal(t.view.session?.steer, 'drained');
    // The outcome stays readable after the turn, until the next prompt.
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.sync();
    assert.equal(t.view.session?.running, false);
    assert.equal(t.view.session?.steer, 'drained');
    t.send(SendPromptCommand, { text: 'next', attachments: [] });
    await tick();
    t.sync();
    assert.equal(t.view.session?.steer, 'none');
  });

  test('a drained notice that comes before the steer is answered is kept', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.host.answers.set(SteerRequest.method, () => {
      // zcode took it in before the bridge's answer reached the chat.
      t.host.ext.fire({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'drained', queueItemId: 'queue_2' } });
      return { accepted: true, queueItemId: 'queue_2' };
    });
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SteerCommand, { text: 'use vitest' });
    await tick();
    t.sync();
    assert.equal(t.view.session?.steer, 'drained');
  });

  test('deferred: the chip outlives the turn; Remove drops it in zcode and gives the text back', async () => {
    const t = setup();
    disposers.push(() => t.controller.dispose());
    t.host.answers.set(SteerRequest.method, () => ({ accepted: true, queueItemId: 'queue_7' }));
    t.host.answers.set(RemoveQueuedRequest.method, () => ({ removed: true }));
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'first', attachments: [] });
    await tick();
    t.send(SteerCommand, { text: 'then write tests' });
    await tick();
    t.host.ext.fire({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'deferred', queueItemId: 'queue_7' } });
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.sync();
    assert.equal(t.view.session?.running, false);
    assert.equal(t.view.session?.steer, 'deferred', 'the end of the turn hid the deferred steer');
    t.send(RemoveSteerCommand, {});
    await tick();
    t.sync();
    assert.deepEqual(t.host.requests.filter((r) => r.method === RemoveQueuedRequest.method).map((r) => r.params), [{ sessionId: 's1', queueItemId: 'queue_7' }]);
    assert.deepEqual(restored(t), ['then write tests']);
  });

  test('Ask again on the latest prompt runs the choice and reloads the cut conversation', async () => {
    const asked: unknown[] = [];
    const t = setup(undefined, {
      features: features(),
      rewindMessage: async (sessionId, message) => {
        asked.push({ sessionId, ...message });
        return { outcome: 'done', sessionId, cwd: '/w', forked: false, historyChanged: message.action === 'askAgain', message: 'done' };
      },
    });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'one', attachments: [] });
    await tick();
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.send(SendPromptCommand, { text: 'two', attachments: [] });
    await tick();
    t.host.prompts[1].resolve({ stopReason: 'end_turn' });
    await tick();
    t.sync();
    const users = t.view.list.items.filter((i) => i.type === 'user');
    let loads = 0;
    t.sessions.onWillLoadSession(() => loads++);
    t.send(RewindMessageCommand, { itemId: users[0].id, action: 'filesOnly' });
    await tick();
    assert.deepEqual(asked, [{ sessionId: 's1', text: 'one', latest: false, action: 'filesOnly' }]);
    assert.equal(loads, 0, 'undoing files keeps the conversation: nothing to reload');
    t.send(RewindMessageCommand, { itemId: users[1].id, action: 'askAgain' });
    await tick();
    await tick();
    assert.deepEqual(asked.at(-1), { sessionId: 's1', text: 'two', latest: true, action: 'askAgain' });
    assert.equal(loads, 1, 'the transcript was not reloaded from zcode');
  });

  test('a rewind the session cannot make asks nothing and says why', async () => {
    let asked = 0;
    const t = setup(undefined, {
      features: features({ rewindLatestPrompt: { available: false, reason: 'no v4 on this build' } }),
      rewindMessage: async () => {
        asked++;
        return undefined;
      },
    });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'one', attachments: [] });
    await tick();
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    await tick();
    t.sync();
    const user = t.view.list.items.find((i) => i.type === 'user')!;
    t.send(RewindMessageCommand, { itemId: user.id, action: 'askAgain' });
    await tick();
    t.sync();
    assert.equal(asked, 0);
    assert.ok(t.view.list.items.some((i) => i.type === 'error' && i.message === 'no v4 on this build'));
  });

  test('Retry of a failed turn goes through zcode\'s retryTurn where it can (no second prompt)', async () => {
    const t = setup(undefined, { features: features() });
    disposers.push(() => t.controller.dispose());
    t.host.answers.set(RetryTurnRequest.method, () => ({ via: 'retryTurn' }));
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'one', attachments: [] });
    await tick();
    t.host.prompts[0].reject(new Error('the model is overloaded'));
    await tick();
    t.sync();
    const error = t.view.list.items.find((i) => i.type === 'error')!;
    t.send(RetryCommand, { itemId: error.id });
    await tick();
    t.sync();
    assert.deepEqual(t.host.requests.filter((r) => r.method === RetryTurnRequest.method).map((r) => r.params), [{ sessionId: 's1' }]);
    assert.equal(t.host.requests.filter((r) => r.method === 'session/prompt').length, 1);
    // zcode cut its history back to the prompt: the chat shows what zcode holds now.
    let loads = 0;
    t.sessions.onWillLoadSession(() => loads++);
    t.host.ext.fire({ method: '_zcode/session/historyChanged', params: { sessionId: 's1', reason: 'retried' } });
    await tick();
    assert.equal(loads, 1);
  });

  test('Retry of a turn zcode cannot retry in place (no reply yet) sends the prompt again', async () => {
    const t = setup(undefined, { features: features() });
    disposers.push(() => t.controller.dispose());
    t.host.answers.set(RetryTurnRequest.method, () => {
      throw new Error('zcode did not retry the turn: the latest turn has no assistant reply to retry');
    });
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'one', attachments: [] });
    await tick();
    t.host.prompts[0].reject(new Error('captcha verify failed'));
    await tick();
    t.sync();
    const error = t.view.list.items.find((i) => i.type === 'error')!;
    t.send(RetryCommand, { itemId: error.id });
    await tick();
    await tick();
    assert.equal(t.host.requests.filter((r) => r.method === RetryTurnRequest.method).length, 1);
    assert.deepEqual(t.host.requests.filter((r) => r.method === 'session/prompt').map((r) => (r.params as { prompt: { text: string }[] }).prompt[0].text), ['one', 'one']);
  });

  test('Retry without retryTurn re-sends the prompt as before', async () => {
    const t = setup(undefined, { features: features({ retryTurn: { available: false, reason: 'no v4' } }) });
    disposers.push(() => t.controller.dispose());
    t.send(ReadyCommand, {});
    t.send(SendPromptCommand, { text: 'one', attachments: [] });
    await tick();
    t.host.prompts[0].reject(new Error('the model is overloaded'));
    await tick();
    t.sync();
    const error = t.view.list.items.find((i) => i.type === 'error')!;
    t.send(RetryCommand, { itemId: error.id });
    await tick();
    assert.equal(t.host.requests.filter((r) => r.method === RetryTurnRequest.method).length, 0);
    assert.equal(t.host.requests.filter((r) => r.method === 'session/prompt').length, 2);
  });
});
