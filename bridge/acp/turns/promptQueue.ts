/**
 * One zcode session's prompt queue: the one prompt that holds the session, its running zcode turn,
 * the prompts waiting behind it (FIFO), and a cancelled turn zcode has not ended yet. The turn
 * engine (turns.ts) keeps one per session; the bridge's queue is the only prompt queue.
 */
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
