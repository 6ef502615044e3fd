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
  CreateElicitationRequest,
  CreateElicitationResponse,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionInfo,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import {
  AnswerElicitationCommand,
  AnswerPermissionCommand,
  AttachContextRequest,
  CancelBackgroundTaskCommand,
  CancelTurnCommand,
  CopyTextCommand,
  DidAttachNotification,
  DidChangeSnapshotNotification,
  DidPatchNotification,
  ForkSessionCommand,
  ListSessionsRequest,
  LoadSessionCommand,
  NewSessionCommand,
  OpenDiffCommand,
  OpenLocationCommand,
  ReadyCommand,
  RemoveQueuedCommand,
  RetryCommand,
  SendPromptCommand,
  SetConfigOptionCommand,
  SteerCommand,
  WebviewLogCommand,
  type Attachment,
  type BackgroundTaskView,
  type ConnectionState,
  type IpcMessage,
  type IpcNotification,
  type IpcRequest,
  type QueuedPrompt,
  type SessionView,
  type TranscriptItem,
} from '../../webview-ui/contract.ts';
import { buildPrompt, parseAttachments, summarize } from './prompt.ts';
import type { DiffSource } from './toolView.ts';
import * as T from './transcript.ts';

type Disposable = { dispose(): unknown };
type Event<E> = (listener: (e: E) => unknown) => Disposable;

/** What the chat needs of `ZcodeClientHost` (extension/acpClient.ts). */
export interface ChatHost {
  readonly state: string;
  readonly initializeResult?: { agentCapabilities?: { promptCapabilities?: { image?: boolean; embeddedContext?: boolean } | null } | null } | undefined;
  ready(): Promise<void>;
  request<T = unknown>(method: string, params: unknown): Promise<T>;
  cancelTurn(sessionId: string): Promise<void>;
  readonly onSessionUpdate: Event<SessionNotification>;
  readonly onExtNotification: Event<{ method: string; params: unknown }>;
  readonly onDidChangeState: Event<string>;
}

/** What the chat needs of `SessionManager` (extension/sessions.ts). */
export interface ChatSessions {
  readonly activeSessionId: string | undefined;
  readonly onDidChangeActiveSession: Event<string | undefined>;
  readonly onDidChangeConfigOptions: Event<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>;
  configOptions(sessionId: string): readonly SessionConfigOption[] | undefined;
  title(sessionId: string): string | undefined;
  newSession(): Promise<string>;
  loadSession(sessionId: string): Promise<void>;
  listSessions(): Promise<SessionInfo[]>;
  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<readonly SessionConfigOption[]>;
  fork(): Promise<string>;
  restore(): Promise<string | undefined>;
}

/** The vscode side effects, injected. */
export interface ChatEnvironment {
  openDiff(source: DiffSource): Promise<void>;
  openLocation(path: string, line?: number): Promise<void>;
  copy(text: string): Promise<void>;
  attachContext(source: 'selection' | 'activeFile' | 'pickFiles'): Promise<Attachment[]>;
  /** Shows the chat view (forms arrived while it was hidden). */
  reveal(): void;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  /** Turns any error into one plain sentence. */
  errorMessage(error: unknown): string;
}

type PendingInteraction =
  | { kind: 'permission'; resolve(r: RequestPermissionResponse): void; options: Set<string> }
  | { kind: 'elicitation'; resolve(r: CreateElicitationResponse): void };

/** Patches are sent at most this often (ms); deltas in between are merged. */
export const FLUSH_MS = 16;

const CONNECTION: Record<string, ConnectionState> = { notStarted: 'notStarted', starting: 'starting', ready: 'ready', turnRunning: 'ready', crashed: 'crashed' };

