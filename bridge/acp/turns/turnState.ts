/**
 * The state of one prompt and of the zcode turn that runs it (turns.ts drives them), and the
 * shapes a finished turn takes on the wire.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { PromptResponse, StopReason } from '@agentclientprotocol/sdk';
import type { PromptResponse as UnstablePromptResponse, Usage as AcpUsage } from '@agentclientprotocol/sdk/unstable';
import type { Logger } from '../../logger.ts';
import type { Usage } from '../../zcode/protocol.ts';
import { assertNever } from '../requestErrors.ts';
import { initializeResponse } from '../transport/initializeAnswer.ts';
import type { TurnSignal } from '../translation.ts';
import type { PromptSender, QueuedPromptEntry } from '../extensions/notificationSchemas.ts';

/** The unstable ACP `Usage` of a prompt response (only the SDK's unstable entry point types it). */
export type TurnUsage = AcpUsage;

export type Outcome =
  | { kind: 'completed'; stopReason: StopReason; usage?: Usage }
  | { kind: 'failed'; code?: number | string; message: string; retryable: boolean; cause?: string; retryAfterMs?: number }
  | { kind: 'exited'; error: RequestError }
  | { kind: 'cancel_timeout' };

/** The `turn.terminal` figures that go into the prompt response's `_meta.zcode.terminal`. */
export type Terminal = Omit<Extract<TurnSignal, { type: 'turn_terminal' }>, 'type' | 'background' | 'turnId'>;

/** How a prompt takes its place (`TurnEngine.prompt`). */
export interface PromptOrder {
  /** Queue at once and run the preflight when the session is this prompt's (every prompt but `/steer`). */
  inOrder?: boolean;
  /** The prompt holds the session now (after the previous one's response): the client may be told. */
  onStart?: () => void;
  /** Who sent it and the client's id of it, for its entry in the queue (queueEntry.ts); unknown when absent. */
  sentBy?: PromptSender;
  promptId?: string;
}

/** One `session/prompt` request, from arrival to its response. */
export class PromptJob {
  cancelled = false;
  /** Set while the job is the running turn: called on cancel. */
  onCancel: (() => void) | undefined;
  /** Resolves the job's wait in the queue. */
  wake: (() => void) | undefined;
  /**
   * Registers work to run once the prompt's response has been written to the client (or the
   * client went away): given by the request handler (responseOrder.ts). Without it, that work runs
   * when the job ends.
   */
  whenAnswered: ((fn: () => void) => void) | undefined;
  /**
   * The job holds the session to run a slash command, not a zcode turn: the session is not
   * "running" for `/steer` meanwhile (there is no turn to steer).
   */
  commandRunning = false;
  /** Releases the session's events held since this job's turn ended (`SessionEvents.holdEvents`, sessionEvents.ts). */
  releaseEvents: (() => void) | undefined;
  private readonly aborter = new AbortController();
  /**
   * Aborts when the prompt is cancelled (`session/cancel` of its session, `$/cancel_request`) or
   * its request goes away (the client disconnected). Given to work done in the prompt's name
   * outside a zcode turn — a slash command waiting for a compaction outcome or for idle — so that
   * `session/cancel` stops it too, not only the request's own signal.
   */
  readonly signal: AbortSignal = this.aborter.signal;
  /** Called once, when the job first holds the session (`begin`). */
  private onStart: (() => void) | undefined;

  /** `entry`: how the prompt shows in its session's queue (queueEntry.ts). */
  constructor(
    readonly acpId: string,
    readonly entry: QueuedPromptEntry,
    onStart?: () => void,
  ) {
    this.onStart = onStart;
  }

  /** The job holds the session (promptQueue.ts): its `onStart`, the first time only. */
  begin(): void {
    const onStart = this.onStart;
    this.onStart = undefined;
    onStart?.();
  }

  abort(reason: unknown): void {
    if (!this.aborter.signal.aborted) this.aborter.abort(reason);
  }
}

