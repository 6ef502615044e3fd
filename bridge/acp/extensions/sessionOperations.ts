/**
 * The session operations behind the bridge's `_zcode/session/*` extension methods (docs/acp.md
 * "Methods"; registered in extensionMethods.ts), which the slash commands (slashCommands.ts) share.
 *
 * Rules:
 * - Params are validated with the zod schemas of contractDescriptors.ts → -32602 with a readable
 *   message. An unknown session → -32002 (`ctx.materialize`).
 * - zcode is always addressed by the zcode session id behind the ACP id.
 * - A -32601 from zcode (0.16 removed steer/rewind/rewindCascade; 0.14.8 has no rewindCascade)
 *   becomes -32601 naming the zcode method and the version that has it. `session/checkpoints`
 *   missing is not an error: the answer is the checkpoints zcode announced with `checkpoint.created`
 *   (current builds), else `{checkpoints: [], latestOnly: true}` (fork and rewind still take the latest).
 * - Operations zcode refuses while a turn runs (compact, rewind) wait for the session's prompts to
 *   finish (`ctx.whenIdle`; a slash command that already holds the session in the prompt queue
 *   has waited its turn instead) and retry a busy answer a bounded number of times (the backend's own
 *   background-task turns are not in the prompt queue).
 * - `compact` answers only when the outcome is known: zcode's `state.updated {patch:{compaction}}`
 *   after the request, bounded by a timeout; a cancelled request stops the compaction.
 * - `cancelBackgroundTask` closes the task's card (failed, `_meta.backgroundTask.cancelled`, and
 *   `terminal_exit` for Bash) and re-announces the task list under every alias of the session
 *   (`ctx.notifySession`) — unless zcode's own `cancelled` lifecycle event got there first (the
 *   translator then already did both).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { buildConfigOptions, CONFIG_ID, validateConfigValue } from '../../translate/config.ts';
import { parseCheckpointArg } from '../../translate/promptContent.ts';
import { cancelledBackgroundTaskUpdates, listBackgroundTasks } from '../../translate/sessionTranslator.ts';
import { ZcodeError } from '../../zcode/backend.ts';
import type { Disposable } from '../../zcode/backend.ts';
import { compactionOutcomeOf } from '../../zcode/protocol.ts';
import type { CheckpointTarget, ZcodeEvent } from '../../zcode/protocol.ts';
import type { BridgeContext, SessionHandle } from '../context.ts';
import { toRequestError } from '../requestErrors.ts';
import { BackgroundTasksNotification } from './contractDescriptors.ts';
import { steerWithV4 } from './v4Operations.ts';
import { noRunningTurn } from './capabilities.ts';
import { compactionOf, rewindResponseOf, toCheckpointInfo } from './operationResults.ts';
import { retryWhileBusy } from '../turns/busyRetry.ts';
import { bt } from '../../l10n/messages.ts';
import type { CheckpointsResult } from '../../zcode/operationShapes.ts';
import type {
  CancelBackgroundTaskParams,
  CancelBackgroundTaskResponse,
  CheckpointsResponse,
  CompactResponse,
  ForkParams,
  ForkResponse,
  GoalParams,
  GoalResponse,
  RewindParams,
  RewindResponse,
  SetModeParams,
  SetModeResponse,
  SetThoughtLevelParams,
  SetThoughtLevelResponse,
  SteerParams,
  SteerResponse,
} from './contractDescriptors.ts';

export interface ExtensionTuning {
  /** How long `compact` waits for zcode's outcome after the request was accepted (default 5 min). */
  compactTimeoutMs: number;
  /** After a cancelled compact request: how long to wait for zcode to confirm (default 5 s). */
  compactCancelGraceMs: number;
  /** Busy answers retried before giving up (default 8, about 10 s in total). */
  busyRetries: number;
  /** First busy backoff, doubled per attempt up to `maxBackoffMs`. */
  busyBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_EXTENSION_TUNING: ExtensionTuning = {
  compactTimeoutMs: 5 * 60_000,
  compactCancelGraceMs: 5_000,
  busyRetries: 8,
  busyBackoffMs: 150,
  maxBackoffMs: 2_000,
};

