/**
 * One zcode session's prompt queue: the one prompt that holds the session, its running zcode turn,
 * the prompts waiting behind it (FIFO), and a cancelled turn zcode has not ended yet. The turn
 * engine (turns.ts) keeps one per session; the bridge's queue is the only prompt queue.
 */
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import type { PromptJob, RunningTurn } from './turnState.ts';

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
      return Promise.resolve();
    }
    this.queue.push(job);
    return new Promise<void>((resolve) => {
      job.wake = () => {
        job.wake = undefined;
        const index = this.queue.indexOf(job);
        if (index !== -1) this.queue.splice(index, 1);
        if (!job.cancelled && !this.holder) this.holder = job;
        resolve();
      };
    });
  }

  /** A job is done: if it owned the session, hand it to the next queued job or tell idle waiters. */
  release(job: PromptJob): void {
    if (this.holder !== job) return;
    this.holder = undefined;
    this.running = undefined;
    const next = this.queue[0];
    if (next) {
      next.wake?.();
      return;
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
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

  constructor(private readonly runtimeOf: (acpId: string) => SessionRuntime | undefined) {}

  /** The runtime's queue, made on first use from the queues its ACP ids had before it existed. */
  of(runtime: SessionRuntime): PromptQueue {
    let turns = this.byRuntime.get(runtime);
    if (!turns) {
      for (const alias of runtime.aliases) {
        turns ??= this.early.get(alias);
        this.early.delete(alias);
      }
      turns ??= new PromptQueue();
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
      turns = new PromptQueue();
      this.early.set(acpId, turns);
    }
    return turns;
  }

  /** An ACP id's early queue with nothing left in it is dropped. */
  forgetIdle(acpId: string): void {
    const early = this.early.get(acpId);
    if (early && !early.busy) this.early.delete(acpId);
  }
}
