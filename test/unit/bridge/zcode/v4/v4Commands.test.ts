/**
 * The v4 command client (bridge/zcode/v4/v4Commands.ts) against a fake transport: the idempotency
 * rules zcode's command inbox relies on — one id per command for its whole life (stale retries,
 * lost replies), CAS values from v4 answers, one request at a time — and the once-per-process probe.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BackendErrorCode, ZcodeError } from '../../../../../bridge/zcode/backend.ts';
import type { Disposable, ExitInfo } from '../../../../../bridge/zcode/backend.ts';
import { V4Commands, V4TransportError } from '../../../../../bridge/zcode/v4/v4Commands.ts';
import type { V4Port } from '../../../../../bridge/zcode/v4/v4Commands.ts';
import type { V4Ack, V4CommandKey, V4CommandsQueryResult, V4Envelope, V4RowsRange } from '../../../../../bridge/zcode/v4/v4Shapes.ts';
import { testLogger } from '../../../../helpers/sim.ts';

type CommandAnswer = V4Ack | Error | Promise<V4Ack>;
type QueryAnswer = V4CommandsQueryResult | Error;

/** A scripted zcode: answers are taken in order; every request is recorded with how many were in flight. */
class FakePort implements V4Port {
  readonly envelopes: V4Envelope[] = [];
  readonly queries: V4CommandKey[][] = [];
  readonly rowsCalls: unknown[] = [];
  maxInFlight = 0;
  private inFlight = 0;
  private exitListeners: Array<(info: ExitInfo) => void> = [];

  constructor(
    private readonly commandAnswers: CommandAnswer[] = [],
    private readonly queryAnswers: QueryAnswer[] = [],
    private readonly range: Partial<V4RowsRange> = {},
  ) {}

  private async track<T>(job: () => Promise<T>): Promise<T> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await job();
    } finally {
      this.inFlight--;
    }
  }

  v4Command(envelope: V4Envelope): Promise<V4Ack> {
    this.envelopes.push(structuredClone(envelope));
    const next = this.commandAnswers.shift();
    return this.track(async () => {
      if (next === undefined) throw new Error('no scripted answer');
      if (next instanceof Error) throw next;
      return next;
    });
  }

  v4QueryCommands(keys: V4CommandKey[]): Promise<V4CommandsQueryResult> {
    this.queries.push(keys);
    const next = this.queryAnswers.shift();
    return this.track(async () => {
      if (next === undefined) throw new Error('no scripted query answer');
      if (next instanceof Error) throw next;
      return next;
    });
  }

  v4RowsRange(params: { sessionId: string; limit: number }): Promise<V4RowsRange> {
    this.rowsCalls.push(params);
    return this.track(async () => ({ rows: [], atRevision: 5, atLogEpoch: 'epoch-1', hasMore: false, ...this.range }));
  }

  v4FileRewindPreview(): Promise<never> {
    return Promise.reject(new Error('not scripted'));
  }

  onDidExit(listener: (info: ExitInfo) => void): Disposable {
    this.exitListeners.push(listener);
    return { dispose: () => (this.exitListeners = this.exitListeners.filter((l) => l !== listener)) };
  }

  onEvent(): Disposable {
    return { dispose: () => undefined };
  }

  exit(): void {
    for (const l of this.exitListeners) l({ code: 0, signal: null, expected: false, stderrTail: '' });
  }
}

function ack(status: V4Ack['status'], extra: Partial<V4Ack> = {}): V4Ack {
  return { commandId: 'x', status, revisionAtDecision: 0, ...extra };
}

function client(port: FakePort, staleRetries?: number): V4Commands {
  let n = 0;
  return new V4Commands(port, testLogger('v4'), { clientId: 'test-bridge', newCommandId: () => `cmd-${++n}`, ...(staleRetries === undefined ? {} : { staleRetries }) });
}

const timeout = (): ZcodeError => new ZcodeError('v4/command timed out', BackendErrorCode.Timeout, 'v4/command');

