/**
 * Error codes that mean what ACP says (docs/acp.md "Errors"), through the official SDK client
 * against the simulator's failure scenarios: -32000 ("authentication required", with the
 * `authMethods` of `initialize`) only when the user must sign in; -32603 with a readable message
 * for every other failed turn; -32002 for an unknown session, from `session/load` and
 * `session/prompt` alike; a cancelled prompt answers `cancelled`. zcode's own code, the cause and
 * the retry facts are under `data.zcode`, never the JSON-RPC code.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { initializeResponse } from '../../../bridge/acp/transport/initializeAnswer.ts';
import { buildCli, MODES } from './harness.ts';
import { agentText, errorOf, newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };

interface FailureData {
  authMethods?: unknown;
  zcode?: { code?: number | string; cause?: string; retryable?: boolean; retries?: number; retryAfterMs?: number };
}

function dataOf(error: { data?: unknown }): FailureData {
  return (error.data ?? {}) as FailureData;
}

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`error codes (${mode})`, () => {
    test('a rate limit, a provider 500 and a captcha (3007) are -32603 with zcode facts under data.zcode, never -32000', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const rate = await errorOf(prompt(h, sessionId, '[scenario:fail-rate-limit]'));
        assert.equal(rate.code, -32603);
        assert.match(rate.message, /rate-limiting/);
        // The default profile retries in place (zcode's retryTurn) twice before the failure is the answer.
        assert.deepEqual(dataOf(rate).zcode, { code: 'rate_limit', cause: 'rate_limit', retryable: true, retries: 2 });
        assert.equal(dataOf(rate).authMethods, undefined);

        const upstream = await errorOf(prompt(h, sessionId, '[scenario:fail]'));
        assert.equal(upstream.code, -32603);
        assert.equal(upstream.message, 'upstream model error');
        assert.equal(dataOf(upstream).zcode?.code, 500);

        const captcha = await errorOf(prompt(h, sessionId, '[scenario:fail-captcha-wire]'));
        assert.equal(captcha.code, -32603);
        assert.equal(dataOf(captcha).zcode?.cause, 'captcha');
        assert.equal(dataOf(captcha).zcode?.retryable, false);
      });
    });

    test('an authentication failure is -32000 with the authMethods of initialize', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const auth = await errorOf(prompt(h, sessionId, '[scenario:fail-auth-wire]'));
        assert.equal(auth.code, -32000);
        assert.match(auth.message, /Sign in again/);
        assert.deepEqual(dataOf(auth).authMethods, initializeResponse().authMethods);
        assert.equal(dataOf(auth).zcode?.cause, 'auth_failed');
      });
    });

    for (const quirks of [[], ['unknown-not-active']]) {
      test(`an unknown session is -32002 with its id from session/load and session/prompt alike (zcode answers ${quirks.length ? '-32004' : '-32602'})`, T, async () => {
        await withHarness(mode, { sim: { quirks } }, async (h) => {
          const sessionId = 'sess_0123456789ab';
          const load = await errorOf(h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] }));
          const sent = await errorOf(prompt(h, sessionId, 'hello'));
          for (const error of [load, sent]) {
            assert.equal(error.code, -32002);
            assert.equal((error.data as { sessionId?: string }).sessionId, sessionId);
          }
        });
      });
    }
  });
}

describe('error codes (inproc only: tuning)', () => {
  test('a wait zcode asked for travels as data.zcode.retryAfterMs', T, async () => {
    await withHarness('inproc', { tuning: { turns: { transientRetries: 0 } } }, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, '[scenario:fail-transient]'));
      assert.equal(error.code, -32603);
      assert.equal(dataOf(error).zcode?.retryAfterMs, 1000);
      assert.equal(dataOf(error).zcode?.retries, 0);
    });
  });

  test('a cancelled prompt ($/cancel_request) answers cancelled, never an error', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const sessionId = await newSession(h);
      const aborter = new AbortController();
      const running = prompt(h, sessionId, '[scenario:slow-end]', aborter.signal);
      await h.waitFor('the first chunk', () => agentText(h.updatesOf(sessionId)).includes('Working'));
      aborter.abort();
      const outcome = await running.then(
        (response) => response.stopReason,
        (error: { code?: number }) => error.code,
      );
      assert.ok(outcome === 'cancelled' || outcome === -32800, `cancelled or -32800, got ${String(outcome)}`);
    });
  });
});
