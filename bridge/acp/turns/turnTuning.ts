/**
 * The turn engine's knobs (bounded waits and retries) and the hooks it calls out to: what
 * bridge.ts configures and the tests shorten. The engine itself is turns.ts.
 */
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import { DEFAULT_WATCHDOG_TUNING } from './turnWatchdog.ts';
import type { WatchdogTuning } from './turnWatchdog.ts';

export interface TurnTuning {
  /** Attempts after a busy answer before giving up (default 8, about 10 s in total). */
  busyRetries: number;
  /** First busy backoff; doubles per attempt up to `maxBackoffMs` (default 150 ms). */
  busyBackoffMs: number;
  /** In-place retries after a retryable `turn.failed` (default 2; only with `retryTurnInPlace`). */
  transientRetries: number;
  /** First transient-failure backoff; doubles (default 500 ms). */
  transientBackoffMs: number;
  maxBackoffMs: number;
  /** How long a cancelled turn may take to end in zcode before `cancelled` is sent anyway (default 5 s). */
  cancelGraceMs: number;
  /**
   * How long a `turn.completed` waits for a `turn.terminal` that has not come yet, once this zcode
   * is known to send them (default 250 ms; see "turn.terminal" above). 0 disables the wait.
   */
  terminalWaitMs: number;
  /** How long the title look-up after a turn may delay the response (default 2 s). */
  titleReadMs: number;
  /**
   * How long a prompt waits for a cancelled turn that zcode did not stop in time to really end
   * before it is sent (default 10 s, after the `cancelGraceMs` the cancel itself waited). Then
   * zcode is restarted and the session resumed, unless other sessions run turns (see drainCancelled).
   */
  cancelDrainMs: number;
  /** The progress watchdog (turnWatchdog.ts). */
  watchdog: WatchdogTuning;
}

export const DEFAULT_TURN_TUNING: TurnTuning = {
  busyRetries: 8,
  busyBackoffMs: 150,
  transientRetries: 2,
  transientBackoffMs: 500,
  maxBackoffMs: 2000,
  cancelGraceMs: 5000,
  terminalWaitMs: 250,
  titleReadMs: 2000,
  cancelDrainMs: 10_000,
  watchdog: DEFAULT_WATCHDOG_TUNING,
};

/**
 * Re-runs the failed latest turn of zcode session `sessionId` without adding the user's message
 * again (zcode's v4 `retryTurn`). Resolves true once zcode accepted it — the retried turn's events
 * follow, and `onAccepted` is called where zcode's answer stands in its stream — and false (or
 * rejects) when zcode cannot retry this turn in place.
 */
export type RetryTurnInPlace = (params: { sessionId: string }, hooks: { onAccepted(): void }) => Promise<boolean>;

/** Hooks the engine calls out to (interaction withdrawal lives in interactionRouter.ts). */
export interface TurnHooks {
  /** Withdraw the session's open dialogs and decline them to zcode. */
  withdrawInteractions(runtime: SessionRuntime): void;
  /** Retry a failed turn in place; absent: unavailable, a failed turn is not retried automatically. */
  retryTurnInPlace?: RetryTurnInPlace;
}
