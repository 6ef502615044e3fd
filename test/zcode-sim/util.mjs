// Small shared helpers: logging to stderr, errors, ids, speed-scaled delays, templates.
// stdout is reserved for protocol lines, so everything human-readable goes to stderr.
import { randomBytes } from 'node:crypto';

/** Log a diagnostic line on stderr (never stdout: stdout carries only the protocol). */
export function log(...parts) {
  const text = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  process.stderr.write(`[zcode-sim] ${text}\n`);
}

/** A method failure that becomes a `{id, error:{code, message}}` reply. `violation` also records it. */
export class SimError extends Error {
  constructor(code, message, { violation = false, data } = {}) {
    super(message);
    this.code = code;
    this.violation = violation;
    this.data = data;
  }
}

/** Wrong or missing params: -32602, and it is the client's fault, so it is recorded as a violation. */
export function badParams(detail) {
  return new SimError(-32602, `Invalid params: ${detail}`, { violation: true });
}

/** Thrown inside a turn when session/stop (or the end of the process) cancels it. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** Thrown inside a turn to end it with turn.failed. */
export class TurnFailure extends Error {
  /** `extra`: what current builds add to the error (type, attribution, retryable, detail; current.mjs). */
  constructor(code, message, cause, extra) {
    super(message);
    this.code = code;
    this.cause = cause;
    this.extra = extra;
  }
}

/**
 * Id generator. Seeded (mulberry32) so a run with ZCODE_SIM_SEED is reproducible; random seed otherwise,
 * so a restarted simulator sharing a state dir does not mint the ids of the previous run again.
 */
export class Ids {
  constructor(seed) {
    this.state = (seed ?? randomBytes(4).readUInt32LE(0)) >>> 0;
  }
  next() {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min, max) {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  hex(n) {
    let s = '';
    while (s.length < n) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }
  uuid() {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-a${this.hex(3)}-${this.hex(12)}`;
  }
}

/**
 * A delay scaled by ZCODE_SIM_SPEED. Speed 0 still yields to the event loop (setImmediate) so a
 * running turn stays cancellable. `floorMs` is a minimum that holds even at speed 0 (used by the
 * `long` scenario so cancel/steer tests always land mid-turn). Aborting the signal ends the wait early.
 */
export function makeDelay(speed) {
  return function delay(ms, signal, floorMs = 0) {
    const wait = Math.max(ms * speed, floorMs);
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      if (wait <= 0) return void setImmediate(resolve);
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, wait);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
}

/** Replace `{{name}}` in every string of a JSON value. Unknown names become ''. */
export function fill(value, vars) {
  if (typeof value === 'string') return value.replace(/\{\{(\w+)\}\}/g, (_, k) => (vars[k] == null ? '' : String(vars[k])));
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = fill(v, vars);
    return out;
  }
  return value;
}

export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Exact key set check, for the "EXACT reply shape" rules. */
export function hasExactKeys(obj, keys) {
  const have = Object.keys(obj).sort();
  const want = [...keys].sort();
  return have.length === want.length && have.every((k, i) => k === want[i]);
}
