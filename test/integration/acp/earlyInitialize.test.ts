/**
 * `initialize` answered before the bridge is loaded (bridge/acp/transport/earlyInitialize.ts).
 *
 * In process: the real bridge behind `afterEarlyInitialize` accepts the replayed request (a
 * `session/new` after it is served, not refused as "not initialized"), its own answer to the replay
 * is the early answer byte for byte and never reaches the client; a differing answer is reported.
 * Spawned (`dist/cli.js` as esbuild.mjs builds it): every way a first line can arrive — with the next
 * request in the same write, split across writes, before another method, malformed, oversized — is
 * answered as the bridge answers it, and a client that leaves after `initialize` ends the process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { before, describe, test } from 'node:test';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { createBridge } from '../../../bridge/acp/bridge.ts';
import { afterEarlyInitialize, earlyInitialize } from '../../../bridge/acp/transport/earlyInitialize.ts';
import type { EarlyInitialize } from '../../../bridge/acp/transport/earlyInitialize.ts';
import { initializeResponse } from '../../../bridge/acp/transport/initializeAnswer.ts';
import { SIM_PATH, simLocateOptions, tempDir, testLogger } from '../../helpers/sim.ts';
import { testWorkspace } from '../../helpers/workspace.ts';
import { buildCli } from './harness.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-early-initialize');

const initialize = (id: number | string, params: Record<string, unknown> = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } }, clientInfo: { name: 't', version: '1' } }): AnyMessage =>
  ({ jsonrpc: '2.0', id, method: 'initialize', params }) as AnyMessage;
const sessionNew = (id: number): AnyMessage => ({ jsonrpc: '2.0', id, method: 'session/new', params: { cwd: CWD, mcpServers: [] } }) as AnyMessage;

describe('earlyInitialize: what may be answered before the bridge loads', () => {
  test('a well-formed initialize gets the bridge answer under its own id, and a private-id replay', () => {
    const early = earlyInitialize(initialize(7));
    assert.ok(early);
    assert.deepEqual(early.response, { jsonrpc: '2.0', id: 7, result: initializeResponse() });
    const replay = early.replay as { id: unknown; method: string; params: unknown };
    assert.equal(replay.method, 'initialize');
    assert.deepEqual(replay.params, (initialize(7) as { params: unknown }).params);
    assert.equal(typeof replay.id, 'string');
    assert.notEqual(replay.id, 7);
    assert.notEqual(earlyInitialize(initialize(7))?.replay && (earlyInitialize(initialize(7))!.replay as { id: unknown }).id, replay.id, 'each replay id is new');
  });

  test('anything the SDK could refuse, or that is not initialize, is left to the bridge', () => {
    const refused: AnyMessage[] = [
      initialize(1, { protocolVersion: '1' }),
      initialize(1, { protocolVersion: 1.5 }),
      initialize(1, { protocolVersion: -1 }),
      initialize(1, { protocolVersion: 65_536 }),
      initialize(1, {}),
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: [1] } as unknown as AnyMessage,
      { jsonrpc: '2.0', id: 1, method: 'initialize' } as unknown as AnyMessage,
      { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: 1 } } as AnyMessage,
      { jsonrpc: '2.0', id: null, method: 'initialize', params: { protocolVersion: 1 } } as unknown as AnyMessage,
      sessionNew(1),
      // A v2 client's answer has v2's shape: the bridge gives it (transport/v2/).
      initialize(1, { protocolVersion: 2, info: { name: 't', version: '1' } }),
    ];
    for (const message of refused) assert.equal(earlyInitialize(message), undefined, JSON.stringify(message));
  });
});

/** A message stream pair: what the test writes is what the bridge reads, and the other way round. */
function linkedStream(): { bridgeSide: Stream; send(m: AnyMessage): Promise<void>; next(): Promise<AnyMessage> } {
  const toBridge = new TransformStream<AnyMessage, AnyMessage>();
  const fromBridge = new TransformStream<AnyMessage, AnyMessage>();
  const writer = toBridge.writable.getWriter();
  const reader = fromBridge.readable.getReader();
  return {
    bridgeSide: { readable: toBridge.readable, writable: fromBridge.writable },
    send: (m) => writer.write(m),
    next: async () => {
      const { value, done } = await reader.read();
      if (done) throw new Error('the bridge closed its output');
      return value;
    },
  };
}

/**
 * The next response out, past notifications (zcode's capabilities are announced as soon as zcode is
 * probed, which may be before session/new is answered): the replayed initialize's answer (id 0) is
 * never among what is written.
 */
