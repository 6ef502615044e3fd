/**
 * Background tasks and sub-agents end to end (docs/zcode-protocol.md
 * "Background tasks and sub-agents"): official SDK client ⇄ bridge ⇄ simulator (scenarios subagent, subagent-bg,
 * bash-bg, bash-bg-fail), every outgoing message schema-validated, `_zcode/session/backgroundTasks`
 * shape-checked by the harness.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withoutEvents } from '../acp/harness.ts';
import type { AcpHarness, ToolCall, ToolCallUpdate } from './support.ts';
import {
  ext,
  metaOf,
  newSession,
  notificationsOf,
  prompt,
  sessionText,
  caughtUp,
  sleep,
  startPrompt,
  TERMINAL_CAPS,
  toolCallUpdates,
  toolCalls,
  withBridge,
  zcodeCalls,
  zcodeIdOfLastSend,
} from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-bg');

interface TaskInfo {
  id: string;
  kind: 'agent' | 'bash';
  description: string;
  status: string;
  startedAt?: string;
  outputPath?: string;
  toolCallId?: string;
}

function taskLists(h: AcpHarness, sessionId: string): TaskInfo[][] {
  return notificationsOf<{ tasks: TaskInfo[] }>(h, '_zcode/session/backgroundTasks', sessionId).map((n) => n.tasks);
}

function lastTasks(h: AcpHarness, sessionId: string): TaskInfo[] {
  const lists = taskLists(h, sessionId);
  return lists[lists.length - 1] ?? [];
}

/** How often `needle` occurs in the session's agent text. */
function occurrences(h: AcpHarness, sessionId: string, needle: string): number {
  return sessionText(h, sessionId).split(needle).length - 1;
}

function findCard(h: AcpHarness, sessionId: string, predicate: (c: ToolCall) => boolean): ToolCall | undefined {
  return toolCalls(h, sessionId).find(predicate);
}

function finalUpdate(h: AcpHarness, sessionId: string, toolCallId: string): ToolCallUpdate | undefined {
  return toolCallUpdates(h, sessionId, toolCallId).find((u) => u.status === 'completed' || u.status === 'failed');
}

/** Concatenated `_meta.terminal_output.data` of a terminal card. */
function terminalData(h: AcpHarness, sessionId: string, toolCallId: string): string {
  return toolCallUpdates(h, sessionId, toolCallId)
    .map((u) => (metaOf(u).terminal_output as { data?: string } | undefined)?.data ?? '')
    .join('');
}

/** Wait until the backend's own background-task turn has finished: its closing text arrived, then its end (usage), then the bridge caught up. */
async function backgroundTurnDone(h: AcpHarness, sessionId: string, closing: string): Promise<void> {
  await h.waitFor(`the background turn text "${closing}"`, () => sessionText(h, sessionId).includes(closing));
  await h.waitFor('the background turn\'s end (its usage)', () => {
    const updates = h.updatesOf(sessionId);
    // The text may come in several chunks: the usage must follow the last of them.
    const lastText = updates.findLastIndex((u) => u.sessionUpdate === 'agent_message_chunk');
    return sessionText(h, sessionId).includes(closing) && updates.slice(lastText + 1).some((u) => u.sessionUpdate === 'usage_update');
  });
  await caughtUp(h);
}

