/**
 * Store benchmark: what a 200,000-entry lazy-session store costs the bridge a user
 * runs. `dist/cli.js` is spawned (the simulator as zcode) on a store directory holding 200,000
 * prompted sessions (mappings, which no cap may drop); `initialize` is answered, then SESSIONS
 * `session/new` requests are sent one after the other and each is timed from write to answer; the
 * RSS is read from /proc after an idle moment. The floor is the same run on an empty store, in the
 * same bench run, interleaved. A second shape — 200,000 never-prompted placeholders — shows the
 * cap at work (the store is cut to the newest 1,000 on load). Last, the store module alone, in
 * this process: the time until one change is on disk, on the big store and on an empty one.
 *
 * Build first (`node esbuild.mjs`). `BENCH_STORE_CLI=/other/dist/cli.js` measures another build
 * and `BENCH_STORE_MODULE=/other/bridge/acp/sessions/lazySessionStore.ts` another store module (how the "before" figures in the report were taken). Standalone: `node --import tsx test/bench/store.ts`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { SIM_PATH } from '../helpers/sim.ts';
import type { Row } from './row.ts';

const ENTRIES = 200_000;
const SESSIONS = 200;
const RUNS = 3;
const IDLE_MS = 300;
const CLI = process.env.BENCH_STORE_CLI ?? fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const STORE_MODULE = process.env.BENCH_STORE_MODULE ?? fileURLToPath(new URL('../../bridge/acp/sessions/lazySessionStore.ts', import.meta.url));
const DURABLE_SETS = 100;

interface StoreLike {
  load(): Promise<void>;
  set(id: string, entry: { cwd: string; createdAt: number }): void;
  flush(): Promise<void>;
}

/**
 * The cost of one store operation itself, in this process: `set` a new placeholder and wait until
 * it is on disk (`flush`), DURABLE_SETS times one after the other, on a copy of `template`. This is
 * what a whole-file rewrite per change makes grow with the store (session/new answers before the
 * write, so its latency alone hides it).
 */
async function durableSetMs(template: string, root: string): Promise<number> {
  const storageDir = path.join(root, `inproc-${Math.random().toString(16).slice(2)}`);
  mkdirSync(storageDir);
  for (const f of readdirSync(template)) writeFileSync(path.join(storageDir, f), readFileSync(path.join(template, f)));
  const { LazySessionStore } = (await import(STORE_MODULE)) as { LazySessionStore: new (options: { storageDir: string; logger: unknown }) => StoreLike };
  const quiet = (): undefined => undefined;
  const store = new LazySessionStore({ storageDir, logger: { trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet } });
  await store.load();
  const times: number[] = [];
  for (let i = 0; i < DURABLE_SETS; i++) {
    const started = performance.now();
    store.set(`lazy_bench_${i}`, { cwd: '/w', createdAt: Date.now() });
    await store.flush();
    times.push(performance.now() - started);
  }
  rmSync(storageDir, { recursive: true, force: true });
  return median(times);
}

type Shape = 'empty' | 'prompted' | 'unprompted';

interface Sample {
  /** The first session/new: it may wait for the store being read. */
  firstNewMs: number;
  newMedianMs: number;
  newP95Ms: number;
  rssBytes: number;
}