async function nextResponse(link: { next(): Promise<unknown> }): Promise<unknown> {
  for (;;) {
    const message = (await link.next()) as { id?: unknown; method?: unknown };
    if (message.id !== undefined || typeof message.method !== 'string') return message;
  }
}

describe('afterEarlyInitialize with the real bridge', () => {
  test('the replay initializes the connection; its answer matches the early one and is not sent', T, async () => {
    const logger = testLogger('early');
    const store = tempDir();
    const bridge = createBridge({ locate: simLocateOptions(), logger, storageDir: store.dir });
    try {
      const early = earlyInitialize(initialize(0)) as EarlyInitialize;
      const link = linkedStream();
      bridge.connect(afterEarlyInitialize(link.bridgeSide, early, logger), { kind: 'stdio' });
      await link.send(sessionNew(1));
      const first = (await nextResponse(link)) as { id?: unknown; result?: { sessionId?: string }; error?: unknown };
      assert.equal(first.id, 1, `the first response out answers session/new, got ${JSON.stringify(first)}`);
      assert.equal(first.error, undefined);
      assert.match(first.result?.sessionId ?? '', /\S/);
      assert.deepEqual(logger.find('error'), []);
      assert.equal(logger.find('info', 'initialize from t').length, 1, 'the bridge saw the client initialize');
    } finally {
      await bridge.dispose();
      store.cleanup();
    }
  });

  test('requests written right behind initialize wait for its answer (initializeFirst.ts), on any transport', T, async () => {
    const logger = testLogger('pipelined');
    const store = tempDir();
    const bridge = createBridge({ locate: simLocateOptions(), logger, storageDir: store.dir });
    try {
      const link = linkedStream();
      bridge.connect(link.bridgeSide, { kind: 'stdio' });
      await Promise.all([link.send(initialize(0)), link.send(sessionNew(1)), link.send(sessionNew(2))]);
      const answers: Array<{ id?: unknown; error?: unknown; method?: string }> = [];
      // Responses only: the command list of a new session (a notification) comes in between.
      while (answers.length < 3) {
        const message = (await link.next()) as { id?: unknown; error?: unknown; method?: string };
        if (message.method === undefined) answers.push(message);
      }
      assert.deepEqual(answers.map((a) => a.id), [0, 1, 2]);
      assert.deepEqual(answers.map((a) => a.error), [undefined, undefined, undefined], JSON.stringify(answers.map((a) => a.error)));
    } finally {
      await bridge.dispose();
      store.cleanup();
    }
  });

  test('an answer that differs from what the client was told is logged as an error', T, async () => {
    const logger = testLogger('early-mismatch');
    const store = tempDir();
    const bridge = createBridge({ locate: simLocateOptions(), logger, storageDir: store.dir });
    try {
      const early = earlyInitialize(initialize(0)) as EarlyInitialize;
      const told = { ...early, response: { jsonrpc: '2.0', id: 0, result: { ...initializeResponse(), protocolVersion: 2 } } as AnyMessage };
      const link = linkedStream();
      bridge.connect(afterEarlyInitialize(link.bridgeSide, told, logger), { kind: 'stdio' });
      await link.send(sessionNew(1));
      assert.equal(((await nextResponse(link)) as { id?: unknown }).id, 1);
      assert.equal(logger.find('error', 'already told').length, 1, logger.lines.join('\n'));
    } finally {
      await bridge.dispose();
      store.cleanup();
    }
  });
});

