/**
 * The bridge's messages to the extension's client, delivered in the order the bridge wrote them.
 *
 * The ACP SDK dispatches each incoming message on its own: a notification's handler runs after
 * a number of awaits that depends on where the handler sits in the SDK's handler list, and a
 * response settles its request's promise in yet another chain. So `session/update`,
 * `_zcode/*` notifications and a prompt's answer can reach their listeners in another order than
 * the bridge wrote them (measured: `_zcode/x, update 1, update 2` arrives as `update 1, _zcode/x,
 * update 2`). The chat needs that order: the prompt that starts (`_zcode/session/promptStarted`),
 * the updates of its turn, and its answer mark where one turn ends and the next begins.
 *
 * So the extension does not take notifications from the SDK's handlers: this inbox sits on the
 * in-process link itself (the link's tap sees every message synchronously, in wire order, before
 * the SDK reads it) and hands each notification to the host as it passes. For `session/prompt`
 * requests that carry a `_meta.zcode.promptId`, it also remembers the request id, and hands the
 * answer on at the answer's place in the stream (`PromptAnswer`), before the request's promise
 * settles. vscode-free.
 */
import type { AnyMessage, SessionNotification, StopReason } from '@agentclientprotocol/sdk';

/** A JSON-RPC error answer, as the SDK's `RequestError` would carry it (code, message, data). */
export class AnswerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'AnswerError';
  }
}

/** A named prompt's answer, in order with the notifications around it. */
export interface PromptAnswer {
  sessionId: string;
  /** The prompt's `_meta.zcode.promptId`. */
  promptId: string;
  outcome: { stopReason: StopReason } | { error: AnswerError };
}

/** Where the inbox delivers (the host's event emitters). */
export interface InboxSink {
  sessionUpdate(notification: SessionNotification): void;
  /** Any other notification (`_zcode/*`), as the bridge sent it; protocol notifications (`$/…`) are not passed on. */
  notification(method: string, params: unknown): void;
  promptAnswered(answer: PromptAnswer): void;
  /** A listener threw, or a message could not be read: the link goes on, the error is logged. */
  failed(what: string, error: unknown): void;
}

const STOP_REASONS: ReadonlySet<string> = new Set<StopReason>(['end_turn', 'max_tokens', 'max_turn_requests', 'refusal', 'cancelled']);
const isStopReason = (value: unknown): value is StopReason => typeof value === 'string' && STOP_REASONS.has(value);

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export class BridgeInbox {
  /** Named prompts sent and not answered yet, by JSON-RPC request id (one inbox per link: it goes with its link). */
  private readonly named = new Map<string | number, { sessionId: string; promptId: string }>();

  constructor(private readonly sink: InboxSink) {}

  /**
   * The link's tap (bridge/acp/transport/streams.ts `MessageTap`): `in` = to the bridge, `out` = from it.
   * A `session/update` it handed to the host is `'delivered'`: the SDK's client has no use for it (the
   * extension takes no updates from its handlers), so the link need not pass it on to be parsed again.
   */
  readonly observe = (direction: 'in' | 'out', message: AnyMessage): 'delivered' | undefined => {
    if (direction === 'out') return this.received(message);
    this.sent(message);
    return undefined;
  };

  private sent(message: AnyMessage): void {
    if (!('method' in message) || message.method !== 'session/prompt' || !('id' in message) || message.id === null) return;
    const params = record(message.params);
    const promptId = record(record(params?._meta)?.zcode)?.promptId;
    if (typeof promptId === 'string' && typeof params?.sessionId === 'string') this.named.set(message.id, { sessionId: params.sessionId, promptId });
  }

  private received(message: AnyMessage): 'delivered' | undefined {
    if ('method' in message) {
      if ('id' in message || message.method.startsWith('$/')) return undefined;
      const { method, params } = message;
      if (method !== 'session/update') return void this.deliver(method, () => this.sink.notification(method, params));
      // The SDK's schema does not see these (the link does not pass them on to it): they are the
      // in-process bridge's own messages, whose shapes its tests check against ACP's schema; this
      // guards what the listeners index by.
      if (!isSessionNotification(params)) return void this.sink.failed(method, new Error('a session/update without a sessionId and an update kind'));
      this.deliver(method, () => this.sink.sessionUpdate(params));
      return 'delivered';
    }
    if (!('id' in message) || message.id === null) return undefined;
    const prompt = this.named.get(message.id);
    if (!prompt) return undefined;
    this.named.delete(message.id);
    const outcome = outcomeOf(message);
    if (outcome) this.deliver('session/prompt answer', () => this.sink.promptAnswered({ ...prompt, outcome }));
    return undefined;
  }

  private deliver(what: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.sink.failed(what, error);
    }
  }
}

/** A prompt's answer as the chat reads it; undefined for a shape ACP does not allow (the SDK's own check then rejects the request). */
function outcomeOf(message: AnyMessage): PromptAnswer['outcome'] | undefined {
  if ('error' in message) {
    const { code, message: text, data } = message.error;
    return { error: new AnswerError(code, text, data) };
  }
  if (!('result' in message)) return undefined;
  const stopReason = record(message.result)?.stopReason;
  return isStopReason(stopReason) ? { stopReason } : undefined;
}

function isSessionNotification(params: unknown): params is SessionNotification {
  const update = record(record(params)?.update);
  return typeof record(params)?.sessionId === 'string' && typeof update?.sessionUpdate === 'string';
}
