/**
 * ACP bridge benchmark: zcode events through the whole bridge to an in-process SDK client.
 *
 * (a) Throughput: one recorded ndjson byte stream of 200k `text_delta` events is fed into the
 *     bridge's zcode connection (real line codec + connection, fakeZcode.ts) and translated through
 *     to an in-process SDK client app, timed from the first byte to the prompt response; against
 *     the floor of parsing and re-serialising the same bytes in one minimal loop, same process,
 *     same run. The source alone (writing the buffer through the pipe) is timed too, to show it is
 *     not the bottleneck.
 * (b) Latency: events paced at 5k/s, each stamped when written; p50/p99 of write → client handler.
 * (c) Heap: growth of the used heap (after GC) across a 1M-delta turn.
 *
 * Standalone: `node --import tsx test/bench/acpThroughput.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { client } from '@agentclientprotocol/sdk';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { createBridge } from '../../bridge/acp/bridge.ts';
import type { Logger } from '../../bridge/logger.ts';
import { createZcodeBackend } from '../../bridge/zcode/client.ts';
import { eventLine, FakeZcode, playBuffer, recordTurn } from './fakeZcode.ts';
import type { TurnPlayer } from './fakeZcode.ts';
import type { Row } from './row.ts';

const THROUGHPUT_EVENTS = 200_000;
const LATENCY_RATE = 5_000;
const LATENCY_EVENTS = 10_000;
const HEAP_EVENTS = 1_000_000;

const silent: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A bridge on a fake zcode, with one in-process client that only counts what it receives. */
async function rig(onUpdate: (n: SessionNotification) => void) {
  const dir = mkdtempSync(path.join(tmpdir(), 'zcode-bench-'));
  const fake = new FakeZcode();
  const backend = createZcodeBackend({ logger: silent }, { locate: () => ({ command: 'fake-zcode', args: [], tried: [] }), startProcess: async () => fake });
  const bridge = createBridge({ locate: {}, logger: silent, storageDir: dir, backend });
  const app = client({ name: 'bench' }).onNotification('session/update', ({ params }) => onUpdate(params));
  const connection = bridge.connectClient(app, { kind: 'local', label: 'bench' });
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request('session/new', { cwd: dir, mcpServers: [] });
  return {
    fake,
    prompt: async (player: TurnPlayer) => {
      fake.player = player;
      const response = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'bench' }] });
      return { response, elapsedMs: performance.now() - fake.playStartedAt };
    },
    dispose: async () => {
      connection.close();
      await bridge.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function textOf(n: SessionNotification): string {
  const u = n.update;
  return u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '';
}

/** The floor: split the same bytes into lines, parse and re-serialise each, in one loop. */
function floorMs(buffer: Buffer): number {
  const started = performance.now();
  const text = buffer.toString('utf8');
  let bytes = 0;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end);
    start = end + 1;
    bytes += JSON.stringify(JSON.parse(line)).length;
  }
  if (bytes === 0) throw new Error('empty recording');
  return performance.now() - started;
}

/** The source alone: the same buffer through a pipe in the same chunks, to a consumer that does nothing. */
async function sourceMs(buffer: Buffer): Promise<number> {
  const pipe = new PassThrough({ highWaterMark: 256 * 1024 });
  let received = 0;
  pipe.on('data', (chunk: Buffer) => (received += chunk.length));
  const write = (chunk: Buffer | string): Promise<void> => new Promise((resolve) => (pipe.write(chunk) ? resolve() : pipe.once('drain', () => resolve())));
  const started = performance.now();
  await playBuffer(buffer)(write);
  while (received < buffer.length) await new Promise((r) => setImmediate(r));
  return performance.now() - started;
}

/** The zcode layer alone (line codec + connection + event parsing), for attribution: bytes → parsed events. */
async function zcodeLayerMs(recording: Buffer, events: number): Promise<number> {
  const fake = new FakeZcode();
  const backend = createZcodeBackend({ logger: silent }, { locate: () => ({ command: 'fake-zcode', args: [], tried: [] }), startProcess: async () => fake });
  let seen = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  backend.onEvent(() => {
    if (++seen === events) done();
  });
  fake.player = playBuffer(recording);
  await backend.send({ sessionId: 'sess_bench', content: 'bench' });
  await finished;
  const elapsed = performance.now() - fake.playStartedAt;
  backend.dispose();
  return elapsed;
}

