/**
 * `session/event` on its lane (lineReader.ts `routeDirect`, connection.ts): events skip
 * vscode-jsonrpc's one-message-per-turn queue, and still keep every ordering the bridge can
 * observe. Real reader, writer, connection and lane over in-memory streams; the "zcode" side is
 * the test writing lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { BackendErrorCode, ZcodeError } from '../../../../bridge/zcode/backend.ts';
import { ZcodeConnection } from '../../../../bridge/zcode/connection.ts';
import { SESSION_EVENT_METHOD, sessionEventLane } from '../../../../bridge/zcode/legacy/sessionEvents.ts';
import { Message } from 'vscode-jsonrpc/node';
import { LineFramer, LineMessageWriter, toRpcMessage } from '../../../../bridge/zcode/lineCodec.ts';
import { LineMessageReader } from '../../../../bridge/zcode/lineReader.ts';
import { testLogger } from '../../../helpers/sim.ts';

const delta = (seq: number, text = 'x'): string =>
  `${JSON.stringify({ method: 'session/event', params: { sessionId: 's', seq, type: 'model.streaming', payload: { kind: 'text_delta', delta: text, messageId: 'm' } } })}\n`;
const started = (seq: number): string => `${JSON.stringify({ method: 'session/event', params: { sessionId: 's', seq, type: 'turn.started', payload: { turnId: 't' } } })}\n`;
const completed = (seq: number): string => `${JSON.stringify({ method: 'session/event', params: { sessionId: 's', seq, type: 'turn.completed', payload: { resultType: 'success' } } })}\n`;
const response = (id: number | string, result: unknown = { accepted: true }): string => `${JSON.stringify({ id, result })}\n`;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function until(what: string, condition: () => boolean, turns = 200): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await turn();
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** A connection whose zcode end is the test: `write` feeds its stdout, `requests` is what it sent. */
function rig(options: { onEvent?: (seq: number, log: string[]) => void } = {}) {
  const logger = testLogger('lanes');
  const stdout = new PassThrough();
  const stdin = new PassThrough();
  const log: string[] = [];
  const requests: { id: number | string; method: string }[] = [];
  let input = '';
  stdin.on('data', (chunk: Buffer) => {
    input += chunk.toString('utf8');
    for (let nl = input.indexOf('\n'); nl !== -1; nl = input.indexOf('\n')) {
      const msg: unknown = JSON.parse(input.slice(0, nl));
      input = input.slice(nl + 1);
      if (typeof msg === 'object' && msg !== null && 'id' in msg && 'method' in msg && (typeof msg.id === 'number' || typeof msg.id === 'string') && typeof msg.method === 'string') {
        requests.push({ id: msg.id, method: msg.method });
      } else {
        log.push(`reply ${JSON.stringify(msg)}`);
      }
    }
  });
  const reader = new LineMessageReader(stdout, logger);
  const conn = new ZcodeConnection(reader, new LineMessageWriter(stdin), {
    logger,
    requestTimeoutMs: 5_000,
    onRequest: async (method) => {
      log.push(`request ${method}`);
      return { ok: true };
    },
    onNotification: (method) => log.push(`notification ${method}`),
    lanes: new Map([
      [
        SESSION_EVENT_METHOD,
        sessionEventLane(logger, (event) => {
          log.push(`event ${event.seq}`);
          options.onEvent?.(event.seq ?? -1, log);
        }),
      ],
    ]),
  });
  conn.listen();
  return {
    logger,
    log,
    stdout,
    reader,
    conn,
    write: (text: string) => void stdout.write(text),
    /**
     * Send a request from the bridge; resolves with the id zcode saw. Its answer is logged twice:
     * where it stands in the stream (`onAnswer`) and when the awaiting code goes on ("resolved").
     */
    request: async (method: string, after: (log: string[]) => Promise<void> | void = () => {}) => {
      const done = conn.request(method, {}, { onAnswer: () => log.push(`${method} answered`) }).then(async () => {
        log.push(`${method} resolved`);
        await after(log);
      });
      await until(`the ${method} request`, () => requests.some((r) => r.method === method));
      const id = requests.filter((r) => r.method === method).at(-1)!.id;
      return { id, done };
    },
    events: () => log.filter((l) => l.startsWith('event ')),
  };
}

