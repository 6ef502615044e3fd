/**
 * The prompt turn against the simulator: stop reasons, usage,
 * turn.failed → JSON-RPC error, bounded retries (busy, transient, eviction), background turns that
 * must not end a prompt, and a backend crash in the middle of a turn. Run in-process and over stdio.
 */
import { currentEra } from '../../helpers/sim.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type { PromptResponse } from '@agentclientprotocol/sdk';
import type { EventOf } from '../../../bridge/zcode/protocol.ts';
import { buildCli, MODES, rewriteEvents } from './harness.ts';
import { agentText, errorOf, newSession, prompt, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`prompt turns (${mode})`, () => {
    test('text and reasoning stream as chunks with message ids; end_turn with _meta.zcode.usage and turn.terminal figures (ACP usage: usage.test.ts)', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const response = await prompt(h, sessionId, '[scenario:usage]');
        assert.equal(response.stopReason, 'end_turn');
        const zcode = (response._meta as { zcode: { usage: Record<string, number>; terminal: Record<string, unknown> } }).zcode;
        assert.equal(zcode.usage.webSearchRequests, 2);
        if (currentEra()) {
          // Current builds send no turn.terminal (it moved to v4 telemetry): no figures, and no wait for them.
          assert.equal(zcode.terminal, undefined);
        } else {
          assert.equal(zcode.terminal.totalTokens, 13023);
          assert.equal(typeof zcode.terminal.durationMs, 'number');
        }
        await prompt(h, sessionId, '[scenario:reasoning]');
        const updates = h.updatesOf(sessionId);
        assert.ok(updates.some((u) => u.sessionUpdate === 'agent_thought_chunk' && typeof u.messageId === 'string'));
        assert.ok(updates.some((u) => u.sessionUpdate === 'usage_update' && u.size > 0));
      });
    });

    test('turn.failed becomes a JSON-RPC error (-32603) with zcode\'s message, zcode\'s code under data.zcode', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const error = await errorOf(prompt(h, sessionId, '[scenario:fail]'));
        assert.equal(error.code, -32603);
        assert.equal((error.data as { zcode?: { code?: number } }).zcode?.code, 500);
        assert.equal(error.message, 'upstream model error');
        // 500 is retryable, but only in place (this build has no in-place retry): never re-sent.
        assert.equal((error.data as { zcode?: { retryable?: boolean } }).zcode?.retryable, true);
        assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 1);
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('a transient turn.failed is never re-sent (that would add the message again): answered retryable at once', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const error = await errorOf(prompt(h, sessionId, '[scenario:fail-transient]'));
        assert.equal((error.data as { zcode?: { retryable?: boolean; retries?: number } }).zcode?.retryable, true);
        assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 1);
        // In-place retries: retries.test.ts, failures.test.ts.
      });
    });

    for (const quirk of ['busy-once', 'busy-once,busy-32010']) {
      test(`busy (${quirk}) is retried with backoff`, T, async () => {
        await withHarness(mode, { sim: { quirks: quirk.split(',') } }, async (h) => {
          const sessionId = await newSession(h);
          assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
          assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 2);
        });
      });
    }

    test('-32004 (session evicted) → resume and retry once', T, async () => {
      await withHarness(mode, { sim: { quirks: ['evict-once'] } }, async (h) => {
        const sessionId = await newSession(h);
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
        const methods = h.simRecord().received.map((m) => m.method).filter(Boolean);
        assert.ok(methods.includes('session/resume'), 'the evicted session was resumed');
      });
    });

    test('a backend-started background turn neither ends the prompt early nor is forwarded twice', T, async () => {
      await withHarness(mode, { sim: { speed: 0.2 } }, async (h) => {
        const sessionId = await newSession(h);
        const response = await prompt(h, sessionId, '[scenario:subagent-bg]');
        assert.equal(response.stopReason, 'end_turn');
        assert.match(agentText(h.updatesOf(sessionId)), /running in the background; I'll report back/);
        await h.waitFor('the background result', () => /The background agent finished/.test(agentText(h.updatesOf(sessionId))));
        const text = agentText(h.updatesOf(sessionId));
        assert.equal(text.split('The background agent finished').length, 2, 'forwarded once');
        const tasks = h.notifications.filter((n) => n.method === '_zcode/session/backgroundTasks');
        assert.ok(tasks.length >= 2);
        const last = tasks.at(-1)!.params as { sessionId: string; tasks: Array<{ kind: string; status: string }> };
        assert.equal(last.sessionId, sessionId);
        assert.deepEqual(last.tasks.map((t) => [t.kind, t.status]), [['agent', 'completed']]);
        // The next prompt works (it may have to wait for the background turn: busy is retried).
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('the session is subscribed before the first send', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        await prompt(h, sessionId, '[scenario:text]');
        const methods = h.simRecord().received.map((m) => m.method);
        assert.ok(methods.indexOf('session/subscribe') !== -1 && methods.indexOf('session/subscribe') < methods.indexOf('session/send'));
      });
    });

    test('zcode 0.14.6 (no session/subscribe) gives a clear error; 0.14.8 (no settings on create, no turn.terminal) works', T, async () => {
      await withHarness(mode, { sim: { profile: '0.14.6' } }, async (h) => {
        const error = await errorOf(prompt(h, await newSession(h), '[scenario:text]'));
        assert.equal(error.code, -32603);
        assert.equal((error.data as { zcode?: { code?: number } }).zcode?.code, -33004);
        assert.match(error.message, /0\.14\.8 or newer is required/);
      });
      await withHarness(mode, { sim: { profile: '0.14.8' } }, async (h) => {
        const sessionId = await newSession(h);
        const response = await prompt(h, sessionId, '[scenario:usage]');
        assert.equal(response.stopReason, 'end_turn');
        assert.equal((response._meta as { zcode: { terminal?: unknown } }).zcode.terminal, undefined);
        const { configOptions } = await h.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'GLM-4.6' });
        assert.equal(configOptions.find((o) => o.id === 'model')?.currentValue, 'GLM-4.6', 'models known from session/read');
      });
    });

    test('a backend crash ends the running prompt with an error; the next prompt restarts zcode and resumes the session', T, async () => {
      const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      try {
        await withHarness(mode, { sim: { stateDir } }, async (h) => {
          const sessionId = await newSession(h);
          const other = await newSession(h);
          assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
          assert.equal((await prompt(h, other, '[scenario:text]')).stopReason, 'end_turn');
          const error = await errorOf(prompt(h, sessionId, '[scenario:crash]'));
          assert.equal(error.code, -32603);
          assert.equal((error.data as { zcode?: { code?: number } }).zcode?.code, -33002);
          assert.match(error.message, /exited/);
          const after = await prompt(h, sessionId, '[scenario:text] after the crash');
          assert.equal(after.stopReason, 'end_turn');
          await h.waitFor('the other session to be resumed too', () =>
            h.simRecord().received.some((m) => m.method === 'session/resume' && (m.params as { sessionId?: string }).sessionId !== undefined && (m.params as { sessionId: string }).sessionId !== sessionId),
          );
          const subscribes = h.simRecord().received.filter((m) => m.method === 'session/subscribe').map((m) => m.params as { afterSeq?: number });
          assert.ok(subscribes.some((p) => typeof p.afterSeq === 'number' && p.afterSeq > 0), 're-subscribed with afterSeq');
        });
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    });
  });
}

