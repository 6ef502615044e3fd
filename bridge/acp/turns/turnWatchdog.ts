/**
 * A watchdog that asks zcode instead of guessing from the clock. While a turn
 * runs and no event has arrived for `quietMs`, it reads the session (`session/read`) and acts on
 * what zcode says:
 * - zcode reports the session `idle` although the turn's end never arrived (a lost event, a
 *   subscription gone): the turn ends with a clear error instead of hanging;
 * - zcode does not answer `session/read` `unansweredLimit` times in a row: the turn ends with an
 *   error that says zcode stopped answering;
 * - anything else (zcode says it is still running — a long model request, a sub-agent working in
 *   its own session): the turn is left alone, however long it takes. No fixed turn timeout.
 * The same question ends the wait for a cancelled turn whose end event never arrives (turns.ts
 * `drainCancelled`). Only an explicit `idle` status counts as "not running" (the status values of
 * current builds are not all known from zcode's schemas or any live capture).
 */
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';

export interface WatchdogTuning {
  /** How long a running turn may be quiet before zcode is asked (default 60 s). */
  quietMs: number;
  /** How long one `session/read` may take (default 10 s). */
  readTimeoutMs: number;
  /** Unanswered reads in a row that end the turn (default 3). */
  unansweredLimit: number;
}

export const DEFAULT_WATCHDOG_TUNING: WatchdogTuning = { quietMs: 60_000, readTimeoutMs: 10_000, unansweredLimit: 3 };

export type WatchdogVerdict = { kind: 'idle' } | { kind: 'unresponsive'; reads: number };

/** What zcode says about the session right now: 'idle', 'running' (or any other status), or undefined (no answer). */
export async function askStatus(backend: ZcodeBackend, runtime: SessionRuntime, timeoutMs: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const read = await Promise.race([
      backend.read({ sessionId: runtime.zcodeId }),
      new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('no answer')), timeoutMs))),
    ]);
    return read.projection?.status ?? 'unknown';
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Watch one running turn until `stop()`; `onVerdict` is called at most once, when the turn should
 * end. Progress is the runtime's event sequence (`lastSeq`): while it moves, zcode is not asked.
 */
export function watchTurn(backend: ZcodeBackend, runtime: SessionRuntime, logger: Logger, tuning: WatchdogTuning, onVerdict: (verdict: WatchdogVerdict) => void): { stop(): void } {
  let stopped = false;
  let seenSeq = runtime.lastSeq;
  let unanswered = 0;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    if (!stopped) timer = setTimeout(() => void check(), tuning.quietMs);
  };
  const check = async (): Promise<void> => {
    if (stopped) return;
    if (runtime.lastSeq !== seenSeq) {
      seenSeq = runtime.lastSeq;
      unanswered = 0;
      return schedule();
    }
    const status = await askStatus(backend, runtime, tuning.readTimeoutMs);
    if (stopped) return;
    if (status === undefined) {
      unanswered++;
      logger.warn(`zcode did not answer session/read for the quiet turn of ${runtime.zcodeId} (${unanswered}/${tuning.unansweredLimit})`);
      if (unanswered >= tuning.unansweredLimit) return finish({ kind: 'unresponsive', reads: unanswered });
      return schedule();
    }
    unanswered = 0;
    // A new event may have arrived while zcode was asked: then the turn is alive after all.
    if (status === 'idle' && runtime.lastSeq === seenSeq) return finish({ kind: 'idle' });
    logger.debug(`the turn of ${runtime.zcodeId} is quiet but zcode says "${status}": waiting`);
    seenSeq = runtime.lastSeq;
    schedule();
  };
  const finish = (verdict: WatchdogVerdict): void => {
    if (stopped) return;
    stopped = true;
    onVerdict(verdict);
  };
  schedule();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
