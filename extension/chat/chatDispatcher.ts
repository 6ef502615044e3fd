/**
 * The chat's message router: every message the webview posts (webview-ui/contract.ts) goes to the
 * one piece of the chat that owns what it changes: the turns, the steer and rewind, the checkpoints,
 * the changes cards, the history pages, the pending forms, the sessions, or the environment's
 * vscode side effects. Requests are answered with their completion. It holds no state.
 *
 * Each `is()` narrows a message to its command's params (the contract types them); their values are
 * still the webview's, so what reaches the bridge or the editor (attachments, form answers, ids,
 * paths, choices) is checked here or by the piece it goes to.
 */
import {
  AnswerElicitationCommand,
  AnswerPermissionCommand,
  AttachContextRequest,
  CancelBackgroundTaskCommand,
  CancelTurnCommand,
  ChatFocusCommand,
  CopyTextCommand,
  CopyTranscriptCommand,
  ErrorActionCommand,
  ForkFromCommand,
  ForkSessionCommand,
  ListSessionsRequest,
  LoadEarlierCommand,
  LoadSessionCommand,
  NewSessionCommand,
  OpenDiffCommand,
  OpenLocationCommand,
  PrepareSessionCommand,
  ReadyCommand,
  RemoveQueuedCommand,
  RemoveSteerCommand,
  RetryCommand,
  ReviewChangesCommand,
  RewindMessageCommand,
  RewindToCommand,
  SearchMentionsRequest,
  SendPromptCommand,
  SetConfigOptionCommand,
  SetupActionCommand,
  SteerCommand,
  UndoChangesCommand,
  WebviewLogCommand,
  type IpcMessage,
  type IpcNotification,
  type IpcRequest,
  type IpcResult,
} from '../../webview-ui/contract.ts';
import { CancelBackgroundTaskRequest } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { ChatChangeCards } from './chatChanges.ts';
import type { ChatHistory } from './chatHistory.ts';
import type { ChatInteractions } from './chatInteractions.ts';
import type { ChatEnvironment, ChatHost, ChatSessions } from './chatPorts.ts';
import type { ChatSteerRewind } from './chatSteerRewind.ts';
import type { ChatTurns } from './chatTurns.ts';
import { parseAttachments } from './prompt.ts';
import type { TranscriptState } from './transcript.ts';
import type { TranscriptCheckpoints } from './transcriptCheckpoints.ts';

/** The pieces of one chat the messages go to (chatController.ts assembles them). */
export interface ChatRoutes {
  host: ChatHost;
  sessions: ChatSessions;
  env: ChatEnvironment;
  turns: ChatTurns;
  steerRewind: ChatSteerRewind;
  checkpoints: TranscriptCheckpoints;
  changes: ChatChangeCards;
  history: ChatHistory;
  interactions: ChatInteractions;
  state(): TranscriptState;
  /** The webview (re)started: snapshot, settings and what waited for it. */
  ready(): void;
  /** Starts the bridge, then runs `action`; a failure becomes an error line. */
  run(action: () => Promise<unknown>): Promise<void>;
  /** Makes the session the first prompt would (lazy on the bridge), so its `/` menu arrives. */
  ensureSession(): Promise<string>;
  setConfigOption(configId: string, value: string | boolean): Promise<void>;
  showError(error: unknown): void;
  transcriptMarkdown(): string;
  /** Posts a request's completion (`completionId`: the request's id). */
  reply<R>(notification: IpcNotification<IpcResult<R>>, result: IpcResult<R>, completionId: string): void;
}

export class ChatDispatcher {
  constructor(private readonly r: ChatRoutes) {}

  /** Entry point for everything the webview posts. Unknown or malformed messages are ignored. */
  receive(msg: IpcMessage): void {
    try {
      this.dispatch(msg);
    } catch (error) {
      this.r.env.log('error', `chat: handling ${msg.method} failed: ${this.r.env.errorMessage(error)}`);
    }
  }

