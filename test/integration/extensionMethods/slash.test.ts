/**
 * Slash commands through `session/prompt`: they do what the extension methods do, answer with agent
 * text and `end_turn` (structured result in `_meta.zcode.command`), show usage help for bad usage,
 * and let any other text (unknown `/words` included) go to zcode unchanged.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PromptResponse } from '@agentclientprotocol/sdk';
import type { AcpHarness } from './support.ts';
import { caughtUp, errorOf, newSession, prompt, sessionText, startPrompt, withBridge, zcodeCalls, zcodeIdOfLastSend } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-slash');

/** Run a command and return its response and the agent text it produced. */
async function command(h: AcpHarness, sessionId: string, text: string): Promise<{ response: PromptResponse; text: string }> {
  const before = sessionText(h, sessionId).length;
  const response = await prompt(h, sessionId, text);
  await h.waitFor('the command reply', () => sessionText(h, sessionId).length > before);
  return { response, text: sessionText(h, sessionId).slice(before) };
}

function commandMeta(response: PromptResponse): { name?: string; ok?: boolean; result?: Record<string, unknown> } {
  return ((response._meta as { zcode?: { command?: object } } | undefined)?.zcode?.command ?? {}) as { name?: string; ok?: boolean; result?: Record<string, unknown> };
}

/** session/send contents the simulator received. */
function sentPrompts(h: AcpHarness): string[] {
  return zcodeCalls(h, 'session/send').map((p) => p.content as string);
}

/** /rewind and /steer need a build that has them (current builds removed session/rewind and session/steer). */
const SEED_ERA = { sim: { profile: '0.15.2' } };

