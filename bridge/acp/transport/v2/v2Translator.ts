/**
 * One ACP v2 connection's translator: every message from the v2 client becomes what the bridge's v1
 * handlers take, and every message from the handlers becomes what the v2 client expects. The
 * payload shapes are v2Payloads.ts; this class holds the little per-connection state the mapping
 * needs, and nothing of the bridge's (sessions, turns and clients keep their single owners):
 * - which method each of the client's requests was, so its answer is mapped by method;
 * - the client's prompts still running, per session: v2 answers a prompt with `{messageId}` when
 *   its turn starts and ends the turn with a `state_update`, where v1 answers once at the end;
 * - the message id of the chunks being streamed (v2 requires one on every chunk);
 * - whether each session runs a turn, from the bridge's `_zcode/session/queue` notifications, for
 *   the `state_update` snapshot v2 sends before a resume's answer and for turns of other clients
 *   (a change the client was not told by its own prompts' states).
 *
 * When a prompt "starts" for v2: when it holds its session (behind the prompts queued before it),
 * which the bridge tells the sender of a named prompt with `_zcode/session/promptStarted` (a v2
 * prompt the client did not name gets a name here, and that notification is not passed on), or at
 * its v1 answer when it came first (`/steer`, a prompt refused at once). A prompt refused before it
 * started (bad params, unknown session) keeps v1's error answer; one that fails later ends its turn
 * with an `error` stop reason.
 */