/** zcode methods that not every build has, and which builds do (docs/zcode-protocol.md "Build families"). */
const VERSION_REQUIREMENT: Record<string, string> = {
  'session/steer': 'removed in zcode 0.16; use zcode 0.14.8–0.15.x',
  'session/rewind': 'removed in zcode 0.16; use zcode 0.14.8–0.15.x',
  'session/rewindCascade': 'needs zcode 0.15.x: 0.14.8 does not have it and 0.16 removed it',
};

/**
 * A zcode failure as the client should see it: -32601 names the zcode method and the versions
 * that have it; everything else keeps zcode's code and message (requestErrors.ts).
 */
export function operationError(error: unknown, fallbackMethod?: string): RequestError {
  if (error instanceof ZcodeError && error.code === -32601) {
    const method = error.method ?? fallbackMethod ?? 'this method';
    const requirement = VERSION_REQUIREMENT[method] ?? 'needs zcode 0.14.8 or newer';
    return new RequestError(-32601, `${method} is not supported by this zcode version (${requirement})`, {
      reason: 'unsupportedByZcode',
      zcode: { code: error.code, method, message: error.message },
    });
  }
  return toRequestError(error);
}

/** The operations, shared by the extension methods and the slash commands. */
export class SessionOperations {
  constructor(
    private readonly ctx: BridgeContext,
    private readonly tuning: ExtensionTuning = DEFAULT_EXTENSION_TUNING,
  ) {}

