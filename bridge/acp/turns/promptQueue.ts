/**
 * One zcode session's prompt queue: the one prompt that holds the session, its running zcode turn,
 * the prompts waiting behind it (FIFO), and a cancelled turn zcode has not ended yet. The turn
 * engine (turns.ts) keeps one per session; the bridge's queue is the only prompt queue.
 *
 * Every change of who holds the session or who waits is announced (`SessionQueues`' `announce`,
 * sent as `_zcode/session/queue`, docs/acp.md "Prompt queue") in the same synchronous step as the
 * change: a prompt that arrives (holding or waiting), a release (with the hand-over to the next
 * prompt, which is told `begin` only after the announcement), a waiting prompt that leaves
 * cancelled. The release runs once the previous prompt's response has been written (turns.ts), so
 * no announcement of a new holder can overtake that response.
 */
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import type { SessionQueueParams } from '../extensions/notificationSchemas.ts';
import type { PromptJob, RunningTurn } from './turnState.ts';

/** A session's queue as `_zcode/session/queue` carries it (the session id apart). */
export type QueueState = Omit<SessionQueueParams, 'sessionId'>;

/** A session's prompt queue changed (`sessionId`: one of its ACP ids, standing for all its aliases). */
export interface QueueChange {
  sessionId: string;
  state: QueueState;
}

/** A one-shot end: `ended` resolves once, when `end()` is called. */
export interface Lingering {
  readonly ended: Promise<void>;
  end(): void;
}

export class PromptQueue {
  /** The job that owns the session right now (taken synchronously when granted). */
  holder: PromptJob | undefined = undefined;
  /** Its zcode turn, once it runs. */
  running: RunningTurn | undefined = undefined;
  readonly queue: PromptJob[] = [];
  readonly idleWaiters: Array<() => void> = [];
  /**
   * A cancelled turn zcode had not ended when the prompt answered `cancelled`:
   * resolves when its end arrives (or zcode goes away). The next prompt waits for it.
   */
  lingering: Lingering | undefined = undefined;

  /** `changed`: who holds the session or who waits changed, by the action of `by`. */
  constructor(private readonly changed: (by: PromptJob) => void = () => {}) {}

  /** Is a prompt running or waiting? */
  get busy(): boolean {
    return this.holder !== undefined || this.queue.length > 0;
  }

  /**
   * Wait until the job owns the session (FIFO), or is cancelled while waiting. Ownership is taken
   * synchronously when granted, so two prompts arriving together can never both run.
   */
  acquire(job: PromptJob): Promise<void> {
    if (!this.holder && this.queue.length === 0) {
      this.holder = job;
      this.changed(job);
      if (!job.cancelled) job.begin();
      return Promise.resolve();
    }
    this.queue.push(job);
    const turn = new Promise<void>((resolve) => {
      // Called by `release` (the session is the job's) or by a cancel (it leaves the queue).
      job.wake = () => {
        job.wake = undefined;
        const index = this.queue.indexOf(job);
        if (index !== -1) this.queue.splice(index, 1);
        if (!job.cancelled && !this.holder) this.holder = job;
        resolve();
        // A hand-over is announced by `release`, once, with the release.
        if (job.cancelled) this.changed(job);
      };
    });
    this.changed(job);
    return turn;
  }