/** `zcode-acp` spawned; `write` raw bytes, wait for output lines, end stdin, read how it exited. */
function spawnCli(cli: string) {
  const store = tempDir();
  const env = { ...simLocateOptions().env, ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_ACP_STORE_DIR: store.dir, ZCODE_ACP_REMOTE: '' };
  const child = spawn(process.execPath, [cli], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    for (const w of waiters.splice(0)) w();
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = (): Array<Record<string, unknown>> => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    write: (text: string) => new Promise<void>((resolve, reject) => child.stdin.write(text, (e) => (e ? reject(e) : resolve()))),
    lines,
    /** Waits for a response with this id. */
    async answer(id: number | string): Promise<Record<string, unknown>> {
      for (;;) {
        const found = lines().find((m) => m.id === id && m.method === undefined);
        if (found) return found;
        if (child.exitCode !== null) throw new Error(`zcode-acp exited (${child.exitCode}) before answering ${id}; stderr:\n${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    async end(): Promise<{ code: number | null; stderr: string }> {
      child.stdin.end();
      const code = await exited;
      store.cleanup();
      return { code, stderr };
    },
  };
}

const line = (m: AnyMessage): string => `${JSON.stringify(m)}\n`;

/** The bundle's answer: initializeResponse() with the version esbuild put in (package.json's). */
function assertInitializeAnswer(answer: Record<string, unknown>): void {
  const result = answer.result as { agentInfo?: { version?: string } };
  const expected = initializeResponse();
  assert.deepEqual(result, { ...expected, agentInfo: { ...expected.agentInfo, version: result.agentInfo?.version } });
}

/** Runs `body` against a spawned zcode-acp, then ends its stdin (also when `body` fails) and returns how it exited. */
async function withCli(cli: string, body: (p: ReturnType<typeof spawnCli>) => Promise<void>): Promise<{ code: number | null; stderr: string }> {
  const p = spawnCli(cli);
  let failure: unknown;
  await body(p).catch((error: unknown) => (failure = error));
  const ended = await p.end();
  if (failure) throw failure;
  return ended;
}

describe('zcode-acp (spawned): the first line, every way it can come', () => {
  let cli: string;
  before(async () => {
    cli = await buildCli();
  });
  const sessionId = async (p: ReturnType<typeof spawnCli>, id: number): Promise<void> => {
    assert.ok(((await p.answer(id)).result as { sessionId?: string }).sessionId, `session/new ${id} answered with a session`);
  };

  test('initialize and session/new in one write: both answered, in order, nothing else about the replay', T, async () => {
    const { code, stderr } = await withCli(cli, async (p) => {
      await p.write(line(initialize(0)) + line(sessionNew(1)));
      assertInitializeAnswer(await p.answer(0));
      await sessionId(p, 1);
      const ids = p.lines().filter((m) => m.method === undefined).map((m) => m.id);
      assert.deepEqual(ids, [0, 1], 'no answer to the private replay reaches the client');
    });
    assert.equal(code, 0);
    assert.doesNotMatch(stderr, /already told/);
    assert.match(stderr, /initialize from t/);
  });

  test('initialize split over two writes, the next request later: answered', T, async () => {
    const { code } = await withCli(cli, async (p) => {
      const text = line(initialize('init-a'));
      await p.write(text.slice(0, 20));
      await p.write(text.slice(20));
      assertInitializeAnswer(await p.answer('init-a'));
      await p.write(line(sessionNew(2)));
      await sessionId(p, 2);
    });
    assert.equal(code, 0);
  });

  test('another request first: refused by the bridge as before; initialize after it is answered', T, async () => {
    const { code } = await withCli(cli, async (p) => {
      await p.write(line(sessionNew(1)) + line(initialize(2)));
      assert.equal(((await p.answer(1)).error as { code: number }).code, -32600);
      assertInitializeAnswer(await p.answer(2));
    });
    assert.equal(code, 0);
  });

  test('a malformed initialize gets the bridge’s invalid-params error, and the connection stays usable', T, async () => {
    const { code } = await withCli(cli, async (p) => {
      await p.write(line(initialize(1, { protocolVersion: 'one' })));
      assert.equal(((await p.answer(1)).error as { code: number }).code, -32602);
      await p.write(line(initialize(2)) + line(sessionNew(3)));
      assertInitializeAnswer(await p.answer(2));
      await sessionId(p, 3);
    });
    assert.equal(code, 0);
  });

  test('a first line that is not JSON goes to the bridge (one error), the initialize after it too', T, async () => {
    const { code } = await withCli(cli, async (p) => {
      await p.write('this is not json\n');
      await p.write(line(initialize(5)) + line(sessionNew(6)));
      assertInitializeAnswer(await p.answer(5));
      await sessionId(p, 6);
      assert.equal(p.lines().filter((m) => m.method === undefined && m.error !== undefined).length, 1, 'the non-JSON line got one error');
    });
    assert.equal(code, 0);
  });

  test('a first line longer than the early limit (a 200 KB initialize): answered by the bridge', T, async () => {
    const { code, stderr } = await withCli(cli, async (p) => {
      await p.write(line(initialize(9, { protocolVersion: 1, _meta: { padding: 'x'.repeat(200_000) } })) + line(sessionNew(10)));
      assertInitializeAnswer(await p.answer(9));
      await sessionId(p, 10);
    });
    assert.equal(code, 0);
    assert.match(stderr, /initialize from an unnamed client/);
  });

  test('the client leaves after initialize: the process ends, nothing was started', T, async () => {
    const { code, stderr } = await withCli(cli, async (p) => {
      await p.write(line(initialize(0)));
      assertInitializeAnswer(await p.answer(0));
    });
    assert.equal(code, 0);
    assert.match(stderr, /nothing was started/);
  });
});
