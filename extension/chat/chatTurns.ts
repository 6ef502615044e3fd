/**
 * The turns one chat runs: a prompt goes to the bridge (`session/prompt`) or waits in the chat's
 * queue while a turn runs, the turn's end settles the transcript (stop reason or error line, its
 * changes card, a notification) and sends the next queued prompt; Stop, Retry (zcode's own retry
 * where it can, else the prompt again) and Remove of a queued prompt. vscode-free, like the
 * controller that owns it.
 */
import type { PromptResponse } from '@agentclientprotocol/sdk';
import { RetryTurnRequest } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { Attachment, ErrorAction, QueuedPrompt, SessionView } from '../../webview-ui/viewModel.ts';
import type { ChatChangeCards } from './chatChanges.ts';
import type { ChatEnvironment, ChatHost } from './chatPorts.ts';
import { failureAction } from './failureAction.ts';
import { buildPrompt, fileContents, summarize } from './prompt.ts';
import * as T from './transcript.ts';

export interface TurnDeps {
  host: ChatHost;
  env: ChatEnvironment;
  changes: ChatChangeCards;
  state(): T.TranscriptState;
  queue(change: T.Change): void;
  showError(error: unknown): void;
  /** Starts the bridge if needed and shows the session a prompt goes to (made if there is none). */
  ensureSession(): Promise<string>;
  /** A send failed: its text and attachments go back into the composer. */
  restoreDraft(text: string, attachments: Attachment[]): void;
  promptCapabilities(): SessionView['promptCapabilities'];
  /** A turn ended normally: its user message now has a checkpoint (transcriptCheckpoints.ts). */
  refreshCheckpoints(sessionId: string): void;
}

export class ChatTurns {
  /** What Retry re-sends. */
  private lastPrompt: { text: string; attachments: Attachment[] } | undefined;
  private queueCounter = 0;
  private queued: (QueuedPrompt & { full: Attachment[] })[] = [];

  constructor(private readonly d: TurnDeps) {}

  /** Sends a prompt now, or queues it while a turn runs (it goes when the turn ends). */
  async send(text: string, attachments: Attachment[]): Promise<void> {
    const d = this.d;
    if (!text && attachments.length === 0) return;
    if (d.state().session.running) {
      this.queued.push({ id: `q${++this.queueCounter}`, text, attachments: summarize(attachments), full: attachments });
      return this.publishQueue();
    }
    let sessionId: string;
    try {
      sessionId = await d.ensureSession();
    } catch (error) {
      d.queue(T.addError(d.state(), d.env.errorMessage(error), false));
      d.restoreDraft(text, attachments);
      return;
    }
    const transcript = d.state();
    this.lastPrompt = { text, attachments };
    d.queue(T.addUserPrompt(transcript, text, summarize(attachments)));
    const turn = d.changes.beginTurn(sessionId, text);
    const caps = d.promptCapabilities();
    const prompt = buildPrompt(text, attachments, caps, await fileContents(attachments, caps, d.env.fileContent));
    let outcome: { stopReason: PromptResponse['stopReason'] } | { error: string; action: ErrorAction };
    try {
      const response = await d.host.request('session/prompt', { sessionId, prompt });
      outcome = { stopReason: response.stopReason };
    } catch (error) {
      outcome = { error: d.env.errorMessage(error), action: failureAction(error) };
    }
    const changes = d.changes.endTurn(turn);
    if ('error' in outcome) d.restoreDraft(text, attachments);
    // The user may have switched sessions meanwhile: that transcript is gone, nothing to update.
    if (transcript !== d.state()) return;
    d.queue(T.endTurn(transcript, outcome));
    if (!('error' in outcome) && outcome.stopReason === 'end_turn') d.refreshCheckpoints(sessionId);
    void changes?.then((card) => {
      if (card && transcript === d.state()) d.queue(T.putItem(transcript, card));
    });
    // A turn the user stopped needs no notification: they know.
    if ('error' in outcome) d.env.notify?.({ kind: 'turnFailed', message: outcome.error });
    else if (outcome.stopReason !== 'cancelled') d.env.notify?.({ kind: 'turnEnded', summary: this.lastAgentText() });
    const next = this.queued.shift();
    if (next) {
      this.publishQueue();
      void this.send(next.text, next.full);
    }
  }

  /** Drops a queued prompt. */
  removeQueued(id: string): void {
    this.queued = this.queued.filter((q) => q.id !== id);
    this.publishQueue();
  }

  /** Another session is shown: its transcript starts with no queue, so none is kept here. */
  forgetQueue(): void {
    this.queued = [];
  }

  /** Stop: the queue goes too (the user wants the session to stop, not the next prompt to start). */
  async cancel(): Promise<void> {
    const sessionId = this.d.state().session.sessionId;
    if (!sessionId) return;
    this.queued = [];
    this.publishQueue();
    try {
      await this.d.host.cancelTurn(sessionId);
    } catch (error) {
      this.d.showError(error);
    }
  }

  /**
   * Re-sends the prompt an error card belongs to. Only the last prompt's error offers it: an older
   * card's Retry would re-send a different prompt than the one it failed on.
   */
  retry(itemId: string): void {
    const { env } = this.d;
    const state = this.d.state();
    if (!this.lastPrompt || state.session.running) return;
    const items = state.list.items;
    const at = state.list.index.get(itemId) ?? -1;
    const item = items[at];
    const lastUser = items.findLastIndex((i) => i.type === 'user');
    if (item?.type !== 'error' || !item.retryable || at < lastUser) return env.log('info', `chat: Retry of ${itemId} ignored (not the last prompt's error)`);
    // zcode re-runs the turn itself where it can (no second copy of the prompt in its history).
    const sessionId = state.session.sessionId;
    if (sessionId && env.features?.capabilities.probed && state.session.featureUnavailable?.retryTurn === undefined) return void this.retryInZcode(sessionId);
    void this.send(this.lastPrompt.text, this.lastPrompt.attachments);
  }

  /**
   * The bridge's retry: zcode cuts its history back to the failed prompt and runs it again; the
   * bridge answers once that started and tells every client the history changed (the chat then
   * loads the session again: chatSteerRewind.ts). zcode retries only a turn that has a reply (one
   * that failed before answering has none): when it refuses, nothing ran, so the prompt is sent again.
   */
  private async retryInZcode(sessionId: string): Promise<void> {
    const prompt = this.lastPrompt;
    try {
      await this.d.host.call(RetryTurnRequest, { sessionId });
    } catch (error) {
      this.d.env.log('info', `chat: zcode did not retry the turn in place (${this.d.env.errorMessage(error)}); sending the prompt again`);
      const { session } = this.d.state();
      if (prompt && session.sessionId === sessionId && !session.running) void this.send(prompt.text, prompt.attachments);
    }
  }

  private publishQueue(): void {
    this.d.queue(T.patchSession(this.d.state(), { queue: this.queued.map(({ id, text, attachments }) => ({ id, text, attachments })) }));
  }

  /** The last agent message of the transcript (a notification's summary of the turn). */
  private lastAgentText(): string {
    const items = this.d.state().list.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (item.type === 'agent') return item.text;
      if (item.type === 'user') break;
    }
    return '';
  }
}
