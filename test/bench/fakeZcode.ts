/**
 * A stand-in zcode process for the benchmark: the bridge's REAL backend client (line codec,
 * connection, typed methods) talks to it over in-memory byte streams, so what is measured is the
 * bridge, not a child process or the simulator's event generator.
 *
 * It answers the handful of requests a prompt needs (create, read, subscribe, send) and, after
 * `session/send`, feeds a pre-rendered ndjson byte stream of events (the "recording") into the
 * bridge's stdout reader, honouring backpressure. `paced` mode writes one event at a time on a
 * schedule instead (latency measurement).
 */
import { PassThrough } from 'node:stream';
import type { ExitInfo } from '../../bridge/zcode/backend.ts';
import type { ZcodeChild } from '../../bridge/zcode/process.ts';

export const BENCH_SESSION = 'sess_bench';
const MESSAGE_ID = 'msg_bench';

/** One `session/event` line. */
export function eventLine(seq: number, type: string, payload: unknown): string {
  return `${JSON.stringify({ method: 'session/event', params: { sessionId: BENCH_SESSION, seq, type, payload } })}\n`;
}

/** The recording: turn.started, `count` text deltas, turn.completed — as one byte buffer. */
export function recordTurn(count: number, delta = 'x'): Buffer {
  const parts: string[] = [eventLine(1, 'turn.started', { turnId: 'turn_bench' })];
  for (let i = 0; i < count; i++) parts.push(eventLine(i + 2, 'model.streaming', { kind: 'text_delta', delta, messageId: MESSAGE_ID }));
  parts.push(eventLine(count + 2, 'turn.completed', { resultType: 'success' }));
  return Buffer.from(parts.join(''), 'utf8');
}

/** What happens after `session/send` is acknowledged. */
export type TurnPlayer = (write: (chunk: Buffer | string) => Promise<void>) => Promise<void>;

/** Write a buffer in chunks (like a pipe would deliver it). */
export function playBuffer(buffer: Buffer, chunkBytes = 64 * 1024): TurnPlayer {
  return async (write) => {
    for (let offset = 0; offset < buffer.length; offset += chunkBytes) await write(buffer.subarray(offset, offset + chunkBytes));
  };
}

export class FakeZcode implements ZcodeChild {
  readonly pid = 999_999;
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough({ highWaterMark: 256 * 1024 });
  readonly exited: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;
  private readonly exitListeners = new Set<(info: ExitInfo) => void>();
  private pendingInput = '';
  /** Set by the bench before each prompt. */
  player: TurnPlayer = async () => undefined;
  /** performance.now() when the player started writing (the measured interval starts here). */
  playStartedAt = 0;

  constructor() {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    this.stdin.setEncoding('utf8');
    this.stdin.on('data', (chunk: string) => this.onInput(chunk));
  }

  onExit(listener: (info: ExitInfo) => void): { dispose(): void } {
    this.exitListeners.add(listener);
    return { dispose: () => void this.exitListeners.delete(listener) };
  }

  stop(): Promise<ExitInfo> {
    const info: ExitInfo = { code: 0, signal: null, expected: true, stderrTail: '' };
    this.stdout.end();
    this.resolveExit(info);
    for (const listener of this.exitListeners) listener(info);
    return this.exited;
  }

  /** Write to the bridge's stdout reader, waiting when its buffer is full. */
  readonly write = (chunk: Buffer | string): Promise<void> =>
    new Promise((resolve) => {
      if (this.stdout.write(chunk)) resolve();
      else this.stdout.once('drain', () => resolve());
    });

  private onInput(chunk: string): void {
    this.pendingInput += chunk;
    let newline: number;
    while ((newline = this.pendingInput.indexOf('\n')) !== -1) {
      const line = this.pendingInput.slice(0, newline);
      this.pendingInput = this.pendingInput.slice(newline + 1);
      if (line.trim()) this.onMessage(JSON.parse(line) as { id?: number | string; method?: string; params?: unknown });
    }
  }

  private onMessage(msg: { id?: number | string; method?: string; params?: unknown }): void {
    if (msg.id === undefined || msg.method === undefined) return; // notifications (stop) and responses
    const reply = (result: unknown): void => void this.write(`${JSON.stringify({ id: msg.id, result })}\n`);
    switch (msg.method) {
      case 'session/create':
        return reply({ session: { sessionId: BENCH_SESSION, title: 'bench' }, settings: { mode: { current: 'build' } } });
      case 'session/read':
        return reply({ projection: { status: 'idle' }, settings: { mode: { current: 'build' } }, todos: [] });
      case 'session/resume':
        return reply({});
      case 'session/subscribe':
        return reply({ eventSeq: 0 });
      case 'session/send':
        reply({ accepted: true });
        this.playStartedAt = performance.now();
        void this.player(this.write);
        return;
      default:
        return void this.write(`${JSON.stringify({ id: msg.id, error: { code: -32601, message: `not in the bench: ${msg.method}` } })}\n`);
    }
  }
}