describe('synchronous sub-agent', () => {
  test('inner tool calls are ordinary cards; the Agent card ends with _meta.subagent {agentId, tokens, toolUses, durationMs}', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const response = await prompt(h, sessionId, '[scenario:subagent] survey');
      assert.equal(response.stopReason, 'end_turn');
      const cards = toolCalls(h, sessionId);
      const agent = cards.find((c) => (metaOf(c).zcode as { toolName?: string } | undefined)?.toolName === 'Agent');
      assert.ok(agent, 'an Agent card');
      const inner = cards.filter((c) => c !== agent).map((c) => (metaOf(c).zcode as { toolName?: string } | undefined)?.toolName);
      assert.deepEqual(inner, ['Read', 'Grep']);
      assert.ok(!cards.some((c) => c.title.startsWith('[background]')));
      const last = finalUpdate(h, sessionId, agent.toolCallId);
      assert.equal(last?.status, 'completed');
      const subagent = metaOf(last).subagent as { agentId?: string; tokens?: number; toolUses?: number; durationMs?: number } | undefined;
      assert.match(subagent?.agentId ?? '', /^agent_/);
      assert.deepEqual({ ...subagent, agentId: 'x' }, { agentId: 'x', tokens: 40904, toolUses: 1, durationMs: 10559 });
      assert.deepEqual(taskLists(h, sessionId), [], 'a synchronous sub-agent is no background task');
    }));
});