describe('v4 commands: the envelope', () => {
  test('a guide: fresh id, the bridge\'s clientId, no CAS fields, delivery "guide"', async () => {
    const port = new FakePort([ack('accepted', { result: { type: 'inputAccepted', delivery: 'queue', inputId: 'cmd-1' } })]);
    const outcome = await client(port).guide('s1', 'use tabs');
    assert.equal(outcome.commandId, 'cmd-1');
    assert.equal(outcome.ack.status, 'accepted');
    const [sent] = port.envelopes;
    assert.ok(sent);
    assert.deepEqual({ ...sent, issuedAt: 0 }, { commandId: 'cmd-1', clientId: 'test-bridge', sessionId: 's1', type: 'sendText', payload: { text: 'use tabs', requestedDelivery: 'guide' }, issuedAt: 0 });
  });

  test('a queue edit carries the revision read from rowsRange (not a legacy counter)', async () => {
    const port = new FakePort([ack('accepted')], [], { atRevision: 41, atLogEpoch: 'e9' });
    await client(port).deleteQueueItem('s1', 'queue_abc');
    assert.equal(port.envelopes[0]?.baseRevision, 41);
    assert.equal(port.envelopes[0]?.baseLogEpoch, undefined, 'deleteQueueItem targets no row: no log epoch');
    assert.deepEqual(port.envelopes[0]?.payload, { queueItemId: 'queue_abc' });
  });
});

describe('v4 commands: stale answers', () => {
  test('a stale revision is retried with the SAME id and zcode\'s revision', async () => {
    const port = new FakePort([ack('stale', { reasonCode: 'proto.staleRevision', revisionAtDecision: 7 }), ack('stale', { reasonCode: 'proto.staleRevision', revisionAtDecision: 9 }), ack('accepted', { revisionAtDecision: 10 })]);
    const outcome = await client(port).editQueueItem('s1', 'queue_a', 'new text');
    assert.equal(outcome.ack.status, 'accepted');
    assert.deepEqual(port.envelopes.map((e) => e.commandId), ['cmd-1', 'cmd-1', 'cmd-1']);
    assert.deepEqual(port.envelopes.map((e) => e.baseRevision), [5, 7, 9]);
  });

  test('bounded: still stale after the retries, the stale ACK is the outcome', async () => {
    const stale = () => ack('stale', { reasonCode: 'proto.staleRevision', revisionAtDecision: 3 });
    const port = new FakePort([stale(), stale(), stale()]);
    const outcome = await client(port, 2).deleteQueueItem('s1', 'queue_a');
    assert.equal(outcome.ack.status, 'stale');
    assert.equal(port.envelopes.length, 3, 'one send and two retries');
  });

  test('a stale target reads the target again (the rows moved), still under the same id', async () => {
    const port = new FakePort([ack('stale', { reasonCode: 'proto.staleTarget', revisionAtDecision: 12 }), ack('accepted')]);
    let resolved = 0;
    const outcome = await client(port).retryTurn('s1', async () => {
      resolved++;
      return { target: { rowId: resolved, entityId: `e${resolved}` }, base: { revision: 10 + resolved, logEpoch: 'ep' } };
    });
    assert.equal(outcome.ack.status, 'accepted');
    assert.equal(resolved, 2);
    assert.deepEqual(
      port.envelopes.map((e) => [e.commandId, e.baseRevision, e.baseLogEpoch, e.payload]),
      [
        ['cmd-1', 11, 'ep', { target: { rowId: 1, entityId: 'e1' } }],
        ['cmd-1', 12, 'ep', { target: { rowId: 2, entityId: 'e2' } }],
      ],
    );
  });

  test('duplicate, noop, failed and rejected are final: never retried', async () => {
    for (const status of ['duplicate', 'noop', 'failed', 'rejected'] as const) {
      const port = new FakePort([ack(status, { reasonCode: 'r' })]);
      const outcome = await client(port).renameSession('s1', 'T');
      assert.equal(outcome.ack.status, status);
      assert.equal(port.envelopes.length, 1, status);
    }
  });
});

