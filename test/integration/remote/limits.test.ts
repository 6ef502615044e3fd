/**
 * Remote access limits with real sockets against the real bridge: all of loopback is one rate-limit source
 * (clients bound to 127.0.0.2 … 127.0.0.41, which Linux routes to this machine), a per-source cap
 * on open connections, and a handshake deadline that closes sockets which never finish the upgrade
 * (slowloris).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import { generateToken } from '../../../bridge/remote/auth.ts';
import { withHarness } from './bridgeHarness.ts';
import { closed, nextFrame, opened, upgradeFrom } from './harness.ts';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A raw TCP socket from `localAddress` that sends `data` (e.g. half a request) and then nothing. */
async function rawSocket(localAddress: string, port: number, data: string): Promise<{ socket: Socket; received: () => string; ended: Promise<void> }> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  if (data) socket.write(data);
  return { socket, received: () => text, ended };
}

test('40 loopback addresses × 10 wrong tokens get 10 × 401, then 429 for all of them (one source); the right token still gets in', async () => {
  await withHarness({}, async (h) => {
    const statuses: number[] = [];
    for (let a = 2; a <= 41; a++) {
      for (let i = 0; i < 10; i++) statuses.push(await upgradeFrom(`127.0.0.${a}`, h.server.port, generateToken()));
    }
    assert.equal(statuses.length, 400);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
    assert.deepEqual(statuses.slice(10), Array(390).fill(429));
    assert.equal(await upgradeFrom('127.0.0.42', h.server.port, generateToken()), 429, 'a wrong token from yet another loopback address is refused too');
    assert.equal(await upgradeFrom('127.0.0.42', h.server.port, h.token), 101, 'the right token is never locked out');
    assert.equal(h.logger.lines.filter((l) => l.includes('too many failed authentications')).length, 1, 'one log line for the lockout');
  });
});

test('a source may hold at most maxPerSource open connections; at the cap its oldest unfinished handshake makes room, and only upgraded clients fill it for good (429)', { timeout: 30_000 }, async () => {
  await withHarness({ server: { connectionLimits: { maxPerSource: 4 } } }, async (h) => {
    const ws1 = new WebSocket(h.server.url, { headers: bearer(h.token), localAddress: '127.0.0.2' });
    const ws2 = new WebSocket(h.server.url, { headers: bearer(h.token), localAddress: '127.0.0.3' });
    await Promise.all([opened(ws1), opened(ws2)]);
    const held = [await rawSocket('127.0.0.4', h.server.port, 'GET /acp HTTP/1.1\r\n'), await rawSocket('127.0.0.5', h.server.port, '')];
    // Connections are accepted in order, so the fifth is counted after the four above: the oldest
    // unfinished handshake (the half-sent request) is closed, unanswered, to make room for it.
    const fifth = await rawSocket('127.0.0.6', h.server.port, '');
    await Promise.race([held[0].ended, fifth.ended]);
    assert.equal(fifth.received(), '', 'the newcomer is not refused');
    await held[0].ended;
    assert.equal(held[0].received(), '', 'closed without an answer');
    assert.ok(h.logger.lines.some((l) => /loopback is at its limit of 4 connections: closing its oldest unfinished handshakes/.test(l)));
    // Two more upgraded clients take the slots of the two sockets still in their handshake…
    const ws3 = new WebSocket(h.server.url, { headers: bearer(h.token), localAddress: '127.0.0.7' });
    await opened(ws3);
    const ws4 = new WebSocket(h.server.url, { headers: bearer(h.token), localAddress: '127.0.0.8' });
    await opened(ws4);
    await Promise.all([held[1].ended, fifth.ended]);
    // …and a source whose every slot is an upgraded client is refused.
    assert.equal(await upgradeFrom('127.0.0.9', h.server.port, h.token), 429, 'four clients connected: the fifth is refused');
    assert.ok(h.logger.lines.some((l) => /refusing connections from loopback: 4 clients connected \(limit 4\)/.test(l)));
    // The upgraded clients were not disturbed.
    const frame = nextFrame(ws1);
    ws1.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    assert.equal(((await frame) as { id: number }).id, 1);
    // Closing a connection frees its slot.
    ws2.close();
    await closed(ws2);
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 101; attempt++) status = await upgradeFrom('127.0.0.10', h.server.port, h.token);
    assert.equal(status, 101);
    for (const ws of [ws1, ws3, ws4]) {
      ws.close();
      await closed(ws);
    }
  });
});

test('a local process holding its source\'s every slot with unfinished handshakes does not lock the right token out', { timeout: 30_000 }, async () => {
  await withHarness({ server: { connectionLimits: { maxPerSource: 4 } } }, async (h) => {
    const held = [];
    for (let i = 0; i < 4; i++) held.push(await rawSocket(`127.0.0.${2 + i}`, h.server.port, i % 2 === 0 ? '' : 'GET /acp HTTP/1.1\r\n'));
    assert.equal(await upgradeFrom('127.0.0.9', h.server.port, h.token), 101, 'the right token gets in');
    await held[0].ended;
    assert.equal(held[0].received(), '', 'the oldest held socket made room, unanswered');
    for (const { socket, ended } of held.slice(1)) {
      socket.destroy();
      await ended;
    }
  });
});

test('a socket that never completes the upgrade is closed after the handshake timeout (slowloris); an upgraded one is not', async () => {
  await withHarness({ server: { connectionLimits: { handshakeTimeoutMs: 300 } } }, async (h) => {
    const ws = new WebSocket(h.server.url, { headers: bearer(h.token) });
    await opened(ws);
    const slow = await rawSocket('127.0.0.2', h.server.port, 'GET /acp HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n');
    const silent = await rawSocket('127.0.0.3', h.server.port, '');
    // Keep trickling header bytes: activity does not extend the deadline.
    const trickle = setInterval(() => slow.socket.write('X-Slow: 1\r\n'), 50);
    try {
      await Promise.all([slow.ended, silent.ended]);
    } finally {
      clearInterval(trickle);
    }
    assert.equal(slow.received(), '', 'closed without an answer');
    // The WebSocket opened before both deadlines passed and still works after them.
    assert.equal(ws.readyState, WebSocket.OPEN);
    const frame = nextFrame(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } }));
    assert.equal(((await frame) as { id: number }).id, 3);
    ws.close();
    await closed(ws);
  });
});