describe('background sub-agent', () => {
  test('a [background] <description> card is minted in_progress and completed; the background turn text arrives once', () =>
    // Speed 0.1, not 0: at 0 the background task finishes at once and its turn's text may legitimately
    // arrive before the prompt response; this test checks what the prompt's own text ends with.
    withBridge({ sim: { speed: 0.1 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const response = await prompt(h, sessionId, '[scenario:subagent-bg] todos');
      assert.equal(response.stopReason, 'end_turn');
      assert.match(sessionText(h, sessionId), /The agent is running in the background; I'll report back when it finishes\.\n$/);
      await backgroundTurnDone(h, sessionId, 'found 3 TODOs (src/index.ts:12');
      const card = findCard(h, sessionId, (c) => c.title === '[background] Collect open TODOs');
      assert.ok(card, 'the [background] card');
      assert.equal(card.kind, 'other');
      assert.equal(card.status, 'in_progress');
      const done = finalUpdate(h, sessionId, card.toolCallId);
      assert.equal(done?.status, 'completed');
      assert.equal(toolCalls(h, sessionId).filter((c) => c.title.startsWith('[background]')).length, 1, 'one card per task');
      assert.equal(occurrences(h, sessionId, 'The background agent finished'), 1, 'the background turn is forwarded exactly once');
      // Its text is marked as coming from the backend's own turn.
      const bgChunks = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'agent_message_chunk' && (metaOf(u).zcode as { background?: boolean } | undefined)?.background === true);
      assert.ok(bgChunks.length > 0);
    }));

  test("the backend's background_task turn neither ends a user prompt early nor is forwarded twice", () =>
    withBridge({ sim: { speed: 1 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:subagent-bg] todos');
      // Send the next prompt the moment the backend's own turn starts streaming: zcode answers busy,
      // the bridge retries, and the background turn's end must not end this prompt.
      await h.waitFor(
        'the background turn to start',
        () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk' && (metaOf(u).zcode as { background?: boolean } | undefined)?.background === true),
        15_000,
      );
      const second = startPrompt(h, sessionId, '[scenario:text] and now the docs');
      const response = await second.response;
      const textAtResponse = sessionText(h, sessionId);
      assert.equal(response.stopReason, 'end_turn');
      const backgroundEnd = textAtResponse.indexOf('src/routes/auth.ts:7).');
      const ownText = textAtResponse.lastIndexOf('- it has no dependencies\n');
      assert.ok(backgroundEnd !== -1, 'the background text is complete');
      assert.ok(ownText > backgroundEnd, 'the second prompt answered only after its own turn streamed');
      assert.equal(occurrences(h, sessionId, 'The background agent finished'), 1);
      // The case really happened: zcode answered the second prompt busy while its own turn ran.
      assert.ok(zcodeCalls(h, 'session/send').filter((p) => p.content === '[scenario:text] and now the docs').length >= 2, 'the second prompt met the background turn');
      // The background turn was not sent by the bridge: zcode got exactly the two user prompts.
      assert.deepEqual(
        [...new Set(zcodeCalls(h, 'session/send').map((p) => p.content))],
        ['[scenario:subagent-bg] todos', '[scenario:text] and now the docs'],
      );
    }));
});

describe('background Bash', () => {
  test('the launch card is reused, stays in_progress after the launch result, streams terminal output and exits 0', () =>
    withBridge({ caps: TERMINAL_CAPS }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const response = await prompt(h, sessionId, '[scenario:bash-bg] build');
      assert.equal(response.stopReason, 'end_turn');
      const launch = findCard(h, sessionId, (c) => (metaOf(c).zcode as { toolName?: string } | undefined)?.toolName === 'Bash');
      assert.ok(launch, 'the Bash launch card');
      assert.ok(metaOf(launch).terminal_info, 'a terminal card');
      await backgroundTurnDone(h, sessionId, 'The background build finished successfully');
      assert.deepEqual(
        toolCalls(h, sessionId).map((c) => c.toolCallId),
        [launch.toolCallId],
        'no second card for the task',
      );
      const updates = toolCallUpdates(h, sessionId, launch.toolCallId);
      const statuses = updates.map((u) => u.status).filter(Boolean);
      assert.equal(statuses.filter((s) => s === 'completed' || s === 'failed').length, 1, `closed once: ${statuses.join(',')}`);
      assert.equal(statuses[statuses.length - 1], 'completed');
      assert.ok(statuses.includes('in_progress'));
      const exits = updates.map((u) => metaOf(u).terminal_exit).filter(Boolean);
      assert.deepEqual(exits, [{ terminal_id: launch.toolCallId, exit_code: 0, signal: null }]);
      assert.match(terminalData(h, sessionId, launch.toolCallId), /> tsc -p \.\n\ncompiled 42 files\ndone in 1\.8s\n$/);
      assert.equal(occurrences(h, sessionId, 'The background build finished successfully'), 1);
    }));

  test('the launch card stays open until the task ends (no completed status before the task completes)', () =>
    withBridge({ caps: TERMINAL_CAPS, sim: { speed: 1 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:bash-bg] build');
      const launch = findCard(h, sessionId, (c) => (metaOf(c).zcode as { toolName?: string } | undefined)?.toolName === 'Bash');
      assert.ok(launch);
      assert.equal(finalUpdate(h, sessionId, launch.toolCallId), undefined, 'still open right after the launching prompt ended');
      await h.waitFor('the task to run', () => lastTasks(h, sessionId)[0]?.status === 'running');
      assert.equal(finalUpdate(h, sessionId, launch.toolCallId), undefined, 'still open while the task runs');
      assert.ok(toolCallUpdates(h, sessionId, launch.toolCallId).some((u) => u.status === 'in_progress'));
      await h.waitFor('the task to complete', () => finalUpdate(h, sessionId, launch.toolCallId) !== undefined, 15_000);
      assert.equal(finalUpdate(h, sessionId, launch.toolCallId)?.status, 'completed');
    }));

  test('a failing background command closes the launch card failed with exit code 1', () =>
    withBridge({ caps: TERMINAL_CAPS }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:bash-bg-fail] build');
      await backgroundTurnDone(h, sessionId, 'The background build failed');
      const launch = findCard(h, sessionId, (c) => (metaOf(c).zcode as { toolName?: string } | undefined)?.toolName === 'Bash');
      assert.ok(launch);
      const last = finalUpdate(h, sessionId, launch.toolCallId);
      assert.equal(last?.status, 'failed');
      assert.deepEqual(metaOf(last).terminal_exit, { terminal_id: launch.toolCallId, exit_code: 1, signal: null });
      assert.match(terminalData(h, sessionId, launch.toolCallId), /error TS2322/);
      assert.equal(lastTasks(h, sessionId)[0]?.status, 'failed');
    }));

  test('a client without terminal support gets the output as text content on the same card, with a link to the output file', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:bash-bg] build');
      await backgroundTurnDone(h, sessionId, 'The background build finished successfully');
      const launch = findCard(h, sessionId, (c) => (metaOf(c).zcode as { toolName?: string } | undefined)?.toolName === 'Bash');
      assert.ok(launch);
      assert.equal(toolCalls(h, sessionId).length, 1);
      const last = finalUpdate(h, sessionId, launch.toolCallId);
      assert.equal(last?.status, 'completed');
      assert.equal(metaOf(last).terminal_exit, undefined);
      const content = JSON.stringify(last?.content ?? []);
      assert.match(content, /done in 1\.8s/);
      assert.match(content, /"resource_link"/);
    }));
});