export class ChatController {
  private state: T.TranscriptState;
  private seq = 0;
  private post: ((msg: IpcMessage) => void) | undefined;
  private webviewReady = false;
  private buffer: T.Change = { ops: [] };
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly pending = new Map<string, PendingInteraction>();
  private readonly subscriptions: Disposable[] = [];
  private lastPrompt: { text: string; attachments: Attachment[] } | undefined;
  private queueCounter = 0;
  private queued: (QueuedPrompt & { full: Attachment[] })[] = [];
  private started: Promise<void> | undefined;
  private messageCounter = 0;
  private attachOnReady: Attachment[] = [];

  constructor(
    private readonly host: ChatHost,
    private readonly sessions: ChatSessions,
    private readonly env: ChatEnvironment,
  ) {
    this.state = this.freshTranscript(sessions.activeSessionId);
    this.subscriptions.push(
      host.onSessionUpdate((n) => this.onSessionUpdate(n)),
      host.onExtNotification((n) => this.onExtNotification(n.method, n.params)),
      host.onDidChangeState((s) => this.queue(T.patchSession(this.state, { connection: CONNECTION[s] ?? 'ready', ...(s === 'crashed' ? {} : { connectionMessage: undefined }) }))),
      sessions.onDidChangeActiveSession((id) => this.switchTo(id)),
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
    this.post = post;
    this.webviewReady = false;
  }

  /** The webview is gone (hidden without retained context, or disposed); state stays here. */
  detach(): void {
    this.post = undefined;
    this.webviewReady = false;
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    for (const s of this.subscriptions.splice(0)) s.dispose();
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (p.kind === 'permission') p.resolve({ outcome: { outcome: 'cancelled' } });
      else p.resolve({ action: 'cancel' });
    }
    this.post = undefined;
  }

