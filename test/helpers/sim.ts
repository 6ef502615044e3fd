/**
 * Helpers for tests that run the zcode simulator (test/zcode-sim/zcode-sim.mjs) as a real child
 * process, exactly as the bridge runs zcode: a `.mjs` CLI given as the zcode path, run with node,
 * `app-server --stdio` appended by the backend client.
 *
 *   const backend = createZcodeBackend({ ...simLocateOptions({ quirks: ['split-lines'], recordFile }), logger: testLogger() });
 *   …
 *   const { received, violations } = readSimRecord(recordFile);
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocateOptions } from '../../bridge/zcode/backend.ts';
import type { Logger } from '../../bridge/logger.ts';

/** Absolute path of the simulator script. */
export const SIM_PATH = fileURLToPath(new URL('../zcode-sim/zcode-sim.mjs', import.meta.url));

export interface SimOptions {
  /**
   * Version profile: '0.14.6' | '0.14.8' | '0.15.2' | '0.16' | '0.16.5' | 'desktop-3.12'. Omitted: the run's
   * ZCODE_TEST_SIM_PROFILE, else the simulator's default (desktop-3.15).
   */
  profile?: string;
  /** Quirk switches, e.g. ['resend-interactions', 'split-lines']. */
  quirks?: string[];
  /** JSONL file the simulator appends every received message (and every violation) to. */
  recordFile?: string;
  /** Where the simulator keeps sessions between runs (a fresh temp dir when omitted is up to the caller). */
  stateDir?: string;
  /** Delay multiplier; 0 (the default here) = no artificial delays. */
  speed?: number;
  /** Interval of the `resend-interactions` quirk, in ms. */
  resendMs?: number;
  /** More environment for the simulator. */
  env?: NodeJS.ProcessEnv;
}

/** LocateOptions that make the backend client start the simulator. */
export function simLocateOptions(options: SimOptions = {}): LocateOptions {
  const env: NodeJS.ProcessEnv = { ...process.env, ZCODE_SIM_SPEED: String(options.speed ?? 0), ...options.env };
  // Never inherit these from the developer's shell: a test states what it wants.
  delete env.ZCODE_SIM_PROFILE;
  delete env.ZCODE_SIM_QUIRKS;
  delete env.ZCODE_SIM_RECORD;
  delete env.ZCODE_SIM_STATE_DIR;
  delete env.ZCODE_BIN;
  delete env.ZCODE_NODE;
  // A test that names no profile runs against the simulator's default (desktop-3.15), or against the
  // profile the whole run asks for: ZCODE_TEST_SIM_PROFILE=0.15.2 npm run test:unit (the seed era).
  const profile = options.profile ?? process.env.ZCODE_TEST_SIM_PROFILE;
  if (profile) env.ZCODE_SIM_PROFILE = profile;
  if (options.quirks?.length) env.ZCODE_SIM_QUIRKS = options.quirks.join(',');
  if (options.recordFile) env.ZCODE_SIM_RECORD = options.recordFile;
  if (options.stateDir) env.ZCODE_SIM_STATE_DIR = options.stateDir;
  if (options.resendMs !== undefined) env.ZCODE_SIM_RESEND_MS = String(options.resendMs);
  return { zcodePath: SIM_PATH, nodePath: process.execPath, env };
}

export interface SimRecord {
  /** Every message the simulator received, in order (the bridge's side of the conversation). */
  received: Record<string, unknown>[];
  /** Every protocol violation the simulator noticed (each has at least `violation` text). */
  violations: Record<string, unknown>[];
}

/** Read a `ZCODE_SIM_RECORD` file. A missing file reads as empty. */
export function readSimRecord(file: string): SimRecord {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const received: Record<string, unknown>[] = [];
  const violations: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const entry = JSON.parse(line) as { t?: number; msg?: Record<string, unknown>; violation?: string };
    if (entry.violation !== undefined) violations.push(entry as Record<string, unknown>);
    else if (entry.msg !== undefined) received.push(entry.msg);
  }
  return { received, violations };
}

/** A fresh temp directory (for record files and sim state) and its cleanup. */
export function tempDir(prefix = 'zcode-test-'): { dir: string; file(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, file: (name) => path.join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestLogger extends Logger {
  /** Every line logged so far, as `level message`. */
  readonly lines: string[];
  /** Lines at `level` (e.g. 'warn') containing `text`. */
  find(level: 'trace' | 'debug' | 'info' | 'warn' | 'error', text?: string | RegExp): string[];
  clear(): void;
}

/** A Logger that keeps lines in memory; prints them to stderr only when ZCODE_TEST_DEBUG is set. */
export function testLogger(name = 'test'): TestLogger {
  const lines: string[] = [];
  const print = !!process.env.ZCODE_TEST_DEBUG;
  const log =
    (level: string) =>
    (message: string | Error, ...args: unknown[]): void => {
      const text = [message instanceof Error ? (message.stack ?? message.message) : message, ...args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))].join(' ');
      lines.push(`${level} ${text}`);
      if (print) process.stderr.write(`[${name}] ${level} ${text}\n`);
    };
  return {
    lines,
    trace: log('trace'),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    find(level, text) {
      return lines.filter((l) => l.startsWith(`${level} `) && (text === undefined || (typeof text === 'string' ? l.includes(text) : text.test(l))));
    },
    clear() {
      lines.length = 0;
    },
  };
}

/** The simulator profile a test that names none runs against (ZCODE_TEST_SIM_PROFILE, else the simulator's default). */
export function testSimProfile(): string {
  return process.env.ZCODE_TEST_SIM_PROFILE || 'desktop-3.15';
}

/** Whether that profile speaks the current builds' shapes (0.16.5, desktop-3.12, desktop-3.15) rather than the seed era's. */
export function currentEra(profile = testSimProfile()): boolean {
  return profile === '0.16.5' || profile.startsWith('desktop-');
}
