/**
 * The turn engine: ACP `session/prompt` → zcode `session/send` + the event stream → one stop reason.
 *
 * Rules (docs/acp.md "Methods", "Cancelling a turn zcode does not stop"):
 * - Prompts on one zcode session run one at a time, FIFO (a second prompt while one runs waits
 *   behind it; advertised in `initialize` `_meta.zcode.promptQueue`). `session/cancel` cancels the
 *   running prompt AND every queued one of that session: each gets `cancelled`.
 * - A prompt that waits its turn (`inOrder`: every prompt but `/steer`, handlers.ts) takes its
 *   place in the queue synchronously, when its request arrives, and runs its preflight (a slash
 *   command such as `/compact`) only once it holds the session: the arrival order is the order
 *   things happen, whatever each preflight awaits. A session not created in zcode yet (a lazy
 *   placeholder) queues under its ACP id; the queue moves to the runtime when it exists.
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
 *   and never ends a turn; a late one is waited for, once this zcode has sent one (turnState.ts `RunningTurn`).
 */
import { bt } from '../../l10n/messages.ts';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ContentBlock, PromptResponse } from '@agentclientprotocol/sdk';
import { promptToZcode } from '../../translate/promptContent.ts';
import type { ZcodePrompt } from '../../translate/promptContent.ts';
import { BackendErrorCode } from '../../zcode/backend.ts';
import type { Disposable, ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { backoff } from './busyRetry.ts';
import { SessionTitles } from '../sessions/titles.ts';
import type { TitleRead } from '../sessions/titles.ts';
import { assertNever, toRequestError } from '../requestErrors.ts';
import type { SessionManager } from '../sessions/sessionTable.ts';
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import type { PromptRewrite } from '../context.ts';
import { PromptJob, promptResponse, RunningTurn, turnFailedError } from './turnState.ts';
import type { Outcome, PromptOrder } from './turnState.ts';
import { watchTurn } from './turnWatchdog.ts';
import { lingering, SessionQueues } from './promptQueue.ts';
import type { PromptQueue, QueueChange, QueueState } from './promptQueue.ts';
import { promptSender, queueEntry } from './queueEntry.ts';
import { Emitter } from '../../zcode/emitter.ts';
import { DEFAULT_TURN_TUNING } from './turnTuning.ts';
import type { TurnHooks, TurnTuning } from './turnTuning.ts';
import { pause, retryInPlaceOrEnd, sendOrEnd } from './turnAttempt.ts';
import { drainCancelled } from './cancelDrain.ts';
import type { DrainDeps } from './cancelDrain.ts';
import { noticeUpdate, retryNotice } from './notices.ts';
import type { TurnNotice } from './notices.ts';

export class TurnEngine implements Disposable {
  private readonly queues: SessionQueues;
  /** Jobs per ACP id (for `session/cancel`, including prompts still materializing). */
  private readonly jobs = new Map<string, Set<PromptJob>>();
  private readonly subscriptions: Disposable[];
  /** This zcode has sent a `turn.terminal` (so a missing one is worth a short wait). */
  private sendsTurnTerminal = false;
  /** The session titles (titles.ts); signals.ts hands zcode's title events to the same keeper. */
  readonly titles: SessionTitles;
  /** What an attempt and the wait after a cancel need of the engine (turnAttempt.ts, cancelDrain.ts). */
  private readonly deps: DrainDeps;
  private readonly queueChanges: Emitter<QueueChange>;

  constructor(
    private readonly sessions: SessionManager,
    private readonly backend: ZcodeBackend,
    private readonly hooks: TurnHooks,
    private readonly logger: Logger,
    private readonly tuning: TurnTuning = DEFAULT_TURN_TUNING,
  ) {
    this.queueChanges = new Emitter<QueueChange>('TurnEngine.onQueueChanged', logger);
    this.queues = new SessionQueues((acpId) => sessions.peek(acpId), (sessionId, state) => this.queueChanges.fire({ sessionId, state }));
    this.titles = new SessionTitles(backend, sessions.events, logger, tuning.titleReadMs);
    this.deps = {
      backend,
      sessions,
      hooks,
      logger,
      tuning,
      notify: (runtime, notice) => this.notify(runtime, notice),
      runsTurn: (runtime) => this.queues.peek(runtime)?.running?.sent === true,
    };
    this.subscriptions = [
      sessions.events.onSignal(({ runtime, signal }) => {
        if (signal.type === 'turn_terminal') this.sendsTurnTerminal = true;
        const turns = this.queues.of(runtime);
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
          this.queues.of(runtime).lingering?.end();
          this.queues.of(runtime).running?.settle({ kind: 'exited', error });
        }
      }),
    ];
  }

  /**
   * The session's later events wait until the job's response has been written (sessionTable.ts
   * `holdEvents`). Held when a turn's end event settles the job's turn, so every client sees the
   * response before what zcode sent after the turn, and on a slash command's request (`/steer`) —
   * an order kept by state, not by when continuations run. Released when the response is written
   * (or its client is gone), when the job runs another attempt, or when it ends without a
   * response hook.
   */
  private holdEvents(runtime: SessionRuntime, job: PromptJob): void {
    if (job.releaseEvents) return;
    const release = this.sessions.events.holdEvents(runtime);
    let released = false;
    job.releaseEvents = () => {
      if (released) return;
      released = true;
      job.releaseEvents = undefined;
      release();
    };
    job.whenAnswered?.(job.releaseEvents);
  }

  /** Every change of a session's prompt queue, as it happens (promptQueue.ts says when). */
  onQueueChanged(listener: (change: QueueChange) => void): Disposable {
    return this.queueChanges.event(listener);
  }

  /** A session's prompt queue now (idle: nothing running, nothing waiting). */
  queueState(acpId: string): QueueState {
    return this.queues.stateOf(acpId);
  }

  /** Is a prompt running (or queued) on this runtime? */
  isBusy(runtime: SessionRuntime): boolean {
    return this.queues.of(runtime).busy;
  }

  /** Does a prompt hold the session for a zcode turn (not for a slash command waiting its turn)? */
  isRunning(runtime: SessionRuntime): boolean {
    const holder = this.queues.of(runtime).holder;
    return holder !== undefined && !holder.commandRunning;
  }

  /** Resolves when nothing runs or waits on the runtime. */
  whenIdle(runtime: SessionRuntime): Promise<void> {
    if (!this.isBusy(runtime)) return Promise.resolve();
    return new Promise((resolve) => this.queues.of(runtime).idleWaiters.push(resolve));
  }

  /**
   * Run one prompt to its stop reason. `signal` is the request's: it aborts on `$/cancel_request`
   * (cancel this prompt) and on connection close (ignored: the turn is shared). Call it
   * synchronously from the request handler; `preflight` (session check, slash commands) runs after
   * the prompt is registered and may answer the prompt itself. It gets the job's signal, which
   * aborts on `session/cancel` as well as on the request's own signal; a preflight answer given
   * after a cancel is turned into `cancelled` (ACP: a cancelled prompt answers `cancelled`), its
   * `_meta` kept. With `inOrder` the prompt queues at once and its preflight runs when it holds the
   * session; without it (`/steer`) the preflight runs at once and only a prompt for zcode queues.
   */
  async prompt(
    acpId: string,
    prompt: readonly ContentBlock[],
    signal: AbortSignal,
    preflight?: (signal: AbortSignal, holdEvents: () => void) => Promise<PromptResponse | PromptRewrite | undefined>,
    whenAnswered?: (fn: () => void) => void,
    order: PromptOrder = {},
  ): Promise<PromptResponse> {
    const { inOrder = false, onStart } = order;
    let blocks = prompt;
    // Registered before the first await: a `session/cancel` right behind the prompt must find it. The
    // queue calls `onStart` when the prompt holds the session, after announcing that (promptQueue.ts).
    const job = new PromptJob(acpId, queueEntry(prompt, order.sentBy ?? promptSender(undefined), order.promptId), onStart);
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
    // In order: the place in the queue is taken now, before anything is awaited.
    let turns: PromptQueue | undefined = inOrder ? this.queues.forPrompt(acpId) : undefined;
    const placed = turns?.acquire(job);
    try {
      if (placed) {
        await placed;
        if (job.cancelled) return { stopReason: 'cancelled' };
      }
      const holdEvents = (): void => {
        const runtime = this.sessions.peek(acpId);
        if (runtime) this.holdEvents(runtime, job);
      };
      job.commandRunning = true;
      const handled = await preflight?.(job.signal, holdEvents);
      job.commandRunning = false;
      if (handled && 'sendInstead' in handled) blocks = handled.sendInstead;
      else if (handled) return job.cancelled ? { ...handled, stopReason: 'cancelled' } : handled;
      if (job.cancelled) return { stopReason: 'cancelled' };
      const runtime = await this.sessions.materialize(acpId);
      if (job.cancelled) return { stopReason: 'cancelled' };
      // A prompt queued under a placeholder's id holds the runtime's queue by now (it adopted the
      // placeholder's); one that did not queue yet — or whose placeholder joined a runtime that
      // already had its own queue — takes its place there.
      const own = this.queues.of(runtime);
      if (own !== turns) {
        turns?.release(job);
        turns = own;
        await turns.acquire(job);
        if (job.cancelled) return { stopReason: 'cancelled' };
      }
      return await this.run(runtime, turns, job, promptToZcode(blocks));
    } catch (error) {
      if (job.cancelled) return { stopReason: 'cancelled' };
      throw toRequestError(error);
    } finally {
      signal.removeEventListener('abort', onAbort);
      jobs.delete(job);
      if (jobs.size === 0) this.jobs.delete(acpId);
      job.commandRunning = false;
      // The next prompt starts once this one's response has been written (or its client is gone):
      // whatever it sends of its own (a command's text, `_zcode/session/promptStarted`) follows it.
      const queue = turns;
      const handOver = (): void => {
        queue?.release(job);
        this.queues.forgetIdle(acpId);
      };
      if (job.whenAnswered) job.whenAnswered(handOver);
      else handOver();
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
      const turns = this.queues.of(runtime);
      for (const job of turns.queue) jobs.add(job);
      if (turns.holder) jobs.add(turns.holder);
    }
    // The waiting prompts leave in one announcement.
    this.queues.batch(() => jobs.forEach((job) => this.cancelJob(job)));
  }

  /** Cancel only the running prompt of a runtime (a permission dialog answered `cancelled`). */
  cancelRunning(runtime: SessionRuntime): void {
    const holder = this.queues.of(runtime).holder;
    if (holder) this.cancelJob(holder);
  }

  private cancelJob(job: PromptJob): void {
    if (job.cancelled) return;
    job.cancelled = true;
    job.abort(RequestError.requestCancelled());
    job.wake?.();
    job.onCancel?.();
  }

  private async run(runtime: SessionRuntime, turns: PromptQueue, job: PromptJob, prompt: ZcodePrompt): Promise<PromptResponse> {
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
        if ((await drainCancelled(this.deps, runtime, turns, job)) === 'restarted') {
          // The restart settled this attempt as "exited" before anything was sent: start it afresh
          // on the new zcode, with the session resumed.
          turn.reset();
          await this.sessions.ensureOpen(runtime);
        }
        if (job.cancelled) return { stopReason: 'cancelled' };
        if (retrying) await retryInPlaceOrEnd(this.deps, runtime, turn, retrying.failure, retrying.retries);
        else await sendOrEnd(this.deps, runtime, prompt, job, turn);
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
            return promptResponse(job.cancelled ? 'cancelled' : outcome.stopReason, outcome.usage, turn.terminal);
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
              // Backoff: `transientBackoffMs` doubling per attempt up to `maxBackoffMs`, at most `transientRetries`.
              this.notify(runtime, retryNotice(this.sessions.locale, outcome.cause, transient + 1, this.tuning.transientRetries, delay));
              await pause(delay, job);
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
      this.sessions.events.flush(runtime);
    }
  }

  /** A notice of the bridge's own, apart from the model's text (notices.ts). */
  private notify(runtime: SessionRuntime, notice: TurnNotice): void {
    this.sessions.events.emitPerClient(runtime, (caps) => noticeUpdate(notice, caps));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.queueChanges.dispose();
  }
}

/** The SDK aborts a request's signal with -32800 on `$/cancel_request` and with the close error on disconnect. */
function isCancelRequest(reason: unknown): boolean {
  return reason instanceof RequestError && reason.code === -32800;
}