  // ---------------------------------------------------------------------------------------------
  // Interactive UI (registered with the host while the view exists)

  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    if (signal.aborted) return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    const { id, change } = T.addPermission(this.state, params);
    this.queue(change);
    this.env.reveal();
    return new Promise((resolve) => {
      this.pending.set(id, { kind: 'permission', resolve, options: new Set(params.options.map((o) => o.optionId)) });
      signal.addEventListener('abort', () => this.withdraw(id), { once: true });
    });
  }

  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    if (signal.aborted) return Promise.resolve({ action: 'cancel' });
    const { id, change } = T.addElicitation(this.state, params);
    this.queue(change);
    this.env.reveal();
    return new Promise((resolve) => {
      this.pending.set(id, { kind: 'elicitation', resolve });
      signal.addEventListener('abort', () => this.withdraw(id), { once: true });
    });
  }

  private withdraw(id: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    this.queue(T.withdrawInteraction(this.state, id));
    if (p.kind === 'permission') p.resolve({ outcome: { outcome: 'cancelled' } });
    else p.resolve({ action: 'cancel' });
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

  private dispatch(msg: IpcMessage): void {
    const p = (msg.params ?? {}) as Record<string, unknown>;
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    if (ReadyCommand.is(msg)) return this.onReady();
    if (SendPromptCommand.is(msg)) return void this.sendPrompt(str(p.text) ?? '', parseAttachments(p.attachments), p.whenBusy === 'queue');
    if (SteerCommand.is(msg)) return void this.steer(str(p.text) ?? '');
    if (RemoveQueuedCommand.is(msg)) {
      this.queued = this.queued.filter((q) => q.id !== p.id);
      return this.publishQueue();
    }
    if (CancelTurnCommand.is(msg)) return void this.cancelTurn();
    if (RetryCommand.is(msg)) {
      if (this.lastPrompt && !this.state.session.running) void this.sendPrompt(this.lastPrompt.text, this.lastPrompt.attachments, false);
      return;
    }
    if (AnswerPermissionCommand.is(msg)) return this.answerPermission(str(p.id) ?? '', str(p.optionId));
    if (AnswerElicitationCommand.is(msg)) return this.answerElicitation(str(p.id) ?? '', p.response);
    if (OpenDiffCommand.is(msg)) {
      const source = this.state.diffs.get(str(p.toolCallId) ?? '')?.[typeof p.index === 'number' ? p.index : -1];
      if (source) void this.env.openDiff(source).catch((e: unknown) => this.showError(e));
      return;
    }
    if (OpenLocationCommand.is(msg)) {
      const path = str(p.path);
      if (path) void this.env.openLocation(path, typeof p.line === 'number' ? p.line : undefined).catch((e: unknown) => this.showError(e));
      return;
    }
    if (CopyTextCommand.is(msg)) return void this.env.copy(str(p.text) ?? '');
    if (SetConfigOptionCommand.is(msg)) {
      const configId = str(p.configId);
      const value = typeof p.value === 'string' || typeof p.value === 'boolean' ? p.value : undefined;
      if (configId && value !== undefined) void this.setConfigOption(configId, value);
      return;
    }
    if (NewSessionCommand.is(msg)) return void this.run(() => this.sessions.newSession());
    if (LoadSessionCommand.is(msg)) {
      const sessionId = str(p.sessionId);
      if (!sessionId) return;
      return void this.run(async () => {
        // Re-loading the shown session replays it: start from an empty transcript.
        if (sessionId === this.state.session.sessionId) this.switchTo(sessionId, true);
        await this.sessions.loadSession(sessionId);
      });
    }
    if (ForkSessionCommand.is(msg)) return void this.run(() => this.sessions.fork());
    if (CancelBackgroundTaskCommand.is(msg)) {
      const sessionId = this.state.session.sessionId;
      const taskId = str(p.taskId);
      if (sessionId && taskId) void this.run(() => this.host.request('_zcode/session/cancelBackgroundTask', { sessionId, taskId }));
      return;
    }
    if (WebviewLogCommand.is(msg)) {
      const level = p.level === 'error' || p.level === 'warn' ? p.level : 'info';
      return this.env.log(level, `chat webview: ${str(p.message) ?? ''}`);
    }
    if (ListSessionsRequest.is(msg)) {
      return this.respond(msg, ListSessionsRequest, async () => ({
        sessions: (await this.sessions.listSessions()).map((s) => ({ sessionId: s.sessionId, ...(s.title ? { title: s.title } : {}), ...(s.updatedAt ? { updatedAt: s.updatedAt } : {}) })),
      }));
    }
    if (AttachContextRequest.is(msg)) {
      const source = p.source === 'selection' || p.source === 'activeFile' || p.source === 'pickFiles' ? p.source : 'selection';
      return this.respond(msg, AttachContextRequest, async () => ({ attachments: await this.env.attachContext(source) }));
    }
  }

  private respond<P, R>(msg: IpcMessage, request: IpcRequest<P, R>, run: () => Promise<R>): void {
    run().then(
      (value) => this.send(request.response, { ok: true, value }, msg.id),
      (error: unknown) => this.send(request.response, { ok: false, error: this.env.errorMessage(error) }, msg.id),
    );
  }

  /** Pushes attachments into the composer (the "add selection to chat" editor command). */
  pushAttachments(attachments: Attachment[]): void {
    if (attachments.length === 0) return;
    // The view may still be loading: deliver once it said `ready`.
    if (this.webviewReady) this.send(DidAttachNotification, { attachments });
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

  /** Starts the bridge and shows the remembered session (once per activation). */
  private start(): Promise<void> {
    this.started ??= (async () => {
      try {
        await this.host.ready();
        this.queue(T.patchSession(this.state, { connection: CONNECTION[this.host.state] ?? 'ready', promptCapabilities: this.promptCaps() }));
        if (this.sessions.activeSessionId) await this.sessions.restore();
      } catch (error) {
        this.started = undefined;
        this.queue(T.patchSession(this.state, { connection: 'error', connectionMessage: this.env.errorMessage(error) }));
        throw error;
      }
    })();
    return this.started;
  }

  private async sendPrompt(text: string, attachments: Attachment[], queueIfBusy: boolean): Promise<void> {
    if (!text && attachments.length === 0) return;
    if (this.state.session.running) {
      if (!queueIfBusy) this.env.log('info', 'chat: a prompt arrived while a turn runs; queued it');
      this.queued.push({ id: `q${++this.queueCounter}`, text, attachments: summarize(attachments), full: attachments });
      return this.publishQueue();
    }
    let sessionId: string;
    try {
      sessionId = await this.ensureSession();
    } catch (error) {
      this.queue(T.addError(this.state, this.env.errorMessage(error), false));
      return;
    }
    const transcript = this.state;
    this.lastPrompt = { text, attachments };
    this.queue(T.addUserPrompt(transcript, text, summarize(attachments)));
    const prompt = buildPrompt(text, attachments, this.promptCaps());
    let outcome: { stopReason: PromptResponse['stopReason'] } | { error: string };
    try {
      const response = await this.host.request<PromptResponse>('session/prompt', { sessionId, prompt });
      outcome = { stopReason: response.stopReason };
    } catch (error) {
      outcome = { error: this.env.errorMessage(error) };
    }
    // The user may have switched sessions meanwhile: that transcript is gone, nothing to update.
    if (transcript !== this.state) return;
    this.queue(T.endTurn(transcript, outcome));
    const next = this.queued.shift();
    if (next) {
      this.publishQueue();
      void this.sendPrompt(next.text, next.full, false);
    }
  }

  private async steer(text: string): Promise<void> {
    const sessionId = this.state.session.sessionId;
    if (!text || !sessionId) return;
    if (!this.state.session.running) return void this.sendPrompt(text, [], false);
    this.queue(T.patchSession(this.state, { steer: 'sent' }));
    try {
      // `_zcode/session/steer` mirrors zcode's `session/steer {sessionId, content}`.
      await this.host.request('_zcode/session/steer', { sessionId, content: text });
      this.queue(T.addUserPrompt(this.state, text, []));
      // addUserPrompt marks a new turn; a steer joins the running one: keep the steer chip.
      this.queue(T.patchSession(this.state, { running: true, steer: this.state.session.steer ?? 'sent' }));
    } catch (error) {
      this.queue(T.patchSession(this.state, { steer: undefined }));
      this.queue(T.addError(this.state, this.env.errorMessage(error), false));
    }
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

  private answerPermission(id: string, optionId: string | undefined): void {
    const p = this.pending.get(id);
    if (!p || p.kind !== 'permission') return;
    if (optionId !== undefined && !p.options.has(optionId)) return;
    this.pending.delete(id);
    this.queue(T.answerPermission(this.state, id, optionId));
    p.resolve(optionId ? { outcome: { outcome: 'selected', optionId } } : { outcome: { outcome: 'cancelled' } });
  }

  private answerElicitation(id: string, response: unknown): void {
    const p = this.pending.get(id);
    if (!p || p.kind !== 'elicitation') return;
    const parsed = parseElicitationResponse(response);
    if (!parsed) return;
    this.pending.delete(id);
    this.queue(T.answerElicitation(this.state, id, parsed));
    p.resolve(parsed);
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
    if (n.sessionId !== this.state.session.sessionId) return;
    this.queue(T.applySessionUpdate(this.state, n.update));
  }

  private onExtNotification(method: string, params: unknown): void {
    const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    if (p.sessionId !== this.state.session.sessionId) return;
    if (method === '_zcode/session/steerState' && (p.state === 'queued' || p.state === 'drained')) {
      this.queue(T.patchSession(this.state, { steer: p.state }));
    } else if (method === '_zcode/session/backgroundTasks' && Array.isArray(p.tasks)) {
      this.queue(T.patchSession(this.state, { backgroundTasks: parseTasks(p.tasks) }));
    }
  }

  /** A different session is active: new transcript (a load replays its history into it). */
  private switchTo(sessionId: string | undefined, force = false): void {
    if (!force && sessionId === this.state.session.sessionId && this.state.list.items.length === 0) return;
    const previous = this.state;
    this.state = this.freshTranscript(sessionId, previous.session);
    this.queued = [];
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
      ...(sessionId ? { sessionId, title: this.sessions.title(sessionId), configOptions: [...(this.sessions.configOptions(sessionId) ?? [])] } : {}),
      connection: previous?.connection ?? CONNECTION[this.host.state] ?? 'notStarted',
      ...(previous?.connectionMessage ? { connectionMessage: previous.connectionMessage } : {}),
      promptCapabilities: this.promptCaps(),
    });
  }

  private promptCaps(): SessionView['promptCapabilities'] {
    const caps = this.host.initializeResult?.agentCapabilities?.promptCapabilities;
    return { image: caps?.image === true, embeddedContext: caps?.embeddedContext === true };
  }

  // ---------------------------------------------------------------------------------------------
  // Webview sync

  private onReady(): void {
    this.webviewReady = true;
    this.sendSnapshot();
    if (this.attachOnReady.length) this.send(DidAttachNotification, { attachments: this.attachOnReady.splice(0) });
    // Opening the chat is "first use": start the bridge and show the remembered session.
    void this.start().catch(() => {});
  }

  private sendSnapshot(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.buffer = { ops: [] };
    this.seq += 1;
    if (this.webviewReady) this.send(DidChangeSnapshotNotification, T.snapshotOf(this.state, this.seq));
  }

  /** Buffers a change for the next patch (consecutive text deltas to one item are merged). */
  private queue(change: T.Change): void {
    if (change.ops.length === 0 && !change.session) return;
    const ops = this.buffer.ops;
    for (const op of change.ops) {
      const last = ops[ops.length - 1];
      if (op.op === 'append' && last?.op === 'append' && last.id === op.id && last.field === op.field) {
        ops[ops.length - 1] = { ...last, text: last.text + op.text };
      } else if (op.op === 'upsert' && last?.op === 'upsert' && last.item.id === op.item.id) {
        ops[ops.length - 1] = op;
      } else {
        ops.push(op);
      }
    }
    if (change.session) this.buffer.session = { ...this.buffer.session, ...change.session };
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Sends buffered changes now (also used by tests). */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const change = this.buffer;
    this.buffer = { ops: [] };
    if (change.ops.length === 0 && !change.session) return;
    // Not listening: the snapshot sent on `ready` will include these changes.
    if (!this.webviewReady) return;
    this.seq += 1;
    this.send(DidPatchNotification, { seq: this.seq, ops: change.ops, ...(change.session ? { session: change.session } : {}) });
  }

  private send<P>(notification: IpcNotification<P>, params: P, completionId?: string): void {
    this.messageCounter += 1;
    this.post?.({ id: `h${this.messageCounter}`, method: notification.method, params, ...(completionId ? { completionId } : {}) });
  }
}