  /**
   * A job is done: if it owned the session, hand it to the next queued job or tell idle waiters.
   * One announcement for both; the next job hears `begin` after it.
   */
  release(job: PromptJob): void {
    if (this.holder !== job) return;
    this.holder = undefined;
    this.running = undefined;
    const next = this.queue[0];
    next?.wake?.();
    this.changed(job);
    if (next) {
      // A queued job is never a cancelled one (a cancel takes it out), so `wake` made it the holder.
      if (!next.cancelled) next.begin();
      return;
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Who holds the session and who waits, oldest first. */
  state(): QueueState {
    return { ...(this.holder ? { running: this.holder.entry } : {}), waiting: this.queue.map((job) => job.entry) };
  }
}

/** A cancelled turn still running in zcode (or any one-shot end): `ended` resolves once, when `end()` is called. */
export function lingering(): Lingering {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return { ended, end };
}

/**
 * Which queue a prompt waits in: its runtime's, or, for a session zcode has not created yet (a lazy
 * placeholder), one kept under the ACP id until the runtime exists and adopts it, holder and all.
 */
export class SessionQueues {
  private readonly byRuntime = new WeakMap<SessionRuntime, PromptQueue>();
  /** Queues of ACP ids with no runtime yet (a placeholder's first prompts). */
  private readonly early = new Map<string, PromptQueue>();
  /** Open `batch` calls, and the sessions whose changes wait for the outermost one to end. */
  private batching = 0;
  private readonly pending = new Map<PromptQueue | string, string>();

  /**
   * `announce`: a session's queue changed; `acpId` is an id of the session (one that has a runtime
   * stands for all its aliases), `state` the queue as it is now.
   */
  constructor(
    private readonly runtimeOf: (acpId: string) => SessionRuntime | undefined,
    private readonly announce: (acpId: string, state: QueueState) => void = () => {},
  ) {}

  /** The session's queue now, for `_zcode/session/queue` (idle when it has none). */
  stateOf(acpId: string): QueueState {
    return this.find(acpId)?.state() ?? { waiting: [] };
  }

  /**
   * Run `fn` announcing the changes it makes once per session, when it returns: one synchronous
   * step (a `session/cancel` of several prompts) is one announcement, in the same step. Only for
   * steps that hand the session to no one: a hand-over inside would call the new holder's `begin`
   * before the announcement it must follow (a cancel never hands over; `release` does, later).
   */
  batch<T>(fn: () => T): T {
    this.batching++;
    try {
      return fn();
    } finally {
      if (--this.batching === 0) {
        const sessions = [...this.pending.values()];
        this.pending.clear();
        for (const acpId of sessions) this.announce(acpId, this.stateOf(acpId));
      }
    }
  }

  /** The runtime's queue, made on first use from the queues its ACP ids had before it existed. */
  of(runtime: SessionRuntime): PromptQueue {
    let turns = this.byRuntime.get(runtime);
    if (!turns) {
      for (const alias of runtime.aliases) {
        turns ??= this.early.get(alias);
        this.early.delete(alias);
      }
      turns ??= new PromptQueue(this.changed);
      this.byRuntime.set(runtime, turns);
    }
    return turns;
  }

  /** The runtime's queue if it has one (never creates it). */
  peek(runtime: SessionRuntime): PromptQueue | undefined {
    return this.byRuntime.get(runtime);
  }

  /** The queue a prompt for `acpId` takes its place in now. */
  forPrompt(acpId: string): PromptQueue {
    const runtime = this.runtimeOf(acpId);
    if (runtime) return this.of(runtime);
    let turns = this.early.get(acpId);
    if (!turns) {
      turns = new PromptQueue(this.changed);
      this.early.set(acpId, turns);
    }
    return turns;
  }

  /** The queue of the session `acpId` belongs to now, if it has one (a runtime's is made on first use). */
  private find(acpId: string): PromptQueue | undefined {
    const runtime = this.runtimeOf(acpId);
    return runtime ? this.of(runtime) : this.early.get(acpId);
  }

  /**
   * What a queue announces is its session's queue as it is now, addressed by the acting job's ACP
   * id: a placeholder's early queue that a runtime adopted speaks for the runtime's aliases.
   */
  private readonly changed = (by: PromptJob): void => {
    if (this.batching === 0) return this.announce(by.acpId, this.stateOf(by.acpId));
    this.pending.set(this.find(by.acpId) ?? by.acpId, by.acpId);
  };

  /** An ACP id's early queue with nothing left in it is dropped. */
  forgetIdle(acpId: string): void {
    const early = this.early.get(acpId);
    if (early && !early.busy) this.early.delete(acpId);
  }
}
