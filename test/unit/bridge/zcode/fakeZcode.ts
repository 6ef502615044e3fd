/**
 * An in-memory zcode for client unit tests: a `ZcodeChild` whose stdin/stdout are stream pairs,
 * speaking the real line framing. Tests script it per method; the integration tests run the real
 * simulator process instead.
 */
import { PassThrough } from 'node:stream';
import type { ExitInfo } from '../../../../bridge/zcode/backend.ts';
import type { ZcodeChild } from '../../../../bridge/zcode/process.ts';

export type Wire = Record<string, unknown> & { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: unknown };
/** Return a result, `{ error }` for an error reply, or `NO_REPLY` to leave the request hanging. */
export type MethodScript = (params: unknown, msg: Wire, fake: FakeZcode) => unknown;
export const NO_REPLY = Symbol('no reply');

let nextPid = 90_000;

export class FakeZcode implements ZcodeChild {
  readonly pid = nextPid++;
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  /** Every line the client wrote, parsed, plus the raw text. */
  readonly received: Wire[] = [];
  readonly rawLines: string[] = [];
  readonly exited: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;
  private listeners: ((info: ExitInfo) => void)[] = [];
  private waiters: { match: (m: Wire) => boolean; resolve: (m: Wire) => void }[] = [];
  private exitInfo: ExitInfo | undefined;
  stopCalls = 0;

  constructor(private readonly scripts: Record<string, MethodScript> = {}) {
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    let buffer = '';
    this.stdin.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.onLine(line);
      }
    });
  }

  onExit(listener: (info: ExitInfo) => void): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  stop(): Promise<ExitInfo> {
    this.stopCalls++;
    this.exit({ code: 0, signal: null, expected: true, stderrTail: '' });
    return this.exited;
  }

  /** Simulate a crash. */
  crash(code = 1, stderrTail = 'panic: simulated'): void {
    this.exit({ code, signal: null, expected: false, stderrTail });
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Write one message (or raw text) to the client. */
  send(msg: Wire | string): void {
    this.stdout.write(typeof msg === 'string' ? msg : JSON.stringify(msg) + '\n');
  }

  /** Resolve with the first received message (past or future) that matches. */
  waitFor(match: (m: Wire) => boolean): Promise<Wire> {
    const seen = this.received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** The reply the client sent for our request `id`. */
  replyTo(id: number | string): Promise<Wire> {
    return this.waitFor((m) => m.id === id && m.method === undefined);
  }

  private onLine(line: string): void {
    this.rawLines.push(line);
    const msg = JSON.parse(line) as Wire;
    this.received.push(msg);
    for (const waiter of [...this.waiters]) {
      if (waiter.match(msg)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(msg);
      }
    }
    if (msg.method === undefined || msg.id === undefined) return;
    const script = this.scripts[msg.method];
    if (!script) {
      this.send({ id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
      return;
    }
    const out = script(msg.params, msg, this);
    if (out === NO_REPLY) return;
    if (out && typeof out === 'object' && 'error' in out) this.send({ id: msg.id, ...(out as object) });
    else this.send({ id: msg.id, result: out });
  }

  private exit(info: ExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    this.stdout.end();
    this.resolveExited(info);
    for (const listener of this.listeners) listener(info);
  }
}
