/**
 * The host side of the chat, without vscode: owns the transcript of the active session, turns
 * the bridge's updates and the webview's commands into transcript changes, answers the bridge's
 * permission/elicitation requests from the webview, and streams numbered patches to the webview
 * (batched per ~frame, full snapshot on `ready`).
 *
 * Everything vscode-specific (posting to the webview, opening diffs/files, the clipboard, reading
 * the editor selection) comes in through `ChatEnvironment`, so this class is tested in plain Node.
 */
import type {
  AvailableCommand,
  CreateElicitationRequest,
  CreateElicitationResponse,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  SessionUpdate,
} from '@agentclientprotocol/sdk';
import {
  AnswerElicitationCommand,
  AnswerPermissionCommand,
  AttachContextRequest,
  CancelBackgroundTaskCommand,
  CancelTurnCommand,
  ChatFocusCommand,
  CopyTextCommand,
  CopyTranscriptCommand,
  DEFAULT_CHAT_SETTINGS,
  DidAttachNotification,
  ErrorActionCommand,
  SetupActionCommand,
  DidRestoreDraftNotification,
  DidChangeSettingsNotification,
  FocusInputNotification,
  ForkSessionCommand,
  ListSessionsRequest,
  LoadEarlierCommand,
  LoadSessionCommand,
  NewSessionCommand,
  PrepareSessionCommand,
  OpenDiffCommand,
  OpenLocationCommand,
  ReadyCommand,
  RemoveQueuedCommand,
  RemoveSteerCommand,
  RetryCommand,
  RewindMessageCommand,
  ReviewChangesCommand,
  RewindToCommand,
  ForkFromCommand,
  UndoChangesCommand,
  SearchMentionsRequest,
  SendPromptCommand,
  SetConfigOptionCommand,
  SteerCommand,
  WebviewLogCommand,
  type Attachment,
  type ConnectionState,
  type ErrorAction,
  type IpcMessage,
  type IpcRequest,
  type PlanQuotaView,
  type QueuedPrompt,
  type SessionView,
  type TranscriptItem,
} from '../../webview-ui/contract.ts';
import {
  BackgroundTasksNotification,
  CancelBackgroundTaskRequest,
  earlierPageOf,
  LoadEarlierRequest,
  readNotification,
  RetryTurnRequest,
} from '../../bridge/acp/extensionSchemas.ts';
import type { ChatChanges, ChatEnvironment, ChatHost, ChatSessions, Disposable, LoadedSession } from './chatPorts.ts';

export type { ChatEnvironment, ChatHost, ChatSessions } from './chatPorts.ts';
import { failureAction } from './failureAction.ts';
import { featureUnavailable } from './chatFeatures.ts';
import { ChatSteerRewind } from './chatSteerRewind.ts';
import { PatchStream } from './patchStream.ts';
import { PendingInteractions } from './pendingInteractions.ts';
import { buildPrompt, fileContents, parseAttachments, summarize } from './prompt.ts';
import * as T from './transcript.ts';
import { TranscriptCheckpoints } from './transcriptCheckpoints.ts';
import { transcriptMarkdown } from './transcriptMarkdown.ts';
import { parseElicitationResponse } from './wireParsing.ts';

/** Session menus kept for sessions this chat may switch to. */
const MAX_MENUS = 20;

const CONNECTION: Record<string, ConnectionState> = { notStarted: 'notStarted', starting: 'starting', ready: 'ready', turnRunning: 'ready', crashed: 'crashed' };

export class ChatController {
  private state: T.TranscriptState;
  private readonly stream = new PatchStream();
  private readonly pending = new PendingInteractions();
  private readonly subscriptions: Disposable[] = [];
  private lastPrompt: { text: string; attachments: Attachment[] } | undefined;
  private queueCounter = 0;
  private queued: (QueuedPrompt & { full: Attachment[] })[] = [];
  private started: Promise<void> | undefined;
  private attachOnReady: Attachment[] = [];
  /** Drafts of failed sends waiting for the view to listen. */
  private readonly restoreOnReady: { text: string; attachments: Attachment[] }[] = [];
  private focusOnReady = false;
  /** The running turn's change recorder (this window's prompts only). */
  private recorder: { sessionId: string; turn: ReturnType<ChatChanges['beginTurn']> } | undefined;
  private readonly checkpoints: TranscriptCheckpoints;
  private readonly steerRewind: ChatSteerRewind;
  /**
   * Paging back through a session the bridge replayed only the tail of: the cursor of the page
   * before what is shown; `page` while a `_zcode/session/loadEarlier` is on its way (the updates
   * marked with that cursor, collected until the answer prepends them at once).
   */
  private earlier: { sessionId: string; cursor: string; page?: SessionUpdate[] } | undefined;
  /** zcode cannot be found (what discovery tried); undefined: found or not looked for yet. */
  private notFound: string | undefined;
  private zcodeVersion: string | undefined;
  private firstPrompts: string[] = [];
  /** Each session's slash menu as the bridge last sent it (rememberMenu). */
  private readonly menus = new Map<string, AvailableCommand[]>();

