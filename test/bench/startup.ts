/**
 * Start-up benchmark: what a user of Zed or JetBrains feels when the editor spawns
 * `zcode-acp`. Each run spawns `cli.js` with an `initialize` request already written to its stdin
 * and times spawn → the answer's first byte on stdout; once answered, the process is left idle
 * briefly and its RSS read from /proc. Then it sends `session/new`, which loads the bridge itself
 * (cli.js answers `initialize` before loading it, earlyInitialize.ts), and times spawn → that answer
 * and the RSS once idle again: what an editor that opens a thread right away waits for.
 *
 * The floor is a bare Node script that answers each stdio line (same Node binary, same spawn, same
 * pipes), measured in the same run, interleaved with the bridge so a busy machine slows both
 * alike; rows report medians and the ratio to the floor.
 *
 * The bench builds the production bundles (`node esbuild.mjs --production`, what the .vsix ships)
 * into a temp dir. Standalone: `node --import tsx test/bench/startup.ts`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Row } from './row.ts';

const RUNS = 9;
/** Time the process sits idle after answering before its RSS is read (lazy work settles). */
const IDLE_MS = 300;
const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The floor: the least a Node process can do to answer one JSON-RPC line on stdio. */
const ECHO_SCRIPT = `let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let end = buffered.indexOf('\\n'); end >= 0; end = buffered.indexOf('\\n')) {
    const request = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: 1 } }) + '\\n');
  }
});
`;

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: 'bench', version: '0' } } })}\n`;
const newSession = (cwd: string): string => `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd, mcpServers: [] } })}\n`;

interface Sample {
  answeredMs: number;
  rssBytes: number;
  /** spawn → the `session/new` answer. */
  sessionMs: number;
  sessionRssBytes: number;
}

function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/**
 * Spawn `script`, send `initialize`, wait for the answer, idle, read RSS; send `session/new`, wait
 * for its answer, idle, read RSS; close stdin, wait for exit.
 */
async function sample(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<Sample> {
  const started = performance.now();
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'ignore'], env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const lineCount = (): number => output.split('\n').length - 1;
  const answered = (lines: number, what: string): Promise<number> =>
    new Promise<number>((resolve, reject) => {
      const check = (): void => {
        if (lineCount() < lines) return;
        child.stdout.off('data', onData);
        resolve(performance.now() - started);
      };
      const onData = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        check();
      };
      child.stdout.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${path.basename(script)} exited (${code}) before answering ${what}`)));
      check();
    });
  const idle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, IDLE_MS));
  child.stdin.write(INITIALIZE);
  const answeredMs = await answered(1, 'initialize');
  await idle();
  const rssBytes = rssOf(child.pid ?? -1);
  child.stdin.write(newSession(cwd));
  // The answer is the second line (the bridge's command list for the new session may follow it).
  const sessionMs = await answered(2, 'session/new') - IDLE_MS;
  if (!/"id":1,"result"/.test(output)) throw new Error(`${path.basename(script)} did not answer session/new: ${output.slice(0, 300)}`);
  await idle();
  const sessionRssBytes = rssOf(child.pid ?? -1);
  child.stdin.end();
  await exited;
  return { answeredMs, rssBytes, sessionMs, sessionRssBytes };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

export async function benchStartup(): Promise<Row[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zcode-startup-bench-'));
  try {
    const dist = path.join(dir, 'dist');
    execFileSync(process.execPath, ['esbuild.mjs', '--production', `--outdir=${dist}`], { cwd: REPO, stdio: 'ignore' });
    const CLI = path.join(dist, 'cli.js');
    const kb = (file: string): string => `${(statSync(path.join(dist, file)).size / 1024).toFixed(0)} KB`;
    const echo = path.join(dir, 'stdio-echo.cjs');
    writeFileSync(echo, ECHO_SCRIPT);
    // The bridge must not find a real store or remote settings of the person running the bench.
    const env: NodeJS.ProcessEnv = { ...process.env, ZCODE_ACP_STORE_DIR: path.join(dir, 'store'), ZCODE_ACP_REMOTE: '' };
    const floor: Sample[] = [];
    const bridge: Sample[] = [];
    // One warm-up each (the file cache), then interleaved runs.
    await sample(echo, env, dir);
    await sample(CLI, env, dir);
    for (let i = 0; i < RUNS; i++) {
      floor.push(await sample(echo, env, dir));
      bridge.push(await sample(CLI, env, dir));
    }
    const floorMs = median(floor.map((s) => s.answeredMs));
    const bridgeMs = median(bridge.map((s) => s.answeredMs));
    const floorRss = median(floor.map((s) => s.rssBytes));
    const bridgeRss = median(bridge.map((s) => s.rssBytes));
    const ratio = bridgeMs / floorMs;
    const extra = bridgeRss - floorRss;
    const floorSessionMs = median(floor.map((s) => s.sessionMs));
    const bridgeSessionMs = median(bridge.map((s) => s.sessionMs));
    const floorSessionRss = median(floor.map((s) => s.sessionRssBytes));
    const bridgeSessionRss = median(bridge.map((s) => s.sessionRssBytes));
    return [
      { name: 'startup: runs', value: `median of ${RUNS} interleaved spawns each, Node ${process.versions.node}, production cli.js ${kb('cli.js')} + cli-bridge.js ${kb('cli-bridge.js')}` },
      {
        name: 'startup: spawned → initialize answered (floor: bare-Node stdio echo)',
        value: `${bridgeMs.toFixed(0)} ms vs ${floorMs.toFixed(0)} ms = ${ratio.toFixed(2)}× floor`,
        target: '≤ 1.3× floor',
        ok: ratio <= 1.3,
      },
      {
        name: `startup: idle RSS ${IDLE_MS} ms after initialize (floor: the same echo)`,
        value: `${mb(bridgeRss)} vs ${mb(floorRss)} = floor + ${mb(extra)}`,
        target: '≤ floor + 15 MB',
        ok: extra <= 15 * 1024 * 1024,
      },
      {
        name: `startup: spawned → first session/new answered, ${IDLE_MS} ms idle between not counted (loads the bridge)`,
        value: `${bridgeSessionMs.toFixed(0)} ms vs ${floorSessionMs.toFixed(0)} ms = ${(bridgeSessionMs / floorSessionMs).toFixed(2)}× floor`,
      },
      {
        name: `startup: RSS ${IDLE_MS} ms after session/new, the bridge loaded`,
        value: `${mb(bridgeSessionRss)} vs ${mb(floorSessionRss)} = floor + ${mb(bridgeSessionRss - floorSessionRss)}`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchStartup().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
