/**
 * Security of the remote endpoint, against the real bridge (simulator behind it): authentication
 * before the upgrade, the three token carriers, rate limiting, logs free of tokens, loopback by
 * default, frame limits and malformed input.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { WebSocket } from 'ws';
import { generateToken } from '../../../bridge/remote/auth.ts';
import { RemoteConfigError, startRemoteServer } from '../../../bridge/remote/server.ts';
import { withHarness } from './bridgeHarness.ts';
import { closed, nextFrame, opened, probe, upgradeFrom, waitFor } from './harness.ts';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

test('no token → 401 before the upgrade; no ACP client is created', async () => {
  await withHarness({}, async (h) => {
    const res = await probe(h.server.url);
    assert.equal(res.status, 401);
    assert.match(String(res.headers['www-authenticate']), /^Bearer/);
    assert.equal(h.bridge.clients.length, 0);
    assert.equal(h.server.clientCount, 0);
    assert.ok(h.logger.lines.some((l) => /refused 127\.0\.0\.1: no token/.test(l)));
  });
});

test('wrong token → 401 whichever way it is presented', async () => {
  await withHarness({}, async (h) => {
    const wrong = generateToken();
    assert.equal((await probe(h.server.url, { headers: bearer(wrong) })).status, 401);
    assert.equal((await probe(`${h.server.url}?token=${wrong}`)).status, 401);
    assert.equal((await probe(h.server.url, { headers: { 'Sec-WebSocket-Protocol': `acp, acp.token.${wrong}` } })).status, 401);
    assert.equal((await probe(h.server.url, { headers: bearer(h.token.slice(0, -1)) })).status, 401, 'a prefix of the token is not the token');
    assert.equal((await probe(h.server.url, { headers: { Authorization: `Basic ${Buffer.from(`u:${h.token}`).toString('base64')}` } })).status, 401);
    assert.equal(h.bridge.clients.length, 0);
  });
});

test('the token is accepted from the Authorization header, the ?token= query and the acp.token.* subprotocol', async () => {
  await withHarness({}, async (h) => {
    const viaHeader = await h.remote('header', {}, { header: h.token });
    const viaQuery = await h.remote('query', {}, { query: h.token });
    const viaSubprotocol = await h.remote('subprotocol', {}, { subprotocol: h.token });
    for (const c of [viaHeader, viaQuery, viaSubprotocol]) {
      const sid = await h.newSession(c);
      assert.match(sid, /\S/);
    }
    assert.equal(h.server.clientCount, 3);
    assert.equal(h.bridge.clients.filter((c) => c.info.kind === 'remote').length, 3);
  });
});

test('subprotocol auth: the server answers "acp", never the token-bearing entry; "acp" must be offered', async () => {
  await withHarness({}, async (h) => {
    const ws = new WebSocket(h.server.url, ['acp', `acp.token.${h.token}`]);
    await opened(ws);
    assert.equal(ws.protocol, 'acp');
    ws.close();
    await closed(ws);
    const alone = await probe(h.server.url, { headers: { 'Sec-WebSocket-Protocol': `acp.token.${h.token}` } });
    assert.equal(alone.status, 400);
    assert.doesNotMatch(alone.body, new RegExp(h.token));
    const accepted = await probe(h.server.url, { headers: { 'Sec-WebSocket-Protocol': `acp, acp.token.${h.token}` } });
    assert.equal(accepted.status, 101);
    assert.equal(accepted.headers['sec-websocket-protocol'], 'acp');
  });
});

test('tokens and tokenized URLs never appear in any log line', async () => {
  await withHarness({}, async (h) => {
    const wrong = generateToken();
    const nearMiss = `${h.token.slice(0, -2)}xx`;
    // Everything that could plausibly log a credential: refused attempts of every kind, accepted
    // clients of every kind, a full turn, /status, a token rotation and the shutdown.
    await probe(h.server.url, { headers: bearer(wrong) });
    await probe(`${h.server.url}?token=${nearMiss}`);
    await probe(h.server.url, { headers: { 'Sec-WebSocket-Protocol': `acp, acp.token.${wrong}` } });
    await probe(h.server.url.replace('/acp', `/elsewhere?token=${h.token}`));
    const a = await h.remote('a', {}, { query: h.token });
    const b = await h.remote('b', {}, { subprotocol: h.token });
    const sid = await h.newSession(a);
    await a.agent.request('session/prompt', { sessionId: sid, prompt: [{ type: 'text', text: '[scenario:text]' }] });
    await b.waitForUpdate((n) => n.sessionId === sid);
    await probe(h.server.url, { upgrade: false, path: `/status?token=${h.token}` });
    const rotated = generateToken();
    h.server.setToken(rotated);
    await a.connection.closed;
    await h.close();
    const text = h.logger.text();
    assert.ok(h.logger.lines.length > 10, 'the run logged (debug included)');
    for (const secret of [h.token, wrong, nearMiss, rotated, 'token=']) {
      assert.ok(!text.includes(secret), `a log line contains ${secret === 'token=' ? 'a tokenized URL' : 'a token'}`);
    }
    assert.ok(h.logger.lines.some((l) => l.includes('invalid token (from query)')), 'refusals name the source, not the value');
  });
});

test('a non-loopback host is refused unless explicitly allowed, which logs a warning', async () => {
  await withHarness({}, async (h) => {
    await assert.rejects(
      startRemoteServer({ bridge: h.bridge, token: generateToken(), logger: h.logger, host: '0.0.0.0', port: 0 }),
      (error: unknown) => error instanceof RemoteConfigError && /non-loopback address 0\.0\.0\.0/.test(error.message),
    );
    const open = await startRemoteServer({ bridge: h.bridge, token: generateToken(), logger: h.logger, host: '0.0.0.0', port: 0, allowNonLoopback: true });
    try {
      assert.ok(h.logger.lines.some((l) => l.startsWith('[warn]') && l.includes('non-loopback address 0.0.0.0')));
    } finally {
      await open.close();
    }
  });
});

test('an oversized frame closes that connection with 1009; the bridge drops the client and stays up', async () => {
  await withHarness({ server: { maxPayloadBytes: 256 * 1024 } }, async (h) => {
    const ws = new WebSocket(h.server.url, { headers: bearer(h.token) });
    await opened(ws);
    const init = nextFrame(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    await init;
    const code = closed(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 'x', prompt: [{ type: 'text', text: 'x'.repeat(512 * 1024) }] } }));
    assert.equal(await code, 1009);
    await waitFor(() => h.bridge.clients.length === 0);
    // Others are unaffected.
    const ok = await h.remote('after');
    assert.match(await h.newSession(ok), /\S/);
  });
});

test('malformed JSON and binary frames get -32700; the connection keeps working with the real bridge', async () => {
  await withHarness({}, async (h) => {
    const ws = new WebSocket(h.server.url, { headers: bearer(h.token) });
    await opened(ws);
    let frame = nextFrame(ws);
    ws.send('{ not json');
    assert.deepEqual(await frame, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid JSON' } });
    frame = nextFrame(ws);
    ws.send(Buffer.from([0xde, 0xad]), { binary: true });
    assert.equal(((await frame) as { error: { code: number } }).error.code, -32700);
    frame = nextFrame(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    const init = (await frame) as { id: number; result: { protocolVersion: number } };
    assert.equal(init.id, 7);
    assert.equal(init.result.protocolVersion, 1);
    ws.close();
    await closed(ws);
  });
});

test('a flood of failed authentications is rate-limited per source (429 for wrong tokens); the right token is never refused', async () => {
  await withHarness({ server: { authLimit: { maxFailures: 10, windowMs: 60_000 } } }, async (h) => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await probe(h.server.url, { headers: bearer(generateToken()) })).status);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    assert.deepEqual(statuses.slice(10), Array(15).fill(429));
    const limited = await probe(h.server.url, { headers: bearer(generateToken()) });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    // The flood does not flood the log: ten refusals, then one line for the lockout.
    assert.equal(h.logger.lines.filter((l) => l.includes('invalid token')).length, 10);
    assert.equal(h.logger.lines.filter((l) => l.includes('too many failed authentications')).length, 1);
    // Another loopback address is the same machine, so its wrong tokens are limited too (limits.test.ts)…
    assert.equal(await upgradeFrom('127.0.0.2', h.server.port, generateToken()), 429);
    // …but the user's own token gets in, during the lockout, over every carrier.
    assert.equal(await upgradeFrom('127.0.0.2', h.server.port, h.token), 101);
    assert.equal((await probe(h.server.url, { headers: bearer(h.token) })).status, 101);
    assert.equal((await probe(`${h.server.url}?token=${h.token}`)).status, 101);
  });
});

test('GET /status needs the token and reports version, sessions and clients', async () => {
  await withHarness({}, async (h) => {
    assert.equal((await probe(h.server.url, { upgrade: false, path: '/status' })).status, 401);
    const c = await h.remote('c');
    const sid = await h.newSession(c);
    const res = await probe(h.server.url, { upgrade: false, path: '/status', headers: bearer(h.token) });
    assert.equal(res.status, 200);
    const status = JSON.parse(res.body) as { version: string; sessions: { sessionId: string }[]; clients: number };
    assert.equal(typeof status.version, 'string');
    assert.equal(status.clients, 1);
    assert.ok(status.sessions.some((s) => s.sessionId === sid));
    assert.equal((await probe(h.server.url, { upgrade: false, path: '/nope', headers: bearer(h.token) })).status, 404);
  });
});

test('authentication compares through crypto.timingSafeEqual', async (t) => {
  await withHarness({}, async (h) => {
    const spy = t.mock.method(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    try {
      assert.equal((await probe(h.server.url, { headers: bearer(generateToken()) })).status, 401);
      assert.equal((await probe(h.server.url, { headers: bearer(h.token) })).status, 101);
      assert.equal(spy.mock.callCount(), 2);
    } finally {
      spy.mock.restore();
      syncBuiltinESMExports();
    }
  });
});