  /** `session/fork` from the latest or a given checkpoint; the fork's id is a real zcode id, loadable at once. */
  async fork(p: ForkParams): Promise<ForkResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    const result = await this.zcode(() => this.ctx.backend.fork({ sessionId: handle.zcodeSessionId, target: targetOf(p.checkpointId) }));
    // Builds differ: `forkedSessionId`, `session.sessionId` or `sessionId`.
    const candidates = [result.forkedSessionId, result.session?.sessionId, result.sessionId];
    const sessionId = candidates.find((id): id is string => typeof id === 'string' && id !== '' && id !== handle.zcodeSessionId);
    if (!sessionId) throw RequestError.internalError({ result }, 'zcode answered session/fork without the new session id');
    this.ctx.logger.info(`forked ${p.sessionId} (zcode ${handle.zcodeSessionId}) into zcode session ${sessionId}`);
    return { sessionId, cwd: handle.cwd };
  }

  /** `session/rewind`, or `session/rewindCascade` with `cascade` (forks of removed checkpoints go too). */
  async rewind(p: RewindParams, signal: AbortSignal, holdsSession = false): Promise<RewindResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    if (!holdsSession) await this.idle(p.sessionId, signal);
    const result = await this.busyRetry(() => this.ctx.backend.rewind({ sessionId: handle.zcodeSessionId, target: targetOf(p.checkpointId), cascade: p.cascade === true }), signal);
    return rewindResponseOf(result);
  }

  async goal(p: GoalParams): Promise<GoalResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    const withObjective = p.action === 'set' || p.action === 'replace';
    const result = await this.zcode(() =>
      this.ctx.backend.goal({ sessionId: handle.zcodeSessionId, action: p.action, ...(withObjective ? { objective: p.objective } : {}) }),
    );
    return { goal: result.goal ?? null };
  }

  /** Compact, then wait for zcode's outcome (`state.updated {patch:{compaction:{status}}}`). */
  async compact(p: { sessionId: string; instructions?: string }, signal: AbortSignal, holdsSession = false): Promise<CompactResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    if (!holdsSession) await this.idle(p.sessionId, signal);
    // Listen before asking: the outcome may follow the reply immediately.
    const waiter = new CompactionWaiter(this.ctx, handle.zcodeSessionId, this.tuning);
    try {
      const result = await this.busyRetry(() => this.ctx.backend.compact({ sessionId: handle.zcodeSessionId, ...(p.instructions ? { instructions: p.instructions } : {}) }), signal);
      // A build that answers with the outcome itself needs no waiting.
      const immediate = compactionOf(result, this.ctx.locale) ?? compactionOf(result?.compaction, this.ctx.locale);
      if (immediate) return immediate;
      return await waiter.wait(signal);
    } finally {
      waiter.dispose();
    }
  }

  /**
   * Append instructions to the running turn. Needs a running prompt. Current builds: v4 `sendText`
   * with delivery "guide" (whether the turn took it in is told by `steerState`, from zcode's
   * `turn.steerQueued` / `turn.steerDrained`, never by the ACK); seed builds: `session/steer`.
   */
  async steer(p: SteerParams): Promise<SteerResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    if (!handle.running) throw noRunningTurn(p.sessionId);
    const caps = await this.ctx.features.requireFeature('steer', 'Steer');
    if (!caps.v4) {
      await this.zcode(() => this.ctx.backend.steer({ sessionId: handle.zcodeSessionId, content: p.content }));
      return { accepted: true };
    }
    return steerWithV4(this.ctx, handle.zcodeSessionId, p.content);
  }

  async setMode(p: SetModeParams): Promise<SetModeResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    requireOffered(handle, CONFIG_ID.mode, p.mode, 'mode');
    await this.zcode(() => this.ctx.applyConfig(p.sessionId, { mode: p.mode }));
    return { mode: p.mode };
  }

  async setThoughtLevel(p: SetThoughtLevelParams): Promise<SetThoughtLevelResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    requireOffered(handle, CONFIG_ID.thoughtLevel, p.thoughtLevel, 'thoughtLevel');
    await this.zcode(() => this.ctx.applyConfig(p.sessionId, { thoughtLevel: p.thoughtLevel }));
    return { thoughtLevel: p.thoughtLevel };
  }

  async cancelBackgroundTask(p: CancelBackgroundTaskParams): Promise<CancelBackgroundTaskResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    const { cancelled } = await this.zcode(() => this.ctx.backend.cancelBackgroundTask({ sessionId: handle.zcodeSessionId, taskId: p.taskId }));
    if (cancelled) {
      // Empty when zcode's `session.updated {status:"cancelled"}` arrived before its reply: the
      // translator closed the card and announced the list already.
      const updates = cancelledBackgroundTaskUpdates(handle.translator, p.taskId);
      if (updates.length > 0) {
        this.ctx.sendUpdates(p.sessionId, updates);
        // Under every alias, like the core's own task-list notifications (not just the id used here).
        this.ctx.notifySession(p.sessionId, BackgroundTasksNotification, { tasks: listBackgroundTasks(handle.translator) });
      }
    }
    return { cancelled };
  }

  async checkpoints(p: { sessionId: string }): Promise<CheckpointsResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    let result: CheckpointsResult;
    try {
      result = await this.ctx.backend.checkpoints({ sessionId: handle.zcodeSessionId });
    } catch (error) {
      if (error instanceof ZcodeError && error.code === -32601) {
        // Current builds: no listing method, but every checkpoint is announced (`checkpoint.created`).
        const announced = handle.announcedCheckpoints ?? [];
        return announced.length > 0 ? { checkpoints: announced.map((c) => ({ ...c })) } : { checkpoints: [], latestOnly: true };
      }
      throw operationError(error, 'session/checkpoints');
    }
    return { checkpoints: result.checkpoints.flatMap(toCheckpointInfo) };
  }

  // -------------------------------------------------------------------------------------------

  /** Run a zcode call, translating its failure (-32601 → the version message). */
  private async zcode<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw operationError(error);
    }
  }

  /** Wait until the session's prompts are done; a cancelled request stops waiting. */
  private async idle(acpSessionId: string, signal: AbortSignal): Promise<void> {
    await abortable(this.ctx.whenIdle(acpSessionId), signal);
  }

  /** Retry a busy answer (a backend-started turn, a compaction) with backoff (busyRetry.ts), then a clear error. */
  private async busyRetry<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T> {
    try {
      return await retryWhileBusy(call, {
        policy: { retries: this.tuning.busyRetries, backoffMs: this.tuning.busyBackoffMs, maxBackoffMs: this.tuning.maxBackoffMs },
        wait: (ms) => abortable(delay(ms), signal),
        gaveUp: (attempts) => bt(this.ctx.locale, 'zcode is busy with this session (a turn or a compaction is running; tried {0} times); try again when it has finished', attempts),
      });
    } catch (error) {
      throw operationError(error);
    }
  }
}

