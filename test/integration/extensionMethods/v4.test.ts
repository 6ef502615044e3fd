/**
 * The features only zcode's v4 command surface provides, end to end: the official SDK client, the
 * real bridge and the simulator (desktop-3.15 has v4; 0.16.5 has none). Every `_zcode/*` answer is
 * read through its descriptor (`callExtension`: schema-checked) and every notification through
 * `readNotification`; the harness checks every ACP message against the official schema.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  CapabilitiesChangedNotification,
  CapabilitiesRequest,
  EditQueuedRequest,
  ForkRequest,
  HistoryChangedNotification,
  RemoveQueuedRequest,
  RenameRequest,
  RetryTurnRequest,
  RewindTargetsRequest,
  RewindToRequest,
  SteerRequest,
  SteerStateNotification,
} from '../../../bridge/acp/extensions/contractDescriptors.ts';
import { callExtension, readNotification } from '../../../bridge/acp/extensions/contractSchemas.ts';
import type { ExtensionNotification, ParsedParamsOf } from '../../../bridge/acp/extensions/contractDescriptors.ts';
import { errorOf, newSession, prompt, sessionText, startPrompt, withBridge, zcodeCalls } from './support.ts';
import type { AcpHarness } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-v4');

const send = (h: AcpHarness) => (method: string, params: unknown) => h.agent.request(method, params);

function notes<D extends ExtensionNotification>(h: AcpHarness, descriptor: D, sessionId?: string): Array<ParsedParamsOf<D>> {
  return h.notifications.flatMap((n) => {
    const parsed = readNotification(descriptor, n);
    return parsed && (sessionId === undefined || (parsed as { sessionId?: string }).sessionId === sessionId) ? [parsed] : [];
  });
}

/** The session updates of one session. */
function updatesOf(h: AcpHarness, sessionId: string) {
  return h.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
}

/** How many replies of the `text` scenario the session has shown. */
const greetings = (h: AcpHarness, sessionId: string): number => sessionText(h, sessionId).split('A tiny greeting helper').length - 1;

/** The length of the session's text up to the end of its first `text` scenario reply. */
const greetingLength = (h: AcpHarness, sessionId: string): number => sessionText(h, sessionId).indexOf('it has no dependencies') + 'it has no dependencies'.length;

/** The v4 commands the bridge sent, by type. */
function commands(h: AcpHarness, type?: string): Array<Record<string, unknown>> {
  return zcodeCalls(h, 'v4/command').filter((c) => type === undefined || c.type === type);
}

