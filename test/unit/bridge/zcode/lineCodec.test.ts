import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Message } from 'vscode-jsonrpc/node';
import { encodeLine, LineMessageWriter } from '../../../../bridge/zcode/lineCodec.ts';
import { LineMessageReader } from '../../../../bridge/zcode/lineReader.ts';
import { testLogger } from '../../../helpers/sim.ts';

/** What the reader delivered, loosely typed for assertions. */
type Got = { id?: number | string; method?: string; params?: { output?: string }; error?: { code: number } } & Record<string, unknown>;

/** A reader fed literal chunks; returns what it delivered. */
function feed(chunks: (string | Buffer)[], options: { maxLineBytes?: number } = {}) {
  const logger = testLogger('codec');
  const stream = new PassThrough();
  const reader = new LineMessageReader(stream, logger, options);
  const got: Got[] = [];
  reader.listen((m) => got.push(m as unknown as Got));
  for (const chunk of chunks) reader.onChunk(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return { got, logger, reader, stream };
}

test('one line per message, several lines per chunk', () => {
  const { got } = feed(['{"id":1,"result":{"a":1}}\n{"method":"session/event","params":{"x":1}}\n']);
  assert.equal(got.length, 2);
  assert.deepEqual(got[0], { jsonrpc: '2.0', id: 1, result: { a: 1 } });
  assert.deepEqual(got[1], { jsonrpc: '2.0', method: 'session/event', params: { x: 1 } });
});

test('a line split across many chunks, including inside a multi-byte character', () => {
  const line = Buffer.from('{"id":"server-1","method":"x","params":{"text":"héllo ✓"}}\n');
  const chunks: Buffer[] = [];
  for (let i = 0; i < line.length; i += 3) chunks.push(line.subarray(i, i + 3));
  const { got } = feed(chunks);
  assert.equal(got.length, 1);
  assert.deepEqual(got[0], { jsonrpc: '2.0', id: 'server-1', method: 'x', params: { text: 'héllo ✓' } });
});

test('CRLF line endings and blank lines', () => {
  const { got, logger } = feed(['{"id":1,"result":1}\r\n', '\r\n', '\n', '{"id":2,', '"result":2}\r', '\n']);
  assert.deepEqual(
    got.map((m) => m.id),
    [1, 2],
  );
  assert.equal(logger.find('warn').length, 0);
});

test('numeric and string ids; requests vs notifications vs responses', () => {
  const { got } = feed([
    '{"id":7,"method":"session/requestRuntimePreferences","params":{}}\n',
    '{"id":"server-9","method":"interaction/requestPermission","params":{}}\n',
    '{"method":"session/event","params":{}}\n',
    '{"id":"abc","error":{"code":1308,"message":"prompt is running"}}\n',
  ]);
  assert.deepEqual(
    got.map((m) => [m.id, m.method]),
    [
      [7, 'session/requestRuntimePreferences'],
      ['server-9', 'interaction/requestPermission'],
      [undefined, 'session/event'],
      ['abc', undefined],
    ],
  );
});

test('an id-only response without result gets result null (vscode-jsonrpc needs one)', () => {
  const { got } = feed(['{"id":3}\n']);
  assert.deepEqual(got[0], { jsonrpc: '2.0', id: 3, result: null });
});

test('non-JSON, non-object and unknown-shape lines are skipped and logged', () => {
  const { got, logger } = feed([
    'Debugger attached.\n',
    '[1,2,3]\n',
    '42\n',
    'null\n',
    '{"hello":"world"}\n',
    '{"id":1,"result":"ok"}\n',
  ]);
  assert.equal(got.length, 1);
  assert.equal(logger.find('warn', 'non-JSON').length, 1);
  assert.equal(logger.find('warn', 'not an object').length, 3);
  assert.equal(logger.find('warn', 'neither id nor method').length, 1);
});

test('a response with a usable id but a broken error becomes an error for that id', () => {
  const { got } = feed(['{"id":5,"error":"boom"}\n']);
  assert.equal(got.length, 1);
  assert.equal(got[0].id, 5);
  assert.equal(got[0].error?.code, -32603);
});

// How fast is the throughput bench's job (npm run bench); this proves the line comes out whole.
test('a multi-MB line in small chunks is reassembled whole', () => {
  const big = 'x'.repeat(4 * 1024 * 1024);
  const line = Buffer.from(JSON.stringify({ method: 'session/event', params: { output: big } }) + '\n{"id":1,"result":true}\n');
  const chunks: Buffer[] = [];
  for (let i = 0; i < line.length; i += 16 * 1024) chunks.push(line.subarray(i, i + 16 * 1024));
  const { got } = feed(chunks);
  assert.equal(got.length, 2);
  assert.equal(got[0].params?.output?.length, big.length);
});

test('an oversized line is dropped without breaking the next one', () => {
  const { got, logger } = feed(['{"method":"a","params":"' + 'y'.repeat(100), 'y'.repeat(100) + '"}\n{"id":1,"result":1}\n'], { maxLineBytes: 150 });
  assert.deepEqual(
    got.map((m) => m.id),
    [1],
  );
  assert.equal(logger.find('warn', 'larger than').length, 1);
});

test('the stream end delivers a final unterminated line and fires close', async () => {
  const logger = testLogger('codec');
  const stream = new PassThrough();
  const reader = new LineMessageReader(stream, logger);
  const got: Got[] = [];
  const closed = new Promise<void>((resolve) => reader.onClose(() => resolve()));
  reader.listen((m) => got.push(m as unknown as Got));
  stream.write('{"id":1,"result":1}\n{"id":2,"res');
  stream.end('ult":2}');
  await closed;
  assert.deepEqual(
    got.map((m) => m.id),
    [1, 2],
  );
});

test('writer never emits jsonrpc, one line per message', async () => {
  const stream = new PassThrough();
  const writer = new LineMessageWriter(stream);
  let out = '';
  stream.on('data', (c: Buffer) => (out += c.toString()));
  await writer.write({ jsonrpc: '2.0', id: 0, method: 'session/create', params: { a: 1 } } as Message);
  await writer.write({ jsonrpc: '2.0', id: 'server-1', result: { decision: 'allow' } } as Message);
  await writer.write({ jsonrpc: '2.0', method: 'session/stop', params: { sessionId: 's' } } as Message);
  const lines = out.split('\n');
  assert.equal(lines.pop(), '');
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [
    { id: 0, method: 'session/create', params: { a: 1 } },
    { id: 'server-1', result: { decision: 'allow' } },
    { method: 'session/stop', params: { sessionId: 's' } },
  ]);
  assert.ok(!out.includes('jsonrpc'));
});

test('writer rejects after the stream ended', async () => {
  const stream = new PassThrough();
  const writer = new LineMessageWriter(stream);
  writer.end();
  await assert.rejects(writer.write({ jsonrpc: '2.0', method: 'x' } as Message), /closed/);
});

test('encodeLine strips jsonrpc and terminates with a newline', () => {
  assert.equal(encodeLine({ jsonrpc: '2.0', id: 1, result: null }), '{"id":1,"result":null}\n');
});
