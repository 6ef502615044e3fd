/**
 * What the chat needs of the rest of the extension, as small structural interfaces: the real
 * `ZcodeClientHost` and a `ChatBinding` (extension/sessions/chatBinding.ts) satisfy them, and so do the in-memory fakes of the tests.
 * Everything vscode-specific the chat does goes through `ChatEnvironment`.
 */
import type {
  AgentRequestMethod,
  AgentRequestParamsByMethod,
  AgentRequestResponsesByMethod,
  SessionConfigOption,
  SessionInfo,
  SessionNotification,
  ToolCall,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { ExtensionRequest, ParamsOf, ResultOf, RewindToResponse } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { ChatSettings, MentionCandidate } from '../../webview-ui/contract.ts';
import type { Attachment, ChangesItem } from '../../webview-ui/viewModel.ts';
import type { PromptAnswer } from '../bridgeInbox.ts';
import type { ChatFeatures } from './chatFeatures.ts';
import type { DiffSource } from './toolView.ts';

export type Disposable = { dispose(): unknown };
export type Event<E> = (listener: (e: E) => unknown) => Disposable;

/** What the chat needs of `ZcodeClientHost` (extension/acpClient.ts). */
export interface ChatHost {
  readonly state: string;
  readonly initializeResult?: { agentCapabilities?: { promptCapabilities?: { image?: boolean; embeddedContext?: boolean } | null } | null } | undefined;
  ready(): Promise<void>;
  /** A stable ACP request, typed by method from the SDK; aborting `signal` cancels it (`$/cancel_request`). */
  request<M extends AgentRequestMethod>(method: M, params: AgentRequestParamsByMethod[M], options?: { signal?: AbortSignal }): Promise<AgentRequestResponsesByMethod[M]>;
  /** A `_zcode/*` method through its descriptor, the answer checked (extensionSchemas.ts). */
  call<D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>): Promise<ResultOf<D>>;
  cancelTurn(sessionId: string): Promise<void>;
  readonly onSessionUpdate: Event<SessionNotification>;
  readonly onExtNotification: Event<{ method: string; params: unknown }>;
  /**
   * A prompt's answer when it carried `_meta.zcode.promptId`, delivered in order with
   * `onSessionUpdate` and `onExtNotification` (extension/bridgeInbox.ts), before its request's promise settles.
   */
  readonly onPromptAnswered: Event<PromptAnswer>;
  readonly onDidChangeState: Event<string>;
}

/** A finished `session/load`. */
export interface LoadedSession {
  sessionId: string;
  /** `_zcode/session/loadEarlier` pages back from here (absent: the whole history was replayed). */
  earlierCursor?: string;
}

/** What the chat needs of the session it shows (`ChatBinding`, extension/sessions/chatBinding.ts). */
export interface ChatSessions {
  readonly activeSessionId: string | undefined;
  readonly onDidChangeActiveSession: Event<string | undefined>;
  /** A `session/load` of this session starts (also of the active one): its replay follows. */
  readonly onWillLoadSession: Event<string>;
  /** That load succeeded: the replay is complete; `earlierCursor`: the bridge replayed only the tail, earlier pages start there. */
  readonly onDidLoadSession?: Event<LoadedSession>;
  readonly onDidChangeConfigOptions: Event<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>;
  configOptions(sessionId: string): readonly SessionConfigOption[] | undefined;
  title(sessionId: string): string | undefined;
  newSession(): Promise<string>;
  loadSession(sessionId: string): Promise<void>;
  listSessions(): Promise<SessionInfo[]>;
  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<readonly SessionConfigOption[]>;
  /** Forks the active session (from a checkpoint, else the latest) and loads the fork. */
  fork(checkpointId?: string): Promise<string>;
  restore(): Promise<string | undefined>;
}

/** The vscode side effects, injected. */
export interface ChatEnvironment {
  openDiff(source: DiffSource): Promise<void>;
  openLocation(path: string, line?: number): Promise<void>;
  copy(text: string): Promise<void>;
  attachContext(source: 'selection' | 'activeFile' | 'pickFiles'): Promise<Attachment[]>;
  /** What the chat's session menu lists (default: `ChatSessions.listSessions`). */
  listSessions?(): Promise<SessionInfo[]>;
  /** The composer's `@` picker: files, open editors and symbols matching `query`. */
  searchMentions?(query: string): Promise<MentionCandidate[]>;
  /** A file attachment's text to embed in the prompt; undefined = send it as a link. */
  fileContent?(uri: string): Promise<{ text: string; mimeType?: string } | undefined>;
  log(level: 'info' | 'warn' | 'error', message: string): void;
  /** Turns any error into one plain sentence. */
  errorMessage(error: unknown): string;
  /** The `zcode.chat.*` settings the webview follows (default: DEFAULT_CHAT_SETTINGS). */
  settings?(): ChatSettings;
  /** A way out of "zcode was not found": Locate zcode…, its settings, the install instructions. */
  setupAction?(action: 'locate' | 'openSettings' | 'install'): void;
  /** An error line's action: open the ZCode desktop app (its site), the provider's key settings, or the logs. */
  errorAction?(action: 'openDesktop' | 'checkApiKey' | 'showLogs'): void;
  /** Something the user may want to hear about while the chat is hidden (chatAttention.ts decides). */
  notify?(event: ChatAttentionEvent): void;
  /** The chat webview gained or lost the keyboard. */
  focusChanged?(focused: boolean): void;
  /** The number of permission prompts and forms waiting for the user changed. */
  pendingChanged?(count: number): void;
  /** Asks before something that cannot be taken back (a modal dialog); absent: go ahead. */
  confirm?(what: 'rewind'): Promise<boolean>;
  /** Changed-files cards after turns (absent: no cards). */
  changes?: ChatChanges;
  /**
   * zcode's own rewind at a user message (`latest`: the last prompt): the user's choice, then the
   * bridge's `rewindTo`; the answer of the rewind that happened, undefined when none did.
   */
  rewindMessage?(sessionId: string, message: { text: string; latest: boolean; action: 'askAgain' | 'filesOnly' }): Promise<RewindToResponse | undefined>;
  /** What the running zcode supports (absent: every action is offered and the bridge answers it). */
  features?: ChatFeatures;
}

/** Per-turn change tracking with Review and Undo (extension/changes/changeTracker.ts). */
export interface ChatChanges {
  beginTurn(sessionId: string, prompt: string): { note(update: ToolCall | ToolCallUpdate): void; finish(): Promise<ChangesItem | undefined> };
  review(changeSetId: string, path?: string): Promise<void>;
  /** The updated card, or undefined when Undo was refused (the UI said why). */
  undo(changeSetId: string, path?: string): Promise<ChangesItem | undefined>;
  /** Cards of the session's stored turns (after a reload or a session switch). */
  restored(sessionId: string): Promise<ChangesItem[]>;
}

/** What happened that may deserve a notification. */
export type ChatAttentionEvent =
  | { kind: 'turnEnded'; summary: string }
  | { kind: 'turnFailed'; message: string }
  | { kind: 'needsInput'; title: string };
