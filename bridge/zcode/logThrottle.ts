/**
 * A limit on repeated log lines: a peer that sends malformed messages in a loop
 * must not be able to fill stderr or the output channel. Lines are grouped by a caller-chosen
 * key (the kind of problem, never the variable part); each key may write `burst` lines per
 * window, the line that reaches the limit says so, and the first line of the next window reports
 * how many were suppressed. Nothing is timed: the count is settled when the next line arrives.
 */
import type { Logger } from '../logger.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogThrottleOptions {
  /** Lines per key and window. Default 5. */
  burst?: number;
  /** Default 60 s. */
  windowMs?: number;
  /** Keys remembered at once (oldest forgotten first), so the limiter's own memory is bounded. Default 256. */
  maxKeys?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Window {
  start: number;
  written: number;
  suppressed: number;
}

export class LogThrottle {
  private readonly burst: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logger: Logger,
    options: LogThrottleOptions = {},
  ) {
    this.burst = options.burst ?? 5;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxKeys = options.maxKeys ?? 256;
    this.now = options.now ?? Date.now;
  }

  /** Log `line` at `level` unless lines of this `key` already used up the window. Returns whether it was written. */
  log(level: LogLevel, key: string, line: string): boolean {
    const now = this.now();
    let window = this.windows.get(key);
    let prefix = '';
    if (window && now - window.start >= this.windowMs) {
      if (window.suppressed > 0) prefix = `(${window.suppressed} similar line(s) suppressed) `;
      window = undefined;
    }
    if (!window) {
      window = { start: now, written: 0, suppressed: 0 };
      this.windows.delete(key);
      this.windows.set(key, window);
      if (this.windows.size > this.maxKeys) this.windows.delete(this.windows.keys().next().value as string);
    }
    if (window.written >= this.burst) {
      window.suppressed++;
      return false;
    }
    window.written++;
    const suffix = window.written === this.burst ? ` (further similar lines suppressed for ${Math.ceil(this.windowMs / 1000)} s)` : '';
    this.logger[level](`${prefix}${line}${suffix}`);
    return true;
  }
}
