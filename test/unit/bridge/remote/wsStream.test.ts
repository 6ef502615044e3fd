import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { WebSocket, WebSocketServer } from 'ws';
import { CLOSE_SLOW_CONSUMER, webSocketStream } from '../../../../bridge/remote/wsStream.ts';
import type { Logger } from '../../../../bridge/logger.ts';

const quiet: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** A server-side socket and its connected client socket. */
async function pair(): Promise<{ server: WebSocket; client: WebSocket; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const accepted = new Promise<WebSocket>((r) => wss.once('connection', r));
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise<void>((r) => client.once('open', () => r()));
  const server = await accepted;
  return {
    server,
    client,
    close: async () => {
      client.terminate();
      server.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}

test('one message per text frame in both directions', async () => {
  const { server, client, close } = await pair();
  const stream = webSocketStream(server, { logger: quiet, label: 't' });
  const reader = stream.readable.getReader();
  client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
  client.send(JSON.stringify({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } }));
  assert.deepEqual((await reader.read()).value, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
  assert.deepEqual((await reader.read()).value, { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } });
  const frames: string[] = [];
  client.on('message', (data: Buffer, isBinary: boolean) => {
    assert.equal(isBinary, false);
    frames.push(data.toString('utf8'));
  });
  const writer = stream.writable.getWriter();
  await writer.write({ jsonrpc: '2.0', id: 1, result: { ok: true } });
  await writer.write({ jsonrpc: '2.0', method: 'session/update', params: { n: 2 } });
  while (frames.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(frames.map((f) => JSON.parse(f) as AnyMessage), [
    { jsonrpc: '2.0', id: 1, result: { ok: true } },
    { jsonrpc: '2.0', method: 'session/update', params: { n: 2 } },
  ]);
  await close();
});

test('the readable ends when the socket closes; closing the writable closes the socket', async () => {
  const a = await pair();
  const readerA = webSocketStream(a.server, { logger: quiet, label: 'a' }).readable.getReader();
  a.client.close();
  assert.equal((await readerA.read()).done, true);
  await a.close();

  const b = await pair();
  const streamB = webSocketStream(b.server, { logger: quiet, label: 'b' });
  const code = new Promise<number>((r) => b.client.once('close', r));
  await streamB.writable.close();
  assert.equal(await code, 1000);
  await b.close();
});

test('a client that stops reading is disconnected (1008) instead of buffering without bound', async () => {
  const { server, client, close } = await pair();
  const stream = webSocketStream(server, { logger: quiet, label: 'slow', highWaterMark: 1 << 30, maxBufferedBytes: 256 * 1024 });
  // Stop reading on the client: the server's kernel buffers fill and `bufferedAmount` grows.
  (client as unknown as { _socket: { pause(): void } })._socket.pause();
  const code = new Promise<number>((r) => server.once('close', r));
  const writer = stream.writable.getWriter();
  const payload = 'x'.repeat(64 * 1024);
  for (let i = 0; i < 2000 && server.readyState === WebSocket.OPEN; i++) {
    await writer.write({ jsonrpc: '2.0', method: 'session/update', params: { payload } });
  }
  assert.equal(server.readyState === WebSocket.CLOSING || server.readyState === WebSocket.CLOSED, true);
  (client as unknown as { _socket: { resume(): void } })._socket.resume();
  server.terminate();
  assert.ok([CLOSE_SLOW_CONSUMER, 1006].includes(await code));
  await close();
});