describe('v4 on desktop-3.15', () => {
  test('capabilities: probed once when zcode starts, every v4 feature available, announced to the client', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] hi');
      const caps = await callExtension(send(h), CapabilitiesRequest, {});
      assert.equal(caps.probed, true);
      assert.equal(caps.v4, true);
      for (const feature of ['steer', 'rewindLatestPrompt', 'rewindWithFiles', 'rewindEarlier', 'fileRewind', 'retryTurn', 'rename', 'forkAssistant', 'queueEdit'] as const) assert.deepEqual(caps[feature], { available: true }, feature);
      await h.waitFor('capabilitiesChanged', () => notes(h, CapabilitiesChangedNotification).length > 0);
      assert.equal(notes(h, CapabilitiesChangedNotification).at(-1)?.v4, true);
      // The probe is a read of a fresh id in the global bucket, asked once for this process.
      const probes = zcodeCalls(h, 'v4/commands/query');
      assert.equal(probes.length, 1);
      assert.deepEqual(Object.keys(probes[0] ?? {}), ['commands']);
    }));

  test('a new zcode process (after a crash) is probed again; the session goes on', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
    try {
      await withBridge({ sim: { stateDir } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        await prompt(h, sessionId, '[scenario:text] before');
        await h.waitFor('the first probe', () => zcodeCalls(h, 'v4/commands/query').length === 1);
        await errorOf(prompt(h, sessionId, '[scenario:crash]'));
        assert.equal((await prompt(h, sessionId, '[scenario:text] after the crash')).stopReason, 'end_turn');
        await h.waitFor('the second probe', () => zcodeCalls(h, 'v4/commands/query').length === 2);
        assert.equal((await callExtension(send(h), CapabilitiesRequest, {})).v4, true);
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('steer: a v4 guide; queued then drained on the running turn, named by its queue item id', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:guide] refactor');
      await h.waitFor('the guide turn', () => sessionText(h, sessionId).includes('Steer me any time'));
      const answer = await callExtension(send(h), SteerRequest, { sessionId, content: 'rename the class too' });
      assert.match(answer.queueItemId ?? '', /^queue_/);
      assert.equal((await running.response).stopReason, 'end_turn');
      const states = notes(h, SteerStateNotification, sessionId).map((n) => [n.state, n.queueItemId]);
      assert.deepEqual(states, [
        ['queued', answer.queueItemId],
        ['drained', answer.queueItemId],
      ]);
      const [guide] = commands(h, 'sendText');
      assert.deepEqual(guide?.payload, { text: 'rename the class too', requestedDelivery: 'guide' });
      assert.equal(`queue_${String(guide?.commandId)}`, answer.queueItemId);
      assert.equal(zcodeCalls(h, 'session/steer').length, 0, 'no legacy steer (0.16 removed it)');
      assert.match(sessionText(h, sessionId), /Steer received: "rename the class too"/);
    }));

  test('steer after the turn ended first: deferred; zcode runs it as its own turn, which reaches the client, and the next prompt works', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:guide-late] answer');
      await h.waitFor('the turn to wait', () => sessionText(h, sessionId).includes('Answering in one go'));
      const answer = await callExtension(send(h), SteerRequest, { sessionId, content: '[scenario:text] and a greeting' });
      await running.response;
      await h.waitFor('deferred', () => notes(h, SteerStateNotification, sessionId).some((n) => n.state === 'deferred'));
      assert.deepEqual(
        notes(h, SteerStateNotification, sessionId).map((n) => [n.state, n.queueItemId]),
        [
          ['queued', answer.queueItemId],
          ['deferred', answer.queueItemId],
        ],
      );
      // zcode started it by itself: its reply streams to the client although no prompt asked for it.
      await h.waitFor('the deferred steer ran', () => sessionText(h, sessionId).includes('A tiny greeting helper'));
      const next = await prompt(h, sessionId, '[scenario:text] after');
      assert.equal(next.stopReason, 'end_turn');
    }));

  test('steer with no running turn: -32602 with a clear message (never -32000)', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const error = await errorOf(callExtension(send(h), SteerRequest, { sessionId, content: 'x' }));
      assert.equal(error.code, -32602);
      assert.match(error.message, /No prompt is running/);
    }));

  test('removeQueued / editQueued: CAS from rowsRange; an item that is gone is removed:false, not an error', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] hi');
      assert.deepEqual(await callExtension(send(h), RemoveQueuedRequest, { sessionId, queueItemId: 'queue_gone' }), { removed: false });
      const [removal] = commands(h, 'deleteQueueItem');
      assert.equal(typeof removal?.baseRevision, 'number');
      // zcode accepts an edit of a missing item (it only logs it): the bridge reports what zcode said.
      assert.deepEqual(await callExtension(send(h), EditQueuedRequest, { sessionId, queueItemId: 'queue_gone', text: 'new' }), { edited: true });
      const [edit] = commands(h, 'editQueueItem');
      assert.deepEqual(edit?.payload, { queueItemId: 'queue_gone', newText: 'new' });
      assert.equal(edit?.commandId === removal?.commandId, false, 'each command has its own id');
    }));

  test('rewind targets, then ask the latest prompt again in place: the history is cut, clients told to reload', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] first');
      await prompt(h, sessionId, '[scenario:text] second');
      const { targets } = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      assert.deepEqual(targets.map((t) => [t.kind, t.text]), [
        ['earlier', '[scenario:text] first'],
        ['latestPrompt', '[scenario:text] second'],
      ]);
      const latest = targets[1];
      assert.ok(latest?.actions.includes('askAgain'));
      assert.ok(!targets[0]?.actions.includes('askAgain'), 'only the latest prompt can be asked again');
      const done = await callExtension(send(h), RewindToRequest, { sessionId, targetId: latest.targetId, action: 'askAgain', text: '[scenario:text] second, edited' });
      assert.equal(done.outcome, 'done');
      assert.equal(done.sessionId, sessionId);
      assert.equal(done.historyChanged, true);
      assert.deepEqual(notes(h, HistoryChangedNotification, sessionId), [{ sessionId, reason: 'rewound' }]);
      const [edit] = commands(h, 'editUserQuery');
      assert.equal((edit?.payload as { workspaceMode?: string }).workspaceMode, 'preserve');
      // The re-asked turn streams to the client although no prompt asked for it …
      await h.waitFor('the re-asked turn', () => greetings(h, sessionId) === 3);
      // … and zcode's history now ends with the edited prompt (the old one is gone).
      const again = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      assert.deepEqual(again.targets.map((t) => t.text), ['[scenario:text] first', '[scenario:text] second, edited']);
    }));

  test('a turn zcode started from a v4 command is cancelled with session/cancel (zcode\'s v4 stop)', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] first');
      const { targets } = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      await callExtension(send(h), RewindToRequest, { sessionId, targetId: targets[0]?.targetId ?? '', action: 'askAgain', text: '[scenario:long] take your time' });
      await h.waitFor('the re-asked long turn streams', () => sessionText(h, sessionId).length > greetingLength(h, sessionId) + 50);
      await h.agent.notify('session/cancel', { sessionId });
      await h.waitFor('zcode\'s v4 stop', () => commands(h, 'stop').length === 1);
      assert.deepEqual(commands(h, 'stop')[0]?.payload, {});
      // The session is free again: the next prompt runs to its end.
      assert.equal((await prompt(h, sessionId, '[scenario:text] next')).stopReason, 'end_turn');
    }));

  test('an earlier prompt cannot be asked again in place: blocked with a message, nothing sent', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] first');
      await prompt(h, sessionId, '[scenario:text] second');
      const { targets } = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      const result = await callExtension(send(h), RewindToRequest, { sessionId, targetId: targets[0]?.targetId ?? '', action: 'askAgain' });
      assert.equal(result.outcome, 'blocked');
      assert.match(result.message, /Only the latest prompt/);
      assert.equal(commands(h, 'editUserQuery').length, 0);
    }));

  test('forkHere at an earlier message: a new session before it, the original kept', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] first');
      await prompt(h, sessionId, '[scenario:text] second');
      const { targets } = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      const second = targets[1];
      assert.ok(second?.actions.includes('forkHere'));
      const forked = await callExtension(send(h), RewindToRequest, { sessionId, targetId: second.targetId, action: 'forkHere' });
      assert.equal(forked.outcome, 'done');
      assert.equal(forked.forked, true);
      assert.notEqual(forked.sessionId, sessionId);
      assert.match(forked.message, /original session is kept/);
      const original = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      assert.equal(original.targets.length, 2, 'the original keeps both prompts');
    }));

  test('filesOnly: the turn\'s files restored (preview first), the conversation kept', () =>
    withBridge({ caps: { fs: { readTextFile: true, writeTextFile: true } } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:rewind-files] write notes');
      const { targets } = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      const [target] = targets;
      assert.ok(target && (target.fileCount ?? 0) > 0, `the turn changed files: ${JSON.stringify(target)}`);
      assert.ok(target.actions.includes('filesOnly'));
      const result = await callExtension(send(h), RewindToRequest, { sessionId, targetId: target.targetId, action: 'filesOnly' });
      assert.equal(result.outcome, 'done', result.message);
      assert.equal(result.historyChanged, false);
      assert.ok((result.restoredFiles ?? []).some((f) => f.endsWith('notes.txt')));
      assert.equal(zcodeCalls(h, 'v4/conversation/fileRewindPreview').length, 1);
    }));

  test('retryTurn: zcode re-runs the latest turn in place (no second copy of the message)', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] once');
      const result = await callExtension(send(h), RetryTurnRequest, { sessionId });
      assert.deepEqual(result, { via: 'retryTurn' });
      assert.equal(commands(h, 'retryTurn').length, 1);
      await h.waitFor('the retried turn', () => greetings(h, sessionId) === 2);
      const { targets } = await callExtension(send(h), RewindTargetsRequest, { sessionId });
      assert.deepEqual(targets.map((t) => t.text), ['[scenario:text] once'], 'one user message in zcode\'s history');
    }));

  test('rename: in zcode (every client gets session_info_update); fork kind assistant: a new session', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] hello');
      assert.deepEqual(await callExtension(send(h), RenameRequest, { sessionId, title: 'My renamed session' }), { title: 'My renamed session', inZcode: true });
      await h.waitFor('session_info_update', () => updatesOf(h, sessionId).some((u) => u.sessionUpdate === 'session_info_update' && u.title === 'My renamed session'));
      const fork = await callExtension(send(h), ForkRequest, { sessionId, kind: 'assistant' });
      assert.notEqual(fork.sessionId, sessionId);
      assert.equal(commands(h, 'forkAssistant').length, 1);
    }));
});

