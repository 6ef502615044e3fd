/**
 * Failures a user understands, end to end through the official SDK client: the
 * simulator fails turns with current `turn.failed` error objects (scenarios fail-captcha-wire, fail-auth-wire,
 * fail-transient), and the prompt's JSON-RPC error says what happened and what to do.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildCli, MODES } from './harness.ts';
import { errorOf, newSession, prompt, resendAsRetryInPlace, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`turn failures (${mode})`, () => {
    test('captcha 3007: a clear error naming the desktop app and the Coding Plan key, sent once, never retried', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const error = await errorOf(prompt(h, sessionId, '[scenario:fail-captcha-wire]'));
        assert.match(error.message, /needs the ZCode desktop app/);
        assert.match(error.message, /GLM Coding Plan API key/);
        assert.equal((error.data as { zcode: { cause: string; retryable: boolean } }).zcode.cause, 'captcha');
        assert.equal((error.data as { zcode: { retryable: boolean } }).zcode.retryable, false);
        assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 1, 'no retry');
      });
    });

    test('auth failed: says to sign in again; not retried', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const error = await errorOf(prompt(h, sessionId, '[scenario:fail-auth-wire]'));
        assert.match(error.message, /Authentication with the model provider failed/);
        assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 1);
      });
    });

    test('a rate limit without an in-place retry is answered at once, retryable, and never re-sent', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const error = await errorOf(prompt(h, sessionId, '[scenario:fail-transient]'));
        assert.match(error.message, /rate-limiting/);
        assert.equal((error.data as { zcode: { retryable: boolean } }).zcode.retryable, true);
        assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 1);
        assert.equal((await prompt(h, sessionId, '[scenario:fail-transient]')).stopReason, 'end_turn', 'sent again by the user, it succeeds');
      });
    });
  });
}

describe('turn failures with an in-place retry (inproc)', () => {
  test('a rate limit is retried in place with each retry shown, then succeeds', T, async () => {
    await withHarness('inproc', resendAsRetryInPlace('[scenario:fail-transient]'), async (h) => {
      const sessionId = await newSession(h);
      assert.equal((await prompt(h, sessionId, '[scenario:fail-transient]')).stopReason, 'end_turn');
      const retries = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'agent_thought_chunk' && (u._meta as { zcode?: { status?: string } } | undefined)?.zcode?.status === 'retrying');
      assert.equal(retries.length, 1);
      const chunk = retries[0];
      assert.ok(chunk.sessionUpdate === 'agent_thought_chunk' && chunk.content.type === 'text' && /rate limit.*attempt 1 of 2/.test(chunk.content.text));
    });
  });
});
