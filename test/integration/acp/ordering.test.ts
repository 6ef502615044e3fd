/**
 * Order as state (CONTRIBUTING.md "House style"), against the simulator: each test makes the bridge's promise
 * continuations late on purpose, or lets zcode send what follows a turn's end at once, so that an
 * order kept only by "a turn of the event loop has passed" would break.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ZcodeBackend } from '../../../bridge/zcode/backend.ts';
import type { ZcodeEvent } from '../../../bridge/zcode/protocol.ts';
import { buildCli } from './harness.ts';
import { agentText, newSession, prompt, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

before(async () => {
  await buildCli();
});

/** Turns of the event loop. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The real backend, except that `method` resolves only many turns after zcode answered it (as if
 * the awaiting code were slow), and the events `drop` matches never reach the bridge.
 */
function lateResults(method: 'send' | 'read', drop: (event: ZcodeEvent) => boolean = () => false): (backend: ZcodeBackend) => ZcodeBackend {
  return (backend) =>
    new Proxy(backend, {
      get(target, prop) {
        if (prop === method) {
          return async (...args: unknown[]) => {
            const result: unknown = await (target[method] as (...a: unknown[]) => Promise<unknown>)(...args);
            await turns(30);
            return result;
          };
        }
        if (prop === 'onEvent') return (listener: (event: ZcodeEvent) => void) => target.onEvent((event) => !drop(event) && listener(event));
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
}

/** A late `session/send` answer, and no `turn.started`: only the send's answer itself can make the turn's end "ours". */
const lateSendAcks = lateResults('send', (event) => event.type === 'turn.started');
/** A late `session/read` (the title read a prompt's response may wait for). */
const slowReads = lateResults('read');

describe('order as state (inproc)', () => {
  test('a turn accepted by zcode is marked where the answer stands in the stream, not when its awaiter resumes', T, async () => {
    await withHarness('inproc', { wrapBackend: lateSendAcks }, async (h) => {
      const sessionId = await newSession(h);
      const response = await prompt(h, sessionId, '[scenario:text]');
      assert.equal(response.stopReason, 'end_turn');
      assert.ok(agentText(h.updatesOf(sessionId)).length > 0, 'the turn streamed its text');
      // A second prompt: the first turn's end is not taken for the second's.
      const second = await prompt(h, sessionId, '[scenario:text] again');
      assert.equal(second.stopReason, 'end_turn');
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 2);
    });
  });

  test('a background task whose first events follow the turn end at once (simulator speed 0), while the response waits for a slow title read', T, async () => {
    // Seed builds name the session through session/read, which the response waits for (turns.ts announceTitle).
    await withHarness('inproc', { sim: { profile: '0.15.2' }, wrapBackend: slowReads }, async (h) => {
      const sessionId = await newSession(h);
      const response = await prompt(h, sessionId, '[scenario:bash-bg]');
      assert.equal(response.stopReason, 'end_turn');
      await h.waitFor('the background turn', () => /The background build finished/.test(agentText(h.updatesOf(sessionId))));
      const out = h.traffic.entries.filter((e) => e.dir === 'out').map((e) => e.msg);
      const answered = out.findIndex((m) => !('method' in m) && 'result' in m && (m.result as { stopReason?: unknown } | null)?.stopReason === 'end_turn');
      const background = out.findIndex((m) => 'method' in m && m.method === '_zcode/session/backgroundTasks');
      assert.ok(answered !== -1 && background !== -1, 'both were sent');
      assert.ok(answered < background, `the response (#${answered}) precedes the background task's first notification (#${background})`);
      // Nothing zcode sent was lost while it waited: the background card completed.
      assert.ok(
        h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed'),
        'the background card completed',
      );
    });
  });
});
