/**
 * Turns that end on zcode's terms, against the simulator with
 * its fault switches (test/zcode-sim/faults.mjs), through the official SDK client:
 * - a prompt after a cancel that zcode ignores waits (with a visible status) for the old turn to
 *   really end instead of failing "busy"; if it never ends, zcode is restarted and the session
 *   resumed, and the prompt runs there;
 * - a turn whose events say it is over ends the prompt even when `session/send` is never answered,
 *   or answered under another id;
 * - a zcode that closes its stdout but keeps running fails the prompt at once with a clear error,
 *   and the next prompt runs on a fresh zcode.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { agentText, errorOf, newSession, prompt, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

describe('stop that stops (inproc)', () => {
  test('a prompt after an ignored cancel waits for the old turn, says so, and is never answered "busy"', T, async () => {
    await withHarness('inproc', { sim: { env: { ZCODE_SIM_FAULTS: 'ignore-stop' } }, tuning: { turns: { cancelGraceMs: 100 } } }, async (h) => {
      const sessionId = await newSession(h);
      const first = prompt(h, sessionId, '[scenario:slow-end]');
      await h.waitFor('the first chunk', () => agentText(h.updatesOf(sessionId)).includes('Working'));
      await h.agent.notify('session/cancel', { sessionId });
      assert.equal((await first).stopReason, 'cancelled');
      const second = await prompt(h, sessionId, '[scenario:text]');
      assert.equal(second.stopReason, 'end_turn');
      const updates = h.updatesOf(sessionId);
      assert.ok(
        updates.some((u) => u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' && /Waiting for zcode to finish stopping/.test(u.content.text)),
        'the wait is visible',
      );
      const sends = h.simRecord().received.filter((m) => m.method === 'session/send');
      assert.equal(sends.length, 2, 'the second prompt was sent once, after the old turn ended: no busy answer, no retry');
      assert.equal(h.logger.find('info', /the cancelled turn of .* has ended/).length, 1);
      assert.match(agentText(updates), / and done\./, 'the old turn ran to its end in zcode');
    });
  });

  test('a zcode that never stops a cancelled turn: the next prompt restarts zcode, resumes the session and answers; later prompts too (never "busy")', T, async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
    try {
      // `hang` runs for minutes and `ignore-stop` ignores session/stop: only a restart ends that turn.
      const tuning = { turns: { cancelGraceMs: 100, cancelDrainMs: 200 } };
      await withHarness('inproc', { sim: { stateDir, env: { ZCODE_SIM_FAULTS: 'ignore-stop' } }, tuning }, async (h) => {
        const sessionId = await newSession(h);
        const first = prompt(h, sessionId, '[scenario:hang]');
        await h.waitFor('the first chunk', () => agentText(h.updatesOf(sessionId)).includes('Working'));
        await h.agent.notify('session/cancel', { sessionId });
        assert.equal((await first).stopReason, 'cancelled');
        const second = await prompt(h, sessionId, '[scenario:text] after the stuck turn');
        assert.equal(second.stopReason, 'end_turn');
        assert.equal(h.logger.find('info', 'zcode started (pid').length, 2, 'zcode was restarted once');
        const notices = h.updatesOf(sessionId).map((u) => (u._meta as { zcode?: { notice?: { kind?: string } } } | null | undefined)?.zcode?.notice?.kind);
        assert.deepEqual(
          notices.filter((k) => k !== undefined),
          ['waitingForCancelledTurn', 'restartingZcode'],
          'the wait and the restart were shown, in that order',
        );
        const received = h.simRecord().received;
        const resumeAt = received.findIndex((m) => m.method === 'session/resume');
        const lastSendAt = received.findLastIndex((m) => m.method === 'session/send');
        assert.ok(resumeAt !== -1 && resumeAt < lastSendAt, 'the session was resumed on the new zcode before the prompt was sent there');
        assert.equal((await prompt(h, sessionId, '[scenario:text] and again')).stopReason, 'end_turn');
        assert.doesNotMatch(agentText(h.updatesOf(sessionId)), / and done\./, 'the stuck turn never finished: the restart ended it');
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  test('the same while another session runs a turn: a clear error instead of a restart that would end that turn; once it is over, the restart', T, async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
    try {
      const tuning = { turns: { cancelGraceMs: 100, cancelDrainMs: 200 } };
      await withHarness('inproc', { sim: { stateDir, env: { ZCODE_SIM_FAULTS: 'ignore-stop' } }, tuning }, async (h) => {
        const stuck = await newSession(h);
        const other = await newSession(h);
        const first = prompt(h, stuck, '[scenario:hang]');
        await h.waitFor('the stuck turn to run', () => agentText(h.updatesOf(stuck)).includes('Working'));
        await h.agent.notify('session/cancel', { sessionId: stuck });
        assert.equal((await first).stopReason, 'cancelled');
        const running = prompt(h, other, '[scenario:hang]');
        await h.waitFor('the other turn to run', () => agentText(h.updatesOf(other)).includes('Working'));

        const refused = await errorOf(prompt(h, stuck, '[scenario:text] too early'));
        assert.equal(refused.code, -32603);
        assert.match(refused.message, /other sessions are running turns.*Restart zcode/s);
        assert.equal(h.logger.find('info', 'zcode started (pid').length, 1, 'not restarted while another turn runs');

        // The other turn is cancelled too (zcode ignores that as well): nothing runs any more.
        await h.agent.notify('session/cancel', { sessionId: other });
        assert.equal((await running).stopReason, 'cancelled');
        assert.equal((await prompt(h, stuck, '[scenario:text] now')).stopReason, 'end_turn', 'waited again, then restarted: never "busy"');
        assert.equal(h.logger.find('info', 'zcode started (pid').length, 2);
        assert.equal((await prompt(h, other, '[scenario:text] the other one')).stopReason, 'end_turn');
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  for (const fault of ['no-send-ack', 'send-ack-wrong-id']) {
    test(`${fault}: the turn's own end ends the prompt; the missing acknowledgement is logged`, T, async () => {
      await withHarness('inproc', { sim: { env: { ZCODE_SIM_FAULTS: fault } } }, async (h) => {
        const sessionId = await newSession(h);
        // end_turn, not the request timeout's error: the turn's own end ended the prompt.
        const response = await prompt(h, sessionId, '[scenario:text]');
        assert.equal(response.stopReason, 'end_turn');
        assert.equal(h.logger.find('warn', 'before it answered session/send').length, 1);
      });
    });
  }

  test('zcode closes its stdout but keeps running: the prompt fails at once, clearly; the next one runs on a fresh zcode', T, async () => {
    await withHarness('inproc', { sim: { env: { ZCODE_SIM_FAULTS: 'close-stdout-after-send' } } }, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, '[scenario:slow-end]'));
      assert.match(error.message, /closed its output but kept running/);
      assert.equal(h.logger.find('error', 'closed its output but is still running').length, 1);
      // A fresh zcode (the fault closes stdout after its first send again, so use a read-only call).
      const { sessions } = await h.agent.request('session/list', {});
      assert.ok(Array.isArray(sessions));
      assert.equal(h.logger.find('info', 'zcode started (pid').length, 2, 'a second zcode process');
    });
  });

  test('a -32010 that is not "busy" (read-only sub-agent session) is surfaced at once, not retried', T, async () => {
    await withHarness('inproc', { sim: { env: { ZCODE_SIM_FAULTS: 'send-read-only' } } }, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, 'hello'));
      assert.equal(error.code, -32603);
      assert.equal((error.data as { zcode?: { code?: number } }).zcode?.code, -32010);
      assert.match(error.message, /Subagent sessions are read-only/);
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 1, 'no busy retries');
    });
  });

  test('a real busy -32010 is still retried (by code and message)', T, async () => {
    await withHarness('inproc', { sim: { quirks: ['busy-32010', 'busy-once'] } }, async (h) => {
      const sessionId = await newSession(h);
      assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 2);
    });
  });

  test('a turn whose end never arrives: the watchdog asks zcode, which says idle, and the prompt ends with a clear error', T, async () => {
    const watchdog = { quietMs: 150, readTimeoutMs: 2000, unansweredLimit: 3 };
    await withHarness('inproc', { sim: { env: { ZCODE_SIM_FAULTS: 'drop-turn-end' } }, tuning: { turns: { watchdog } } }, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, '[scenario:text]'));
      assert.match(error.message, /no longer running, but its end never reached the bridge/);
      assert.ok(h.simRecord().received.some((m) => m.method === 'session/read'), 'zcode was asked');
    });
  });

  test('a quiet turn that zcode says is still running is left alone (a long sub-agent step is never cut off)', T, async () => {
    const watchdog = { quietMs: 100, readTimeoutMs: 2000, unansweredLimit: 3 };
    await withHarness('inproc', { tuning: { turns: { watchdog } } }, async (h) => {
      const sessionId = await newSession(h);
      // 1.5 s without a single event, well past the 100 ms quiet threshold.
      assert.equal((await prompt(h, sessionId, '[scenario:slow-end]')).stopReason, 'end_turn');
      assert.ok(h.logger.find('debug', 'is quiet but zcode says "running"').length >= 1, 'zcode was asked while the turn was quiet');
    });
  });
});