/**
 * The turn zcode is running for a job.
 *
 * `turn.terminal` normally precedes `turn.completed`. When it has not come by `turn.completed` and
 * this zcode is known to send it (`terminalWaitMs()` > 0: the engine saw one before), the
 * completion is held until it arrives or the wait runs out, so that its figures reach the
 * response; the turn still ends exactly once (the held completion is what settles it — on the
 * figures, the timer, a cancel grace or a backend exit alike). The job keeps the session while it
 * waits, so a prompt queued behind starts after it and gets its own turn's figures. A terminal
 * naming another turn (`turnId`), or arriving before this turn was sent/started, is not ours.
 * Builds before 0.15.2 never send `turn.terminal` and must not pay the wait on every prompt: the
 * engine waits only once this zcode has sent one, so on a build that sends it late the first
 * prompt after the bridge starts answers without the figures (logged), later ones with them.
 */
export class RunningTurn {
  /**
   * zcode accepted `session/send` for the current attempt. Set when its answer is read, before
   * any event after it (ZcodeBackend.send `onAccepted`), so an event is "before" or "after" the
   * send by its place in zcode's stream, not by when a continuation ran.
   */
  sent = false;
  /** A non-background `turn.started` was seen for the current attempt. */
  started = false;
  /** zcode's id of the current attempt's turn (from `turn.started`), when it gives one. */
  turnId: string | undefined;
  terminal: Terminal | undefined;
  private resolveOutcome!: (outcome: Outcome) => void;
  outcome!: Promise<Outcome>;
  /** The current attempt's outcome is decided (`settle` ran). */
  settled = false;
  private graceTimer: NodeJS.Timeout | undefined;
  /** A `turn.completed` waiting (bounded) for its `turn.terminal`. */
  private held: Extract<Outcome, { kind: 'completed' }> | undefined;
  private terminalTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly job: PromptJob,
    /** How long a completion may wait for a missing `turn.terminal` (0: settle at once). */
    private readonly terminalWaitMs: () => number = () => 0,
  ) {
    this.reset();
  }

  /** A new attempt (transient retry): forget the previous one's state. */
  reset(): void {
    this.clearTimers();
    this.held = undefined;
    this.sent = false;
    this.started = false;
    this.settled = false;
    this.turnId = undefined;
    this.terminal = undefined;
    this.outcome = new Promise<Outcome>((resolve) => (this.resolveOutcome = resolve));
  }

  settle(outcome: Outcome): void {
    // The turn already completed in zcode: whatever else ends the wait, the completion is the outcome.
    const final = this.held ?? outcome;
    this.settled = true;
    this.held = undefined;
    this.clearTimers();
    this.resolveOutcome(final);
  }

  startGrace(ms: number): void {
    this.graceTimer ??= setTimeout(() => this.settle({ kind: 'cancel_timeout' }), ms);
  }

  /** Whether the completion is being held for its `turn.terminal` (tests, diagnostics). */
  get awaitingTerminal(): boolean {
    return this.held !== undefined;
  }

  onSignal(signal: TurnSignal, logger: Logger): void {
    switch (signal.type) {
      case 'turn_started':
        if (!signal.background) {
          this.started = true;
          this.turnId = signal.turnId;
        }
        return;
      case 'turn_terminal': {
        if (signal.background) return;
        if (!this.started && !this.sent) return void logger.debug('ignoring the turn.terminal of an earlier turn');
        if (signal.turnId !== undefined && this.turnId !== undefined && signal.turnId !== this.turnId) {
          return void logger.debug(`ignoring the turn.terminal of turn ${signal.turnId} (running: ${this.turnId})`);
        }
        const { type: _t, background: _b, turnId: _id, ...figures } = signal;
        this.terminal = figures;
        if (this.held) this.settle(this.held);
        return;
      }
      case 'turn_completed': {
        if (signal.background) return;
        if (!this.started && !this.sent) return void logger.debug('ignoring the end of an earlier turn');
        if (this.held) return void logger.debug('ignoring a second turn.completed');
        const completed: Extract<Outcome, { kind: 'completed' }> = { kind: 'completed', stopReason: signal.stopReason, usage: signal.usage };
        const wait = this.terminal ? 0 : this.terminalWaitMs();
        if (wait <= 0) return this.settle(completed);
        this.held = completed;
        this.terminalTimer = setTimeout(() => {
          logger.debug(`turn.terminal did not follow turn.completed within ${wait} ms; answering without its figures`);
          this.settle(completed);
        }, wait);
        return;
      }
      case 'turn_failed':
        if (signal.background) return;
        if (!this.started && !this.sent) return void logger.debug('ignoring the failure of an earlier turn');
        this.settle({
          kind: 'failed',
          code: signal.code,
          message: signal.message,
          retryable: signal.retryable,
          ...(signal.cause ? { cause: signal.cause } : {}),
          ...(signal.retryAfterMs !== undefined ? { retryAfterMs: signal.retryAfterMs } : {}),
        });
        return;
      case 'steer':
      case 'background_tasks':
      case 'config':
      case 'compaction':
      case 'title':
      case 'checkpoint':
        return;
      default:
        assertNever(signal, 'turn signal');
    }
  }

  private clearTimers(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    if (this.terminalTimer) clearTimeout(this.terminalTimer);
    this.graceTimer = undefined;
    this.terminalTimer = undefined;
  }
}

