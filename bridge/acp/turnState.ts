/**
 * The state of one prompt and of the zcode turn that runs it (turns.ts drives them), and the
 * shapes a finished turn takes on the wire.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { StopReason } from '@agentclientprotocol/sdk';
import type { Logger } from '../zcode/backend.ts';
import type { Usage } from '../zcode/protocol.ts';
import { assertNever } from './errors.ts';
import type { TurnSignal } from './translation.ts';

/** The unstable ACP `Usage` of a prompt response (the stable SDK has no type for it). */
export interface TurnUsage {
  totalTokens: number;
  inputTokens: number;
  outputTokens: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
}

export type Outcome =
  | { kind: 'completed'; stopReason: StopReason; usage?: Usage }
  | { kind: 'failed'; code?: number | string; message: string; retryable: boolean }
  | { kind: 'exited'; error: RequestError }
  | { kind: 'cancel_timeout' };

export type Terminal = Omit<Extract<TurnSignal, { type: 'turn_terminal' }>, 'type' | 'background'>;

/** One `session/prompt` request, from arrival to its response. */
export class PromptJob {
  cancelled = false;
  /** Set while the job is the running turn: called on cancel. */
  onCancel: (() => void) | undefined;
  /** Resolves the job's wait in the queue. */
  wake: (() => void) | undefined;
  private readonly aborter = new AbortController();
  /**
   * Aborts when the prompt is cancelled (`session/cancel` of its session, `$/cancel_request`) or
   * its request goes away (the client disconnected). Given to work done in the prompt's name
   * outside a zcode turn — a slash command waiting for a compaction outcome or for idle — so that
   * `session/cancel` stops it too, not only the request's own signal.
   */
  readonly signal: AbortSignal = this.aborter.signal;
  constructor(readonly acpId: string) {}

  abort(reason: unknown): void {
    if (!this.aborter.signal.aborted) this.aborter.abort(reason);
  }
}

/** The turn zcode is running for a job. */
export class RunningTurn {
  /** `session/send` went out for the current attempt. */
  sent = false;
  /** A non-background `turn.started` was seen for the current attempt. */
  started = false;
  terminal: Terminal | undefined;
  private resolveOutcome!: (outcome: Outcome) => void;
  outcome!: Promise<Outcome>;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(readonly job: PromptJob) {
    this.reset();
  }

  /** A new attempt (transient retry): forget the previous one's state. */
  reset(): void {
    this.sent = false;
    this.started = false;
    this.terminal = undefined;
    this.outcome = new Promise<Outcome>((resolve) => (this.resolveOutcome = resolve));
  }

  settle(outcome: Outcome): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.resolveOutcome(outcome);
  }

  startGrace(ms: number): void {
    this.graceTimer ??= setTimeout(() => this.settle({ kind: 'cancel_timeout' }), ms);
  }

  onSignal(signal: TurnSignal, logger: Logger): void {
    switch (signal.type) {
      case 'turn_started':
        if (!signal.background) this.started = true;
        return;
      case 'turn_terminal':
        if (!signal.background) {
          const { type: _t, background: _b, ...figures } = signal;
          this.terminal = figures;
        }
        return;
      case 'turn_completed':
        if (signal.background) return;
        if (!this.started && !this.sent) return void logger.debug('ignoring the end of an earlier turn');
        this.settle({ kind: 'completed', stopReason: signal.stopReason, usage: signal.usage });
        return;
      case 'turn_failed':
        if (signal.background) return;
        if (!this.started && !this.sent) return void logger.debug('ignoring the failure of an earlier turn');
        this.settle({ kind: 'failed', code: signal.code, message: signal.message, retryable: signal.retryable });
        return;
      case 'steer':
      case 'background_tasks':
      case 'config':
      case 'compaction':
      case 'title':
        return;
      default:
        assertNever(signal, 'turn signal');
    }
  }
}

/** zcode's per-turn usage as ACP's (unstable) `usage`; undefined when the required totals are missing. */
export function toAcpUsage(usage: Usage): TurnUsage | undefined {
  const { inputTokens, outputTokens } = usage;
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const out: TurnUsage = { totalTokens: usage.totalTokens ?? inputTokens + outputTokens, inputTokens, outputTokens };
  if (usage.reasoningTokens !== undefined) out.thoughtTokens = usage.reasoningTokens;
  if (usage.cacheReadTokens !== undefined) out.cachedReadTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) out.cachedWriteTokens = usage.cacheWriteTokens;
  for (const key of Object.keys(out) as Array<keyof TurnUsage>) {
    const value = out[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) delete out[key];
  }
  return out.totalTokens !== undefined && out.inputTokens !== undefined && out.outputTokens !== undefined ? out : undefined;
}

/** A failed turn as the prompt's JSON-RPC error: zcode's code (when numeric) and message. */
export function turnFailedError(outcome: Extract<Outcome, { kind: 'failed' }>, retries: number): RequestError {
  const numeric = typeof outcome.code === 'number' && Number.isInteger(outcome.code) ? outcome.code : undefined;
  // A string code cannot be a JSON-RPC code: -32000 ("server error") and zcode's code in data.
  return new RequestError(numeric ?? -32000, outcome.message, { zcode: { code: outcome.code, retryable: outcome.retryable, retries } });
}