/** A store directory of `shape`: no file, or a snapshot of ENTRIES sessions. */
function makeStore(root: string, shape: Shape, cwd: string): string {
  const dir = path.join(root, `store-${shape}`);
  mkdirSync(dir, { recursive: true });
  if (shape === 'empty') return dir;
  const now = Date.now();
  const sessions: Record<string, unknown> = {};
  for (let i = 0; i < ENTRIES; i++) {
    const id = `lazy_${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
    sessions[id] = shape === 'prompted' ? { cwd, createdAt: now - i, zcodeSessionId: `sess_${i}`, lastUsedAt: now - i } : { cwd, createdAt: now - i };
  }
  writeFileSync(path.join(dir, 'acp-lazy-sessions.json'), JSON.stringify({ version: 1, sessions }));
  return dir;
}

function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/** One CLI run on a copy of `template`: initialize, SESSIONS × session/new timed one by one, RSS. */
async function sample(template: string, root: string, cwd: string): Promise<Sample> {
  const storeDir = path.join(root, `run-${Math.random().toString(16).slice(2)}`);
  mkdirSync(storeDir);
  for (const f of readdirSync(template)) writeFileSync(path.join(storeDir, f), readFileSync(path.join(template, f)));
  const env: NodeJS.ProcessEnv = { ...process.env, ZCODE_ACP_STORE_DIR: storeDir, ZCODE_ACP_REMOTE: '', ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_SIM_SPEED: '0' };
  const child = spawn(process.execPath, [CLI], { stdio: ['pipe', 'pipe', 'ignore'], env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, (line: string) => void>();
  let buffered = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const id = (JSON.parse(line) as { id?: unknown }).id;
      if (typeof id === 'number') waiting.get(id)?.(line);
    }
  });
  const call = (id: number, method: string, params: unknown): Promise<string> =>
    new Promise((resolve, reject) => {
      waiting.set(id, resolve);
      child.once('exit', (code) => reject(new Error(`dist/cli.js exited (${code}) before answering ${method}`)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  try {
    await call(0, 'initialize', { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'bench', version: '0' } });
    const times: number[] = [];
    for (let i = 1; i <= SESSIONS; i++) {
      const started = performance.now();
      const answer = await call(i, 'session/new', { cwd, mcpServers: [] });
      times.push(performance.now() - started);
      if (!answer.includes('"sessionId"')) throw new Error(`session/new failed: ${answer.slice(0, 200)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const rssBytes = rssOf(child.pid ?? -1);
    const firstNewMs = times[0];
    times.sort((a, b) => a - b);
    return { firstNewMs, newMedianMs: times[Math.floor(times.length / 2)], newP95Ms: times[Math.floor(times.length * 0.95)], rssBytes };
  } finally {
    child.stdin.end();
    await exited;
    rmSync(storeDir, { recursive: true, force: true });
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(0)} MB`;

export async function benchStore(): Promise<Row[]> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node esbuild.mjs\` first`);
  const root = mkdtempSync(path.join(tmpdir(), 'zcode-store-bench-'));
  try {
    const cwd = path.join(root, 'workspace');
    mkdirSync(cwd);
    const shapes: Shape[] = ['empty', 'prompted', 'unprompted'];
    const templates = Object.fromEntries(shapes.map((s) => [s, makeStore(root, s, cwd)])) as Record<Shape, string>;
    const samples: Record<Shape, Sample[]> = { empty: [], prompted: [], unprompted: [] };
    for (let run = 0; run < RUNS; run++) for (const shape of shapes) samples[shape].push(await sample(templates[shape], root, cwd));
    const of = (shape: Shape, key: keyof Sample): number => median(samples[shape].map((s) => s[key]));
    const floorMs = of('empty', 'newMedianMs');
    const floorRss = of('empty', 'rssBytes');
    const bigMs = of('prompted', 'newMedianMs');
    const bigRss = of('prompted', 'rssBytes');
    const durableFloor = await durableSetMs(templates.empty, root);
    const durableBig = await durableSetMs(templates.prompted, root);
    const snapshotMb = statSync(path.join(templates.prompted, 'acp-lazy-sessions.json')).size / (1024 * 1024);
    return [
      { name: 'store: runs', value: `median of ${RUNS} interleaved runs per store, ${SESSIONS} session/new each; ${ENTRIES.toLocaleString('en')} entries = ${snapshotMb.toFixed(0)} MB of JSON` },
      {
        name: `store: session/new with ${ENTRIES.toLocaleString('en')} prompted sessions stored (floor: empty store)`,
        value: `median ${bigMs.toFixed(2)} ms, p95 ${of('prompted', 'newP95Ms').toFixed(2)} ms, first ${of('prompted', 'firstNewMs').toFixed(0)} ms vs floor ${floorMs.toFixed(2)} ms`,
        target: '≤ floor + 2 ms',
        ok: bigMs <= floorMs + 2,
      },
      {
        name: `store: one change on disk (set + flush, in process) with ${ENTRIES.toLocaleString('en')} entries (floor: empty store)`,
        value: `median ${durableBig.toFixed(2)} ms vs floor ${durableFloor.toFixed(2)} ms (${DURABLE_SETS} changes)`,
        target: '≤ floor + 2 ms',
        ok: durableBig <= durableFloor + 2,
      },
      {
        name: `store: RSS after ${SESSIONS} session/new, ${ENTRIES.toLocaleString('en')} prompted sessions (floor: empty store)`,
        value: `${mb(bigRss)} vs ${mb(floorRss)} = floor + ${mb(bigRss - floorRss)}`,
        target: '≤ floor + 200 MB',
        ok: bigRss - floorRss <= 200 * 1024 * 1024,
      },
      {
        name: `store: ${ENTRIES.toLocaleString('en')} never-prompted placeholders (capped to the newest 1,000 on load)`,
        value: `session/new median ${of('unprompted', 'newMedianMs').toFixed(2)} ms, RSS ${mb(of('unprompted', 'rssBytes'))}`,
        target: '≤ floor + 2 ms',
        ok: of('unprompted', 'newMedianMs') <= floorMs + 2,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchStore().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