import type { AnyMessage, SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import type * as V1 from '@agentclientprotocol/sdk';
import type * as V2 from '@agentclientprotocol/sdk/experimental/v2';
import {
  failedStateV2,
  idleStateV2,
  initializeParamsV1,
  initializeResultV2,
  isChunk,
  newSessionResultV2,
  newSessionV1,
  permissionRequestV2,
  resumeResultV2,
  resumeV1,
  sessionUpdateV2,
  setConfigOptionResultV2,
  setConfigOptionV1,
} from './v2Payloads.ts';
import { PromptStartedNotification, SessionQueueNotification } from '../../extensions/contractDescriptors.ts';

type Id = string | number;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What one message from the client turns into. */
export interface Inbound {
  /** The message for the v1 handlers, if any. */
  toAgent?: AnyMessage;
  /** Answers the translator gives the client itself (a request v2 allows but the bridge refuses). */
  toClient: AnyMessage[];
}

interface PendingPrompt {
  id: Id;
  messageId: string;
  acknowledged: boolean;
  /** Its `_meta.zcode.promptId`: the client's, or one given here (`named`). */
  promptId: string;
  named: boolean;
}

/** The queue notification the bridge sends on every change of a session's prompt queue. */
const QUEUE_NOTIFICATION = SessionQueueNotification.method;
/** The notification telling a named prompt's sender that it holds the session now. */
const STARTED_NOTIFICATION = PromptStartedNotification.method;

/** v2 method → v1 method, for requests that only changed their name. */
const RENAMED: Record<string, string> = { 'auth/login': 'authenticate', 'auth/logout': 'logout' };

export class V2Translator {
  /** The v2 method of each request of the client not answered yet. */
  private readonly requests = new Map<Id, { method: string; sessionId?: string }>();
  /** The client's prompts not answered yet, oldest first, per session. */
  private readonly prompts = new Map<string, PendingPrompt[]>();
  /** The chunk stream in progress per session: its kind and message id. */
  private readonly chunks = new Map<string, { kind: string; messageId: string }>();
  /** Sessions with a turn running, as the last queue notification said. */
  private readonly running = new Set<string>();
  /** The last state each session's `state_update` told this client. */
  private readonly told = new Map<string, string>();

  /** `newId` names v2 messages (prompt acknowledgements, chunk streams without an id). */
  constructor(private readonly newId: () => string) {}

  /** A message from the v2 client. */
  fromClient(message: AnyMessage): Inbound {
    if (!('method' in message)) return { toAgent: message, toClient: [] };
    const params = (message as { params?: unknown }).params as Json | undefined;
    if (!('id' in message) || message.id === null || message.id === undefined) return { toAgent: message, toClient: [] };
    const id = message.id as Id;
    const request = (method: string, mapped: unknown): Inbound => ({ toAgent: { jsonrpc: '2.0', id, method, params: mapped } as AnyMessage, toClient: [] });
    const sessionId = typeof params?.sessionId === 'string' ? params.sessionId : undefined;
    this.requests.set(id, { method: message.method, sessionId });
    if (params === undefined || params === null || typeof params !== 'object') return { toAgent: message, toClient: [] };
    switch (message.method) {
      case 'initialize':
        return request('initialize', initializeParamsV1(params as V2.InitializeRequest));
      case 'session/new':
        return request('session/new', newSessionV1(params as V2.NewSessionRequest));
      case 'session/resume': {
        const mapped = resumeV1(params as V2.ResumeSessionRequest);
        if (mapped) return request(mapped.method, mapped.params);
        this.requests.delete(id);
        const error = { code: -32602, message: 'Invalid params: the bridge replays a session from its start only (replayFrom {"type":"start"})', data: { replayFrom: params.replayFrom } };
        return { toClient: [{ jsonrpc: '2.0', id, error } as AnyMessage] };
      }
      case 'session/set_config_option':
        return request('session/set_config_option', setConfigOptionV1(params as V2.SetSessionConfigOptionRequest));
      case 'session/prompt':
        return sessionId === undefined ? { toAgent: message, toClient: [] } : request('session/prompt', this.named(id, sessionId, params));
      default:
        return RENAMED[message.method] ? request(RENAMED[message.method], params) : { toAgent: message, toClient: [] };
    }
  }

  /** The prompt's params with a `_meta.zcode.promptId` (its start is told by that name), remembered as pending. */
  private named(id: Id, sessionId: string, params: Json): Json {
    const meta = isObject(params._meta) ? params._meta : {};
    const zcode = isObject(meta.zcode) ? meta.zcode : {};
    const own = typeof zcode.promptId === 'string' && zcode.promptId.length > 0 ? zcode.promptId : undefined;
    const promptId = own ?? `v2:${this.newId()}`;
    this.pendingOf(sessionId).push({ id, messageId: this.newId(), acknowledged: false, promptId, named: own === undefined });
    return own ? params : { ...params, _meta: { ...meta, zcode: { ...zcode, promptId } } };
  }

  /** A message from the v1 handlers, as the messages the v2 client gets (none when v2 has no form for it). */
  fromAgent(message: AnyMessage): AnyMessage[] {
    if (!('method' in message)) return this.answer(message);
    const params = (message as { params?: unknown }).params;
    if (message.method === 'session/update') return this.update(params as SessionNotification);
    if (message.method === 'session/request_permission' && 'id' in message) {
      return [{ ...message, params: permissionRequestV2(params as V1.RequestPermissionRequest) } as AnyMessage];
    }
    if (message.method === QUEUE_NOTIFICATION) return [...this.queueChanged(params as { sessionId?: unknown; running?: unknown }), message];
    if (message.method === STARTED_NOTIFICATION) return this.started(params as { sessionId?: unknown; promptId?: unknown }, message);
    return [message];
  }

  private answer(message: AnyMessage): AnyMessage[] {
    const id = (message as { id?: unknown }).id as Id;
    const asked = this.requests.get(id);
    if (!asked) return [message];
    this.requests.delete(id);
    const error = (message as { error?: { code: number; message: string; data?: unknown } }).error;
    if (asked.method === 'session/prompt') return this.promptAnswered(id, asked.sessionId, message, error);
    if (error) return [message];
    const result = (message as { result?: unknown }).result;
    const withResult = (mapped: unknown): AnyMessage => ({ jsonrpc: '2.0', id, result: mapped }) as AnyMessage;
    switch (asked.method) {
      case 'initialize':
        return [withResult(initializeResultV2(result as V1.InitializeResponse))];
      case 'session/new':
        return [withResult(newSessionResultV2(result as V1.NewSessionResponse))];
      case 'session/resume':
        // v2: every resume sends the session's current state after its replay, before its answer.
        return [...(asked.sessionId ? [this.notify(asked.sessionId, this.snapshot(asked.sessionId))] : []), withResult(resumeResultV2(result as V1.ResumeSessionResponse))];
      case 'session/set_config_option':
        return [withResult(setConfigOptionResultV2(result as V1.SetSessionConfigOptionResponse))];
      default:
        return [message];
    }
  }

  private promptAnswered(id: Id, sessionId: string | undefined, message: AnyMessage, error: { code: number; message: string; data?: unknown } | undefined): AnyMessage[] {
    const pending = sessionId ? this.take(sessionId, id) : undefined;
    if (!pending || sessionId === undefined) return [message];
    this.chunks.delete(sessionId);
    if (error && !pending.acknowledged) return [message];
    const out = pending.acknowledged ? [] : this.acknowledge(sessionId, pending);
    const end = error ? failedStateV2(error) : idleStateV2((message as { result: V1.PromptResponse }).result);
    return [...out, this.notify(sessionId, end)];
  }

  /** A prompt of this client holds its session: its acknowledgement (the notification only when the client named the prompt). */
  private started(params: { sessionId?: unknown; promptId?: unknown }, message: AnyMessage): AnyMessage[] {
    const prompt = typeof params?.sessionId === 'string' ? this.prompts.get(params.sessionId)?.find((p) => p.promptId === params.promptId) : undefined;
    if (!prompt || prompt.acknowledged) return [message];
    const ack = this.acknowledge(params.sessionId as string, prompt);
    return prompt.named ? ack : [...ack, message];
  }

  private update(notification: SessionNotification): AnyMessage[] {
    const { sessionId, update } = notification;
    const mapped = sessionUpdateV2(update, this.chunkId(sessionId, update));
    return mapped ? [{ jsonrpc: '2.0', method: 'session/update', params: { ...notification, update: mapped } } as AnyMessage] : [];
  }

  /** The prompt's v2 answer (`{messageId}`) and the running state that follows it. */
  private acknowledge(sessionId: string, prompt: PendingPrompt): AnyMessage[] {
    prompt.acknowledged = true;
    this.chunks.delete(sessionId);
    return [{ jsonrpc: '2.0', id: prompt.id, result: { messageId: prompt.messageId } } as AnyMessage, this.notify(sessionId, { sessionUpdate: 'state_update', state: 'running' })];
  }

  /** The message id for `update`: a run of chunks of one kind is one message; any other update ends the run. */
  private chunkId(sessionId: string, update: SessionUpdate): string {
    if (!isChunk(update)) {
      this.chunks.delete(sessionId);
      return '';
    }
    const current = this.chunks.get(sessionId);
    if (current?.kind === update.sessionUpdate) return current.messageId;
    const messageId = this.newId();
    this.chunks.set(sessionId, { kind: update.sessionUpdate, messageId });
    return messageId;
  }

  /**
   * A queue change: a turn of another client starting or ending in a session is this client's
   * `state_update` too, unless a prompt of its own runs there (whose own states it gets).
   */
  private queueChanged(params: { sessionId?: unknown; running?: unknown }): AnyMessage[] {
    if (typeof params?.sessionId !== 'string') return [];
    const sessionId = params.sessionId;
    const runs = params.running !== undefined && params.running !== null;
    const ran = this.running.has(sessionId);
    if (runs) this.running.add(sessionId);
    else this.running.delete(sessionId);
    // Its own prompts' states it has from them (the queue tells of their end after their answer).
    if (runs === ran || (this.prompts.get(sessionId)?.length ?? 0) > 0 || this.told.get(sessionId) === (runs ? 'running' : 'idle')) return [];
    return [this.notify(sessionId, this.snapshot(sessionId))];
  }

  private snapshot(sessionId: string): V2.SessionUpdate {
    return this.running.has(sessionId) ? { sessionUpdate: 'state_update', state: 'running' } : { sessionUpdate: 'state_update', state: 'idle' };
  }

  private notify(sessionId: string, update: V2.SessionUpdate): AnyMessage {
    if (update.sessionUpdate === 'state_update') this.told.set(sessionId, String((update as { state: unknown }).state));
    return { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } } as AnyMessage;
  }

  private pendingOf(sessionId: string): PendingPrompt[] {
    let list = this.prompts.get(sessionId);
    if (!list) this.prompts.set(sessionId, (list = []));
    return list;
  }

  private take(sessionId: string, id: Id): PendingPrompt | undefined {
    const list = this.prompts.get(sessionId);
    const index = list?.findIndex((p) => p.id === id) ?? -1;
    if (!list || index < 0) return undefined;
    const [prompt] = list.splice(index, 1);
    if (list.length === 0) this.prompts.delete(sessionId);
    return prompt;
  }
}