describe('slash commands', () => {
  test('/compact compacts, waits for the outcome, and reports it as agent text', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] some history');
      const zid = zcodeIdOfLastSend(h);
      const { response, text } = await command(h, sessionId, '/compact');
      assert.equal(response.stopReason, 'end_turn');
      assert.match(text, /^The conversation was compacted \(\d+ → \d+ tokens of context\)\.$/);
      const meta = commandMeta(response);
      assert.equal(meta.name, 'compact');
      assert.equal(meta.ok, true);
      assert.equal(meta.result?.outcome, 'compacted');
      assert.deepEqual(zcodeCalls(h, 'session/compact'), [{ sessionId: zid }]);
      assert.deepEqual(sentPrompts(h), ['[scenario:text] some history'], 'the command itself never reaches zcode as a prompt');
    }));

  test('/compact <text> passes the text to zcode as the compaction instructions', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] some history');
      const zid = zcodeIdOfLastSend(h);
      const { response, text } = await command(h, sessionId, '/compact focus on the tests');
      assert.equal(response.stopReason, 'end_turn');
      assert.match(text, /^The conversation was compacted/);
      assert.deepEqual(zcodeCalls(h, 'session/compact'), [{ sessionId: zid, instructions: 'focus on the tests' }]);
    }));

  test('session/cancel stops a /compact waiting for the compaction outcome: session/stop sent, the prompt returns cancelled', () =>
    withBridge({ sim: { speed: 1 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hi');
      const zid = zcodeIdOfLastSend(h);
      const running = startPrompt(h, sessionId, '/compact');
      await h.waitFor('session/compact to reach zcode', () => zcodeCalls(h, 'session/compact').length === 1);
      assert.equal(running.done, false, 'the command waits for the outcome');
      await h.agent.notify('session/cancel', { sessionId });
      const response = await running.response;
      assert.equal(response.stopReason, 'cancelled');
      assert.equal(commandMeta(response).name, 'compact', 'the command result is still reported');
      assert.equal(commandMeta(response).result?.outcome, 'cancelled');
      assert.ok(h.simRecord().received.some((m) => m.method === 'session/stop' && (m.params as { sessionId?: string }).sessionId === zid));
      // The session is usable afterwards.
      assert.equal((await prompt(h, sessionId, '[scenario:text] again')).stopReason, 'end_turn');
    }));

  test('session/cancel stops a /rewind waiting for the running prompt: both return cancelled and zcode never rewinds', () =>
    withBridge(SEED_ERA, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] one');
      const long = startPrompt(h, sessionId, '[scenario:long] go');
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 200);
      const rewind = startPrompt(h, sessionId, '/rewind');
      await caughtUp(h, CWD);
      assert.equal(rewind.done, false, '/rewind waits for the running prompt');
      assert.deepEqual(zcodeCalls(h, 'session/rewind'), [], 'not sent while the prompt runs');
      await h.agent.notify('session/cancel', { sessionId });
      assert.equal((await long.response).stopReason, 'cancelled');
      assert.equal((await rewind.response).stopReason, 'cancelled');
      await caughtUp(h, CWD);
      assert.deepEqual(zcodeCalls(h, 'session/rewind'), [], 'the cancelled rewind never reached zcode');
    }));

  test('/goal show | set | pause | clear; a first word that is not an action sets the goal to the whole text', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      assert.equal((await command(h, sessionId, '/goal')).text, 'No goal is set. Set one with `/goal set <objective>`.');
      assert.equal((await command(h, sessionId, '/goal set ship the release')).text, 'Goal set: **ship the release** (active)');
      assert.equal((await command(h, sessionId, '/goal pause')).text, 'Goal paused: **ship the release** (paused)');
      assert.equal((await command(h, sessionId, '/goal show')).text, 'Goal: **ship the release** (paused)');
      assert.equal((await command(h, sessionId, '/goal clear')).text, 'Goal cleared.');
      const plain = await command(h, sessionId, '/goal explode the build now');
      assert.equal(plain.response.stopReason, 'end_turn');
      assert.equal(plain.text, 'Goal set: **explode the build now** (active)');
      assert.equal(commandMeta(plain.response).ok, true);
      const missing = await command(h, sessionId, '/goal set');
      assert.match(missing.text, /needs an objective/);
      const zid = zcodeCalls(h, 'session/goal')[0].sessionId;
      assert.deepEqual(zcodeCalls(h, 'session/goal'), [
        { sessionId: zid, action: 'show' },
        { sessionId: zid, action: 'set', objective: 'ship the release' },
        { sessionId: zid, action: 'pause' },
        { sessionId: zid, action: 'show' },
        { sessionId: zid, action: 'clear' },
        { sessionId: zid, action: 'set', objective: 'explode the build now' },
      ]);
      assert.deepEqual(sentPrompts(h), []);
    }));

  test('/fork [checkpoint] reports the new session id (also in _meta) and usage for extra words', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'one');
      const zid = zcodeIdOfLastSend(h);
      const { response, text } = await command(h, sessionId, '/fork');
      const forked = commandMeta(response).result as { sessionId: string; cwd: string };
      assert.equal(forked.cwd, CWD);
      assert.equal(text, `Forked this session from the latest checkpoint into a new session: \`${forked.sessionId}\`. Open it from the session list to continue there.`);
      const bad = await command(h, sessionId, '/fork a b');
      assert.match(bad.text, /^Usage: `\/fork \[checkpoint\]`/);
      const unknown = await command(h, sessionId, '/fork cp_missing');
      assert.match(unknown.text, /^⚠️ \/fork failed: checkpoint not found: cp_missing/);
      assert.deepEqual(zcodeCalls(h, 'session/fork'), [
        { sessionId: zid, target: { kind: 'latestCheckpoint' } },
        { sessionId: zid, target: { kind: 'checkpoint', checkpointId: 'cp_missing' } },
      ]);
    }));

  test('/rewind [checkpoint] [--cascade]', () =>
    withBridge(SEED_ERA, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'one');
      await prompt(h, sessionId, 'two');
      const zid = zcodeIdOfLastSend(h);
      const plain = await command(h, sessionId, '/rewind');
      assert.match(plain.text, /^Rewound the session to checkpoint `[^`]+` \(0 messages removed\)\.$/);
      const cascade = await command(h, sessionId, '/rewind --cascade');
      assert.match(cascade.text, /^Rewound the session to checkpoint/);
      const bad = await command(h, sessionId, '/rewind a --force');
      assert.match(bad.text, /^Usage: `\/rewind \[checkpoint\] \[--cascade\]`/);
      assert.deepEqual(zcodeCalls(h, 'session/rewind'), [{ sessionId: zid, target: { kind: 'latestCheckpoint' } }]);
      assert.deepEqual(zcodeCalls(h, 'session/rewindCascade'), [{ sessionId: zid, target: { kind: 'latestCheckpoint' } }]);
    }));

  test('/steer reaches a running turn; without one it says so; without text it shows usage', () =>
    withBridge(SEED_ERA, async (h) => {
      const sessionId = await newSession(h, CWD);
      const idle = await command(h, sessionId, '/steer do it differently');
      assert.equal(idle.text, 'Nothing to steer: no prompt is running on this session. Send the instructions as a normal prompt instead.');
      const empty = await command(h, sessionId, '/steer');
      assert.match(empty.text, /^\/steer needs the instructions to add\.\n\nUsage: `\/steer <instructions>`/);
      const running = startPrompt(h, sessionId, '[scenario:steer] refactor');
      await h.waitFor('the steer turn to start', () => sessionText(h, sessionId).includes('Send a steer any time'));
      // The /steer prompt runs before the queue: it answers while the first prompt still runs.
      const steer = await prompt(h, sessionId, '/steer keep the public API');
      assert.equal(steer.stopReason, 'end_turn');
      assert.equal(running.done, false);
      assert.equal((await running.response).stopReason, 'end_turn');
      assert.match(sessionText(h, sessionId), /Steer sent: zcode will take your instructions into account/);
      assert.match(sessionText(h, sessionId), /Steer received: "keep the public API"/);
      assert.deepEqual(zcodeCalls(h, 'session/steer'), [{ sessionId: zcodeIdOfLastSend(h), content: 'keep the public API' }]);
    }));

  test('/mode and /thought set the option (announced) and list the choices on bad input', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      assert.equal((await command(h, sessionId, '/mode plan')).text, 'Mode set to `plan`.');
      await h.waitFor('current_mode_update', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'plan'));
      assert.equal((await command(h, sessionId, '/thought low')).text, 'Thinking level set to `low`.');
      const badMode = await command(h, sessionId, '/mode turbo');
      // `guarded` where the build has it (desktop 3.15+, zcode/buildModes.ts).
      assert.match(badMode.text, /^Unknown mode `turbo`\. Choose one of: `plan`, `build`, `edit`, `yolo`(, `guarded`)?\.\n\nUsage: `\/mode <mode>`/);
      const noLevel = await command(h, sessionId, '/thought');
      assert.match(noLevel.text, /^\/thought needs exactly one value\. Choose one of: `low`, `medium`, `high`, `max`\./);
      const zid = zcodeCalls(h, 'session/setMode')[0].sessionId;
      assert.deepEqual(zcodeCalls(h, 'session/setMode'), [{ sessionId: zid, mode: 'plan' }]);
      assert.deepEqual(zcodeCalls(h, 'session/setThoughtLevel'), [{ sessionId: zid, thoughtLevel: 'low' }]);
    }));

  test('unknown slash text and commands with attachments go to zcode unchanged', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '/help me please');
      await prompt(h, sessionId, '/compactly summarise this');
      await h.agent.request('session/prompt', {
        sessionId,
        prompt: [
          { type: 'text', text: '/compact' },
          { type: 'resource_link', name: 'notes.txt', uri: 'file:///tmp/notes.txt' },
        ],
      });
      assert.deepEqual(sentPrompts(h), ['/help me please', '/compactly summarise this', '/compact[notes.txt](file:///tmp/notes.txt)']);
      assert.deepEqual(zcodeCalls(h, 'session/compact'), []);
    }));

  test('a slash command on an unknown session is -32002', () =>
    withBridge({}, async (h) => {
      const error = await errorOf(prompt(h, 'lazy_nobody', '/compact'));
      assert.equal(error.code, -32002);
    }));
});
