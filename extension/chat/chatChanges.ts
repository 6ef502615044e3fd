/**
 * The chat's changes cards: records the files a turn of this window changes (the environment's
 * `ChatChanges`, extension/changes/), hands the turn's card over when the turn ends, answers the
 * cards' Review and Undo, and shows the cards stored for a session's earlier turns after a load.
 * vscode-free, like the controller that owns it.
 */
import type { SessionNotification } from '@agentclientprotocol/sdk';
import type { ChangesItem } from '../../webview-ui/viewModel.ts';
import type { ChatChanges, ChatEnvironment } from './chatPorts.ts';
import * as T from './transcript.ts';

export interface ChangeCardsDeps {
  env: ChatEnvironment;
  state(): T.TranscriptState;
  queue(change: T.Change): void;
  showError(error: unknown): void;
}

/** One turn's recording (what `ChatChanges.beginTurn` returns). */
export type ChangeTurn = ReturnType<ChatChanges['beginTurn']>;

export class ChatChangeCards {
  /** The running turn's change recorder (this window's prompts only). */
  private recorder: { sessionId: string; turn: ChangeTurn } | undefined;

  constructor(private readonly d: ChangeCardsDeps) {}

  /** A prompt of this window starts a turn on `sessionId`: record what its tools change (undefined: no cards). */
  beginTurn(sessionId: string, prompt: string): ChangeTurn | undefined {
    const turn = this.d.env.changes?.beginTurn(sessionId, prompt);
    this.recorder = turn ? { sessionId, turn } : undefined;
    return turn;
  }

  /** Every session update passes here: the recording turn's tool calls tell what they change. */
  note(n: SessionNotification): void {
    const u = n.update;
    if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && this.recorder?.sessionId === n.sessionId) this.recorder.turn.note(u);
  }

  /**
   * The turn ended: recording stops and its card is stored, also when the user switched sessions
   * meanwhile (the card comes back with the session). Resolves to the card, undefined when the turn
   * changed no file or storing failed (logged: a missing card must not fail the turn).
   */
  endTurn(turn: ChangeTurn | undefined): Promise<ChangesItem | undefined> | undefined {
    if (this.recorder?.turn === turn) this.recorder = undefined;
    return turn?.finish().catch((error: unknown) => {
      this.d.env.log('warn', `chat: recording the turn's changes failed: ${this.d.env.errorMessage(error)}`);
      return undefined;
    });
  }

  /** A card's Review or Undo, with the webview's values: only strings reach the change store. */
  command(action: 'review' | 'undo', params: { changeSetId?: unknown; path?: unknown }): void {
    const changeSetId = typeof params.changeSetId === 'string' ? params.changeSetId : undefined;
    const path = typeof params.path === 'string' ? params.path : undefined;
    if (changeSetId) void this.run(action, changeSetId, path);
  }

  private async run(action: 'review' | 'undo', changeSetId: string, path: string | undefined): Promise<void> {
    const changes = this.d.env.changes;
    if (!changes) return;
    try {
      if (action === 'review') return await changes.review(changeSetId, path);
      const card = await changes.undo(changeSetId, path);
      const state = this.d.state();
      if (card && T.hasItem(state, card.id)) this.d.queue(T.putItem(state, card));
    } catch (error) {
      this.d.showError(error);
    }
  }

  /** Shows the changes cards stored for the session's earlier turns (after a load or a reload). */
  async showStored(sessionId: string): Promise<void> {
    try {
      const cards = (await this.d.env.changes?.restored(sessionId)) ?? [];
      const state = this.d.state();
      if (state.session.sessionId !== sessionId) return;
      for (const card of cards) if (!T.hasItem(state, card.id)) this.d.queue(T.putItem(state, card));
    } catch (error) {
      this.d.env.log('warn', `chat: loading stored changes failed: ${this.d.env.errorMessage(error)}`);
    }
  }
}
