/**
 * The chat's steer and zcode's own rewind, for one chat controller (vscode-free, like it):
 * - a steer goes into the running turn; its real outcome comes from the bridge's steer-state
 *   notifications — queued, then drained (the turn took it in) or deferred (the turn ended first:
 *   it will be the next turn's input, and the chip offers Remove); a steer that did not reach zcode
 *   (or was removed) puts its text back into the composer: what the user typed is never lost;
 * - a rewind at a user message (Ask again, Undo this turn's file changes) runs the user's choice
 *   (the environment's dialogs) and reloads what zcode now holds: the same session cut, or the fork.
 */
import { HistoryChangedNotification, notificationOf, RemoveQueuedRequest, SteerRequest, SteerStateNotification } from '../../bridge/acp/extensions/contractDescriptors.ts';
import { DidRestoreDraftNotification, type IpcNotification } from '../../webview-ui/contract.ts';
import type { ChatEnvironment, ChatHost, ChatSessions } from './chatPorts.ts';
import * as T from './transcript.ts';

export interface SteerRewindDeps {
  host: ChatHost;
  sessions: ChatSessions;
  env: ChatEnvironment;
  state(): T.TranscriptState;
  queue(change: T.Change): void;
  /** Posts to the webview if it listens (a restored text is dropped otherwise: the host has no composer). */
  send<P>(notification: IpcNotification<P>, params: P): void;
  sendPrompt(text: string): void;
  showError(error: unknown): void;
}

export class ChatSteerRewind {
  /** The steer of this chat that zcode still holds: what Remove drops and what goes back into the composer. */
  private pending: { sessionId: string; text: string; queueItemId?: string } | undefined;
  /** A rewind of this chat is running: its own reload covers the bridge's history-changed notice. */
  private rewinding = false;

  constructor(private readonly d: SteerRewindDeps) {}

  async steer(text: string): Promise<void> {
    const session = this.d.state().session;
    const sessionId = session.sessionId;
    if (!text || !sessionId) return;
    if (!session.running) return this.d.sendPrompt(text);
    // The webview does not send a steer the session reports unavailable; a stale view might: say why, keep the text.
    const blocked = session.featureUnavailable?.steer;
    if (blocked !== undefined) return this.failed(text, blocked);
    this.d.queue(T.patchSession(this.d.state(), { steer: 'sent' }));
    this.pending = { sessionId, text };
    // The steer's message joins the running turn where it was sent, now: zcode's answer may come
    // after the turn has ended, and a message added then would stand after the answer and look like
    // a turn of its own. A refused steer takes it out again.
    const shown = T.addSteerMessage(this.d.state(), text);
    this.d.queue(shown.change);
    try {
      const answer = await this.d.host.call(SteerRequest, { sessionId, content: text });
      if (this.pending?.text === text && answer.queueItemId) this.pending.queueItemId = answer.queueItemId;
    } catch (error) {
      this.pending = undefined;
      this.d.queue(T.removeItem(this.d.state(), shown.id));
      this.failed(text, this.d.env.errorMessage(error));
    }
  }

  /** Remove on a deferred steer: zcode drops it before it starts; its text goes back into the composer. */
  async removeDeferred(): Promise<void> {
    const pending = this.pending;
    if (!pending?.queueItemId || this.d.state().session.steer !== 'deferred') return;
    try {
      const { removed } = await this.d.host.call(RemoveQueuedRequest, { sessionId: pending.sessionId, queueItemId: pending.queueItemId });
      // `removed: false`: it started already (or another client removed it); the notifications say which.
      if (!removed) return;
      this.afterRemoved(pending);
    } catch (error) {
      this.d.showError(error);
    }
  }

  /** A `_zcode/*` notification; true when it was one of the steer's or the history's. */
  onNotification(notification: { method: string; params: unknown }): boolean {
    const steer = notificationOf(SteerStateNotification, notification);
    if (steer) {
      if (steer.sessionId !== this.d.state().session.sessionId) return true;
      const mine = this.pending && (!steer.queueItemId || !this.pending.queueItemId || steer.queueItemId === this.pending.queueItemId) ? this.pending : undefined;
      switch (steer.state) {
        case 'queued':
        case 'deferred':
          this.d.queue(T.patchSession(this.d.state(), { steer: steer.state }));
          break;
        case 'drained':
          if (mine) this.pending = undefined;
          this.d.queue(T.patchSession(this.d.state(), { steer: 'drained' }));
          break;
        case 'removed':
          if (mine) this.afterRemoved(mine);
          else this.d.queue(T.patchSession(this.d.state(), { steer: 'none' }));
          break;
      }
      return true;
    }
    const history = notificationOf(HistoryChangedNotification, notification);
    if (history) {
      // Another client cut the conversation this chat shows: show what zcode holds now.
      if (history.sessionId === this.d.state().session.sessionId && !this.rewinding) void this.reload(history.sessionId);
      return true;
    }
    return false;
  }

  /** "Ask again" / "Undo this turn's file changes" on a user message of the transcript. */
  async rewindMessage(itemId: string, action: 'askAgain' | 'filesOnly'): Promise<void> {
    const state = this.d.state();
    const sessionId = state.session.sessionId;
    const items = state.list.items;
    const at = state.list.index.get(itemId) ?? -1;
    const item = items[at];
    if (!sessionId || item?.type !== 'user' || !this.d.env.rewindMessage) return;
    const blocked = action === 'askAgain' ? state.session.featureUnavailable?.rewindLatestPrompt : state.session.featureUnavailable?.fileRewind;
    if (blocked !== undefined) return this.d.showError(new Error(blocked));
    const latest = items.findLastIndex((i) => i.type === 'user') === at;
    this.rewinding = true;
    try {
      const result = await this.d.env.rewindMessage(sessionId, { text: item.text, latest, action });
      if (result?.forked) await this.d.sessions.loadSession(result.sessionId);
      else if (result?.historyChanged) await this.d.sessions.loadSession(sessionId);
    } catch (error) {
      this.d.showError(error);
    } finally {
      this.rewinding = false;
    }
  }

  private afterRemoved(pending: { text: string }): void {
    if (this.pending === pending) this.pending = undefined;
    this.d.queue(T.patchSession(this.d.state(), { steer: 'none' }));
    this.d.send(DidRestoreDraftNotification, { text: pending.text, attachments: [] });
  }

  /** A steer that did not reach zcode: the reason in the transcript, the text back in the composer. */
  private failed(text: string, reason: string): void {
    this.d.queue(T.patchSession(this.d.state(), { steer: 'none' }));
    this.d.queue(T.addError(this.d.state(), reason, false));
    this.d.send(DidRestoreDraftNotification, { text, attachments: [] });
  }

  private async reload(sessionId: string): Promise<void> {
    try {
      await this.d.sessions.loadSession(sessionId);
    } catch (error) {
      this.d.showError(error);
    }
  }
}