  constructor(
    private readonly host: ChatHost,
    private readonly sessions: ChatSessions,
    private readonly env: ChatEnvironment,
  ) {
    this.state = this.freshTranscript(sessions.activeSessionId);
    this.checkpoints = new TranscriptCheckpoints({
      host,
      sessions,
      env,
      state: () => this.state,
      queue: (change) => this.queue(change),
      showError: (error) => this.showError(error),
    });
    this.steerRewind = new ChatSteerRewind({
      host,
      sessions,
      env,
      state: () => this.state,
      queue: (change) => this.queue(change),
      send: (notification, params) => {
        if (this.stream.isListening) this.stream.send(notification, params);
      },
      sendPrompt: (text) => void this.sendPrompt(text, []),
      showError: (error) => this.showError(error),
    });
    this.subscriptions.push(
      host.onSessionUpdate((n) => this.onSessionUpdate(n)),
      host.onExtNotification((n) => this.onExtNotification(n)),
      host.onDidChangeState((s) => this.queue(T.patchSession(this.state, { connection: CONNECTION[s] ?? 'ready', ...(s === 'crashed' ? {} : { connectionMessage: undefined }) }))),
      sessions.onDidChangeActiveSession((id) => {
        if (id !== this.state.session.sessionId) this.switchTo(id);
      }),
      // Every load (palette, this chat's menu, restore, fork) replays the whole history: start
      // from an empty transcript, also when the loaded session is the one shown.
      sessions.onWillLoadSession((id) => this.switchTo(id)),
      // What zcode does not replay: the changes cards of earlier turns, the messages' checkpoints.
      ...(sessions.onDidLoadSession ? [sessions.onDidLoadSession((loaded) => this.afterLoad(loaded))] : []),
      ...(env.features ? [env.features.onDidChange((c) => this.queue(T.patchSession(this.state, { featureUnavailable: featureUnavailable(c, env.features?.noReason ?? '') })))] : []),
      sessions.onDidChangeConfigOptions((c) => {
        if (c.sessionId === this.state.session.sessionId) this.queue(T.patchSession(this.state, { configOptions: [...c.configOptions] }));
      }),
    );
  }

  /** The transcript as the webview sees it (tests, e2e diagnostics). */
  get items(): readonly TranscriptItem[] {
    return this.state.list.items;
  }

  get session(): SessionView {
    return this.state.session;
  }

  /** A webview appeared: route its messages here; it will send `ready`. */
  attach(post: (msg: IpcMessage) => void): void {
    this.stream.attach(post);
  }

  /** The webview is gone (hidden without retained context, or disposed); state stays here. */
  detach(): void {
    this.stream.detach();
  }

  dispose(): void {
    this.stream.dispose();
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.pending.dispose();
  }