test('deltas are delivered as their line is read, in stream order, in the same turn', () => {
  const r = rig();
  r.reader.onChunk(Buffer.from(delta(1) + delta(2) + delta(3)));
  assert.deepEqual(r.log, ['event 1', 'event 2', 'event 3']);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('a response followed by events in one chunk: its answer is applied at its place in the stream, before the events after it', async () => {
  const r = rig();
  const { id, done } = await r.request('session/subscribe');
  r.write(response(id) + delta(1) + delta(2) + started(3) + delta(4));
  await done;
  await until('all events', () => r.events().length === 4);
  const log = r.log.filter((l) => l !== 'session/subscribe resolved');
  assert.deepEqual(log, ['session/subscribe answered', 'event 1', 'event 2', 'event 3', 'event 4']);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('the order does not rest on promise continuations: an awaiter delayed by many turns changes nothing the stream decides', async () => {
  const r = rig();
  const { id, done } = await r.request('session/send', async () => {
    // A continuation that takes its time (I/O, a slow listener): the events are not held for it.
    for (let i = 0; i < 20; i++) await turn();
    r.log.push('send continuation done');
  });
  r.write(delta(1) + response(id) + delta(2) + completed(3) + started(4) + delta(5));
  await until('all events', () => r.events().length === 5);
  assert.deepEqual(r.log.slice(0, 6), ['event 1', 'session/send answered', 'event 2', 'event 3', 'event 4', 'event 5'], 'stream order, the answer in its place');
  await done;
  assert.equal(r.log.at(-1), 'send continuation done');
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('events before the send response are not held back or lost: stream order exactly', async () => {
  const r = rig();
  const { id, done } = await r.request('session/send');
  r.write(delta(1) + started(2) + delta(3) + response(id) + delta(4) + completed(5));
  await done;
  await until('all events', () => r.events().length === 5);
  assert.deepEqual(
    r.log.filter((l) => l !== 'session/send resolved'),
    ['event 1', 'event 2', 'event 3', 'session/send answered', 'event 4', 'event 5'],
  );
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('the reader reports the end of each burst (onIdle) after its deliveries, never between them', async () => {
  const logger = testLogger('idle');
  const stdout = new PassThrough();
  const log: string[] = [];
  const reader = new LineMessageReader(stdout, logger, { onIdle: () => log.push('idle') });
  reader.routeDirect(SESSION_EVENT_METHOD, sessionEventLane(logger, (event) => void log.push(`event ${event.seq}`)));
  reader.listen(() => assert.fail('only lane messages here'));
  reader.onChunk(Buffer.from(delta(1) + delta(2) + completed(3)));
  reader.onChunk(Buffer.from(delta(4)));
  assert.deepEqual(log, ['event 1', 'event 2', 'event 3', 'idle', 'event 4', 'idle']);
  reader.dispose();
});

test('events of every kind are delivered back to back as their lines are read (no turn of their own)', () => {
  const r = rig();
  r.reader.onChunk(Buffer.from(delta(1) + delta(2) + completed(3) + delta(4) + started(5) + completed(6)));
  assert.deepEqual(r.events(), ['event 1', 'event 2', 'event 3', 'event 4', 'event 5', 'event 6']);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('server requests and other notifications keep their place between events', async () => {
  const r = rig();
  r.write(
    delta(1) +
      `${JSON.stringify({ id: 'server-1', method: 'interaction/requestPermission', params: {} })}\n` +
      delta(2) +
      `${JSON.stringify({ method: 'session/somethingElse', params: {} })}\n` +
      delta(3) +
      `${JSON.stringify({ id: 'server-2', method: 'session/requestRuntimePreferences', params: {} })}\n` +
      `${JSON.stringify({ id: 'server-3', method: 'session/requestRuntimePreferences', params: {} })}\n` +
      delta(4),
  );
  await until('all events', () => r.events().length === 4);
  assert.deepEqual(
    r.log.filter((l) => !l.startsWith('reply')),
    ['event 1', 'request interaction/requestPermission', 'event 2', 'notification session/somethingElse', 'event 3', 'request session/requestRuntimePreferences', 'request session/requestRuntimePreferences', 'event 4'],
  );
  await until('the replies', () => r.log.filter((l) => l.startsWith('reply')).length === 3);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('malformed events, unknown types and noise are logged and skipped; the events around them flow in order', async () => {
  const r = rig();
  r.write(
    delta(1) +
      `${JSON.stringify({ method: 'session/event', params: { sessionId: 's', seq: 2, type: 'model.streaming', payload: { kind: 'text_delta', delta: 5 } } })}\n` +
      `${JSON.stringify({ method: 'session/event', params: { sessionId: 's', seq: 3, type: 'resource.sample', payload: { cpu: 1 } } })}\n` +
      `${JSON.stringify({ method: 'session/event', params: { seq: 4, type: 'model.streaming', payload: { kind: 'text_delta', delta: 'x' } } })}\n` +
      `${JSON.stringify({ method: 'session/event', params: [1, 2] })}\n` +
      `${JSON.stringify({ method: 'session/event', id: null, params: {} })}\n` +
      'Debugger attached.\n' +
      '   \n' +
      delta(5) +
      `${JSON.stringify({ method: 'session/event', params: { sessionId: 's', seq: 6, type: 'turn.started', payload: { turnId: 't' } }, error: { code: 1, message: 'odd but valid' } })}\n` +
      delta(7),
  );
  await until('the events', () => r.events().length === 4);
  await turn();
  assert.deepEqual(r.events(), ['event 1', 'event 5', 'event 6', 'event 7']);
  assert.equal(r.logger.find('warn', 'malformed zcode event "model.streaming"').length, 2, 'bad delta and missing sessionId');
  assert.equal(r.logger.find('debug', 'unknown type "resource.sample"').length, 1);
  assert.equal(r.logger.find('warn', 'malformed zcode event:').length, 1, 'array params');
  assert.equal(r.logger.find('warn', 'unknown shape').length, 1, 'id: null');
  assert.equal(r.logger.find('warn', 'non-JSON').length, 1);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('partial, split, CRLF and multi-MB event lines still arrive whole and in order', async () => {
  const r = rig();
  const big = 'y'.repeat(3 * 1024 * 1024);
  const bytes = Buffer.from(delta(1, 'héllo ✓').replace('\n', '\r\n') + '\n' + delta(2, big) + started(3) + delta(4, '✓'));
  for (let i = 0; i < 200; i++) r.reader.onChunk(bytes.subarray(i, i + 1));
  for (let i = 200; i < bytes.length; i += 7_001) r.reader.onChunk(bytes.subarray(i, i + 7_001));
  await until('all events', () => r.events().length === 4);
  assert.deepEqual(r.events(), ['event 1', 'event 2', 'event 3', 'event 4']);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('an unterminated last line is delivered when the stream ends, and close comes after it', async () => {
  const r = rig();
  let closedAfter = -1;
  r.reader.onClose(() => (closedAfter = r.events().length));
  r.stdout.end(started(1) + delta(2) + delta(3).trimEnd());
  await until('close', () => closedAfter !== -1);
  assert.deepEqual(r.events(), ['event 1', 'event 2', 'event 3']);
  assert.equal(closedAfter, 3);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('while events wait, the stream is paused (backpressure), and it resumes', async () => {
  const r = rig();
  const { id, done } = await r.request('session/send');
  r.write(response(id) + delta(1));
  await until('the paused stream', () => r.stdout.isPaused(), 20);
  await done;
  await until('the event', () => r.events().length === 1);
  await until('the resumed stream', () => !r.stdout.isPaused(), 20);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('a long burst still gives the event loop turns, and loses nothing', async () => {
  const r = rig();
  const count = 20_000;
  let turnsDuringBurst = 0;
  let bursting = true;
  const tick = (): void => {
    if (!bursting) return;
    turnsDuringBurst++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const parts: string[] = [];
  for (let i = 1; i <= count; i++) parts.push(delta(i));
  r.write(parts.join(''));
  await until('the burst', () => r.events().length === count, 10_000);
  bursting = false;
  assert.ok(turnsDuringBurst > 5, `only ${turnsDuringBurst} turns during the burst`);
  assert.deepEqual(
    r.events().slice(-2),
    [`event ${count - 1}`, `event ${count}`],
  );
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('nothing is delivered after the connection is closed, not even what was waiting', async () => {
  const r = rig();
  r.reader.onChunk(Buffer.from(`${JSON.stringify({ id: 'server-1', method: 'interaction/requestPermission', params: {} })}\n${delta(1)}`));
  r.conn.close(new ZcodeError('gone', BackendErrorCode.ProcessExited));
  r.reader.onChunk(Buffer.from(delta(2)));
  for (let i = 0; i < 5; i++) await turn();
  assert.deepEqual(r.events(), []);
  assert.ok(!r.stdout.isPaused(), 'the pipe keeps draining');
});

test('$/cancelRequest from zcode is skipped (it is not zcode protocol) and does not stall the events behind it', async () => {
  const r = rig();
  r.write(delta(1) + `${JSON.stringify({ method: '$/cancelRequest', params: { id: 'server-1' } })}\n` + delta(2));
  await until('the events', () => r.events().length === 2);
  assert.equal(r.logger.find('warn', '$/cancelRequest').length, 1);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});

test('the reader’s hand-checked lane routing agrees with the full classification (toRpcMessage) on every envelope variant', async () => {
  const METHODS = [undefined, '"session/event"', '"session/other"', '5', 'null', '"Session/Event"'];
  const IDS = [undefined, '1', '"s-1"', 'null', '1.5', '1e400', '{}', 'true'];
  const ERRORS = [undefined, '{"code":1,"message":"m"}', '"boom"', 'null', '{"code":"x","message":"m"}'];
  const PARAMS = [undefined, '{"a":1}', '[1]', '"x"', 'null'];
  const RESULTS = [undefined, '1', 'null'];
  const silent = testLogger('reference');
  const logger = testLogger('routing');
  const reader = new LineMessageReader(new PassThrough(), logger);
  const seen: unknown[] = [];
  reader.routeDirect(SESSION_EVENT_METHOD, { deliver: (params) => void seen.push(['lane', params]) });
  reader.listen((message) => {
    seen.push(['rpc', message]);
    reader.messageDispatched();
  });
  let variants = 0;
  for (const method of METHODS)
    for (const id of IDS)
      for (const error of ERRORS)
        for (const params of PARAMS)
          for (const result of RESULTS) {
            const fields = Object.entries({ method, id, error, params, result }).filter(([, v]) => v !== undefined);
            const text = `{${fields.map(([k, v]) => `"${k}":${v}`).join(',')}}`;
            const message = toRpcMessage(JSON.parse(text), silent, text);
            const expected = !message ? [] : Message.isNotification(message) && message.method === SESSION_EVENT_METHOD ? [['lane', message.params]] : [['rpc', message]];
            seen.length = 0;
            reader.onChunk(Buffer.from(`${text}\n`));
            // Synchronous: every message is delivered as its line is read (the listener dispatches at once).
            assert.deepStrictEqual(seen, expected, text);
            variants++;
          }
  assert.equal(variants, 6 * 8 * 5 * 5 * 3);
});

test('LineFramer: lines can be pulled one at a time, across pushes, from where the last pull stopped', () => {
  const framer = new LineFramer(testLogger('framer'), 1024);
  framer.push(Buffer.from('{"a":1}\r\n\n{"b":'));
  assert.equal(framer.next(), '{"a":1}');
  framer.push(Buffer.from('2}\n{"c":3}\n{"d"'));
  assert.equal(framer.next(), '{"b":2}');
  assert.equal(framer.hasInput, true);
  assert.equal(framer.next(), '{"c":3}');
  assert.equal(framer.next(), undefined);
  assert.equal(framer.hasInput, false, 'the partial line is held, not the input');
  framer.push(Buffer.from(':4}\n'));
  assert.equal(framer.next(), '{"d":4}');
  assert.equal(framer.bytesRead, Buffer.byteLength('{"a":1}\r\n\n{"b":2}\n{"c":3}\n{"d":4}\n'));
});
