/**
 * An in-memory `ChatHost` that behaves like the extension's host on the real bridge where the chat
 * can tell: each session's prompts run one at a time in the order they arrive (the bridge's FIFO,
 * bridge/acp/turns/promptQueue.ts); a prompt that carries `_meta.zcode.promptId` hears
 * `_zcode/session/promptStarted` when it takes the session and its answer as an `onPromptAnswered`
 * event before its promise settles (extension/bridgeInbox.ts); `session/cancel` answers every
 * waiting prompt `cancelled`, and so does aborting one that waits (`$/cancel_request`), whose
 * promise rejects at once like the SDK's with `stopWaitingOnCancel`. The test plays zcode: it
 * settles the running prompt (`prompts[i].resolve/reject`).
 */
import type { PromptRequest, PromptResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { PromptStartedNotification, SteerRequest } from '../../../../bridge/acp/extensions/contractDescriptors.ts';
import type { ExtensionRequest, ParamsOf, ResultOf } from '../../../../bridge/acp/extensions/contractDescriptors.ts';
import { callExtension } from '../../../../bridge/acp/extensions/contractSchemas.ts';
import { AnswerError, type PromptAnswer } from '../../../../extension/bridgeInbox.ts';
import type { ChatHost } from '../../../../extension/chat/chatPorts.ts';
import { Emitter } from '../../../helpers/emitter.ts';

/** A `session/prompt` the chat sent. */
export class FakePrompt {
  /** It holds its session (promptStarted went out). */
  started = false;
  settled = false;

  constructor(
    readonly params: PromptRequest,
    private readonly finish: (prompt: FakePrompt, outcome: PromptAnswer['outcome']) => void,
    readonly settle: { resolve(response: PromptResponse): void; reject(error: unknown): void },
  ) {}

  get promptId(): string | undefined {
    const meta = this.params._meta?.zcode;
    return typeof meta === 'object' && meta !== null && 'promptId' in meta && typeof meta.promptId === 'string' ? meta.promptId : undefined;
  }

  /** zcode ended the turn. */
  resolve(response: PromptResponse): void {
    this.finish(this, { stopReason: response.stopReason });
  }

  /** The turn failed with `error` (its message and, when it has them, code and data go on the wire). */
  reject(error: unknown): void {
    const wire = error instanceof AnswerError ? error : new AnswerError(-32603, error instanceof Error ? error.message : String(error));
    this.finish(this, { error: wire });
  }
}

export class FakeHost implements ChatHost {
  state = 'ready';
  initializeResult = { agentCapabilities: { promptCapabilities: { image: true, embeddedContext: false } } };
  readonly updates = new Emitter<SessionNotification>();
  readonly ext = new Emitter<{ method: string; params: unknown }>();
  readonly answered = new Emitter<PromptAnswer>();
  readonly stateEvents = new Emitter<string>();
  onSessionUpdate = this.updates.event;
  onExtNotification = this.ext.event;
  onPromptAnswered = this.answered.event;
  onDidChangeState = this.stateEvents.event;
  readonly requests: { method: string; params: unknown }[] = [];
  /** Every `session/prompt`, in the order sent. */
  readonly prompts: FakePrompt[] = [];
  readonly cancelled: string[] = [];
  /** What the "bridge" answers to a method (a throw is its error); unlisted methods answer {}. */
  readonly answers = new Map<string, (params: unknown) => unknown>();
  /** Each session's prompts not answered yet: the first holds the session. */
  private readonly queues = new Map<string, FakePrompt[]>();

  async ready(): Promise<void> {}

  request<T>(method: string, params: unknown, options: { signal?: AbortSignal } = {}): Promise<T> {
    this.requests.push({ method, params });
    const answer = this.answers.get(method);
    if (answer) return (async () => answer(params) as T)();
    if (method === 'session/prompt') return this.prompt(params as PromptRequest, options.signal) as Promise<T>;
    // What the bridge answers a steer (the contract's SteerResponse).
    if (method === SteerRequest.method) return Promise.resolve({ accepted: true } as T);
    return Promise.resolve({} as T);
  }

  /** Like the real host: through `request`, the answer checked against the contract. */
  call<D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>): Promise<ResultOf<D>> {
    return callExtension((method, p) => this.request(method, p), descriptor, params);
  }

  /** `session/cancel`: the bridge answers every waiting prompt `cancelled`; the running one ends when zcode says (the test). */
  async cancelTurn(sessionId: string): Promise<void> {
    this.cancelled.push(sessionId);
    for (const prompt of [...(this.queues.get(sessionId) ?? [])]) if (!prompt.started) prompt.resolve({ stopReason: 'cancelled' });
  }

  update(sessionId: string, update: SessionNotification['update']): void {
    this.updates.fire({ sessionId, update });
  }

  /** Another client's prompt takes `sessionId` (or waits for it): the test ends it with `resolve`. Not in `prompts`. */
  othersPrompt(sessionId: string): FakePrompt {
    const prompt = new FakePrompt({ sessionId, prompt: [] }, (p, outcome) => this.finish(p, outcome), { resolve: () => {}, reject: () => {} });
    const queue = this.queues.get(sessionId) ?? [];
    this.queues.set(sessionId, queue);
    queue.push(prompt);
    if (queue.length === 1) this.start(prompt);
    return prompt;
  }

  /** The prompts of `sessionId` waiting behind the running one. */
  waiting(sessionId: string): FakePrompt[] {
    return (this.queues.get(sessionId) ?? []).filter((p) => !p.started);
  }

  private prompt(params: PromptRequest, signal: AbortSignal | undefined): Promise<PromptResponse> {
    return new Promise<PromptResponse>((resolve, reject) => {
      const prompt = new FakePrompt(params, (p, outcome) => this.finish(p, outcome), { resolve, reject });
      this.prompts.push(prompt);
      const queue = this.queues.get(params.sessionId) ?? [];
      this.queues.set(params.sessionId, queue);
      queue.push(prompt);
      signal?.addEventListener('abort', () => {
        if (prompt.settled) return;
        // The SDK stops waiting at once; the bridge's answer follows (cancelled, if it still waited).
        reject(new AnswerError(-32800, 'Request cancelled'));
        if (!prompt.started) prompt.resolve({ stopReason: 'cancelled' });
      });
      if (queue.length === 1) this.start(prompt);
    });
  }

  private start(prompt: FakePrompt): void {
    prompt.started = true;
    const promptId = prompt.promptId;
    if (promptId) this.ext.fire({ method: PromptStartedNotification.method, params: { sessionId: prompt.params.sessionId, promptId } });
  }

  /** The answer: in order with the notifications, then the promise, then the next prompt of the session starts. */
  private finish(prompt: FakePrompt, outcome: PromptAnswer['outcome']): void {
    if (prompt.settled) return;
    prompt.settled = true;
    const { sessionId } = prompt.params;
    if (prompt.promptId) this.answered.fire({ sessionId, promptId: prompt.promptId, outcome });
    if ('error' in outcome) prompt.settle.reject(outcome.error);
    else prompt.settle.resolve({ stopReason: outcome.stopReason });
    const queue = this.queues.get(sessionId) ?? [];
    const at = queue.indexOf(prompt);
    if (at !== -1) queue.splice(at, 1);
    if (at === 0 && queue[0] && !queue[0].started) this.start(queue[0]);
  }
}
