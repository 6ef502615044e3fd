/**
 * A raw ndjson client of the zcode simulator for its self-tests (no bridge code): the simulator as a real child
 * process at ZCODE_SIM_SPEED=0. `Sim` talks the seed era by default (profile 0.15.2) unless the args or env
 * name a profile; `session()` / `turn()` speak the shapes of the profile in use.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SIM = fileURLToPath(new URL('../zcode-sim/zcode-sim.mjs', import.meta.url));
export const PREFS = { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false };

// Raw wire JSON from a child process: the assertions below check its shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Msg = any;

/** A simulator child process with a tiny ndjson client on top. */
export class Sim {
  /** Every simulator started, so a test file can end those a failed test left running (`Sim.killAll`). */
  private static readonly started = new Set<Sim>();

  static killAll(): void {
    for (const sim of Sim.started) sim.child.kill('SIGKILL');
    Sim.started.clear();
  }

  readonly child: ChildProcessWithoutNullStreams;
  /** every stdout line that parsed as JSON, in order */
  readonly messages: Msg[] = [];
  /** stdout lines that were not JSON (quirk `noise`) */
  readonly noise: string[] = [];
  private buffer = '';
  private nextId = 1;
  private waiters: { pred: (m: Msg) => boolean; from: number; resolve: (m: Msg) => void }[] = [];
  readonly exited: Promise<number | null>;
  stderr = '';

  /** Whether the profile in use speaks the current builds' shapes (0.16.5, desktop-3.12). */
  readonly current: boolean;

  constructor(args: string[] = [], env: Record<string, string> = {}) {
    const named = args.some((a) => a.startsWith('--profile')) || env.ZCODE_SIM_PROFILE !== undefined;
    const profileArgs = named ? [] : ['--profile', '0.15.2'];
    const profile = named ? (args[args.indexOf('--profile') + 1] ?? env.ZCODE_SIM_PROFILE) : '0.15.2';
    this.current = profile === '0.16.5' || profile.startsWith('desktop-');
    this.child = spawn(process.execPath, [SIM, ...profileArgs, ...args, 'app-server', '--stdio'], {
      env: { ...process.env, ZCODE_SIM_SPEED: '0', ...env },
    });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      this.stderrWaiters = this.stderrWaiters.filter((w) => (w.pattern.test(this.stderr) ? (w.resolve(), false) : true));
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    Sim.started.add(this);
    void this.exited.then(() => Sim.started.delete(this));
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let msg: Msg;
      try {
        msg = JSON.parse(line);
      } catch {
        this.noise.push(line);
        continue;
      }
      this.messages.push(msg);
      // Answer runtime preferences at once unless a test wants to do it itself.
      if (msg.method === 'session/requestRuntimePreferences' && this.autoPrefs) this.write({ id: msg.id, result: PREFS });
      this.waiters = this.waiters.filter((w) => (w.pred(msg) ? (w.resolve(msg), false) : true));
    }
  }

  autoPrefs = true;
  private stderrWaiters: { pattern: RegExp; resolve: () => void }[] = [];

  /** Resolves once stderr (the simulator's log) matches `pattern`. */
  stderrMatches(pattern: RegExp, timeoutMs = 5000): Promise<void> {
    if (pattern.test(this.stderr)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stderr never matched ${pattern}:\n${this.stderr}`)), timeoutMs);
      this.stderrWaiters.push({ pattern, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  write(msg: unknown): void {
    this.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }

  /** The first message (already received, after index `from`, or future) matching `pred`. */
  next(pred: (m: Msg) => boolean, from = 0, timeoutMs = 5000): Promise<Msg> {
    const seen = this.messages.slice(from).find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for a message; stderr:\n${this.stderr}`)), timeoutMs);
      this.waiters.push({ pred, from, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  async request(method: string, params?: unknown): Promise<Msg> {
    const id = this.nextId++;
    this.write(params === undefined ? { id, method } : { id, method, params });
    return this.next((m) => m.id === id && m.method === undefined);
  }

  async result(method: string, params?: unknown): Promise<Msg> {
    const reply = await this.request(method, params);
    assert.equal(reply.error, undefined, `${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  }

  /** create + subscribe a session in `workspace`. */
  async session(workspace = process.cwd()): Promise<string> {
    const created = await this.result('session/create', { workspace: { workspacePath: workspace, workspaceKey: workspace }, mode: 'build' });
    const sessionId: string = created.session.sessionId;
    await this.result('session/subscribe', { sessionId, deliveryKind: 'desktop-continuous', includeSnapshot: false });
    return sessionId;
  }

  /** Send a prompt and collect this session's events until the turn ends. */
  async turn(sessionId: string, content: string): Promise<Msg[]> {
    const from = this.messages.length;
    const sent = await this.result('session/send', { sessionId, content });
    if (this.current) assert.deepEqual(Object.keys(sent).sort(), ['accepted', 'sessionId', 'stateRevision']);
    else assert.deepEqual(sent, { accepted: true });
    await this.next((m) => isEvent(m, sessionId) && ['turn.completed', 'turn.failed'].includes(m.params.type), from);
    return this.events(sessionId, from);
  }

  events(sessionId: string, from = 0): Msg[] {
    return this.messages.slice(from).filter((m) => isEvent(m, sessionId)).map((m) => m.params);
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

export const isEvent = (m: Msg, sessionId: string) => m.method === 'session/event' && m.params.sessionId === sessionId;
export const textOf = (events: Msg[]) => events.filter((e) => e.type === 'model.streaming' && e.payload.kind === 'text_delta').map((e) => e.payload.delta).join('');
export const readRecord = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'zcode-sim-test-'));
}

