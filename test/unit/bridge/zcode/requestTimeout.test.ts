/**
 * A request that timed out leaves vscode-jsonrpc's pending map (connection.ts `localCancellation`)
 * and writes nothing to zcode, which has no `$/cancelRequest`. The proof is vscode-jsonrpc's own
 * bookkeeping: its trace says whether a response found a waiting request ("Received response
 * 'method - (id)'") or none ("without active response promise").
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { BackendErrorCode, ZcodeError } from '../../../../bridge/zcode/backend.ts';
import { ZcodeConnection } from '../../../../bridge/zcode/connection.ts';
import { SESSION_EVENT_METHOD, sessionEventLane } from '../../../../bridge/zcode/legacy/sessionEvents.ts';
import { LineMessageWriter } from '../../../../bridge/zcode/lineCodec.ts';
import { LineMessageReader } from '../../../../bridge/zcode/lineReader.ts';
import { testLogger } from '../../../helpers/sim.ts';

type Line = { id?: number | string; method?: string; result?: unknown };

/** A connection whose zcode end is the test: it sees every line the bridge writes and answers by hand. */
function rig(withLanes: boolean) {
  const logger = testLogger('timeouts');
  const stdout = new PassThrough();
  const stdin = new PassThrough();
  const written: Line[] = [];
  const trace: string[] = [];
  let input = '';
  stdin.on('data', (chunk: Buffer) => {
    input += chunk.toString('utf8');
    for (let nl = input.indexOf('\n'); nl !== -1; nl = input.indexOf('\n')) {
      written.push(JSON.parse(input.slice(0, nl)) as Line);
      input = input.slice(nl + 1);
    }
  });
  const conn = new ZcodeConnection(new LineMessageReader(stdout, logger), new LineMessageWriter(stdin), {
    logger,
    requestTimeoutMs: 5_000,
    onRequest: async () => ({}),
    onNotification: () => {},
    ...(withLanes ? { lanes: new Map([[SESSION_EVENT_METHOD, sessionEventLane(logger, () => {})]]) } : {}),
    trace: (line) => trace.push(line),
  });
  conn.listen();
  /** Answer a request the bridge wrote, and resolve once it is answered (a round trip through the reader). */
  const roundTrip = async (): Promise<void> => {
    const answered = conn.request('session/list', {});
    const request = await until(() => written.find((m) => m.method === 'session/list' && !answeredIds.has(m.id!)));
    answeredIds.add(request.id!);
    stdout.write(`${JSON.stringify({ id: request.id, result: { sessions: [] } })}\n`);
    await answered;
  };
  const answeredIds = new Set<number | string>();
  return { conn, written, trace, stdout, roundTrip };
}

/** The value once `find` returns one (checked as the bridge's writes arrive). */
async function until<T>(find: () => T | undefined): Promise<T> {
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

for (const withLanes of [false, true]) {
  test(`${withLanes ? 'with lanes: ' : ''}N timed-out requests leave nothing pending in vscode-jsonrpc, send nothing to zcode, and their late answers are dropped`, async () => {
    const r = rig(withLanes);
    const N = 25;
    const timedOut = await Promise.allSettled(Array.from({ length: N }, () => r.conn.request('session/read', { sessionId: 's' }, { timeoutMs: 5 })));
    assert.ok(
      timedOut.every((s) => s.status === 'rejected' && s.reason instanceof ZcodeError && s.reason.code === BackendErrorCode.Timeout),
      'every request timed out',
    );
    const ids = r.written.filter((m) => m.method === 'session/read').map((m) => m.id!);
    assert.equal(ids.length, N);
    // The local cancellations are dispatched before this answer, which comes later in stream order.
    await r.roundTrip();
    for (const id of ids) assert.ok(r.trace.some((l) => l.includes(`Received response 'session/read - (${id})'`) && l.includes('-32800')), `request ${id} was released`);
    // zcode now answers every one of them, late: vscode-jsonrpc no longer waits for any.
    for (const id of ids) r.stdout.write(`${JSON.stringify({ id, result: { late: true } })}\n`);
    await r.roundTrip();
    for (const id of ids) assert.ok(r.trace.some((l) => l.includes(`Received response ${id} without active response promise`)), `the late answer to ${id} found nothing waiting`);
    assert.deepEqual(
      r.written.filter((m) => m.method !== 'session/read' && m.method !== 'session/list'),
      [],
      'nothing but the requests themselves went to zcode (no $/cancelRequest)',
    );
    r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
  });
}

test('onAnswer runs at the answer, once; not for a request that timed out, even when its late answer comes', async () => {
  const r = rig(true);
  const calls: string[] = [];
  await assert.rejects(r.conn.request('session/read', {}, { timeoutMs: 5, onAnswer: () => calls.push('late') }), /did not answer/);
  const id = r.written.find((m) => m.method === 'session/read')!.id;
  r.stdout.write(`${JSON.stringify({ id, result: {} })}\n`);
  const answered = r.conn.request('session/send', {}, { onAnswer: (a) => calls.push(`send ${JSON.stringify(a)}`) });
  const send = await until(() => r.written.find((m) => m.method === 'session/send'));
  r.stdout.write(`${JSON.stringify({ id: send.id, result: { accepted: true } })}\n`);
  await answered;
  assert.deepEqual(calls, ['send {"result":{"accepted":true}}']);
  r.conn.close(new ZcodeError('done', BackendErrorCode.Disposed));
});