describe('turn.terminal after turn.completed (inproc)', () => {
  /** A zcode build that sends `turn.terminal` after `turn.completed` (seqs swapped accordingly), `delayMs` later. */
  function lateTerminals(delayMs: number, seen: Map<string, number | undefined>) {
    return rewriteEvents(() => {
      let held: EventOf<'turn.terminal'> | undefined;
      return (event, deliver) => {
        if (event.type === 'turn.terminal') {
          held = event;
          return;
        }
        if (event.type !== 'turn.completed' || !held) return deliver(event);
        const terminal = held;
        held = undefined;
        deliver({ ...event, seq: terminal.seq });
        setTimeout(() => {
          const turnId = typeof terminal.payload.turnId === 'string' ? terminal.payload.turnId : `#${seen.size}`;
          if (!seen.has(turnId)) seen.set(turnId, terminal.payload.totalTokens);
          deliver({ ...terminal, seq: event.seq });
        }, delayMs);
      };
    });
  }

  test('a turn.terminal arriving after turn.completed reaches the prompt response (bounded wait); a queued prompt gets its own figures; each turn ends once', T, async () => {
    const seen = new Map<string, number | undefined>();
    // turn.terminal is a seed-era event (0.15.2–0.16.0): run against the build that sends it.
    await withHarness('inproc', { sim: { profile: '0.15.2' }, wrapBackend: lateTerminals(40, seen) }, async (h) => {
      const sessionId = await newSession(h);
      const terminalOf = (r: PromptResponse) => (r._meta as { zcode?: { terminal?: { totalTokens?: number; turnId?: unknown } } } | undefined)?.zcode?.terminal;
      // The first turn teaches the bridge that this zcode sends turn.terminal: it answers without waiting.
      const first = await prompt(h, sessionId, '[scenario:text] one');
      assert.equal(first.stopReason, 'end_turn');
      assert.equal(terminalOf(first), undefined, 'nothing is known yet: no wait on the first prompt');
      await h.waitFor('the first late turn.terminal', () => seen.size === 1);
      // From then on the completion waits for the late figures; the second prompt is queued behind the first.
      const [second, third] = await Promise.all([
        prompt(h, sessionId, '[scenario:text] two'),
        prompt(h, sessionId, '[scenario:text] three, a longer prompt so that this turn has other token figures than the one before it'),
      ]);
      assert.equal(second.stopReason, 'end_turn');
      assert.equal(third.stopReason, 'end_turn');
      await h.waitFor('every late turn.terminal (recorded as sent)', () => seen.size === 3);
      const figures = [...seen.values()];
      assert.notEqual(figures[1], figures[2], 'the two turns have different figures (the check below can tell them apart)');
      assert.equal(terminalOf(second)?.totalTokens, figures[1], 'the second prompt has its own turn\'s figures');
      assert.equal(terminalOf(third)?.totalTokens, figures[2], 'the queued prompt has its own turn\'s figures');
      assert.equal(terminalOf(third)?.turnId, undefined, 'figures only');
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 3, 'one zcode turn per prompt');
    });
  });

  test('a turn.terminal that never comes delays the response by at most terminalWaitMs', T, async () => {
    const seen = new Map<string, number | undefined>();
    await withHarness('inproc', { sim: { profile: '0.15.2' }, wrapBackend: lateTerminals(1500, seen), tuning: { turns: { terminalWaitMs: 100 } } }, async (h) => {
      const sessionId = await newSession(h);
      await prompt(h, sessionId, '[scenario:text] one');
      await h.waitFor('the first late turn.terminal', () => seen.size === 1, 5000);
      const response = await prompt(h, sessionId, '[scenario:text] two');
      assert.equal(response.stopReason, 'end_turn');
      assert.equal((response._meta as { zcode: { terminal?: unknown } }).zcode.terminal, undefined, 'too late: answered without it');
      // The late terminal of that turn lands on no later prompt.
      await h.waitFor('the second late turn.terminal', () => seen.size === 2, 5000);
      const third = await prompt(h, sessionId, '[scenario:text] three');
      const terminal = (third._meta as { zcode: { terminal?: { totalTokens?: number } } }).zcode.terminal;
      assert.ok(terminal === undefined || terminal.totalTokens !== [...seen.values()][1], 'not the previous turn\'s figures');
    });
  });
});