  // ---------------------------------------------------------------------------------------------
  // Interactive UI (registered with the host while the view exists)

  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    if (signal.aborted) return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    const { id, change } = T.addPermission(this.state, params);
    this.queue(change);
    // The user's side bar stays theirs: the badge, the status item and a notification with Show
    // tell (chatAttention.ts); the chat opens when they ask.
    const answered = this.pending.permission(id, params.options.map((o) => o.optionId), signal, () => this.queue(T.withdrawInteraction(this.state, id)));
    this.needsInput(params.toolCall.title ?? '');
    return this.afterSettled(answered);
  }

  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    if (signal.aborted) return Promise.resolve({ action: 'cancel' });
    const { id, change } = T.addElicitation(this.state, params);
    this.queue(change);
    const answered = this.pending.elicitation(id, signal, () => this.queue(T.withdrawInteraction(this.state, id)));
    this.needsInput(params.message);
    return this.afterSettled(answered);
  }

  private needsInput(title: string): void {
    this.env.pendingChanged?.(this.pending.size);
    this.env.notify?.({ kind: 'needsInput', title });
  }

  /** Reports the new pending count once a request is answered or withdrawn. */
  private afterSettled<R>(answered: Promise<R>): Promise<R> {
    return answered.then((response) => {
      this.env.pendingChanged?.(this.pending.size);
      return response;
    });
  }

  /** The conversation as markdown (Export Transcript, Copy All). */
  transcriptMarkdown(): string {
    return transcriptMarkdown(this.state.list.items, this.state.session.title ?? '');
  }

  /** One message (by transcript item id) as markdown, like its hover Copy button; undefined for an unknown id. */
  itemMarkdown(itemId: string): string | undefined {
    const item = this.state.list.items.find((i) => i.id === itemId);
    if (item?.type === 'agent' || item?.type === 'user') return item.text;
    return item ? transcriptMarkdown([item]) : undefined;
  }

  /** The settings changed (or the webview just started): tell the webview. */
  pushSettings(): void {
    if (this.stream.isListening) this.stream.send(DidChangeSettingsNotification, this.env.settings?.() ?? DEFAULT_CHAT_SETTINGS);
  }

  /** The plan quota for the context meter (the account's, so it outlives session switches). */
  setPlanQuota(planQuota: PlanQuotaView | undefined): void {
    if (planQuota) this.queue(T.patchSession(this.state, { planQuota }));
  }

  /** Moves the keyboard to the composer (once the webview is listening). */
  focusInput(): void {
    if (this.stream.isListening) this.stream.send(FocusInputNotification, {});
    else this.focusOnReady = true;
  }

  // ---------------------------------------------------------------------------------------------
  // Webview messages

  /** Entry point for everything the webview posts. Unknown or malformed messages are ignored. */
  receive(msg: IpcMessage): void {
    try {
      this.dispatch(msg);
    } catch (error) {
      this.env.log('error', `chat: handling ${msg.method} failed: ${this.env.errorMessage(error)}`);
    }
  }

  /**
   * Each `is()` narrows `msg` to its command's params (the contract types them; their values are
   * still the webview's, so data that reaches the bridge — attachments, form answers — is checked).
   */
  private dispatch(msg: IpcMessage): void {
    if (ReadyCommand.is(msg)) return this.onReady();
    if (SendPromptCommand.is(msg)) return void this.sendPrompt(msg.params.text ?? '', parseAttachments(msg.params.attachments));
    if (SteerCommand.is(msg)) return void this.steerRewind.steer(msg.params.text ?? '');
    if (RemoveSteerCommand.is(msg)) return void this.steerRewind.removeDeferred();
    if (RewindMessageCommand.is(msg)) {
      const { itemId, action } = msg.params;
      if (typeof itemId === 'string' && (action === 'askAgain' || action === 'filesOnly')) void this.steerRewind.rewindMessage(itemId, action);
      return;
    }
    if (RemoveQueuedCommand.is(msg)) {
      this.queued = this.queued.filter((q) => q.id !== msg.params.id);
      return this.publishQueue();
    }
    if (CancelTurnCommand.is(msg)) return void this.cancelTurn();
    if (RetryCommand.is(msg)) return this.retry(msg.params.itemId);
    if (SetupActionCommand.is(msg)) {
      const { action } = msg.params;
      if (action === 'locate' || action === 'openSettings' || action === 'install') this.env.setupAction?.(action);
      return;
    }
    if (ErrorActionCommand.is(msg)) {
      const { action } = msg.params;
      if (action === 'openDesktop' || action === 'checkApiKey' || action === 'showLogs') this.env.errorAction?.(action);
      return;
    }
    if (AnswerPermissionCommand.is(msg)) return this.answerPermission(msg.params);
    if (AnswerElicitationCommand.is(msg)) return this.answerElicitation(msg.params.id, msg.params.response);
    if (OpenDiffCommand.is(msg)) {
      const source = this.state.diffs.get(msg.params.toolCallId)?.[msg.params.index];
      if (source) void this.env.openDiff(source).catch((e: unknown) => this.showError(e));
      return;
    }
    if (ReviewChangesCommand.is(msg)) return this.changesCommand('review', msg.params);
    if (UndoChangesCommand.is(msg)) return this.changesCommand('undo', msg.params);
    if (RewindToCommand.is(msg)) return void this.checkpoints.rewind(msg.params.itemId ?? '');
    if (ForkFromCommand.is(msg)) return void this.checkpoints.fork(msg.params.itemId ?? '');
    if (OpenLocationCommand.is(msg)) {
      const { path, line } = msg.params;
      if (path) void this.env.openLocation(path, typeof line === 'number' ? line : undefined).catch((e: unknown) => this.showError(e));
      return;
    }
    if (CopyTextCommand.is(msg)) return void this.env.copy(msg.params.text ?? '');
    if (ChatFocusCommand.is(msg)) return this.env.focusChanged?.(msg.params.focused === true);
    if (CopyTranscriptCommand.is(msg)) return void this.env.copy(this.transcriptMarkdown());
    if (SetConfigOptionCommand.is(msg)) {
      const { configId, value } = msg.params;
      if (configId && (typeof value === 'string' || typeof value === 'boolean')) void this.setConfigOption(configId, value);
      return;
    }
    if (NewSessionCommand.is(msg)) return void this.run(() => this.sessions.newSession());
    // The user began a `/command` before the first prompt: make the session that prompt would
    // make (lazy on the bridge, zcode is not started), so its menu arrives.
    if (PrepareSessionCommand.is(msg)) return void this.ensureSession().catch((error: unknown) => this.env.log('warn', `chat: preparing a session failed: ${this.env.errorMessage(error)}`));
    if (LoadSessionCommand.is(msg)) {
      const { sessionId } = msg.params;
      if (sessionId) void this.run(() => this.sessions.loadSession(sessionId));
      return;
    }
    if (ForkSessionCommand.is(msg)) return void this.run(() => this.sessions.fork());
    if (LoadEarlierCommand.is(msg)) return void this.loadEarlier();
    if (CancelBackgroundTaskCommand.is(msg)) {
      const sessionId = this.state.session.sessionId;
      const { taskId } = msg.params;
      if (sessionId && taskId) void this.run(() => this.host.call(CancelBackgroundTaskRequest, { sessionId, taskId }));
      return;
    }
    if (WebviewLogCommand.is(msg)) {
      const level = msg.params.level === 'error' || msg.params.level === 'warn' ? msg.params.level : 'info';
      return this.env.log(level, `chat webview: ${msg.params.message ?? ''}`);
    }
    if (ListSessionsRequest.is(msg)) {
      return this.respond(msg, ListSessionsRequest, async () => ({
        sessions: (await (this.env.listSessions?.() ?? this.sessions.listSessions())).map((s) => ({ sessionId: s.sessionId, ...(s.title ? { title: s.title } : {}), ...(s.updatedAt ? { updatedAt: s.updatedAt } : {}) })),
      }));
    }
    if (AttachContextRequest.is(msg)) {
      const { source } = msg.params;
      return this.respond(msg, AttachContextRequest, async () => ({ attachments: await this.env.attachContext(source === 'activeFile' || source === 'pickFiles' ? source : 'selection') }));
    }
    if (SearchMentionsRequest.is(msg)) {
      return this.respond(msg, SearchMentionsRequest, async () => ({ candidates: (await this.env.searchMentions?.(msg.params.query ?? '')) ?? [] }));
    }
  }

  private respond<P, R>(msg: IpcMessage, request: IpcRequest<P, R>, run: () => Promise<R>): void {
    run().then(
      (value) => this.stream.send(request.response, { ok: true, value }, msg.id),
      (error: unknown) => this.stream.send(request.response, { ok: false, error: this.env.errorMessage(error) }, msg.id),
    );
  }

  /** Pushes attachments into the composer (the "add selection to chat" editor command). */
  pushAttachments(attachments: Attachment[]): void {
    if (attachments.length === 0) return;
    // The view may still be loading: deliver once it said `ready`.
    if (this.stream.isListening) this.stream.send(DidAttachNotification, { attachments });
    else this.attachOnReady.push(...attachments);
  }

  // ---------------------------------------------------------------------------------------------
  // Turns

  private async ensureSession(): Promise<string> {
    await this.start();
    const id = this.sessions.activeSessionId ?? (await this.sessions.newSession());
    if (this.state.session.sessionId !== id) this.switchTo(id);
    return id;
  }

  /**
   * No session to show: make the new one now, so its mode, model and thought-level pickers are there
   * before the first prompt (the bridge creates nothing in zcode until then; choices made here go
   * with the create). Best effort: a failure shows when the first prompt tries again.
   */
  private async prepareNewSession(): Promise<void> {
    try {
      const id = await this.sessions.newSession();
      if (this.state.session.sessionId !== id) this.switchTo(id);
    } catch (error) {
      this.env.log('warn', `could not prepare a new session before the first prompt: ${this.env.errorMessage(error)}`);
    }
  }

  /** Starts the bridge and shows the remembered session (once per activation). */
  private start(): Promise<void> {
    this.started ??= (async () => {
      try {
        await this.host.ready();
        this.queue(T.patchSession(this.state, { connection: CONNECTION[this.host.state] ?? 'ready', promptCapabilities: this.promptCaps() }));
        if (this.sessions.activeSessionId) await this.sessions.restore();
        else await this.prepareNewSession();
      } catch (error) {
        this.started = undefined;
        this.queue(T.patchSession(this.state, { connection: 'error', connectionMessage: this.env.errorMessage(error) }));
        throw error;
      }
    })();
    return this.started;
  }

  /** Sends a prompt now, or queues it while a turn runs (it goes when the turn ends). */
  private async sendPrompt(text: string, attachments: Attachment[]): Promise<void> {
    if (!text && attachments.length === 0) return;
    if (this.state.session.running) {
      this.queued.push({ id: `q${++this.queueCounter}`, text, attachments: summarize(attachments), full: attachments });
      return this.publishQueue();
    }
    let sessionId: string;
    try {
      sessionId = await this.ensureSession();
    } catch (error) {
      this.queue(T.addError(this.state, this.env.errorMessage(error), false));
      this.restoreDraft(text, attachments);
      return;
    }
    const transcript = this.state;
    this.lastPrompt = { text, attachments };
    this.queue(T.addUserPrompt(transcript, text, summarize(attachments)));
    const turn = this.env.changes?.beginTurn(sessionId, text);
    this.recorder = turn ? { sessionId, turn } : undefined;
    const caps = this.promptCaps();
    const prompt = buildPrompt(text, attachments, caps, await fileContents(attachments, caps, this.env.fileContent));
    let outcome: { stopReason: PromptResponse['stopReason'] } | { error: string; action: ErrorAction };
    try {
      const response = await this.host.request<PromptResponse>('session/prompt', { sessionId, prompt });
      outcome = { stopReason: response.stopReason };
    } catch (error) {
      outcome = { error: this.env.errorMessage(error), action: failureAction(error) };
    }
    if (this.recorder?.turn === turn) this.recorder = undefined;
    // Stored even when the user switched sessions meanwhile (the card comes back with the session).
    const changes = turn?.finish().catch((error: unknown) => {
      this.env.log('warn', `chat: recording the turn's changes failed: ${this.env.errorMessage(error)}`);
      return undefined;
    });
    if ('error' in outcome) this.restoreDraft(text, attachments);
    // The user may have switched sessions meanwhile: that transcript is gone, nothing to update.
    if (transcript !== this.state) return;
    this.queue(T.endTurn(transcript, outcome));
    if (!('error' in outcome) && outcome.stopReason === 'end_turn') void this.checkpoints.refresh(sessionId);
    void changes?.then((card) => {
      if (card && transcript === this.state) this.queue(T.putItem(transcript, card));
    });
    // A turn the user stopped needs no notification: they know.
    if ('error' in outcome) this.env.notify?.({ kind: 'turnFailed', message: outcome.error });
    else if (outcome.stopReason !== 'cancelled') this.env.notify?.({ kind: 'turnEnded', summary: this.lastAgentText() });
    const next = this.queued.shift();
    if (next) {
      this.publishQueue();
      void this.sendPrompt(next.text, next.full);
    }
  }

  /** A send failed: what the user typed goes back into the composer (now, or once the view is back). */
  private restoreDraft(text: string, attachments: Attachment[]): void {
    if (!text && attachments.length === 0) return;
    if (this.stream.isListening) this.stream.send(DidRestoreDraftNotification, { text, attachments });
    else this.restoreOnReady.push({ text, attachments });
  }

  /** The last agent message of the transcript (a notification's summary of the turn). */
  private lastAgentText(): string {
    const items = this.state.list.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (item.type === 'agent') return item.text;
      if (item.type === 'user') break;
    }
    return '';
  }

  private async cancelTurn(): Promise<void> {
    const sessionId = this.state.session.sessionId;
    if (!sessionId) return;
    this.queued = [];
    this.publishQueue();
    try {
      await this.host.cancelTurn(sessionId);
    } catch (error) {
      this.showError(error);
    }
  }

  /**
   * Re-sends the prompt an error card belongs to. Only the last prompt's error offers it: an older
   * card's Retry would re-send a different prompt than the one it failed on.
   */
  private retry(itemId: string): void {
    if (!this.lastPrompt || this.state.session.running) return;
    const items = this.state.list.items;
    const at = this.state.list.index.get(itemId) ?? -1;
    const item = items[at];
    const lastUser = items.findLastIndex((i) => i.type === 'user');
    if (item?.type !== 'error' || !item.retryable || at < lastUser) return this.env.log('info', `chat: Retry of ${itemId} ignored (not the last prompt's error)`);
    // zcode re-runs the turn itself where it can (no second copy of the prompt in its history).
    const sessionId = this.state.session.sessionId;
    if (sessionId && this.env.features?.capabilities.probed && this.state.session.featureUnavailable?.retryTurn === undefined) return void this.retryInZcode(sessionId);
    void this.sendPrompt(this.lastPrompt.text, this.lastPrompt.attachments);
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
      await this.host.call(RetryTurnRequest, { sessionId });
    } catch (error) {
      this.env.log('info', `chat: zcode did not retry the turn in place (${this.env.errorMessage(error)}); sending the prompt again`);
      if (prompt && this.state.session.sessionId === sessionId && !this.state.session.running) void this.sendPrompt(prompt.text, prompt.attachments);
    }
  }

  /** The chosen option, or a dismissal (`cancelled`); an answer with neither is malformed and ignored. */
  private answerPermission({ id, optionId, cancelled }: { id: string; optionId?: string; cancelled?: boolean }): void {
    const answer = cancelled === true ? undefined : optionId;
    if (cancelled !== true && typeof optionId !== 'string') return this.env.log('warn', `chat: permission answer for ${id} names no option and is not a dismissal; ignored`);
    if (this.pending.answerPermission(id, answer)) this.queue(T.answerPermission(this.state, id, answer));
  }

  private answerElicitation(id: string, response: unknown): void {
    const parsed = parseElicitationResponse(response);
    if (parsed && this.pending.answerElicitation(id, parsed)) this.queue(T.answerElicitation(this.state, id, parsed));
  }

  private async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const sessionId = this.state.session.sessionId;
    if (!sessionId) return;
    try {
      const options = await this.sessions.setConfigOption(sessionId, configId, value);
      if (this.state.session.sessionId === sessionId) this.queue(T.patchSession(this.state, { configOptions: [...options] }));
    } catch (error) {
      this.showError(error);
      // Put the picker back to the real value.
      this.queue(T.patchSession(this.state, { configOptions: [...this.state.session.configOptions] }));
    }
  }

  private async run(action: () => Promise<unknown>): Promise<void> {
    try {
      await this.start();
      await action();
    } catch (error) {
      this.showError(error);
    }
  }

  private showError(error: unknown): void {
    this.queue(T.addError(this.state, this.env.errorMessage(error), false));
  }

  private publishQueue(): void {
    this.queue(T.patchSession(this.state, { queue: this.queued.map(({ id, text, attachments }) => ({ id, text, attachments })) }));
  }

  // ---------------------------------------------------------------------------------------------
  // Bridge events

  private onSessionUpdate(n: SessionNotification): void {
    const u = n.update;
    // A page of earlier history goes before everything shown, once its answer arrived (loadEarlier);
    // never appended as if it were new. A page nobody here asked for (a stale one) is dropped.
    const page = earlierPageOf(u);
    if (page !== undefined) {
      if (this.earlier?.page && this.earlier.sessionId === n.sessionId && this.earlier.cursor === page) this.earlier.page.push(u);
      return;
    }
    if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && this.recorder?.sessionId === n.sessionId) this.recorder.turn.note(u);
    // The bridge sends a session's menu right after session/new answers, often before this chat
    // has switched to that session: kept per session, a transcript made later starts with it.
    if (u.sessionUpdate === 'available_commands_update') this.rememberMenu(n.sessionId, u.availableCommands);
    if (n.sessionId !== this.state.session.sessionId) return;
    this.queue(T.applySessionUpdate(this.state, n.update));
  }

  private onExtNotification(notification: { method: string; params: unknown }): void {
    if (this.steerRewind.onNotification(notification)) return;
    const tasks = readNotification(BackgroundTasksNotification, notification);
    if (tasks && tasks.sessionId === this.state.session.sessionId) this.queue(T.patchSession(this.state, { backgroundTasks: tasks.tasks }));
  }

  private changesCommand(action: 'review' | 'undo', params: { changeSetId?: unknown; path?: unknown }): void {
    // the webview's values: only strings reach the change store
    const changeSetId = typeof params.changeSetId === 'string' ? params.changeSetId : undefined;
    const path = typeof params.path === 'string' ? params.path : undefined;
    if (changeSetId) void this.onChangesCommand(action, changeSetId, path);
  }

  private async onChangesCommand(action: 'review' | 'undo', changeSetId: string, path: string | undefined): Promise<void> {
    const changes = this.env.changes;
    if (!changes) return;
    try {
      if (action === 'review') return await changes.review(changeSetId, path);
      const card = await changes.undo(changeSetId, path);
      if (card && T.hasItem(this.state, card.id)) this.queue(T.putItem(this.state, card));
    } catch (error) {
      this.showError(error);
    }
  }

  /** The not-found state (extension/locate.ts): the empty chat shows it with the ways out. */
  setNotFound(message: string | undefined): void {
    if (this.notFound === message) return;
    this.notFound = message;
    // '' clears it: a patch field set to undefined is lost on the way to the webview.
    this.queue(T.patchSession(this.state, { notFound: message ?? '' }));
  }

  /** Which zcode runs (extension/locate.ts): the empty chat names it. */
  setZcodeVersion(version: string | undefined): void {
    if (this.zcodeVersion === version) return;
    this.zcodeVersion = version;
    this.queue(T.patchSession(this.state, { zcodeVersion: version ?? '' }));
  }

  /** The empty chat's first prompts for this workspace (firstPrompts.ts). */
  setFirstPrompts(prompts: readonly string[]): void {
    if (this.firstPrompts.join('\n') === prompts.join('\n')) return;
    this.firstPrompts = [...prompts];
    this.queue(T.patchSession(this.state, { firstPrompts: [...prompts] }));
  }

  /** The last menu of each session (the newest few: a chat shows one session at a time). */
  private rememberMenu(sessionId: string, commands: AvailableCommand[]): void {
    this.menus.delete(sessionId);
    this.menus.set(sessionId, commands);
    for (const old of [...this.menus.keys()].slice(0, Math.max(0, this.menus.size - MAX_MENUS))) this.menus.delete(old);
  }

  private afterLoad({ sessionId, earlierCursor }: LoadedSession): void {
    if (sessionId !== this.state.session.sessionId) return;
    this.earlier = earlierCursor ? { sessionId, cursor: earlierCursor } : undefined;
    this.queue(T.patchSession(this.state, { earlier: earlierCursor ? 'available' : 'none' }));
    void this.showStoredChanges(sessionId);
    void this.checkpoints.refresh(sessionId);
  }

  /**
   * The user scrolled to the top of what is shown: the bridge sends the page before the cursor as
   * marked updates (collected by onSessionUpdate), then answers; the page goes in front in one change.
   */
  private async loadEarlier(): Promise<void> {
    const earlier = this.earlier;
    if (!earlier || earlier.page || earlier.sessionId !== this.state.session.sessionId) return;
    const transcript = this.state;
    earlier.page = [];
    this.queue(T.patchSession(transcript, { earlier: 'loading' }));
    let next: string | undefined;
    try {
      next = (await this.host.call(LoadEarlierRequest, { sessionId: earlier.sessionId, cursor: earlier.cursor })).cursor;
    } catch (error) {
      // Another load or session meanwhile: that transcript is gone. Otherwise scrolling up tries again.
      if (this.earlier !== earlier || transcript !== this.state) return;
      earlier.page = undefined;
      this.queue(T.patchSession(transcript, { earlier: 'available' }));
      return this.showError(error);
    }
    if (this.earlier !== earlier || transcript !== this.state) return;
    const updates = earlier.page;
    this.earlier = next ? { sessionId: earlier.sessionId, cursor: next } : undefined;
    this.queue(T.mergeChanges(T.prependHistory(transcript, updates), T.patchSession(transcript, { earlier: next ? 'available' : 'none' })));
  }

  /** Shows the changes cards stored for the session's earlier turns (after a load or a reload). */
  private async showStoredChanges(sessionId: string): Promise<void> {
    try {
      const cards = (await this.env.changes?.restored(sessionId)) ?? [];
      if (this.state.session.sessionId !== sessionId) return;
      for (const card of cards) if (!T.hasItem(this.state, card.id)) this.queue(T.putItem(this.state, card));
    } catch (error) {
      this.env.log('warn', `chat: loading stored changes failed: ${this.env.errorMessage(error)}`);
    }
  }

  /** Another session is shown, or a load replays this one: new transcript (the replay fills it). */
  private switchTo(sessionId: string | undefined): void {
    const previous = this.state;
    this.state = this.freshTranscript(sessionId, previous.session);
    this.queued = [];
    this.earlier = undefined;
    // Forms still waiting for an answer stay answerable whatever session is shown.
    for (const item of previous.list.items) {
      if ((item.type === 'permission' || item.type === 'elicitation') && item.state === 'pending' && this.pending.has(item.id)) {
        this.state.list.items.push(item);
        this.state.list.index.set(item.id, this.state.list.items.length - 1);
      }
    }
    this.state.counter = previous.counter;
    this.sendSnapshot();
  }

  private freshTranscript(sessionId: string | undefined, previous?: SessionView): T.TranscriptState {
    return T.createTranscript({
      ...(sessionId ? { sessionId, title: this.sessions.title(sessionId), configOptions: [...(this.sessions.configOptions(sessionId) ?? [])], commands: [...(this.menus.get(sessionId) ?? [])] } : {}),
      connection: previous?.connection ?? CONNECTION[this.host.state] ?? 'notStarted',
      ...(previous?.connectionMessage ? { connectionMessage: previous.connectionMessage } : {}),
      ...(previous?.planQuota ? { planQuota: previous.planQuota } : {}),
      ...(this.notFound ? { notFound: this.notFound } : {}),
      ...(this.zcodeVersion ? { zcodeVersion: this.zcodeVersion } : {}),
      ...(this.firstPrompts.length ? { firstPrompts: [...this.firstPrompts] } : {}),
      promptCapabilities: this.promptCaps(),
      ...(this.env.features ? { featureUnavailable: featureUnavailable(this.env.features.capabilities, this.env.features.noReason) } : {}),
    });
  }

  private promptCaps(): SessionView['promptCapabilities'] {
    const caps = this.host.initializeResult?.agentCapabilities?.promptCapabilities;
    return { image: caps?.image === true, embeddedContext: caps?.embeddedContext === true };
  }

  // ---------------------------------------------------------------------------------------------
  // Webview sync

  private onReady(): void {
    this.stream.ready((seq) => T.snapshotOf(this.state, seq));
    this.pushSettings();
    if (this.focusOnReady) {
      this.focusOnReady = false;
      this.stream.send(FocusInputNotification, {});
    }
    if (this.attachOnReady.length) this.stream.send(DidAttachNotification, { attachments: this.attachOnReady.splice(0) });
    for (const draft of this.restoreOnReady.splice(0)) this.stream.send(DidRestoreDraftNotification, draft);
    // Opening the chat is "first use": start the bridge and show the remembered session.
    void this.start().catch(() => {});
  }

  private sendSnapshot(): void {
    this.stream.sendSnapshot((seq) => T.snapshotOf(this.state, seq));
  }

  private queue(change: T.Change): void {
    this.stream.queue(change);
  }

  /** Sends buffered changes now (tests). */
  flush(): void {
    this.stream.flush();
  }

}
