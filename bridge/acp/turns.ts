/**
 * The turn engine: ACP `session/prompt` → zcode `session/send` + the event stream → one stop reason.
 *
 * Rules (docs/acp.md "Methods", "Cancelling a turn zcode does not stop"):
 * - Prompts on one zcode session run one at a time, FIFO (a second prompt while one runs waits
 *   behind it; advertised in `initialize` `_meta.zcode.promptQueue`). `session/cancel` cancels the
 *   running prompt AND every queued one of that session: each gets `cancelled`.
 * - `$/cancel_request` cancels just that prompt the same way. A client that merely disconnects does
 *   not cancel the shared turn (other clients may be watching it).
 * - The subscription is made current before `session/send` (sessions.ensureOpen).
 * - busy (1308 / -32010): bounded retry with backoff, then a clear error. -32004 (evicted): resume
 *   and retry once. Both happen before zcode accepted the input, so nothing is duplicated.
 * - A retryable `turn.failed` comes after zcode accepted the prompt: the user's message is in its
 *   history already, and sending the prompt again would add it once more per attempt (a replay
 *   would show it three times after two retries). So it is retried only in place — zcode re-runs
 *   the failed turn without a new user message (`TurnHooks.retryTurnInPlace`, zcode's v4
 *   `retryTurn` on builds that have it) — a bounded number of times. Without that, the failure is
 *   answered at once (`data.zcode.retryable` says a retry may help).
 * - Cancel: `session/stop`, open dialogs withdrawn (declined to zcode), then wait (bounded) for
 *   zcode's own end of the turn so that everything it sent is flushed before `cancelled` goes out.
 * - A backend exit ends the running turn with an error at once (never hangs).
 * - Signals of backend-started background turns never end a user prompt.
 * - Title (titles.ts): on builds that do not announce it, the title zcode gave the session is read
 *   once zcode has the prompt and announced (`session_info_update`) before the prompt's response.
 * - `turn.terminal` (0.15.2+) adds duration and token totals to the response's `_meta.zcode.terminal`
 *   and never ends a turn. zcode sends it before `turn.completed`; should it come after, the
 *   completion waits for it (at most `terminalWaitMs`) — but only once this zcode has been seen to
 *   send `turn.terminal` at all (builds before 0.15.2 never do, and must not pay the wait on every
 *   prompt). So on a build that sends it late, the first prompt after the bridge starts answers
 *   without the figures (logged); from then on they are waited for. The turn ends once, and the
 *   prompt keeps the session while it waits, so a queued prompt gets its own turn's figures
 *   (turnState.ts `RunningTurn`).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { ContentBlock, PromptResponse, StopReason } from '@agentclientprotocol/sdk';
import type { PromptResponse as UnstablePromptResponse } from '@agentclientprotocol/sdk/unstable';
import { promptToZcode } from '../translate/prompt.ts';
import type { ZcodePrompt } from '../translate/prompt.ts';
import { BackendErrorCode } from '../zcode/backend.ts';
import type { Disposable, Logger, ZcodeBackend } from '../zcode/backend.ts';
import type { Usage } from '../zcode/protocol.ts';
import { backoff, retryWhileBusy } from './busyRetry.ts';
import { SessionTitles } from './titles.ts';
import type { TitleRead } from './titles.ts';
import { assertNever, isNotActive, toRequestError } from './errors.ts';
import type { SessionManager, SessionRuntime } from './sessions.ts';
import type { PromptRewrite } from './context.ts';
import { PromptJob, RunningTurn, toAcpUsage, turnFailedError } from './turnState.ts';
import type { Outcome, Terminal, TurnUsage } from './turnState.ts';
import { askStatus, DEFAULT_WATCHDOG_TUNING, watchTurn } from './turnWatchdog.ts';
import { noticeUpdate } from './notices.ts';
import { bt } from '../l10n/messages.ts';
import type { TurnNotice } from './notices.ts';
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

interface SessionTurns {
  /** The job that owns the session right now (taken synchronously when granted). */
  holder: PromptJob | undefined;
  /** Its zcode turn, once it runs. */
  running: RunningTurn | undefined;
  queue: PromptJob[];
  idleWaiters: Array<() => void>;
  /**
   * A cancelled turn zcode had not ended when the prompt answered `cancelled`:
   * resolves when its end arrives (or zcode goes away). The next prompt waits for it.
   */
  lingering: { ended: Promise<void>; end(): void } | undefined;
}