/** zcode's per-turn usage as ACP's (unstable) `usage`; undefined when the required totals are missing. */
export function toAcpUsage(usage: Usage): TurnUsage | undefined {
  const inputTokens = tokenCount(usage.inputTokens);
  const outputTokens = tokenCount(usage.outputTokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const totalTokens = usage.totalTokens === undefined ? inputTokens + outputTokens : tokenCount(usage.totalTokens);
  if (totalTokens === undefined) return undefined;
  const out: TurnUsage = { totalTokens, inputTokens, outputTokens };
  const thoughtTokens = tokenCount(usage.reasoningTokens);
  const cachedReadTokens = tokenCount(usage.cacheReadTokens);
  const cachedWriteTokens = tokenCount(usage.cacheWriteTokens);
  if (thoughtTokens !== undefined) out.thoughtTokens = thoughtTokens;
  if (cachedReadTokens !== undefined) out.cachedReadTokens = cachedReadTokens;
  if (cachedWriteTokens !== undefined) out.cachedWriteTokens = cachedWriteTokens;
  return out;
}

/** A figure ACP's `uint64` accepts, or undefined. */
function tokenCount(n: number | undefined): number | undefined {
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A failed turn as the prompt's JSON-RPC error (docs/acp.md "Errors"). ACP gives -32000 one
 * meaning, "authentication required": clients answer it with their login flow (offering the
 * `authMethods` of `initialize`). So only a failure the user fixes by signing in or giving zcode
 * credentials (`auth_failed`) is -32000, with those methods in `data.authMethods`; every other
 * failure (rate limit, quota, captcha, a provider's 500 …) is -32603 with the readable message.
 * zcode's code, the cause, whether it is worth retrying, the retries made and any wait zcode asked
 * for are under `data.zcode`, never the JSON-RPC code.
 */
export function turnFailedError(outcome: Extract<Outcome, { kind: 'failed' }>, retries: number): RequestError {
  const zcode = {
    ...(outcome.code !== undefined ? { code: outcome.code } : {}),
    ...(outcome.cause ? { cause: outcome.cause } : {}),
    retryable: outcome.retryable,
    retries,
    ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
  };
  if (outcome.cause === 'auth_failed') return new RequestError(-32000, outcome.message, { authMethods: initializeResponse().authMethods, zcode });
  return new RequestError(-32603, outcome.message, { zcode });
}

/** A finished prompt's response: its stop reason, zcode's figures under `_meta.zcode`, and ACP's own `usage`. */
export function promptResponse(stopReason: StopReason, usage: Usage | undefined, terminal: Terminal | undefined): PromptResponse {
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
