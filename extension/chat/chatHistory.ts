/**
 * Paging back through a session the bridge replayed only the tail of (`_zcode/session/loadEarlier`):
 * the cursor of the page before what is shown, the page's updates collected while its request runs,
 * and the one change that puts the page in front of the transcript once the answer arrived.
 * vscode-free, like the controller that owns it.
 */
import type { SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import { earlierPageOf, LoadEarlierRequest } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { ChatHost } from './chatPorts.ts';
import * as T from './transcript.ts';

export interface HistoryDeps {
  host: ChatHost;
  state(): T.TranscriptState;
  queue(change: T.Change): void;
  showError(error: unknown): void;
}

export class ChatHistory {
  /**
   * The cursor of the page before what is shown; `page` while a `_zcode/session/loadEarlier` is on
   * its way (the updates marked with that cursor, collected until the answer prepends them at once).
   */
  private earlier: { sessionId: string; cursor: string; page?: SessionUpdate[] } | undefined;

  constructor(private readonly d: HistoryDeps) {}

  /**
   * True when `n` is an update of an earlier page: it goes before everything shown once its answer
   * arrived (loadEarlier), never appended as if it were new. A page nobody here asked for (a stale
   * one) is dropped.
   */
  collect(n: SessionNotification): boolean {
    const page = earlierPageOf(n.update);
    if (page === undefined) return false;
    if (this.earlier?.page && this.earlier.sessionId === n.sessionId && this.earlier.cursor === page) this.earlier.page.push(n.update);
    return true;
  }

  /** A load of the shown session finished; `earlierCursor`: the bridge replayed only the tail. */
  loaded(sessionId: string, earlierCursor: string | undefined): void {
    this.earlier = earlierCursor ? { sessionId, cursor: earlierCursor } : undefined;
    this.d.queue(T.patchSession(this.d.state(), { earlier: earlierCursor ? 'available' : 'none' }));
  }

  /** Another session is shown, or a load replays this one: its pages start over. */
  reset(): void {
    this.earlier = undefined;
  }

  /**
   * The user scrolled to the top of what is shown: the bridge sends the page before the cursor as
   * marked updates (gathered by `collect`), then answers; the page goes in front in one change.
   */
  async loadEarlier(): Promise<void> {
    const earlier = this.earlier;
    const transcript = this.d.state();
    if (!earlier || earlier.page || earlier.sessionId !== transcript.session.sessionId) return;
    earlier.page = [];
    this.d.queue(T.patchSession(transcript, { earlier: 'loading' }));
    let next: string | undefined;
    try {
      next = (await this.d.host.call(LoadEarlierRequest, { sessionId: earlier.sessionId, cursor: earlier.cursor })).cursor;
    } catch (error) {
      // Another load or session meanwhile: that transcript is gone. Otherwise scrolling up tries again.
      if (this.earlier !== earlier || transcript !== this.d.state()) return;
      earlier.page = undefined;
      this.d.queue(T.patchSession(transcript, { earlier: 'available' }));
      return this.d.showError(error);
    }
    if (this.earlier !== earlier || transcript !== this.d.state()) return;
    const updates = earlier.page;
    this.earlier = next ? { sessionId: earlier.sessionId, cursor: next } : undefined;
    this.d.queue(T.mergeChanges(T.prependHistory(transcript, updates), T.patchSession(transcript, { earlier: next ? 'available' : 'none' })));
  }
}