describe('_zcode/session/cancelBackgroundTask', () => {
  test('Bash: cancelled → the launch card fails with _meta.backgroundTask.cancelled and terminal_exit 1; the list says cancelled', () =>
    withBridge({ caps: TERMINAL_CAPS, sim: { speed: 2 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:bash-bg] build');
      const zid = zcodeIdOfLastSend(h);
      await h.waitFor('the running task in the list', () => lastTasks(h, sessionId).some((t) => t.status === 'running'));
      const task = lastTasks(h, sessionId)[0];
      assert.equal(task.kind, 'bash');
      assert.deepEqual(await ext(h, '_zcode/session/cancelBackgroundTask', { sessionId, taskId: task.id }), { cancelled: true });
      assert.deepEqual(zcodeCalls(h, 'session/cancelBackgroundTask'), [{ sessionId: zid, taskId: task.id }]);
      const launchId = task.toolCallId!;
      await h.waitFor('the card to close', () => finalUpdate(h, sessionId, launchId) !== undefined);
      const last = finalUpdate(h, sessionId, launchId)!;
      assert.equal(last.status, 'failed');
      assert.deepEqual(metaOf(last).backgroundTask, { cancelled: true });
      assert.deepEqual(metaOf(last).terminal_exit, { terminal_id: launchId, exit_code: 1, signal: null });
      await h.waitFor('the cancelled list', () => lastTasks(h, sessionId)[0]?.status === 'cancelled');
      // Closed exactly once, and no background turn follows a cancel.
      await sleep(1500);
      assert.equal(toolCallUpdates(h, sessionId, launchId).filter((u) => u.status === 'failed' || u.status === 'completed').length, 1);
      assert.equal(occurrences(h, sessionId, 'The background build finished'), 0);
      // Cancelling again: zcode says the task is not running; nothing changes.
      const listsBefore = taskLists(h, sessionId).length;
      assert.deepEqual(await ext(h, '_zcode/session/cancelBackgroundTask', { sessionId, taskId: task.id }), { cancelled: false });
      assert.equal(taskLists(h, sessionId).length, listsBefore);
    }));

  test('sub-agent: cancelled → the [background] card fails with _meta.backgroundTask.cancelled (no terminal_exit)', () =>
    withBridge({ caps: TERMINAL_CAPS, sim: { speed: 2 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:subagent-bg] todos');
      await h.waitFor('the running task in the list', () => lastTasks(h, sessionId).some((t) => t.status === 'running'));
      const task = lastTasks(h, sessionId)[0];
      assert.equal(task.kind, 'agent');
      assert.deepEqual(await ext(h, '_zcode/session/cancelBackgroundTask', { sessionId, taskId: task.id }), { cancelled: true });
      const card = findCard(h, sessionId, (c) => c.title === '[background] Collect open TODOs');
      assert.ok(card);
      await h.waitFor('the card to close', () => finalUpdate(h, sessionId, card.toolCallId) !== undefined);
      const last = finalUpdate(h, sessionId, card.toolCallId)!;
      assert.equal(last.status, 'failed');
      assert.deepEqual(metaOf(last).backgroundTask, { cancelled: true });
      assert.equal(metaOf(last).terminal_exit, undefined);
      await h.waitFor('the cancelled list', () => lastTasks(h, sessionId)[0]?.status === 'cancelled');
    }));

  test('the task list after a cancel reaches every alias of the session (placeholder and real id), also when zcode sends no cancelled event', () =>
    withBridge(
      {
        caps: TERMINAL_CAPS,
        sim: { speed: 2 },
        // A zcode build that reports the cancel only in its reply: the bridge's own announcement is the only one.
        wrapBackend: withoutEvents((e) => e.type === 'session.updated' && (e.payload as { status?: string }).status === 'cancelled'),
      },
      async (h) => {
        const sessionId = await newSession(h, CWD);
        await prompt(h, sessionId, '[scenario:bash-bg] build');
        const zid = zcodeIdOfLastSend(h);
        await h.waitFor('the running task in the list', () => lastTasks(h, sessionId)[0]?.status === 'running');
        // The same zcode session, opened a second time under its real id: two aliases of one runtime.
        await h.agent.request('session/load', { sessionId: zid, cwd: CWD, mcpServers: [] });
        const task = lastTasks(h, sessionId)[0];
        assert.deepEqual(await ext(h, '_zcode/session/cancelBackgroundTask', { sessionId, taskId: task.id }), { cancelled: true });
        await h.waitFor('the cancelled list under the id used', () => lastTasks(h, sessionId)[0]?.status === 'cancelled');
        await h.waitFor('the cancelled list under the other alias', () => lastTasks(h, zid)[0]?.status === 'cancelled', 2000);
        // The card update went out under both ids too (the core's emit), once each.
        for (const id of [sessionId, zid]) {
          assert.equal(toolCallUpdates(h, id, task.toolCallId).filter((u) => u.status === 'failed').length, 1, id);
        }
      },
    ));

  test('an unknown task: {cancelled: false}, no update and no list notification', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hi');
      const updatesBefore = h.updatesOf(sessionId).length;
      assert.deepEqual(await ext(h, '_zcode/session/cancelBackgroundTask', { sessionId, taskId: 'exec_nope' }), { cancelled: false });
      assert.equal(h.updatesOf(sessionId).length, updatesBefore);
      assert.deepEqual(taskLists(h, sessionId), []);
    }));
});

