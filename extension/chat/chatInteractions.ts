/**
 * The bridge's permission requests and elicitation forms as one chat shows them: each becomes a
 * card in the transcript and waits (pendingInteractions.ts) for the webview's answer, or is
 * withdrawn when the bridge aborts it; the environment hears how many wait and that the user is
 * needed (chatAttention.ts decides whether to tell them). vscode-free, like the controller that owns it.
 */
import type { CreateElicitationRequest, CreateElicitationResponse, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ChatEnvironment } from './chatPorts.ts';
import { PendingInteractions } from './pendingInteractions.ts';
import type * as T from './transcript.ts';
import * as I from './transcriptInteractions.ts';
import { parseElicitationResponse } from './wireParsing.ts';

export interface InteractionDeps {
  env: ChatEnvironment;
  state(): T.TranscriptState;
  queue(change: T.Change): void;
}

export class ChatInteractions {
  private readonly pending = new PendingInteractions();

  constructor(private readonly d: InteractionDeps) {}

  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    if (signal.aborted) return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    const { id, change } = I.addPermission(this.d.state(), params);
    this.d.queue(change);
    // The user's side bar stays theirs: the badge, the status item and a notification with Show
    // tell (chatAttention.ts); the chat opens when they ask.
    const answered = this.pending.permission(id, params.options.map((o) => o.optionId), signal, () => this.d.queue(I.withdrawInteraction(this.d.state(), id)));
    this.needsInput(params.toolCall.title ?? '');
    return this.afterSettled(answered);
  }

  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    if (signal.aborted) return Promise.resolve({ action: 'cancel' });
    const { id, change } = I.addElicitation(this.d.state(), params);
    this.d.queue(change);
    const answered = this.pending.elicitation(id, signal, () => this.d.queue(I.withdrawInteraction(this.d.state(), id)));
    this.needsInput(params.message);
    return this.afterSettled(answered);
  }

  /** The chosen option, or a dismissal (`cancelled`); an answer with neither is malformed and ignored. */
  answerPermission({ id, optionId, cancelled }: { id: string; optionId?: string; cancelled?: boolean }): void {
    const answer = cancelled === true ? undefined : optionId;
    if (cancelled !== true && typeof optionId !== 'string') return this.d.env.log('warn', `chat: permission answer for ${id} names no option and is not a dismissal; ignored`);
    if (this.pending.answerPermission(id, answer)) this.d.queue(I.answerPermission(this.d.state(), id, answer));
  }

  answerElicitation(id: string, response: unknown): void {
    const parsed = parseElicitationResponse(response);
    if (parsed && this.pending.answerElicitation(id, parsed)) this.d.queue(I.answerElicitation(this.d.state(), id, parsed));
  }

  /** Card `id` still waits for an answer (it stays shown whatever session the chat switches to). */
  isPending(id: string): boolean {
    return this.pending.has(id);
  }

  /** Every request still waiting is settled as cancelled. */
  dispose(): void {
    this.pending.dispose();
  }

  private needsInput(title: string): void {
    this.d.env.pendingChanged?.(this.pending.size);
    this.d.env.notify?.({ kind: 'needsInput', title });
  }

  /** Reports the new pending count once a request is answered or withdrawn. */
  private afterSettled<R>(answered: Promise<R>): Promise<R> {
    return answered.then((response) => {
      this.d.env.pendingChanged?.(this.pending.size);
      return response;
    });
  }
}
