/**
 * A session's title, in one place: zcode announces it on current builds (`session.titleUpdated`,
 * the translator's `title` signal, signals.ts), older builds only keep it (`session/read` after the
 * first prompt, zcode's placeholder "New session" until it has named the session). Every change goes
 * out as `session_info_update`, once.
 *
 * Older builds: after a completed turn of a session whose title the bridge does not know yet, the
 * title is read (bounded, failures only logged; the read starts once zcode has the prompt and is
 * repeated after the turn if still missing) and announced before the prompt's response. Once a
 * title is known — or zcode announces titles itself, or its `session/read` has none — it is not
 * read again.
 */
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { sessionTitleOf } from '../../zcode/protocol.ts';
import type { SessionEvents } from './sessionEvents.ts';
import type { SessionRuntime } from './sessionRuntime.ts';

/** The title zcode gives a session before it has named it. */
const PLACEHOLDER_TITLE = 'New session';

/** A `session/read` started while the turn runs; `settled` once its answer is in. */
export interface TitleRead {
  settled: boolean;
  title: string | undefined;
  promise: Promise<string | undefined>;
}

export class SessionTitles {
  /** Runtimes whose `session/read` had no title at all (an older zcode): not asked again. */
  private readonly untitled = new WeakSet<SessionRuntime>();
  /** Runtimes the user renamed in the bridge only: zcode's generated titles no longer replace it. */
  private readonly renamed = new WeakSet<SessionRuntime>();

  constructor(
    private readonly backend: Pick<ZcodeBackend, 'read'>,
    private readonly events: Pick<SessionEvents, 'emit'>,
    private readonly logger: Logger,
    /** How long a title read may delay a prompt's response. */
    private readonly readMs: number,
  ) {}

  /** zcode announced a title (`source` is set by current builds' `session.titleUpdated`: no reads from then on). */
  fromEvent(runtime: SessionRuntime, title: string, source: string | undefined): void {
    if (source !== undefined) runtime.titleFromEvents = true;
    if (this.renamed.has(runtime) && source !== 'custom') return;
    if (runtime.title === title) return;
    this.set(runtime, title);
  }

  /** The user's title, kept by the bridge (a zcode build without v4 rename, a session zcode has not stored yet). */
  renameLocally(runtime: SessionRuntime, title: string): void {
    this.renamed.add(runtime);
    if (runtime.title !== title) this.set(runtime, title);
  }

  /** zcode has the prompt: start reading the title if the bridge may need it (undefined otherwise). */
  readEarly(runtime: SessionRuntime): TitleRead | undefined {
    if (!this.needsTitle(runtime)) return undefined;
    const early: TitleRead = { settled: false, title: undefined, promise: this.read(runtime) };
    void early.promise.then((title) => {
      early.settled = true;
      early.title = title;
    });
    return early;
  }

  /**
   * After a completed turn: announce the title zcode gave the session if the bridge did not know it.
   * A title `early` already read is announced at once and nothing is returned (the response keeps
   * its place in the stream); otherwise the returned promise settles once the title is announced or
   * known to be missing (a placeholder or missing title is read again).
   */
  afterTurn(runtime: SessionRuntime, early: TitleRead | undefined): Promise<void> | undefined {
    if (!this.needsTitle(runtime)) return undefined;
    if (early?.settled && this.announce(runtime, early.title)) return undefined;
    return (async () => {
      let title = await early?.promise;
      if (!title || title === PLACEHOLDER_TITLE) {
        if (!this.needsTitle(runtime)) return;
        title = await this.read(runtime);
      }
      this.announce(runtime, title);
    })();
  }

  /** No title known yet (or still zcode's placeholder), and zcode may have one. */
  private needsTitle(runtime: SessionRuntime): boolean {
    return (!runtime.title || runtime.title === PLACEHOLDER_TITLE) && !this.untitled.has(runtime) && !runtime.titleFromEvents;
  }

  /** Announce `title` if it is a real one the bridge did not know; false if it is no real title. */
  private announce(runtime: SessionRuntime, title: string | undefined): boolean {
    if (!title || title === PLACEHOLDER_TITLE) return false;
    // zcode may have announced one meanwhile (`fromEvent`): no second update.
    if (!this.needsTitle(runtime) || title === runtime.title) return true;
    this.set(runtime, title);
    return true;
  }

  private set(runtime: SessionRuntime, title: string): void {
    runtime.title = title;
    this.events.emit(runtime, [{ sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() }]);
  }

  /** The title zcode has for the session (`session/read`, bounded); undefined when unknown. Never rejects. */
  private async read(runtime: SessionRuntime): Promise<string | undefined> {
    try {
      const read = await withTimeout(this.backend.read({ sessionId: runtime.zcodeId }), this.readMs);
      const title = sessionTitleOf(read);
      if (typeof title === 'string' && title !== '') return title;
      this.untitled.add(runtime);
    } catch (error) {
      this.logger.debug(`could not read the title of ${runtime.zcodeId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return undefined;
  }
}

/** `promise`, or a rejection after `ms` (a late rejection of `promise` is ignored). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