describe('_zcode/session/backgroundTasks', () => {
  test('the full task list (id, kind, description, status, startedAt, outputPath) on every change, for both kinds', () =>
    withBridge({ caps: TERMINAL_CAPS }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:subagent-bg] todos');
      await backgroundTurnDone(h, sessionId, 'found 3 TODOs (src/index.ts:12');
      await prompt(h, sessionId, '[scenario:bash-bg] build');
      await backgroundTurnDone(h, sessionId, 'The background build finished successfully');
      const lists = taskLists(h, sessionId);
      assert.ok(lists.length >= 4, `one list per change (got ${lists.length})`);
      const final = lists[lists.length - 1];
      assert.deepEqual(
        final.map((t) => [t.kind, t.description, t.status]),
        [
          ['agent', 'Collect open TODOs', 'completed'],
          ['bash', 'Build the project', 'completed'],
        ],
      );
      for (const t of final) {
        assert.match(t.id, t.kind === 'bash' ? /^exec_/ : /^agent_/);
        assert.ok(t.startedAt && !Number.isNaN(Date.parse(t.startedAt)));
        assert.match(t.outputPath ?? '', /zcode-sim-tasks/);
      }
      // Every list is complete: once the Bash task exists, the agent task is in each list as well.
      const withBash = lists.filter((l) => l.some((t) => t.kind === 'bash'));
      assert.ok(withBash.length >= 2 && withBash.every((l) => l.length === 2));
      // Each task's status goes running → completed, never back.
      for (const id of final.map((t) => t.id)) {
        const statuses = lists.map((l) => l.find((t) => t.id === id)?.status).filter((s): s is string => s !== undefined);
        assert.equal(statuses[0], 'running');
        assert.equal(statuses[statuses.length - 1], 'completed');
        assert.equal(statuses.indexOf('completed'), statuses.length - statuses.filter((s) => s === 'completed').length);
      }
    }));
});