async function throughput(): Promise<Row[]> {
  const recording = recordTurn(THROUGHPUT_EVENTS);
  let chars = 0;
  let notifications = 0;
  const r = await rig((n) => {
    notifications++;
    chars += textOf(n).length;
  });
  try {
    // Warm-up (JIT) with a small turn, then the measured one on a fresh rig.
    await r.prompt(playBuffer(recordTurn(5_000)));
  } finally {
    await r.dispose();
  }
  chars = 0;
  notifications = 0;
  const measured = await rig((n) => {
    notifications++;
    chars += textOf(n).length;
  });
  let bridgeMs: number;
  try {
    const { response, elapsedMs } = await measured.prompt(playBuffer(recording));
    if (response.stopReason !== 'end_turn' || chars !== THROUGHPUT_EVENTS) throw new Error(`throughput run incomplete: ${response.stopReason}, ${chars} chars`);
    bridgeMs = elapsedMs;
  } finally {
    await measured.dispose();
  }
  const floor = Math.min(floorMs(recording), floorMs(recording), floorMs(recording));
  const source = await sourceMs(recording);
  const zcodeLayer = await zcodeLayerMs(recording, THROUGHPUT_EVENTS + 2);
  const ratio = floor / bridgeMs;
  const rate = (ms: number): string => `${Math.round(THROUGHPUT_EVENTS / (ms / 1000)).toLocaleString('en-US')} events/s`;
  return [
    { name: `acp (a): ${THROUGHPUT_EVENTS / 1000}k text_delta events → bridge → SDK client`, value: `${bridgeMs.toFixed(0)} ms (${rate(bridgeMs)}; ${notifications.toLocaleString('en-US')} session/update)` },
    { name: 'acp (a): floor — parse + re-serialise the same bytes in one loop', value: `${floor.toFixed(0)} ms (${rate(floor)})` },
    { name: 'acp (a): source alone — the bytes through the pipe', value: `${source.toFixed(0)} ms (${rate(source)})` },
    { name: 'acp (a): of which the zcode layer alone — bytes → parsed events (bridge/zcode)', value: `${zcodeLayer.toFixed(0)} ms (${rate(zcodeLayer)}; ${((100 * zcodeLayer) / bridgeMs).toFixed(0)}% of the bridge's time)` },
    { name: 'acp (a): throughput ÷ floor', value: `${ratio.toFixed(2)}×`, target: '≥ 0.5×', ok: ratio >= 0.5 },
  ];
}

async function latency(): Promise<Row[]> {
  const writtenAt: number[] = [];
  const latencies: number[] = [];
  let seen = 0;
  const r = await rig((n) => {
    const text = textOf(n);
    const now = performance.now();
    // Each delta is one character; a chunk carrying several deltas delivers each of them now.
    for (let i = 0; i < text.length; i++) latencies.push(now - writtenAt[seen++]);
  });
  const intervalMs = 1000 / LATENCY_RATE;
  const paced: TurnPlayer = async (write) => {
    await write(eventLine(1, 'turn.started', { turnId: 'turn_latency' }));
    const start = performance.now();
    for (let i = 0; i < LATENCY_EVENTS; i++) {
      // Busy-wait to the slot (timers are too coarse for 200 µs), then write one event.
      while (performance.now() - start < i * intervalMs) await new Promise((resolve) => setImmediate(resolve));
      writtenAt.push(performance.now());
      await write(eventLine(i + 2, 'model.streaming', { kind: 'text_delta', delta: 'y', messageId: 'msg_latency' }));
    }
    await write(eventLine(LATENCY_EVENTS + 2, 'turn.completed', { resultType: 'success' }));
  };
  let achieved: number;
  try {
    const { elapsedMs } = await r.prompt(paced);
    achieved = LATENCY_EVENTS / (elapsedMs / 1000);
  } finally {
    await r.dispose();
  }
  if (latencies.length !== LATENCY_EVENTS) throw new Error(`latency run incomplete: ${latencies.length} of ${LATENCY_EVENTS}`);
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return [
    { name: `acp (b): per-event latency at ${LATENCY_RATE / 1000}k events/s (${LATENCY_EVENTS / 1000}k events, achieved ${Math.round(achieved).toLocaleString('en-US')}/s), p50`, value: `${pct(50).toFixed(3)} ms` },
    { name: 'acp (b): per-event latency, p99', value: `${pct(99).toFixed(3)} ms`, target: '≤ 2 ms', ok: pct(99) <= 2 },
  ];
}

async function heap(): Promise<Row[]> {
  let chars = 0;
  const r = await rig((n) => (chars += textOf(n).length));
  let growthMb: number;
  let elapsed: number;
  try {
    // Warm up the session (first-use allocations are not growth), then measure a 1M-delta turn.
    await r.prompt(playBuffer(recordTurn(1_000)));
    // The recording is built before the baseline and stays referenced: it is the source, not growth.
    const recording = Buffer.concat([
      Buffer.from(eventLine(1_000_003, 'turn.started', { turnId: 'turn_heap' })),
      ...Array.from({ length: HEAP_EVENTS / 10_000 }, (_, k) => Buffer.from(Array.from({ length: 10_000 }, (_, i) => eventLine(1_000_004 + k * 10_000 + i, 'model.streaming', { kind: 'text_delta', delta: 'z', messageId: 'msg_heap' })).join(''))),
      Buffer.from(eventLine(1_000_004 + HEAP_EVENTS, 'turn.completed', { resultType: 'success' })),
    ]);
    chars = 0;
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const { elapsedMs } = await r.prompt(playBuffer(recording));
    elapsed = elapsedMs;
    gc();
    gc();
    growthMb = (process.memoryUsage().heapUsed - before) / (1024 * 1024);
    if (chars !== HEAP_EVENTS) throw new Error(`heap run incomplete: ${chars} of ${HEAP_EVENTS}`);
  } finally {
    await r.dispose();
  }
  return [{ name: `acp (c): heap growth after a ${HEAP_EVENTS / 1e6}M-delta turn (${(elapsed / 1000).toFixed(1)} s)`, value: `${growthMb.toFixed(1)} MB`, target: '≤ 30 MB', ok: growthMb <= 30 }];
}

/** The bench section: (a), (b), (c) in one table. */
export async function benchAcpThroughput(): Promise<Row[]> {
  return [...(await throughput()), ...(await latency()), ...(await heap())];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await benchAcpThroughput();
  for (const row of rows) console.log(`${row.ok === false ? '✗' : row.ok ? '✓' : ' '} ${row.name}: ${row.value}${row.target ? ` (target ${row.target})` : ''}`);
  if (rows.some((row) => row.ok === false)) process.exitCode = 1;
}