export class TurnEngine implements Disposable {
  private readonly state = new WeakMap<SessionRuntime, SessionTurns>();
  /** Jobs per ACP id (for `session/cancel`, including prompts still materializing). */
  private readonly jobs = new Map<string, Set<PromptJob>>();
  private readonly subscriptions: Disposable[];
  /** This zcode has sent a `turn.terminal` (so a missing one is worth a short wait). */
  private sendsTurnTerminal = false;
  /** The session titles (titles.ts); signals.ts hands zcode's title events to the same keeper. */
  readonly titles: SessionTitles;

  constructor(
    private readonly sessions: SessionManager,
    private readonly backend: ZcodeBackend,
    private readonly hooks: TurnHooks,
    private readonly logger: Logger,
    private readonly tuning: TurnTuning = DEFAULT_TURN_TUNING,
  ) {
    this.titles = new SessionTitles(backend, sessions, logger, tuning.titleReadMs);
    this.subscriptions = [
      sessions.onSignal(({ runtime, signal }) => {
        if (signal.type === 'turn_terminal') this.sendsTurnTerminal = true;
        const turns = this.turnsOf(runtime);
        if (turns.lingering && !turns.running?.sent && (signal.type === 'turn_completed' || signal.type === 'turn_failed') && !signal.background) {
          logger.info(`the cancelled turn of ${runtime.zcodeId} has ended`);
          turns.lingering.end();
          return;
        }
        const running = turns.running;
        if (!running) return;
        const wasSettled = running.settled;
        running.onSignal(signal, logger);
        if (running.settled && !wasSettled) this.holdEvents(runtime, running.job);
      }),
      backend.onDidExit((info) => {
        // -32603 like every failure that is not the client's to fix; the bridge's code under data.zcode.
        const error = new RequestError(
          -32603,
          info.expected
            ? bt(sessions.locale, 'zcode was stopped while the prompt was running')
            : (info.reason ?? `${bt(sessions.locale, 'zcode exited unexpectedly while the prompt was running')}${info.stderrTail ? `: ${info.stderrTail.trim().split('\n').pop()}` : ''}`),
          { zcode: { code: BackendErrorCode.ProcessExited, exitCode: info.code, signal: info.signal } },
        );
        for (const runtime of sessions.allRuntimes) {
          this.turnsOf(runtime).lingering?.end();
          this.turnsOf(runtime).running?.settle({ kind: 'exited', error });
        }
      }),
    ];
  }

  /**
   * The session's later events wait until the job's response has been written (sessions.ts
   * `holdEvents`). Held when a turn's end event settles the job's turn, so every client sees the
   * response before what zcode sent after the turn, and on a slash command's request (`/steer`) —
   * an order kept by state, not by when continuations run. Released when the response is written
   * (or its client is gone), when the job runs another attempt, or when it ends without a
   * response hook.
   */
  private holdEvents(runtime: SessionRuntime, job: PromptJob): void {
    if (job.releaseEvents) return;
    const release = this.sessions.holdEvents(runtime);
    let released = false;
    job.releaseEvents = () => {
      if (released) return;
      released = true;
      job.releaseEvents = undefined;
      release();
    };
    job.whenAnswered?.(job.releaseEvents);
  }

  /** Is a prompt running (or queued) on this runtime? */
  isBusy(runtime: SessionRuntime): boolean {
    const turns = this.turnsOf(runtime);
    return turns.holder !== undefined || turns.queue.length > 0;
  }

  isRunning(runtime: SessionRuntime): boolean {
    return this.turnsOf(runtime).holder !== undefined;
  }

  /** Resolves when nothing runs or waits on the runtime. */
  whenIdle(runtime: SessionRuntime): Promise<void> {
    if (!this.isBusy(runtime)) return Promise.resolve();
    return new Promise((resolve) => this.turnsOf(runtime).idleWaiters.push(resolve));
  }

