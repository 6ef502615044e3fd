/**
 * The host side of one chat, without vscode: owns the transcript of the session it shows and the
 * patch stream to its webview (numbered patches batched per ~frame, a full snapshot on `ready`),
 * follows the bridge's events and the session's switches and loads, and assembles the pieces each
 * concern lives in:
 *   chatDispatcher.ts   the webview's messages, each routed to the piece that owns what it changes
 *   chatTurns.ts        prompts (sent at once, waiting in the bridge's queue), turns, Stop and Retry
 *   chatInteractions.ts permission and form cards waiting for the user
 *   chatHistory.ts      paging back through a session replayed only in part
 *   chatChanges.ts      the changes cards (recording a turn's files, Review, Undo, stored cards)
 *   chatSteerRewind.ts, transcriptCheckpoints.ts  steer, rewind and fork
 *   chatSetupFacts.ts   what the empty chat says about the install and workspace, across sessions
 *
 * Everything vscode-specific (posting to the webview, opening diffs/files, the clipboard, reading
 * the editor selection) comes in through `ChatEnvironment`, so this class is tested in plain Node.
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import {
  DEFAULT_CHAT_SETTINGS,
  DidAttachNotification,
  DidChangeSettingsNotification,
  DidRestoreDraftNotification,
  FocusInputNotification,
  type IpcMessage,
} from '../../webview-ui/contract.ts';
import type { Attachment, ConnectionState, PlanQuotaView, SessionView, TranscriptItem } from '../../webview-ui/viewModel.ts';
import { BackgroundTasksNotification, notificationOf } from '../../bridge/acp/extensions/contractDescriptors.ts';
import { ChatChangeCards } from './chatChanges.ts';
import { ChatDispatcher } from './chatDispatcher.ts';
import { featureUnavailable } from './chatFeatures.ts';
import { ChatHistory } from './chatHistory.ts';
import { ChatInteractions } from './chatInteractions.ts';
import type { ChatEnvironment, ChatHost, ChatSessions, Disposable, LoadedSession } from './chatPorts.ts';
import { ChatSetupFacts } from './chatSetupFacts.ts';
import { ChatSteerRewind } from './chatSteerRewind.ts';
import { SessionMenus } from './sessionMenus.ts';
import { ChatTurns } from './chatTurns.ts';
import { PatchStream } from './patchStream.ts';
import * as T from './transcript.ts';
import { TranscriptCheckpoints } from './transcriptCheckpoints.ts';
import { transcriptMarkdown } from './transcriptMarkdown.ts';

export type { ChatEnvironment, ChatHost, ChatSessions } from './chatPorts.ts';

const CONNECTION: Record<string, ConnectionState> = { notStarted: 'notStarted', starting: 'starting', ready: 'ready', turnRunning: 'ready', crashed: 'crashed' };

export class ChatController {
  private state: T.TranscriptState;
  private readonly stream = new PatchStream();
  private readonly subscriptions: Disposable[] = [];
  private started: Promise<void> | undefined;
  private attachOnReady: Attachment[] = [];
  /** Drafts of failed sends waiting for the view to listen. */
  private readonly restoreOnReady: { text: string; attachments: Attachment[] }[] = [];
  private focusOnReady = false;
  /** Not found, the zcode version, first prompts: the empty chat's, across sessions (chatSetupFacts.ts). */
  private readonly facts = new ChatSetupFacts();
  /** Each session's slash menu as the bridge last sent it (sessionMenus.ts). */
  private readonly menus = new SessionMenus();
  private readonly interactions: ChatInteractions;
  private readonly changes: ChatChangeCards;
  private readonly history: ChatHistory;
  private readonly checkpoints: TranscriptCheckpoints;
  private readonly turns: ChatTurns;
  private readonly steerRewind: ChatSteerRewind;
  private readonly dispatcher: ChatDispatcher;

  constructor(
    private readonly host: ChatHost,
    private readonly sessions: ChatSessions,
    private readonly env: ChatEnvironment,
  ) {
    this.state = this.freshTranscript(sessions.activeSessionId);
    const state = () => this.state;
    const queue = (change: T.Change) => this.queue(change);
    const showError = (error: unknown) => this.showError(error);
    this.interactions = new ChatInteractions({ env, state, queue });
    this.changes = new ChatChangeCards({ env, state, queue, showError });
    this.history = new ChatHistory({ host, state, queue, showError });
    this.checkpoints = new TranscriptCheckpoints({ host, sessions, env, state, queue, showError });
    this.turns = new ChatTurns({
      host, env, changes: this.changes, state, queue, showError,
      ensureSession: () => this.ensureSession(),
      restoreDraft: (text, attachments) => this.restoreDraft(text, attachments),
      promptCapabilities: () => this.promptCaps(),
      refreshCheckpoints: (sessionId) => void this.checkpoints.refresh(sessionId),
    });
    this.steerRewind = new ChatSteerRewind({
      host, sessions, env, state, queue,
      send: (notification, params) => {
        if (this.stream.isListening) this.stream.send(notification, params);
      },
      sendPrompt: (text) => void this.turns.send(text, []),
      showError,
    });
    this.dispatcher = new ChatDispatcher({
      host, sessions, env, state, showError,
      turns: this.turns, steerRewind: this.steerRewind, checkpoints: this.checkpoints,
      changes: this.changes, history: this.history, interactions: this.interactions,
      ready: () => this.onReady(),
      run: (action) => this.run(action),
      ensureSession: () => this.ensureSession(),
      setConfigOption: (configId, value) => this.setConfigOption(configId, value),
      transcriptMarkdown: () => this.transcriptMarkdown(),
      reply: (notification, result, completionId) => this.stream.send(notification, result, completionId),
    });
    this.subscriptions.push(
      host.onSessionUpdate((n) => this.onSessionUpdate(n)),
      host.onExtNotification((n) => this.onExtNotification(n)),
      host.onPromptAnswered((answer) => this.turns.onPromptAnswered(answer)),
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
    this.interactions.dispose();
  }

  /** Entry point for everything the webview posts (chatDispatcher.ts). */
  receive(msg: IpcMessage): void {
    this.dispatcher.receive(msg);
  }

  // ---------------------------------------------------------------------------------------------
  // Interactive UI (registered with the host while the view exists)

  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    return this.interactions.requestPermission(params, signal);
  }

  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    return this.interactions.createElicitation(params, signal);
  }

  // ---------------------------------------------------------------------------------------------
  // What the rest of the extension asks of the chat

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

  /** Pushes attachments into the composer (the "add selection to chat" editor command). */
  pushAttachments(attachments: Attachment[]): void {
    if (attachments.length === 0) return;
    // The view may still be loading: deliver once it said `ready`.
    if (this.stream.isListening) this.stream.send(DidAttachNotification, { attachments });
    else this.attachOnReady.push(...attachments);
  }

  /** The not-found state (extension/locate.ts): the empty chat shows it with the ways out. */
  setNotFound(message: string | undefined): void {
    this.patchSession(this.facts.setNotFound(message));
  }

  /** Which zcode runs (extension/locate.ts): the empty chat names it. */
  setZcodeVersion(version: string | undefined): void {
    this.patchSession(this.facts.setZcodeVersion(version));
  }

  /** The empty chat's first prompts for this workspace (firstPrompts.ts). */
  setFirstPrompts(prompts: readonly string[]): void {
    this.patchSession(this.facts.setFirstPrompts(prompts));
  }

  // ---------------------------------------------------------------------------------------------
  // The session shown

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

  /** A send failed: what the user typed goes back into the composer (now, or once the view is back). */
  private restoreDraft(text: string, attachments: Attachment[]): void {
    if (!text && attachments.length === 0) return;
    if (this.stream.isListening) this.stream.send(DidRestoreDraftNotification, { text, attachments });
    else this.restoreOnReady.push({ text, attachments });
  }

  // ---------------------------------------------------------------------------------------------
  // Bridge events

  private onSessionUpdate(n: SessionNotification): void {
    if (this.history.collect(n)) return;
    this.changes.note(n);
    // Kept per session: the menu often comes before this chat has switched to its session.
    if (n.update.sessionUpdate === 'available_commands_update') this.menus.remember(n.sessionId, n.update.availableCommands);
    if (n.sessionId !== this.state.session.sessionId) return;
    this.queue(T.applySessionUpdate(this.state, n.update));
  }

  private onExtNotification(notification: { method: string; params: unknown }): void {
    if (this.turns.onNotification(notification) || this.steerRewind.onNotification(notification)) return;
    const tasks = notificationOf(BackgroundTasksNotification, notification);
    if (tasks && tasks.sessionId === this.state.session.sessionId) this.queue(T.patchSession(this.state, { backgroundTasks: tasks.tasks }));
  }

  private afterLoad({ sessionId, earlierCursor }: LoadedSession): void {
    if (sessionId !== this.state.session.sessionId) return;
    this.history.loaded(sessionId, earlierCursor);
    void this.changes.showStored(sessionId);
    void this.checkpoints.refresh(sessionId);
  }

  /** Another session is shown, or a load replays this one: new transcript (the replay fills it). */
  private switchTo(sessionId: string | undefined): void {
    const previous = this.state;
    this.state = this.freshTranscript(sessionId, previous.session);
    this.turns.forgetQueue();
    this.history.reset();
    // Forms still waiting for an answer stay answerable whatever session is shown.
    for (const item of previous.list.items) {
      if ((item.type === 'permission' || item.type === 'elicitation') && item.state === 'pending' && this.interactions.isPending(item.id)) {
        this.state.list.items.push(item);
        this.state.list.index.set(item.id, this.state.list.items.length - 1);
      }
    }
    this.state.counter = previous.counter;
    this.sendSnapshot();
  }

  private freshTranscript(sessionId: string | undefined, previous?: SessionView): T.TranscriptState {
    return T.createTranscript({
      ...(sessionId ? { sessionId, title: this.sessions.title(sessionId), configOptions: [...(this.sessions.configOptions(sessionId) ?? [])], commands: this.menus.of(sessionId) } : {}),
      connection: previous?.connection ?? CONNECTION[this.host.state] ?? 'notStarted',
      ...(previous?.connectionMessage ? { connectionMessage: previous.connectionMessage } : {}),
      ...(previous?.planQuota ? { planQuota: previous.planQuota } : {}),
      ...this.facts.seed(),
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

  private patchSession(fields: Partial<SessionView> | undefined): void {
    if (fields) this.queue(T.patchSession(this.state, fields));
  }

  /** Sends buffered changes now (tests). */
  flush(): void {
    this.stream.flush();
  }
}