/** Waits for one compaction outcome of a zcode session: zcode's event, a backend exit, or the timeout. */
class CompactionWaiter implements Disposable {
  private readonly subscriptions: Disposable[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private settle!: (response: CompactResponse) => void;
  private readonly outcome = new Promise<CompactResponse>((resolve) => (this.settle = resolve));

  constructor(
    private readonly ctx: BridgeContext,
    private readonly zcodeSessionId: string,
    private readonly tuning: ExtensionTuning,
  ) {
    this.subscriptions.push(
      ctx.backend.onEvent((event) => this.onEvent(event)),
      ctx.backend.onDidExit(() => this.settle({ outcome: 'failed', message: bt(ctx.locale, 'zcode exited before the compaction finished') })),
    );
  }

  /** The outcome; the request's cancellation stops the compaction (`session/stop`) and waits a grace period for zcode's word. */
  wait(signal: AbortSignal): Promise<CompactResponse> {
    const seconds = Math.round(this.tuning.compactTimeoutMs / 1000);
    const L = this.ctx.locale;
    this.later(this.tuning.compactTimeoutMs, { outcome: 'failed', message: bt(L, 'zcode did not report the outcome of the compaction within {0} s', seconds) });
    const onAbort = (): void => {
      this.ctx.backend.stop({ sessionId: this.zcodeSessionId });
      this.later(this.tuning.compactCancelGraceMs, { outcome: 'cancelled', message: bt(L, 'The compaction was cancelled.') });
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return this.outcome.finally(() => signal.removeEventListener('abort', onAbort));
  }

  private later(ms: number, response: CompactResponse): void {
    // Not unref'd: a pending answer is work in progress (dispose clears it).
    this.timers.push(setTimeout(() => this.settle(response), ms));
  }

  private onEvent(event: ZcodeEvent): void {
    if (event.sessionId !== this.zcodeSessionId || event.type !== 'state.updated') return;
    // Either era: `patch.compaction.status`, or (current builds) only a `reason` such as
    // "session_compact_failed" with no status: every documented outcome settles the request.
    const response = compactionOf(compactionOutcomeOf(event.payload), this.ctx.locale);
    if (response) this.settle(response);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const t of this.timers) clearTimeout(t);
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** `checkpointId` absent or "latest" → zcode's latest checkpoint. */
export function targetOf(checkpointId: string | undefined): CheckpointTarget {
  return parseCheckpointArg(checkpointId ?? '');
}

/** The value must be one the session offers (mode / thought level lists from zcode's settings, else the defaults). */
function requireOffered(handle: SessionHandle, configId: string, value: string, param: string): void {
  const problem = validateConfigValue(handle.configOptions ?? buildConfigOptions(handle.settings), configId, value);
  if (problem) throw RequestError.invalidParams({ [param]: value }, problem);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `promise`, or -32800 as soon as `signal` aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(RequestError.requestCancelled());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(RequestError.requestCancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