  /**
   * Run one prompt to its stop reason. `signal` is the request's: it aborts on `$/cancel_request`
   * (cancel this prompt) and on connection close (ignored: the turn is shared). Call it
   * synchronously from the request handler; `preflight` (session check, slash commands) runs after
   * the prompt is registered and may answer the prompt itself. It gets the job's signal, which
   * aborts on `session/cancel` as well as on the request's own signal; a preflight answer given
   * after a cancel is turned into `cancelled` (ACP: a cancelled prompt answers `cancelled`), its
   * `_meta` kept.
   */
  async prompt(
    acpId: string,
    prompt: readonly ContentBlock[],
    signal: AbortSignal,
    preflight?: (signal: AbortSignal, holdEvents: () => void) => Promise<PromptResponse | PromptRewrite | undefined>,
    whenAnswered?: (fn: () => void) => void,
  ): Promise<PromptResponse> {
    let blocks = prompt;
    // Registered before the first await: a `session/cancel` right behind the prompt must find it.
    const job = new PromptJob(acpId);
    job.whenAnswered = whenAnswered;
    const jobs = this.jobs.get(acpId) ?? new Set<PromptJob>();
    this.jobs.set(acpId, jobs);
    jobs.add(job);
    const onAbort = (): void => {
      if (isCancelRequest(signal.reason)) this.cancelJob(job);
      // A disconnect does not cancel the shared zcode turn, but work done for this request alone
      // (a slash command) stops, as it did with the request's signal.
      else job.abort(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort);
    let turns: SessionTurns | undefined;
    try {
      const holdEvents = (): void => {
        const runtime = this.sessions.peek(acpId);
        if (runtime) this.holdEvents(runtime, job);
      };
      const handled = await preflight?.(job.signal, holdEvents);
      if (handled && 'sendInstead' in handled) blocks = handled.sendInstead;
      else if (handled) return job.cancelled ? { ...handled, stopReason: 'cancelled' } : handled;
      if (job.cancelled) return { stopReason: 'cancelled' };
      const runtime = await this.sessions.materialize(acpId);
      if (job.cancelled) return { stopReason: 'cancelled' };
      turns = this.turnsOf(runtime);
      await this.acquire(turns, job);
      if (job.cancelled) return { stopReason: 'cancelled' };
      return await this.run(runtime, turns, job, promptToZcode(blocks));
    } catch (error) {
      if (job.cancelled) return { stopReason: 'cancelled' };
      throw toRequestError(error);
    } finally {
      signal.removeEventListener('abort', onAbort);
      jobs.delete(job);
      if (jobs.size === 0) this.jobs.delete(acpId);
      if (turns) this.release(turns, job);
      // Without a response hook nothing else would end the hold (a caller that is not a request handler).
      if (!job.whenAnswered) job.releaseEvents?.();
    }
  }

  /** `session/cancel`: cancel the running prompt and every queued one of the session. */
  cancelSession(acpId: string): void {
    const runtime = this.sessions.peek(acpId);
    const jobs = new Set(this.jobs.get(acpId) ?? []);
    // Other aliases of the same zcode session share its queue: their prompts are cancelled too.
    if (runtime) {
      const turns = this.turnsOf(runtime);
      for (const job of turns.queue) jobs.add(job);
      if (turns.holder) jobs.add(turns.holder);
    }
    for (const job of jobs) this.cancelJob(job);
  }

  /** Cancel only the running prompt of a runtime (a permission dialog answered `cancelled`). */
  cancelRunning(runtime: SessionRuntime): void {
    const holder = this.turnsOf(runtime).holder;
    if (holder) this.cancelJob(holder);
  }

  private cancelJob(job: PromptJob): void {
    if (job.cancelled) return;
    job.cancelled = true;
    job.abort(RequestError.requestCancelled());
    job.wake?.();
    job.onCancel?.();
  }

  /**
   * Wait until the job owns the session (FIFO), or is cancelled while waiting. Ownership is taken
   * synchronously when granted, so two prompts arriving together can never both run.
   */
  private acquire(turns: SessionTurns, job: PromptJob): Promise<void> {
    if (!turns.holder && turns.queue.length === 0) {
      turns.holder = job;
      return Promise.resolve();
    }
    turns.queue.push(job);
    return new Promise<void>((resolve) => {
      job.wake = () => {
        job.wake = undefined;
        const index = turns.queue.indexOf(job);
        if (index !== -1) turns.queue.splice(index, 1);
        if (!job.cancelled && !turns.holder) turns.holder = job;
        resolve();
      };
    });
  }

  /** A job is done: if it owned the session, hand it to the next queued job or tell idle waiters. */
  private release(turns: SessionTurns, job: PromptJob): void {
    if (turns.holder !== job) return;
    turns.holder = undefined;
    turns.running = undefined;
    const next = turns.queue[0];
    if (next) {
      next.wake?.();
      return;
    }
    for (const resolve of turns.idleWaiters.splice(0)) resolve();
  }

  private async run(runtime: SessionRuntime, turns: SessionTurns, job: PromptJob, prompt: ZcodePrompt): Promise<PromptResponse> {
    const turn = new RunningTurn(job, () => (this.sendsTurnTerminal ? this.tuning.terminalWaitMs : 0));
    turns.running = turn;
    job.onCancel = () => {
      // Stop whatever zcode runs for us (harmless if nothing is running yet), close dialogs, and
      // wait a bounded time for zcode's own end of the turn (its events are flushed meanwhile).
      if (turn.sent || turn.started) this.backend.stop({ sessionId: runtime.zcodeId });
      this.hooks.withdrawInteractions(runtime);
      turn.startGrace(this.tuning.cancelGraceMs);
    };
    // The title read starts once zcode has the prompt (titles.ts).
    let titleRead: TitleRead | undefined;
    // zcode is asked, not the clock, whether a quiet turn still runs (turnWatchdog.ts).
    let watchdog: { stop(): void } | undefined;
    const watch = (): { stop(): void } => watchTurn(this.backend, runtime, this.logger, this.tuning.watchdog, (verdict) => {
      const message =
        verdict.kind === 'idle'
          ? 'zcode says this turn is no longer running, but its end never reached the bridge; the prompt ends here. Send it again if the answer is incomplete.'
          : `zcode stopped answering while this turn was running (no answer to ${verdict.reads} status requests); restart zcode ("ZCode: Restart zcode") and try again.`;
      this.logger.error(`watchdog: ${message}`);
      turn.settle({ kind: 'failed', message, retryable: false, cause: verdict.kind === 'idle' ? 'turn_end_lost' : 'zcode_unresponsive' });
    });
    // The failure the next attempt retries in place (undefined: the first attempt sends the prompt).
    let retrying: { failure: Extract<Outcome, { kind: 'failed' }>; retries: number } | undefined;
    try {
      for (let transient = 0; ; transient++) {
        await this.sessions.ensureOpen(runtime);
        if (job.cancelled) return { stopReason: 'cancelled' };
        if ((await this.drainCancelled(runtime, turns, job)) === 'restarted') {
          // The restart settled this attempt as "exited" before anything was sent: start it afresh
          // on the new zcode, with the session resumed.
          turn.reset();
          await this.sessions.ensureOpen(runtime);
        }
        if (job.cancelled) return { stopReason: 'cancelled' };
        if (retrying) await this.retryInPlaceOrEnd(runtime, turn, retrying.failure, retrying.retries);
        else await this.sendOrEnd(runtime, prompt, job, turn);
        // Watched once zcode has the prompt (a send waiting behind busy or a cancel is not "quiet").
        watchdog ??= watch();
        // zcode names the session when it takes the prompt: read it while the turn runs.
        titleRead ??= this.titles.readEarly(runtime);
        if (job.cancelled) {
          // The stop may have raced ahead of the send: say it again now that zcode has the turn.
          this.backend.stop({ sessionId: runtime.zcodeId });
          turn.startGrace(this.tuning.cancelGraceMs);
        }
        const outcome = await turn.outcome;
        switch (outcome.kind) {
          case 'completed':
            if (!job.cancelled) {
              // A title already read is announced without yielding: the response keeps its place in the stream.
              const announcing = this.titles.afterTurn(runtime, titleRead);
              if (announcing) await announcing;
            }
            return this.response(job.cancelled ? 'cancelled' : outcome.stopReason, outcome.usage, turn.terminal);
          case 'cancel_timeout':
            this.logger.warn(`zcode did not end the cancelled turn of ${runtime.zcodeId} within ${this.tuning.cancelGraceMs} ms; the next prompt waits for its end`);
            turns.lingering ??= lingering();
            return { stopReason: 'cancelled' };
          case 'exited':
            if (job.cancelled) return { stopReason: 'cancelled' };
            throw outcome.error;
          case 'failed': {
            if (job.cancelled) return { stopReason: 'cancelled' };
            if (outcome.retryable && this.hooks.retryTurnInPlace && transient < this.tuning.transientRetries) {
              const delay = backoff(this.tuning.transientBackoffMs, transient, this.tuning.maxBackoffMs);
              this.logger.warn(`turn failed with a transient error (${outcome.code ?? '?'}: ${outcome.message}); retrying (${transient + 1}/${this.tuning.transientRetries})`);
              this.announceRetry(runtime, outcome, transient + 1, delay);
              await this.pause(delay, job);
              if (job.cancelled) return { stopReason: 'cancelled' };
              // The next attempt's events must flow: the failed attempt's hold ends here.
              job.releaseEvents?.();
              turn.reset();
              retrying = { failure: outcome, retries: transient };
              continue;
            }
            throw turnFailedError(outcome, transient);
          }
          default:
            return assertNever(outcome, 'turn outcome');
        }
      }
    } finally {
      watchdog?.stop();
      job.onCancel = undefined;
      turns.running = undefined;
      // Whatever text is still held goes out before the response.
      this.sessions.flush(runtime);
    }
  }

  /**
   * `session/send`, or the end of the turn if that comes first: the answer only
   * says zcode admitted the input, and the turn's own events are what end a prompt. A build that
   * answers late, never, or under another id must not hold a finished prompt for the request
   * timeout; the missing answer is logged when it finally fails (or arrives).
   */
  private async sendOrEnd(runtime: SessionRuntime, prompt: ZcodePrompt, job: PromptJob, turn: RunningTurn): Promise<void> {
    const sent = this.send(runtime, prompt, job, turn);
    const ended = turn.outcome.then((outcome) => outcome.kind);
    const first = await Promise.race([sent.then(() => 'acked' as const), ended]);
    // `turn.sent` was set by the answer itself, at its place in the stream (send below).
    if (first === 'acked') return;
    if (first !== 'completed' && first !== 'failed') return void sent.catch(() => undefined);
    this.logger.warn(`zcode ended the turn of ${runtime.zcodeId} before it answered session/send (the acknowledgement is missing)`);
    sent.then(
      () => this.logger.debug(`session/send of ${runtime.zcodeId} was answered after its turn had ended`),
      (error: unknown) => this.logger.warn(`session/send of ${runtime.zcodeId} was never answered: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  /**
   * zcode's in-place retry of the failed turn, or the end of the retried turn if that comes first
   * (as `sendOrEnd`). When zcode cannot retry in place, the failure being retried is the answer.
   */
  private async retryInPlaceOrEnd(runtime: SessionRuntime, turn: RunningTurn, failure: Extract<Outcome, { kind: 'failed' }>, retries: number): Promise<void> {
    const retryInPlace = this.hooks.retryTurnInPlace;
    const attempt = turn.outcome;
    const onAccepted = (): void => {
      if (turn.outcome === attempt) turn.sent = true;
    };
    const retried = retryInPlace ? retryInPlace({ sessionId: runtime.zcodeId }, { onAccepted }) : Promise.resolve(false);
    const accepted = retried.then(
      (ok) => (ok ? ('accepted' as const) : ('refused' as const)),
      (error: unknown) => {
        this.logger.warn(`zcode could not retry the failed turn of ${runtime.zcodeId} in place: ${error instanceof Error ? error.message : String(error)}`);
        return 'refused' as const;
      },
    );
    const first = await Promise.race([accepted, attempt.then(() => 'ended' as const)]);
    if (first === 'refused') throw turnFailedError(failure, retries);
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
  private async drainCancelled(runtime: SessionRuntime, turns: SessionTurns, job: PromptJob): Promise<'ready' | 'restarted'> {
    const old = turns.lingering;
    if (!old) return 'ready';
    this.logger.info(`waiting for the cancelled turn of ${runtime.zcodeId} to end before sending the next prompt`);
    this.notify(runtime, { kind: 'waitingForCancelledTurn', severity: 'info', title: bt(this.sessions.locale, 'Waiting for zcode to finish stopping the previous turn…') });
    this.backend.stop({ sessionId: runtime.zcodeId });
    let timer: NodeJS.Timeout | undefined;
    // Ends zcode's status polling (untilIdle) when this wait is over, whatever ended it.
    const waited = lingering();
    const asked = this.untilIdle(runtime, Promise.race([old.ended, waited.ended]));
    const outcome = await Promise.race([
      old.ended.then(() => 'ended' as const),
      asked.then(() => 'ended' as const),
      new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.tuning.cancelDrainMs))),
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
    const seconds = Math.round(this.tuning.cancelDrainMs / 1000);
    const busyElsewhere = this.sessions.allRuntimes.some((other) => other !== runtime && this.state.get(other)?.running?.sent === true);
    if (busyElsewhere) {
      throw new RequestError(
        -32603,
        bt(
          this.sessions.locale,
          'zcode has not stopped the previous turn of this session {0} s after it was cancelled. Restarting zcode would end it, but other sessions are running turns: send this again once they have finished (the bridge then restarts zcode), or restart zcode now ("ZCode: Restart zcode").',
          seconds,
        ),
        { zcode: { status: 'cancelledTurnStillRunning' } },
      );
    }
    this.logger.warn(`zcode did not end the cancelled turn of ${runtime.zcodeId} within ${seconds} s of the next prompt; restarting zcode and resuming the session`);
    this.notify(runtime, {
      kind: 'restartingZcode',
      severity: 'warning',
      title: bt(this.sessions.locale, 'zcode did not stop the previous turn; restarting zcode and resuming this session…'),
      facts: { waitedMs: this.tuning.cancelDrainMs },
    });
    // The exit ends every lingering turn and settles the running attempts (onDidExit above).
    await this.backend.restart();
    if (turns.lingering === old) turns.lingering = undefined;
    return 'restarted';
  }

  /**
   * Each transient retry is shown (docs/acp.md "Retries"): a notice with the cause, the attempt and the
   * delay, so a slow answer is never a silent one. Backoff: `transientBackoffMs` doubling per
   * attempt up to `maxBackoffMs`, at most `transientRetries` attempts (500 ms, 1 s by default).
   */
  private announceRetry(runtime: SessionRuntime, outcome: Extract<Outcome, { kind: 'failed' }>, attempt: number, delayMs: number): void {
    const locale = this.sessions.locale;
    const why = bt(locale, outcome.cause && outcome.cause !== 'unknown' ? outcome.cause.replace(/_/g, ' ') : 'a transient error');
    this.notify(runtime, {
      kind: 'retrying',
      severity: 'warning',
      title: bt(locale, "zcode's turn failed ({0}); retrying in {1} s (attempt {2} of {3})…", why, (delayMs / 1000).toFixed(1), attempt, this.tuning.transientRetries),
      facts: { attempt, of: this.tuning.transientRetries, delayMs, ...(outcome.cause ? { cause: outcome.cause } : {}) },
    });
  }

  /** A notice of the bridge's own, apart from the model's text (notices.ts). */
  private notify(runtime: SessionRuntime, notice: TurnNotice): void {
    this.sessions.emitPerClient(runtime, (caps) => noticeUpdate(notice, caps));
  }

  /**
   * Resolves when zcode says the session is idle (asked every `quietMs` while `ended` has not
   * come): the end of a cancelled turn whose `turn.completed` was lost is noticed too. Never rejects.
   */
  private async untilIdle(runtime: SessionRuntime, ended: Promise<void>): Promise<void> {
    let done = false;
    void ended.then(() => (done = true));
    while (!done) {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, this.tuning.watchdog.quietMs).unref())]);
      if (done) return;
      if ((await askStatus(this.backend, runtime, this.tuning.watchdog.readTimeoutMs)) === 'idle') {
        this.logger.info(`zcode says the cancelled turn of ${runtime.zcodeId} has ended (session/read); its end event did not arrive`);
        return;
      }
    }
  }

  /** `session/send` with the busy (busyRetry.ts) and eviction rules. */
  private async send(runtime: SessionRuntime, prompt: ZcodePrompt, job: PromptJob, turn: RunningTurn): Promise<void> {
    let resumed = false;
    // Marked where zcode's answer stands in the stream: every event after it is this turn's, every
    // event before it an earlier turn's (turnState.ts), whenever this function's continuation runs.
    // A late answer to an earlier attempt (reset() gives each attempt its own outcome) is not this one's.
    const attempt = turn.outcome;
    const onAccepted = (): void => {
      if (turn.outcome === attempt) turn.sent = true;
    };
    const sendOnce = async (): Promise<void> => {
      try {
        await this.backend.send({ sessionId: runtime.zcodeId, content: prompt.content, ...(prompt.attachments.length > 0 ? { attachments: prompt.attachments } : {}) }, { onAccepted });
      } catch (error) {
        if (!isNotActive(error) || resumed) throw error;
        // Evicted after idling: resume (and re-subscribe) once, then retry.
        resumed = true;
        this.sessions.markInactive(runtime);
        await this.sessions.ensureOpen(runtime);
        await sendOnce();
      }
    };
    await retryWhileBusy(sendOnce, {
      policy: { retries: this.tuning.busyRetries, backoffMs: this.tuning.busyBackoffMs, maxBackoffMs: this.tuning.maxBackoffMs },
      wait: async (ms) => {
        if (!job.cancelled) await this.pause(ms, job);
        if (job.cancelled) throw RequestError.requestCancelled();
      },
      gaveUp: (attempts) => bt(this.sessions.locale, 'zcode is still busy with another prompt on this session (tried {0} times); try again when it has finished', attempts),
    });
  }

  /** A cancellable delay: a cancel of the job ends it early. */
  private pause(ms: number, job: PromptJob): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const previous = job.onCancel;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      job.onCancel = () => {
        previous?.();
        done();
      };
    });
  }

  private response(stopReason: StopReason, usage: Usage | undefined, terminal: Terminal | undefined): PromptResponse {
    const zcode: Record<string, unknown> = {};
    if (usage) zcode.usage = usage;
    if (terminal) zcode.terminal = terminal;
    // ACP's own (unstable) `usage` field: clients that read it (token counters) need no zcode
    // knowledge; the stable schema allows the extra field, and `_meta.zcode.usage` keeps zcode's
    // full figures. See docs/acp.md, "Usage".
    const acpUsage: TurnUsage | undefined = usage ? toAcpUsage(usage) : undefined;
    const response: UnstablePromptResponse = { stopReason };
    if (acpUsage) response.usage = acpUsage;
    if (Object.keys(zcode).length > 0) response._meta = { zcode };
    return response;
  }

  private turnsOf(runtime: SessionRuntime): SessionTurns {
    let turns = this.state.get(runtime);
    if (!turns) {
      turns = { holder: undefined, running: undefined, queue: [], idleWaiters: [], lingering: undefined };
      this.state.set(runtime, turns);
    }
    return turns;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/** A cancelled turn still running in zcode (or any one-shot end): `ended` resolves once, when `end()` is called. */
function lingering(): { ended: Promise<void>; end(): void } {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return { ended, end };
}

/** The SDK aborts a request's signal with -32800 on `$/cancel_request` and with the close error on disconnect. */
function isCancelRequest(reason: unknown): boolean {
  return reason instanceof RequestError && reason.code === -32800;
}
