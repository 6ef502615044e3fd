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
} from '../../../../bridge/remote/auth.ts';

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

test('FailedAuthLimiter: limits a source after maxFailures within the window, per source', () => {
  let now = 1_000_000;
  const limiter = new FailedAuthLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
  const wait = (address: string): number => limiter.lockout(address)?.retryAfterMs ?? 0;
  assert.equal(wait('10.0.0.1'), 0);
  limiter.recordFailure('10.0.0.1');
  limiter.recordFailure('10.0.0.1');
  assert.equal(wait('10.0.0.1'), 0);
  limiter.recordFailure('10.0.0.1');
  assert.deepEqual(limiter.lockout('10.0.0.1'), { retryAfterMs: 60_000, scope: 'source' });
  assert.equal(wait('10.0.0.2'), 0, 'another source is not affected');
  assert.equal(wait('::ffff:10.0.0.1'), 60_000, 'the IPv4-mapped form is the same source');
  now += 30_000;
  assert.equal(wait('10.0.0.1'), 30_000);
  now += 30_001;
  assert.equal(wait('10.0.0.1'), 0, 'failures age out of the window');
  assert.equal(limiter.trackedSources, 0);
});

test('FailedAuthLimiter: every loopback address is one source (127/8, ::1, ::ffff:127.x)', () => {
  const limiter = new FailedAuthLimiter({ maxFailures: 3 });
  limiter.recordFailure('127.0.0.1');
  limiter.recordFailure('127.8.9.10');
  limiter.recordFailure('::1');
  for (const address of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '::ffff:127.0.0.5']) {
    assert.equal(limiter.lockout(address)?.scope, 'source', address);
  }
  assert.equal(limiter.lockout('192.168.1.2'), undefined);
  assert.equal(limiter.trackedSources, 1);
});

test('FailedAuthLimiter: a global budget refuses every source once all of them together spent it', () => {
  let now = 0;
  const limiter = new FailedAuthLimiter({ maxFailures: 10, maxGlobalFailures: 20, windowMs: 60_000, now: () => now });
  for (let i = 0; i < 20; i++) {
    assert.equal(limiter.lockout(`10.1.0.${i}`), undefined, `guess ${i} is still allowed`);
    limiter.recordFailure(`10.1.0.${i}`);
  }
  assert.deepEqual(limiter.lockout('10.9.9.9'), { retryAfterMs: 60_000, scope: 'everyone' }, 'a fresh source is refused too');
  now += 60_001;
  assert.equal(limiter.lockout('10.9.9.9'), undefined, 'the budget refills as failures age out');
});

test('FailedAuthLimiter: IPv6 peers count by /64', () => {
  const limiter = new FailedAuthLimiter({ maxFailures: 2 });
  limiter.recordFailure('2001:db8:1:2::1');
  limiter.recordFailure('2001:db8:1:2:ffff:ffff:ffff:ffff');
  assert.equal(limiter.lockout('2001:0db8:0001:0002::42')?.scope, 'source');
  assert.equal(limiter.lockout('2001:db8:1:3::1'), undefined);
});

test('FailedAuthLimiter: a flood keeps memory bounded per source', () => {
  const limiter = new FailedAuthLimiter({ maxFailures: 10 });
  for (let i = 0; i < 10_000; i++) limiter.recordFailure('10.2.3.4');
  assert.ok((limiter.lockout('10.2.3.4')?.retryAfterMs ?? 0) > 0);
  assert.equal(limiter.trackedSources, 1);
});
