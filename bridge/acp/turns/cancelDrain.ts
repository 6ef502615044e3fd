/**
 * The next prompt after a cancel zcode did not honour in time (docs/acp.md "Cancelling a turn zcode
 * does not stop"): it waits, bounded, for the old turn's real end, asking zcode rather than the
 * clock, and escalates to a restart of zcode when no other session runs a turn.
 */
import { bt } from '../../l10n/messages.ts';
import { RequestError } from '@agentclientprotocol/sdk';
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import type { TurnNotice } from './notices.ts';
import { lingering } from './promptQueue.ts';
import type { PromptQueue } from './promptQueue.ts';
import type { PromptJob } from './turnState.ts';
import { askStatus } from './turnWatchdog.ts';
import type { AttemptDeps } from './turnAttempt.ts';

export interface DrainDeps extends AttemptDeps {
  /** A notice of the bridge's own, apart from the model's text (notices.ts). */
  notify(runtime: SessionRuntime, notice: TurnNotice): void;
  /** Does zcode run a turn of this session now (a restart would end it)? */
  runsTurn(runtime: SessionRuntime): boolean;
}

/**
 * A prompt after a cancel zcode did not honour in time: it is
 * sent only once the old turn has really ended, so the user never gets "busy" as the answer to a
 * new prompt. While it waits the client sees why (a notice), and the stop is said again.
 *
 * Bounded by `cancelDrainMs`. A zcode that ignores `session/stop` would otherwise hold the session
 * for ever (every later prompt "busy"), so then the bridge escalates as after a crash: zcode is
 * restarted (which ends the stuck turn) and the session resumed, and this prompt runs on the new
 * zcode ('restarted'). A restart ends every session's turn, so it is not done while another
 * session runs one: this prompt then fails with what to do, and the old turn stays lingering,
 * so the next prompt waits (and escalates) again instead of being answered "busy".
 */
export async function drainCancelled(d: DrainDeps, runtime: SessionRuntime, turns: PromptQueue, job: PromptJob): Promise<'ready' | 'restarted'> {
  const old = turns.lingering;
  if (!old) return 'ready';
  d.logger.info(`waiting for the cancelled turn of ${runtime.zcodeId} to end before sending the next prompt`);
  d.notify(runtime, { kind: 'waitingForCancelledTurn', severity: 'info', title: bt(d.sessions.locale, 'Waiting for zcode to finish stopping the previous turn…') });
  d.backend.stop({ sessionId: runtime.zcodeId });
  let timer: NodeJS.Timeout | undefined;
  // Ends zcode's status polling (untilIdle) when this wait is over, whatever ended it.
  const waited = lingering();
  const asked = untilIdle(d, runtime, Promise.race([old.ended, waited.ended]));
  const outcome = await Promise.race([
    old.ended.then(() => 'ended' as const),
    asked.then(() => 'ended' as const),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), d.tuning.cancelDrainMs))),
    new Promise<'cancelled'>((resolve) => {
      const previous = job.onCancel;
      job.onCancel = () => {
        previous?.();
        resolve('cancelled');
      };
    }),
  ]);
  clearTimeout(timer);
  waited.end();
  if (outcome === 'ended') {
    old.end();
    if (turns.lingering === old) turns.lingering = undefined;
    return 'ready';
  }
  if (outcome === 'cancelled') return 'ready';
  const seconds = Math.round(d.tuning.cancelDrainMs / 1000);
  const busyElsewhere = d.sessions.allRuntimes.some((other) => other !== runtime && d.runsTurn(other));
  if (busyElsewhere) {
    throw new RequestError(
      -32603,
      bt(
        d.sessions.locale,
        'zcode has not stopped the previous turn of this session {0} s after it was cancelled. Restarting zcode would end it, but other sessions are running turns: send this again once they have finished (the bridge then restarts zcode), or restart zcode now ("ZCode: Restart zcode").',
        seconds,
      ),
      { zcode: { status: 'cancelledTurnStillRunning' } },
    );
  }
  d.logger.warn(`zcode did not end the cancelled turn of ${runtime.zcodeId} within ${seconds} s of the next prompt; restarting zcode and resuming the session`);
  d.notify(runtime, {
    kind: 'restartingZcode',
    severity: 'warning',
    title: bt(d.sessions.locale, 'zcode did not stop the previous turn; restarting zcode and resuming this session…'),
    facts: { waitedMs: d.tuning.cancelDrainMs },
  });
  // The exit ends every lingering turn and settles the running attempts (onDidExit above).
  await d.backend.restart();
  if (turns.lingering === old) turns.lingering = undefined;
  return 'restarted';
}

/**
 * Resolves when zcode says the session is idle (asked every `quietMs` while `ended` has not
 * come): the end of a cancelled turn whose `turn.completed` was lost is noticed too. Never rejects.
 */
async function untilIdle(d: DrainDeps, runtime: SessionRuntime, ended: Promise<void>): Promise<void> {
  let done = false;
  void ended.then(() => (done = true));
  while (!done) {
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, d.tuning.watchdog.quietMs).unref())]);
    if (done) return;
    if ((await askStatus(d.backend, runtime, d.tuning.watchdog.readTimeoutMs)) === 'idle') {
      d.logger.info(`zcode says the cancelled turn of ${runtime.zcodeId} has ended (session/read); its end event did not arrive`);
      return;
    }
  }
}
