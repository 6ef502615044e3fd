/**
 * The turns one chat runs. Every prompt goes to the bridge when it is sent, named by a
 * `_meta.zcode.promptId`; the bridge's queue is the only prompt queue (docs/acp.md "Prompt
 * queue"). Until the bridge says the prompt holds the session (`_zcode/session/promptStarted`) it
 * is a waiting chip; then it becomes the user's message and its turn runs until its answer. Both
 * events reach the chat in the order the bridge wrote them, among the session's updates
 * (extension/bridgeInbox.ts), so what a turn shows is decided by that order, never by which
 * promise continuation runs first. The turn's end settles the transcript (stop reason or error
 * line, its changes card, a notification). Stop cancels the session in the bridge, which answers
 * the running prompt and every waiting one; Remove cancels one waiting prompt's request; Retry is
 * zcode's own retry where it can, else the prompt again. vscode-free, like the controller that owns it.
 */
import { randomUUID } from 'node:crypto';
import type { PromptResponse } from '@agentclientprotocol/sdk';
import { PromptStartedNotification, RetryTurnRequest, SessionQueueNotification, notificationOf } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { SessionQueueParams } from '../../bridge/acp/extensions/notificationSchemas.ts';
import type { Attachment, AttachmentSummary, SessionView } from '../../webview-ui/viewModel.ts';
import type { PromptAnswer } from '../bridgeInbox.ts';
import type { ChangeTurn, ChatChangeCards } from './chatChanges.ts';
import type { ChatEnvironment, ChatHost } from './chatPorts.ts';
import { isRequestCancelled } from '../errorValues.ts';
import { failureAction } from './failureAction.ts';
import { othersTurn, queueChips } from './queueChips.ts';
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

/** A prompt this chat sent that has no answer yet. */
interface SentPrompt {
  /** Its `_meta.zcode.promptId`; also its chip's id while it waits. */
  readonly id: string;
  readonly sessionId: string;
  readonly text: string;
  readonly attachments: Attachment[];
  readonly summary: AttachmentSummary[];
  /** Aborting it cancels the request (`$/cancel_request`): Remove. */
  readonly abort: AbortController;
  /** No chip any more (Remove, Stop): its cancelled answer is on its way. */
  withdrawn: boolean;
  /** It holds the session: its turn's change recording. */
  turn?: ChangeTurn;
}

type Outcome = { stopReason: PromptResponse['stopReason'] } | { error: unknown };