describe('no v4 (0.16.5)', () => {
  test('every v4 feature is reported unavailable with its reason; calls fail clearly (not -32601); rename stays local', () =>
    withBridge({ sim: { profile: '0.16.5' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] hi');
      const caps = await callExtension(send(h), CapabilitiesRequest, {});
      assert.equal(caps.probed, true);
      assert.equal(caps.v4, false);
      for (const feature of ['steer', 'rewindLatestPrompt', 'rewindWithFiles', 'rewindEarlier', 'fileRewind', 'retryTurn', 'rename', 'forkAssistant', 'queueEdit'] as const) {
        assert.equal(caps[feature].available, false, feature);
        assert.match(caps[feature].reason ?? '', /zcode/, feature);
      }
      for (const [descriptor, params] of [
        [RewindTargetsRequest, { sessionId }],
        [RewindToRequest, { sessionId, targetId: '1:x', action: 'askAgain' }],
        [RetryTurnRequest, { sessionId }],
        [RemoveQueuedRequest, { sessionId, queueItemId: 'queue_x' }],
        [ForkRequest, { sessionId, kind: 'assistant' }],
      ] as const) {
        const error = await errorOf(callExtension(send(h), descriptor, params as never));
        assert.equal(error.code, -32603, descriptor.method);
        assert.match(error.message, /not available: .*v4/, descriptor.method);
      }
      assert.deepEqual(await callExtension(send(h), RenameRequest, { sessionId, title: 'Local title' }), { title: 'Local title', inZcode: false });
      assert.ok(updatesOf(h, sessionId).some((u) => u.sessionUpdate === 'session_info_update' && u.title === 'Local title'));
      assert.equal(commands(h).length, 0, 'no v4 command was sent');
    }));
});

describe('seed build (0.15.2)', () => {
  test("no v4, but the legacy session/steer and session/rewind: steer and going back to a checkpoint stay available; zcode's own rewind kinds do not", () =>
    withBridge({ sim: { profile: '0.15.2' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] hi');
      const caps = await callExtension(send(h), CapabilitiesRequest, {});
      assert.equal(caps.probed, true);
      assert.equal(caps.v4, false);
      assert.equal(caps.steer.available, true);
      assert.equal(caps.rewindEarlier.available, true);
      for (const feature of ['rewindLatestPrompt', 'rewindWithFiles', 'fileRewind', 'retryTurn', 'forkAssistant'] as const) assert.equal(caps[feature].available, false, feature);
    }));
});