  private dispatch(msg: IpcMessage): void {
    const { r } = this;
    const { env } = r;
    if (ReadyCommand.is(msg)) return r.ready();
    if (SendPromptCommand.is(msg)) return void r.turns.send(msg.params.text ?? '', parseAttachments(msg.params.attachments));
    if (SteerCommand.is(msg)) return void r.steerRewind.steer(msg.params.text ?? '');
    if (RemoveSteerCommand.is(msg)) return void r.steerRewind.removeDeferred();
    if (RewindMessageCommand.is(msg)) {
      const { itemId, action } = msg.params;
      if (typeof itemId === 'string' && (action === 'askAgain' || action === 'filesOnly')) void r.steerRewind.rewindMessage(itemId, action);
      return;
    }
    if (RemoveQueuedCommand.is(msg)) return r.turns.removeQueued(msg.params.id);
    if (CancelTurnCommand.is(msg)) return void r.turns.cancel();
    if (RetryCommand.is(msg)) return r.turns.retry(msg.params.itemId);
    if (SetupActionCommand.is(msg)) {
      const { action } = msg.params;
      if (action === 'locate' || action === 'openSettings' || action === 'install') env.setupAction?.(action);
      return;
    }
    if (ErrorActionCommand.is(msg)) {
      const { action } = msg.params;
      if (action === 'openDesktop' || action === 'checkApiKey' || action === 'showLogs') env.errorAction?.(action);
      return;
    }
    if (AnswerPermissionCommand.is(msg)) return r.interactions.answerPermission(msg.params);
    if (AnswerElicitationCommand.is(msg)) return r.interactions.answerElicitation(msg.params.id, msg.params.response);
    if (OpenDiffCommand.is(msg)) {
      const source = r.state().diffs.get(msg.params.toolCallId)?.[msg.params.index];
      if (source) void env.openDiff(source).catch((e: unknown) => r.showError(e));
      return;
    }
    if (ReviewChangesCommand.is(msg)) return r.changes.command('review', msg.params);
    if (UndoChangesCommand.is(msg)) return r.changes.command('undo', msg.params);
    if (RewindToCommand.is(msg)) return void r.checkpoints.rewind(msg.params.itemId ?? '');
    if (ForkFromCommand.is(msg)) return void r.checkpoints.fork(msg.params.itemId ?? '');
    if (OpenLocationCommand.is(msg)) {
      const { path, line } = msg.params;
      if (path) void env.openLocation(path, typeof line === 'number' ? line : undefined).catch((e: unknown) => r.showError(e));
      return;
    }
    if (CopyTextCommand.is(msg)) return void env.copy(msg.params.text ?? '');
    if (ChatFocusCommand.is(msg)) return env.focusChanged?.(msg.params.focused === true);
    if (CopyTranscriptCommand.is(msg)) return void env.copy(r.transcriptMarkdown());
    if (SetConfigOptionCommand.is(msg)) {
      const { configId, value } = msg.params;
      if (configId && (typeof value === 'string' || typeof value === 'boolean')) void r.setConfigOption(configId, value);
      return;
    }
    if (NewSessionCommand.is(msg)) return void r.run(() => r.sessions.newSession());
    // The user began a `/command` before the first prompt: make the session that prompt would
    // make (lazy on the bridge, zcode is not started), so its menu arrives.
    if (PrepareSessionCommand.is(msg)) return void r.ensureSession().catch((error: unknown) => env.log('warn', `chat: preparing a session failed: ${env.errorMessage(error)}`));
    if (LoadSessionCommand.is(msg)) {
      const { sessionId } = msg.params;
      if (sessionId) void r.run(() => r.sessions.loadSession(sessionId));
      return;
    }
    if (ForkSessionCommand.is(msg)) return void r.run(() => r.sessions.fork());
    if (LoadEarlierCommand.is(msg)) return void r.history.loadEarlier();
    if (CancelBackgroundTaskCommand.is(msg)) {
      const sessionId = r.state().session.sessionId;
      const { taskId } = msg.params;
      if (sessionId && taskId) void r.run(() => r.host.call(CancelBackgroundTaskRequest, { sessionId, taskId }));
      return;
    }
    if (WebviewLogCommand.is(msg)) {
      const level = msg.params.level === 'error' || msg.params.level === 'warn' ? msg.params.level : 'info';
      return env.log(level, `chat webview: ${msg.params.message ?? ''}`);
    }
    if (ListSessionsRequest.is(msg)) {
      return this.respond(msg, ListSessionsRequest, async () => ({
        sessions: (await (env.listSessions?.() ?? r.sessions.listSessions())).map((s) => ({ sessionId: s.sessionId, ...(s.title ? { title: s.title } : {}), ...(s.updatedAt ? { updatedAt: s.updatedAt } : {}) })),
      }));
    }
    if (AttachContextRequest.is(msg)) {
      const { source } = msg.params;
      return this.respond(msg, AttachContextRequest, async () => ({ attachments: await env.attachContext(source === 'activeFile' || source === 'pickFiles' ? source : 'selection') }));
    }
    if (SearchMentionsRequest.is(msg)) {
      return this.respond(msg, SearchMentionsRequest, async () => ({ candidates: (await env.searchMentions?.(msg.params.query ?? '')) ?? [] }));
    }
  }

  private respond<P, R>(msg: IpcMessage, request: IpcRequest<P, R>, run: () => Promise<R>): void {
    run().then(
      (value) => this.r.reply(request.response, { ok: true, value }, msg.id),
      (error: unknown) => this.r.reply(request.response, { ok: false, error: this.r.env.errorMessage(error) }, msg.id),
    );
  }
}