function parseElicitationResponse(value: unknown): CreateElicitationResponse | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.action === 'decline' || r.action === 'cancel') return { action: r.action };
  if (r.action !== 'accept') return undefined;
  const content: Record<string, string | number | boolean | string[]> = {};
  if (typeof r.content === 'object' && r.content !== null) {
    for (const [k, v] of Object.entries(r.content)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') content[k] = v;
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) content[k] = v as string[];
    }
  }
  return { action: 'accept', content };
}

function parseTasks(tasks: unknown[]): BackgroundTaskView[] {
  const out: BackgroundTaskView[] = [];
  for (const t of tasks) {
    if (typeof t !== 'object' || t === null) continue;
    const r = t as Record<string, unknown>;
    const id = typeof r.id === 'string' ? r.id : typeof r.taskId === 'string' ? r.taskId : undefined;
    if (!id) continue;
    out.push({
      id,
      kind: typeof r.kind === 'string' ? r.kind : 'agent',
      description: typeof r.description === 'string' ? r.description : id,
      status: typeof r.status === 'string' ? r.status : 'running',
      ...(typeof r.startedAt === 'string' ? { startedAt: r.startedAt } : {}),
      ...(typeof r.outputPath === 'string' ? { outputPath: r.outputPath } : {}),
    });
  }
  return out;
}
