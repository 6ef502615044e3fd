import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import type { IncomingMessage } from 'node:http';
import {
  ACP_SUBPROTOCOL,
  extractToken,
  FailedAuthLimiter,
  generateToken,
  MIN_TOKEN_LENGTH,
  offeredSubprotocols,
  tokenMatches,
} from '../../../bridge/remote/auth.ts';

function request(url: string, headers: Record<string, string> = {}): IncomingMessage {
  // Only `url` and `headers` are read by the functions under test.
  return { url, headers } as unknown as IncomingMessage;
}

test('generateToken: 256 random bits, base64url, never repeats', () => {
  const tokens = new Set(Array.from({ length: 200 }, () => generateToken()));
  assert.equal(tokens.size, 200);
  for (const token of tokens) {
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(token.length >= MIN_TOKEN_LENGTH);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
  }
});

test('tokenMatches: equal tokens match; different content or length does not (and never throws)', () => {
  const token = generateToken();
  assert.equal(tokenMatches(token, token), true);
  assert.equal(tokenMatches(`${token}x`, token), false);
  assert.equal(tokenMatches(token.slice(0, -1), token), false);
  assert.equal(tokenMatches('', token), false);
  assert.equal(tokenMatches(generateToken(), token), false);
});

test('tokenMatches compares with crypto.timingSafeEqual over equal-length digests', (t) => {
  const spy = t.mock.method(crypto, 'timingSafeEqual');
  syncBuiltinESMExports();
  try {
    assert.equal(tokenMatches('short', generateToken()), false);
    assert.equal(spy.mock.callCount(), 1);
    const [a, b] = spy.mock.calls[0].arguments as unknown as [Buffer, Buffer];
    assert.equal(a.length, 32);
    assert.equal(b.length, 32);
  } finally {
    spy.mock.restore();
    syncBuiltinESMExports();
  }
});

test('extractToken: Authorization bearer header', () => {
  assert.deepEqual(extractToken(request('/acp', { authorization: 'Bearer abc.def' })), { token: 'abc.def', source: 'header' });
  assert.deepEqual(extractToken(request('/acp', { authorization: 'bearer   xyz ' })), { token: 'xyz', source: 'header' });
  assert.equal(extractToken(request('/acp', { authorization: 'Basic Zm9vOmJhcg==' })), undefined);
});

test('extractToken: ?token= query', () => {
  assert.deepEqual(extractToken(request('/acp?token=q-123&x=1')), { token: 'q-123', source: 'query' });
  assert.equal(extractToken(request('/acp?token=')), undefined);
});

test('extractToken: acp.token.<token> subprotocol', () => {
  const req = request('/acp', { 'sec-websocket-protocol': `${ACP_SUBPROTOCOL}, acp.token.s_456` });
  assert.deepEqual(extractToken(req), { token: 's_456', source: 'subprotocol' });
  assert.deepEqual(offeredSubprotocols(req), ['acp', 'acp.token.s_456']);
});

test('extractToken: header wins over subprotocol and query; nothing → undefined', () => {
  const req = request('/acp?token=q', { authorization: 'Bearer h', 'sec-websocket-protocol': 'acp, acp.token.s' });
  assert.equal(extractToken(req)?.source, 'header');
  assert.equal(extractToken(request('/acp?token=q', { 'sec-websocket-protocol': 'acp, acp.token.s' }))?.source, 'subprotocol');
  assert.equal(extractToken(request('/acp')), undefined);
});

test('FailedAuthLimiter: limits an address after maxFailures within the window, per address', () => {
  let now = 1_000_000;
  const limiter = new FailedAuthLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
  assert.equal(limiter.retryAfterMs('a'), 0);
  limiter.recordFailure('a');
  limiter.recordFailure('a');
  assert.equal(limiter.retryAfterMs('a'), 0);
  limiter.recordFailure('a');
  assert.equal(limiter.retryAfterMs('a'), 60_000);
  assert.equal(limiter.retryAfterMs('b'), 0, 'another address is not affected');
  now += 30_000;
  assert.equal(limiter.retryAfterMs('a'), 30_000);
  now += 30_001;
  assert.equal(limiter.retryAfterMs('a'), 0, 'failures age out of the window');
  assert.equal(limiter.trackedAddresses, 0);
});

test('FailedAuthLimiter: a flood keeps memory bounded per address', () => {
  const limiter = new FailedAuthLimiter({ maxFailures: 10 });
  for (let i = 0; i < 10_000; i++) limiter.recordFailure('flood');
  assert.ok(limiter.retryAfterMs('flood') > 0);
  assert.equal(limiter.trackedAddresses, 1);
});