export class ChatTurns {
  /** What Retry re-sends. */
  private lastPrompt: { text: string; attachments: Attachment[] } | undefined;
  /** Sent and not answered, in the order they were sent (the bridge's order too). */
  private readonly sent = new Map<string, SentPrompt>();
  /** The one of them whose turn the transcript shows. */
  private running: SentPrompt | undefined;
  /** Every promptId this chat sent for the shown session (the bridge's queue may list one a step late). */
  private readonly ownIds = new Set<string>();
  /** The bridge's last word on the shown session's queue (`_zcode/session/queue`). */
  private bridgeQueue: SessionQueueParams | undefined;
  /** Sends leave one after the other, in the order the user made them (each awaits its attachments' contents). */
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly d: TurnDeps) {}

  /** Sends a prompt to the bridge: it runs now, or waits in the session's queue (shown as a chip until it starts). */
  send(text: string, attachments: Attachment[]): Promise<void> {
    if (!text && attachments.length === 0) return Promise.resolve();
    // A send that failed unexpectedly says so and does not hold up the ones after it.
    this.sending = this.sending.then(() => this.dispatch(text, attachments)).catch((error: unknown) => this.d.showError(error));
    return this.sending;
  }

  private async dispatch(text: string, attachments: Attachment[]): Promise<void> {
    const d = this.d;
    let sessionId: string;
    try {
      sessionId = await d.ensureSession();
    } catch (error) {
      d.queue(T.addError(d.state(), d.env.errorMessage(error), false));
      d.restoreDraft(text, attachments);
      return;
    }
    const caps = d.promptCapabilities();
    const prompt = buildPrompt(text, attachments, caps, await fileContents(attachments, caps, d.env.fileContent));
    const sent: SentPrompt = { id: randomUUID(), sessionId, text, attachments, summary: summarize(attachments), abort: new AbortController(), withdrawn: false };
    this.sent.set(sent.id, sent);
    if (sessionId === d.state().session.sessionId) this.ownIds.add(sent.id);
    this.publishQueue();
    // Its start and its answer come as events (`started`, `answered`); the promise only tells of a
    // failure that never reached the bridge (no connection, shut down) or an answer the events missed.
    d.host.request('session/prompt', { sessionId, prompt, _meta: { zcode: { promptId: sent.id } } }, { signal: sent.abort.signal }).then(
      (response) => this.answered(sent, { stopReason: response.stopReason }),
      (error: unknown) => {
        // Removed: the bridge's own answer (cancelled) comes as an event; it may even have started meanwhile.
        if (!sent.abort.signal.aborted) this.answered(sent, { error });
      },
    );
  }

  /** A `_zcode/*` notification; true when it was about the session's prompt queue. */
  onNotification(notification: { method: string; params: unknown }): boolean {
    const started = notificationOf(PromptStartedNotification, notification);
    if (started) {
      const sent = this.sent.get(started.promptId);
      if (sent) this.started(sent);
      return true;
    }
    const queue = notificationOf(SessionQueueNotification, notification);
    if (!queue) return false;
    if (queue.sessionId === this.d.state().session.sessionId) this.queueChanged(queue);
    return true;
  }

  /**
   * The bridge's queue of the shown session changed: the chips follow it, and a turn another client
   * runs (or one that ran before this chat showed the session) shows as running, with Stop, until
   * the bridge says it is over. This chat's own turn is started and ended by its own events.
   */
  private queueChanged(queue: SessionQueueParams): void {
    this.bridgeQueue = queue;
    this.publishQueue();
    if (this.running) return;
    const others = othersTurn(queue, this.ownIds);
    if (others !== this.d.state().session.running) this.d.queue(T.patchSession(this.d.state(), { running: others }));
  }

  /** A named prompt's answer, in order with the session's updates. */
  onPromptAnswered(answer: PromptAnswer): void {
    const sent = this.sent.get(answer.promptId);
    if (sent) this.answered(sent, 'error' in answer.outcome ? { error: answer.outcome.error } : answer.outcome);
  }

  /** Remove on a waiting prompt's chip: its request is cancelled; the bridge answers it `cancelled`. */
  removeQueued(id: string): void {
    const sent = this.sent.get(id);
    if (!sent || sent === this.running) return;
    sent.withdrawn = true;
    this.publishQueue();
    sent.abort.abort();
  }

  /** Another session is shown: this chat stops following its prompts (they still run in the bridge). */
  forgetQueue(): void {
    this.sent.clear();
    this.ownIds.clear();
    this.running = undefined;
    this.bridgeQueue = undefined;
  }

  /** Stop: the bridge cancels the running turn and every waiting prompt of the session (the user wants it to stop, not the next prompt to start). */
  async cancel(): Promise<void> {
    const sessionId = this.d.state().session.sessionId;
    if (!sessionId) return;
    for (const sent of this.sent.values()) if (sent.sessionId === sessionId && sent !== this.running) sent.withdrawn = true;
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

  /** The prompt holds the session: its chip becomes the user's message and its turn starts. */
  private started(sent: SentPrompt): void {
    const d = this.d;
    if (sent.sessionId !== d.state().session.sessionId) return void this.sent.delete(sent.id);
    // The bridge answers a prompt before the next one starts, and the inbox keeps that order; a turn
    // still open here would have lost its answer: close it rather than run two at once.
    if (this.running) {
      d.env.log('warn', 'chat: a prompt started while the previous one had no answer; closing that turn');
      this.ended(this.running, { stopReason: 'end_turn' });
    }
    this.running = sent;
    this.lastPrompt = { text: sent.text, attachments: sent.attachments };
    this.publishQueue();
    d.queue(T.addUserPrompt(d.state(), sent.text, sent.summary));
    sent.turn = d.changes.beginTurn(sent.sessionId, sent.text);
  }

  private answered(sent: SentPrompt, outcome: Outcome): void {
    if (!this.sent.delete(sent.id)) return;
    if (sent === this.running) return this.ended(sent, outcome);
    // It never held the session: withdrawn, stopped, or refused before its turn.
    this.publishQueue();
    if (sent.sessionId !== this.d.state().session.sessionId || !('error' in outcome) || isCancellation(outcome)) return;
    this.d.queue(T.addError(this.d.state(), this.d.env.errorMessage(outcome.error), false));
    this.d.restoreDraft(sent.text, sent.attachments);
  }

  /** The running prompt answered: the transcript's turn ends. */
  private ended(sent: SentPrompt, outcome: Outcome): void {
    const d = this.d;
    this.running = undefined;
    const changes = d.changes.endTurn(sent.turn);
    const end = 'error' in outcome ? { error: d.env.errorMessage(outcome.error), action: failureAction(outcome.error) } : outcome;
    if ('error' in end) d.restoreDraft(sent.text, sent.attachments);
    const transcript = d.state();
    if (transcript.session.sessionId !== sent.sessionId) return;
    d.queue(T.endTurn(transcript, end));
    if ('stopReason' in end && end.stopReason === 'end_turn') d.refreshCheckpoints(sent.sessionId);
    void changes?.then((card) => {
      if (card && transcript === d.state()) d.queue(T.putItem(transcript, card));
    });
    // A turn the user stopped needs no notification: they know; nor one the next prompt follows.
    if ('error' in end) d.env.notify?.({ kind: 'turnFailed', message: end.error });
    else if (end.stopReason !== 'cancelled' && !this.waiting().length) d.env.notify?.({ kind: 'turnEnded', summary: this.lastAgentText() });
  }

  /** The shown session's prompts waiting for their turn, oldest first. */
  private waiting(): SentPrompt[] {
    const sessionId = this.d.state().session.sessionId;
    return [...this.sent.values()].filter((sent) => sent.sessionId === sessionId && sent !== this.running && !sent.withdrawn);
  }

  private publishQueue(): void {
    this.d.queue(T.patchSession(this.d.state(), { queue: queueChips(this.waiting(), this.ownIds, this.bridgeQueue) }));
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

/** Stop or Remove: the prompt was cancelled (an answer or JSON-RPC's "request cancelled"). */
function isCancellation(outcome: Outcome): boolean {
  return 'stopReason' in outcome ? outcome.stopReason === 'cancelled' : isRequestCancelled(outcome.error);
}
