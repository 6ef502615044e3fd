/**
 * The endpoint as a transport: framing, listener lifetime, ports, status. Uses a stand-in SDK agent
 * (no zcode needed); the auth tests and the multi-client semantics run against the real bridge.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { WebSocket } from 'ws';
import { generateToken } from '../../../bridge/remote/auth.ts';
import { RemoteConfigError, startRemoteServer } from '../../../bridge/remote/server.ts';
import { startRemoteFromEnv } from '../../../bridge/remote/env.ts';
import { assertPortFree, captureLogger, closed, nextFrame, opened, probe, remoteClient, waitFor } from './harness.ts';
import { standInHost } from './standIn.ts';

async function withServer(
  options: Partial<Parameters<typeof startRemoteServer>[0]>,
  body: (ctx: { url: string; token: string; server: Awaited<ReturnType<typeof startRemoteServer>> }) => Promise<void>,
): Promise<void> {
  const token = generateToken();
  const server = await startRemoteServer({ bridge: standInHost(), token, logger: captureLogger(), port: 0, ...options });
  try {
    await body({ url: server.url, token, server });
  } finally {
    await server.close();
  }
}

function rawSocket(url: string, token: string): WebSocket {
  return new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
}

test('an SDK client completes initialize → session/new → prompt over the socket', async () => {
  await withServer({}, async ({ url, token }) => {
    const c = remoteClient(url, { header: token }, { name: 'sdk' });
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const response = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(c.updates.length, 1);
    assert.deepEqual(c.tap.violations, []);
    await c.close();
  });
});

test('malformed JSON → -32700 and the connection stays usable', async () => {
  await withServer({}, async ({ url, token }) => {
    const ws = rawSocket(url, token);
    await opened(ws);
    const reply = nextFrame(ws);
    ws.send('{"jsonrpc":"2.0", "id": 1, "method": ');
    assert.deepEqual(await reply, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the message is not valid JSON' } });
    const init = nextFrame(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: 1 } }));
    assert.equal((await init as { id: number }).id, 2);
    ws.close();
    await closed(ws);
  });
});

test('a 5,000-deep frame gets -32600 for its id, stray responses are dropped; the connection and the bridge keep serving', async () => {
  const logger = captureLogger();
  await withServer({ logger }, async ({ url, token }) => {
    const ws = rawSocket(url, token);
    await opened(ws);
    const depth = 5000;
    let reply = nextFrame(ws);
    ws.send(`{"id":41,"method":"x","params":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    assert.deepEqual(await reply, { jsonrpc: '2.0', id: 41, error: { code: -32600, message: 'Invalid Request: the message nests deeper than 256 levels' } });
    for (let i = 0; i < 50; i++) ws.send(JSON.stringify({ jsonrpc: '2.0', id: 900 + i, result: {} }));
    reply = nextFrame(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'initialize', params: { protocolVersion: 1 } }));
    assert.equal(((await reply) as { id: number }).id, 42);
    const strayLines = logger.lines.filter((l) => l.includes('dropped a response to no request')).length;
    assert.ok(strayLines >= 1 && strayLines <= 5, `stray-response log lines: ${strayLines}`);
    ws.close();
    await closed(ws);
  });
});

test('binary frames → -32700; batches and non-objects → -32600', async () => {
  await withServer({}, async ({ url, token }) => {
    const ws = rawSocket(url, token);
    await opened(ws);
    let reply = nextFrame(ws);
    ws.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize' })), { binary: true });
    assert.equal(((await reply) as { error: { code: number } }).error.code, -32700);
    reply = nextFrame(ws);
    ws.send('[{"jsonrpc":"2.0","id":1,"method":"initialize"}]');
    assert.equal(((await reply) as { error: { code: number } }).error.code, -32600);
    reply = nextFrame(ws);
    ws.send('42');
    assert.equal(((await reply) as { error: { code: number } }).error.code, -32600);
    assert.equal(ws.readyState, WebSocket.OPEN);
    ws.close();
    await closed(ws);
  });
});

test('a frame over maxPayloadBytes closes the connection with 1009', async () => {
  const logger = captureLogger();
  await withServer({ maxPayloadBytes: 64 * 1024, logger }, async ({ url, token, server }) => {
    const ws = rawSocket(url, token);
    await opened(ws);
    const code = closed(ws);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(100 * 1024) } }));
    assert.equal(await code, 1009);
    await waitFor(() => server.clientCount === 0);
  });
});

test('a port in use → the next free port, reported without the token', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const taken = (blocker.address() as { port: number }).port;
  const logger = captureLogger();
  try {
    await withServer({ port: taken, logger }, async ({ url, token, server }) => {
      assert.notEqual(server.port, taken);
      assert.ok(server.port > taken && server.port < taken + 20);
      assert.equal(url, `ws://127.0.0.1:${server.port}/acp`);
      assert.ok(logger.lines.some((l) => l.includes(`listening on ${url}`)));
      assert.ok(!logger.text().includes(token));
    });
  } finally {
    blocker.close();
  }
});

test('no free port within the bounded tries → RemoteConfigError', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const taken = (blocker.address() as { port: number }).port;
  try {
    await assert.rejects(
      startRemoteServer({ bridge: standInHost(), token: generateToken(), logger: captureLogger(), port: taken, portAttempts: 1 }),
      RemoteConfigError,
    );
  } finally {
    blocker.close();
  }
});

test('a short token is refused at start', async () => {
  await assert.rejects(startRemoteServer({ bridge: standInHost(), token: 'short', logger: captureLogger(), port: 0 }), /at least 22/);
});

test('close() closes every remote socket with 1001 and frees the port', async () => {
  const token = generateToken();
  const server = await startRemoteServer({ bridge: standInHost(), token, logger: captureLogger(), port: 0 });
  const sockets = [rawSocket(server.url, token), rawSocket(server.url, token), rawSocket(server.url, token)];
  await Promise.all(sockets.map(opened));
  await waitFor(() => server.clientCount === 3);
  const codes = Promise.all(sockets.map(closed));
  await server.close();
  assert.deepEqual(await codes, [1001, 1001, 1001]);
  assert.equal(server.clientCount, 0);
  await assertPortFree(server.port);
  await server.close(); // idempotent
});

test('the bridge disposing closes the endpoint (onDidDispose)', async () => {
  const listeners: (() => void)[] = [];
  const host = { ...standInHost(), onDidDispose: (l: () => void) => (listeners.push(l), { dispose: () => undefined }) };
  const token = generateToken();
  const server = await startRemoteServer({ bridge: host, token, logger: captureLogger(), port: 0 });
  const ws = rawSocket(server.url, token);
  await opened(ws);
  const code = closed(ws);
  for (const l of listeners) l();
  assert.equal(await code, 1001);
  await server.close();
  await assertPortFree(server.port);
});

test('a client that stops answering pings is dropped by the heartbeat', async () => {
  await withServer({ heartbeatMs: 50 }, async ({ url, token, server }) => {
    const healthy = rawSocket(url, token);
    const silent = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` }, autoPong: false });
    await Promise.all([opened(healthy), opened(silent)]);
    const code = closed(silent);
    assert.equal(await code, 1006, 'terminated without a close handshake');
    await waitFor(() => server.clientCount === 1);
    assert.equal(healthy.readyState, WebSocket.OPEN, 'a client that answers pings stays');
    healthy.close();
  });
});

test('onDidChangeClients fires on connect and disconnect', async () => {
  await withServer({}, async ({ url, token, server }) => {
    const counts: number[] = [];
    server.onDidChangeClients((n) => counts.push(n));
    const ws = rawSocket(url, token);
    await opened(ws);
    await waitFor(() => counts.length === 1);
    ws.close();
    await waitFor(() => counts.length === 2);
    assert.deepEqual(counts, [1, 0]);
  });
});

test('setToken drops connected clients (4001) and only the new token is accepted', async () => {
  await withServer({}, async ({ url, token, server }) => {
    const ws = rawSocket(url, token);
    await opened(ws);
    const code = closed(ws);
    const next = generateToken();
    server.setToken(next);
    assert.equal(await code, 4001);
    assert.equal((await probe(url, { headers: { Authorization: `Bearer ${token}` } })).status, 401);
    assert.equal((await probe(url, { headers: { Authorization: `Bearer ${next}` } })).status, 101);
  });
});

test('the listener and remote sockets do not keep the process alive', async () => {
  // A child process starts the endpoint, connects a client to itself, and must exit on its own.
  const { spawnSync } = await import('node:child_process');
  const script = `
    import { startRemoteServer } from './bridge/remote/server.ts';
    import { generateToken } from './bridge/remote/auth.ts';
    const host = { connect: (stream) => { const r = stream.readable.getReader(); void r.read(); return { closed: new Promise(() => {}), close() {} }; } };
    const token = generateToken();
    const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
    const server = await startRemoteServer({ bridge: host, token, logger: quiet, port: 0 });
    const { WebSocket } = await import('ws');
    const ws = new WebSocket(server.url, { headers: { Authorization: 'Bearer ' + token } });
    ws.on('open', () => { ws._socket.unref(); process.stdout.write('connected'); });
  `;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
    timeout: 15_000,
    encoding: 'utf8',
  });
  assert.equal(result.signal, null, 'the process had to be killed: something kept it alive');
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, 'connected');
});

test('startRemoteFromEnv: off unless ZCODE_ACP_REMOTE=1; no token → off with a logged reason', async () => {
  const logger = captureLogger();
  assert.equal(await startRemoteFromEnv(standInHost(), {}, logger), undefined);
  assert.equal(logger.lines.length, 0);
  assert.equal(await startRemoteFromEnv(standInHost(), { ZCODE_ACP_REMOTE: '1' }, logger), undefined);
  assert.match(logger.text(), /remote access stays off: .*ZCODE_ACP_REMOTE_TOKEN is not set/);
  assert.equal(await startRemoteFromEnv(standInHost(), { ZCODE_ACP_REMOTE: '1', ZCODE_ACP_REMOTE_TOKEN: generateToken(), ZCODE_ACP_REMOTE_PORT: 'x' }, logger), undefined);
  assert.match(logger.text(), /ZCODE_ACP_REMOTE_PORT is not a port number/);
});

test('startRemoteFromEnv: host, port and the non-loopback switch', async () => {
  const logger = captureLogger();
  const token = generateToken();
  const refused = await startRemoteFromEnv(standInHost(), { ZCODE_ACP_REMOTE: '1', ZCODE_ACP_REMOTE_TOKEN: token, ZCODE_ACP_REMOTE_HOST: '0.0.0.0', ZCODE_ACP_REMOTE_PORT: '0' }, logger);
  assert.equal(refused, undefined);
  assert.match(logger.text(), /refusing to expose remote access on non-loopback address 0\.0\.0\.0/);
  const server = await startRemoteFromEnv(
    standInHost(),
    { ZCODE_ACP_REMOTE: '1', ZCODE_ACP_REMOTE_TOKEN: token, ZCODE_ACP_REMOTE_HOST: '0.0.0.0', ZCODE_ACP_REMOTE_PORT: '0', ZCODE_ACP_REMOTE_ALLOW_NON_LOOPBACK: '1' },
    logger,
  );
  assert.ok(server);
  try {
    assert.match(logger.text(), /\[warn\] remote access: listening on non-loopback address 0\.0\.0\.0/);
    assert.equal((await probe(`ws://127.0.0.1:${server.port}/acp`, { headers: { Authorization: `Bearer ${token}` } })).status, 101);
  } finally {
    await server.close();
  }
  const local = await startRemoteFromEnv(standInHost(), { ZCODE_ACP_REMOTE: '1', ZCODE_ACP_REMOTE_TOKEN: token, ZCODE_ACP_REMOTE_PORT: '0' }, logger);
  assert.ok(local);
  assert.match(local.url, /^ws:\/\/127\.0\.0\.1:\d+\/acp$/);
  await local.close();
  assert.ok(!logger.text().includes(token));
});