describe('v4 commands: a lost reply', () => {
  test('is looked up under the original key and the recorded ACK is the outcome; the command is not re-sent', async () => {
    const recorded = ack('accepted', { commandId: 'cmd-1', revisionAtDecision: 4 });
    const port = new FakePort([timeout()], [{ results: [{ key: { sessionId: 's1', commandId: 'cmd-1' }, result: recorded }] }]);
    const outcome = await client(port).renameSession('s1', 'Title');
    assert.deepEqual(outcome.ack, recorded);
    assert.deepEqual(port.queries, [[{ sessionId: 's1', commandId: 'cmd-1' }]]);
    assert.equal(port.envelopes.length, 1);
  });

  test('"unknown" (zcode never took it in): sent again under the SAME id, never a new one', async () => {
    const port = new FakePort([timeout(), ack('accepted')], [{ results: [{ key: { sessionId: 's1', commandId: 'cmd-1' }, result: 'unknown' }] }]);
    const outcome = await client(port).renameSession('s1', 'Title');
    assert.equal(outcome.ack.status, 'accepted');
    assert.deepEqual(port.envelopes.map((e) => e.commandId), ['cmd-1', 'cmd-1']);
  });

  test('the query failing too: a V4TransportError naming the command, outcome unknown', async () => {
    const port = new FakePort([timeout()], [new ZcodeError('gone', BackendErrorCode.ProcessExited)]);
    await assert.rejects(client(port).renameSession('s1', 'T'), (error: unknown) => error instanceof V4TransportError && error.commandId === 'cmd-1' && /outcome is unknown/.test(error.message));
  });

  test('a process exit is not a lost reply: no query (the new process has no record of it)', async () => {
    const port = new FakePort([new ZcodeError('exited', BackendErrorCode.ProcessExited)]);
    await assert.rejects(client(port).renameSession('s1', 'T'), V4TransportError);
    assert.equal(port.queries.length, 0);
  });
});

describe('v4 commands: one request at a time', () => {
  test('commands and reads issued together reach zcode one after the other, in order', async () => {
    let release!: (a: V4Ack) => void;
    const first = new Promise<V4Ack>((resolve) => (release = resolve));
    const port = new FakePort([first, ack('accepted')]);
    const v4 = client(port);
    const a = v4.renameSession('s1', 'A');
    const b = v4.renameSession('s1', 'B');
    const c = v4.rows('s1', 10);
    release(ack('accepted'));
    await Promise.all([a, b, c]);
    assert.equal(port.maxInFlight, 1);
    assert.deepEqual(port.envelopes.map((e) => e.payload.title), ['A', 'B']);
  });
});

describe('v4 probe', () => {
  test('"unknown" for a fresh id means present; asked once per process', async () => {
    const unknown = (): V4CommandsQueryResult => ({ results: [{ key: { sessionId: null, commandId: 'p' }, result: 'unknown' }] });
    const port = new FakePort([], [unknown(), unknown()]);
    const v4 = client(port);
    assert.deepEqual(await v4.probe(), { present: true });
    assert.deepEqual(await v4.probe(), { present: true });
    assert.equal(port.queries.length, 1);
    assert.equal(port.queries[0]?.[0]?.sessionId, null, 'the probe touches no session');
    port.exit();
    await v4.probe();
    assert.equal(port.queries.length, 2, 'a new process is probed again');
  });

  test('-32601 means absent; another error is absent too (and asked again next time)', async () => {
    const port = new FakePort([], [new ZcodeError('Method not found: v4/commands/query', -32601, 'v4/commands/query'), new ZcodeError('boom', -32603)]);
    const v4 = client(port);
    const absent = await v4.probe();
    assert.equal(absent.present, false);
    assert.equal(absent.present === false && absent.reason, 'methodNotFound');
    port.exit();
    const failed = await v4.probe();
    assert.equal(failed.present === false && failed.reason, 'error');
  });
});
