import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainTurnFailure, failureCause } from '../../../../bridge/translate/failures.ts';
import { readTurnFailure } from '../../../../bridge/zcode/turnFailure.ts';

const captcha = readTurnFailure({
  type: 'ProviderBusinessError',
  message: 'ProviderBusinessError: captcha verify failed',
  underlyingErrorMessage: '400 {"code":3007,"msg":"captcha verify failed"}',
  attribution: { source: 'provider', reason: 'provider_business_error', providerId: 'zai' },
  retryable: true,
});

test('captcha 3007: the desktop app is needed, a Coding Plan key is the way out, and it is never retried', () => {
  const e = explainTurnFailure(captcha, true);
  assert.equal(e.cause, 'captcha');
  assert.equal(e.retryable, false, 'not even when zcode says retryable');
  assert.match(e.message, /needs the ZCode desktop app/);
  assert.match(e.message, /GLM Coding Plan API key/);
  assert.equal(failureCause(readTurnFailure({ message: 'x', underlyingErrorMessage: '{"code":"3007"}' })), 'captcha');
});

test('each documented cause gets its own message and retry rule', () => {
  const cases: Array<[unknown, string, boolean]> = [
    [{ message: '401 Unauthorized', attribution: { source: 'provider', reason: 'auth_failed' } }, 'auth_failed', false],
    [{ message: 'request has been blocked due to unusual activity', code: 3012 }, 'blocked', false],
    [{ message: '[1113] 余额不足或无可用资源包' }, 'quota', false],
    [{ message: 'Provider runtime headers were not applied before model request attempt.', code: -32031 }, 'headers_not_applied', false],
    [{ message: 'switch failed', attribution: { reason: 'provider_not_configured' } }, 'provider_not_configured', true],
    [{ message: 'rate limited', code: 429 }, 'rate_limit', true],
    [{ message: 'Cannot connect to API: ECONNRESET' }, 'network', true],
    [{ message: 'oops', attribution: { reason: 'model_request_failed' } }, 'model_request_failed', true],
  ];
  for (const [wire, cause, retryable] of cases) {
    const e = explainTurnFailure(readTurnFailure(wire), false);
    assert.equal(e.cause, cause, JSON.stringify(wire));
    assert.equal(e.retryable, retryable, cause);
    assert.ok(e.message.length > 20, cause);
  }
  assert.match(explainTurnFailure(readTurnFailure({ message: '401', attribution: { reason: 'auth_failed' } }), false).message, /Sign in again/);
});

test('unknown failures keep zcode\'s words; the retry rule is zcode\'s flag, else the heuristics', () => {
  assert.deepEqual(explainTurnFailure(readTurnFailure({ code: 500, message: 'upstream model error' }), true), { cause: 'unknown', retryable: true, message: 'upstream model error', code: 500 });
  assert.equal(explainTurnFailure(readTurnFailure({ message: 'weird', retryable: false }), true).retryable, false);
  assert.equal(explainTurnFailure(readTurnFailure('not an object'), false).message, 'not an object');
});
