/**
 * The one message contract between the chat webview (webview-ui/) and the extension host
 * (extension/chat/). Both sides import this file and nothing else of each other.
 *
 * Shape (GitLens style): typed descriptors for
 *   - commands      webview → host, fire and forget            (`IpcCommand<Params>`)
 *   - requests      webview → host, answered by a completion   (`IpcRequest<Params, Result>`)
 *   - notifications host → webview                             (`IpcNotification<Params>`)
 * each with an `is()` guard. Handshake: the webview sends `ReadyCommand` whenever it (re)starts;
 * the host answers with a full `DidChangeSnapshotNotification`, then streams numbered
 * `DidPatchNotification`s. A patch whose `seq` is not `snapshot.seq + 1` means the webview missed
 * something: it sends `ReadyCommand` again and gets a fresh snapshot.
 *
 * The host owns all state (transcript, session, pending forms); the webview keeps only view state
 * (draft text, expanded cards, scroll). This file must stay free of DOM and Node APIs: types and
 * tiny pure helpers only. ACP types come from the SDK, type-only (no SDK runtime in the bundle);
 * the types the bridge shares with both sides come from shared/.
 */
import type {
  AvailableCommand,
  CreateElicitationResponse,
  ElicitationSchema,
  PermissionOption,
  PlanEntry,
  SessionConfigOption,
  ToolCallStatus,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { BackgroundTask } from '../shared/backgroundTasks.ts';
import type { FormKind } from '../shared/forms.ts';

// ---------------------------------------------------------------------------------------------
// Wire envelope and descriptors
// ---------------------------------------------------------------------------------------------

/** Every message either side posts. `completionId` is set on request completions (= request id). */
export interface IpcMessage<Params = unknown> {
  id: string;
  method: string;
  params: Params;
  completionId?: string;
}

/** Parses anything received through `postMessage` into an `IpcMessage`, or undefined. */
export function toIpcMessage(data: unknown): IpcMessage | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const m = data as Record<string, unknown>;
  if (typeof m.id !== 'string' || typeof m.method !== 'string' || !m.method.startsWith(SCOPE)) return undefined;
  if (m.completionId !== undefined && typeof m.completionId !== 'string') return undefined;
  return { id: m.id, method: m.method, params: m.params, ...(m.completionId !== undefined ? { completionId: m.completionId as string } : {}) };
}

const SCOPE = 'chat/';

abstract class IpcCall<Params> {
  readonly method: string;
  /** Phantom field carrying the params type; never set. */
  declare readonly _params: Params;
  constructor(name: string) {
    this.method = SCOPE + name;
  }
  /** True when `msg` is this call (its params are then typed; their content is still the sender's). */
  is(msg: IpcMessage): msg is IpcMessage<Params> {
    return msg.method === this.method && msg.completionId === undefined;
  }
}

/** Webview → host, no answer. */
export class IpcCommand<Params = Record<string, never>> extends IpcCall<Params> {
  readonly kind = 'command';
}

/** Host → webview. */
export class IpcNotification<Params> extends IpcCall<Params> {
  readonly kind = 'notification';
}

/** What a request completes with. */
export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Webview → host; the host answers with `response` (same `completionId` as the request's id). */
export class IpcRequest<Params, Result> extends IpcCall<Params> {
  readonly kind = 'request';
  readonly response: IpcNotification<IpcResult<Result>>;
  constructor(name: string) {
    super(name);
    this.response = new IpcNotification<IpcResult<Result>>(`${name}/completion`);
  }
  /** True when `msg` completes a request of this kind. */
  isCompletion(msg: IpcMessage): msg is IpcMessage<IpcResult<Result>> {
    return msg.method === this.response.method && msg.completionId !== undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The view model the host sends (snapshots + patches)
// ---------------------------------------------------------------------------------------------

/** Something attached to a prompt: a file, a selection, or a pasted image. */
export type Attachment =
  | { kind: 'file'; id: string; name: string; uri: string }
  | { kind: 'selection'; id: string; name: string; uri: string; startLine: number; endLine: number; text: string; languageId?: string }
  | { kind: 'image'; id: string; name: string; mimeType: string; data: string };

/** How an attachment is shown in the transcript (no file contents, no image bytes). */
export interface AttachmentSummary {
  kind: Attachment['kind'];
  name: string;
}

export interface UserItem {
  type: 'user';
  id: string;
  text: string;
  attachments: AttachmentSummary[];
  /** zcode's checkpoint right after this message's turn ("Rewind to here", "Fork from here"). */
  checkpointId?: string;
}

export interface AgentItem {
  type: 'agent';
  id: string;
  text: string;
}

export interface ThoughtItem {
  type: 'thought';
  id: string;
  text: string;
}

/** One line of a compact diff: context, added, removed, or a hunk separator. */
export interface DiffLine {
  t: ' ' | '+' | '-' | '@';
  text: string;
}

/** A tool call's content, reduced for display (full diff texts stay in the host for Open Diff). */
export type ToolContentView =
  | { type: 'text'; text: string }
  | { type: 'diff'; index: number; path: string; isNew: boolean; added: number; removed: number; lines: DiffLine[]; truncated: boolean }
  | { type: 'terminal'; terminalId: string }
  | { type: 'resource'; uri: string; name: string }
  | { type: 'image'; mimeType: string };

/** Shell output streamed through `_meta.terminal_output` (or a `terminal` content block). */
export interface TerminalView {
  terminalId: string;
  cwd?: string;
  /** The last `TERMINAL_TAIL_LIMIT` characters; `truncated` says there was more. */
  output: string;
  truncated: boolean;
  exitCode?: number | null;
  signal?: string | null;
  exited: boolean;
}

/** `_meta.subagent` of an Agent/Task card. */
export interface SubagentView {
  agentId?: string;
  tokens?: number;
  toolUses?: number;
  durationMs?: number;
}

export interface ToolItem {
  type: 'tool';
  id: string;
  toolCallId: string;
  title: string;
  kind: ToolKind;
  status: ToolCallStatus;
  /** Pretty JSON of `rawInput` (truncated), if any. */
  input?: string;
  /** Pretty JSON / text of `rawOutput` (truncated), if any. */
  output?: string;
  content: ToolContentView[];
  locations: { path: string; line?: number | null }[];
  terminal?: TerminalView;
  subagent?: SubagentView;
  /** A sub-agent's tool call: the Agent call it runs under (`_meta.zcode.parentToolCallId`) and the sub-agent's type. */
  parent?: { toolCallId: string; agentType?: string };
  /** Background task card (`_meta.zcode.background`, `_meta.backgroundTask`, or a `[background] …` title). */
  background?: { cancelled: boolean; taskId?: string };
}

export interface PlanItem {
  type: 'plan';
  id: string;
  entries: PlanEntry[];
}

export type InteractionState = 'pending' | 'answered' | 'withdrawn';

/** `session/request_permission`, answered with one of `options`. */
export interface PermissionItem {
  type: 'permission';
  id: string;
  title: string;
  kind?: ToolKind;
  input?: string;
  /** Text content of the tool call (e.g. a plan for the no-forms fallback). */
  detail?: string;
  /** A shell command's line and description: shown as a command instead of `input`. */
  command?: { line: string; description?: string };
  /** An edit's proposed change (shown instead of the raw input); Open Diff uses `toolCallId`. */
  diffs?: Extract<ToolContentView, { type: 'diff' }>[];
  toolCallId?: string;
  options: PermissionOption[];
  state: InteractionState;
  /** Name of the chosen option once answered. */
  answer?: string;
}

/** Which native form an elicitation gets: the bridge's tag (shared/forms.ts), or `unsupported` (not a form). */
export type ElicitationFormKind = FormKind | 'unsupported';

/** `elicitation/create` in form mode. */
export interface ElicitationItem {
  type: 'elicitation';
  id: string;
  formKind: ElicitationFormKind;
  message: string;
  schema: ElicitationSchema;
  state: InteractionState;
  /** One-line description of the answer once answered ("Approved", "Rejected: …", answers). */
  answer?: string;
}

/** The one action an error line offers: Retry only where retrying can help. */
export type ErrorAction = 'retry' | 'openDesktop' | 'checkApiKey' | 'showLogs';

export interface ErrorItem {
  type: 'error';
  id: string;
  message: string;
  /** Offer "Retry" (re-sends the last prompt). */
  retryable: boolean;
  /** The action offered (absent: Retry when `retryable`, else none). */
  action?: ErrorAction;
}

export interface NoticeItem {
  type: 'notice';
  id: string;
  severity: 'info' | 'warning' | 'error';
  title: string;
  description?: string;
  /** A status line of the running turn (a retry), not an event of the conversation. */
  status?: true;
}

/** One file a turn changed, as its changes card lists it. */
export interface ChangedFileView {
  path: string;
  status: 'modified' | 'created' | 'deleted';
  added: number;
  removed: number;
  /** Undo restored the content from before the turn. */
  undone: boolean;
  /** Undo is not offered: zcode's tool calls did not tell what the file held before the turn. */
  beforeUnknown?: true;
}

/** "Changed files" after a turn that edited files (extension/changes/). */
export interface ChangesItem {
  type: 'changes';
  id: string;
  changeSetId: string;
  /** The prompt of the turn (shown when the card is restored after a reload). */
  prompt: string;
  files: ChangedFileView[];
}

export type TranscriptItem = UserItem | AgentItem | ThoughtItem | ToolItem | PlanItem | PermissionItem | ElicitationItem | ErrorItem | NoticeItem | ChangesItem;

/** Terminal output kept per card (the tail; the webview shows fewer lines until expanded). */
export const TERMINAL_TAIL_LIMIT = 64 * 1024;

/** A background task as the bridge announces it: the one type of all layers (shared/backgroundTasks.ts). */
export type BackgroundTaskView = BackgroundTask;

/** A prompt waiting for the running turn to end. */
export interface QueuedPrompt {
  id: string;
  text: string;
  attachments: AttachmentSummary[];
}

/** zcode/bridge state as the chat shows it. */
export type ConnectionState = 'notStarted' | 'starting' | 'ready' | 'crashed' | 'error';

/** One plan-quota window as the context meter shows it. */
export interface PlanQuotaView {
  /** The window's name ("5-hour window"). */
  label: string;
  /** 0–100. */
  remainingPercent: number;
  /** ISO 8601, when the provider says. */
  resetsAt?: string;
  /** The last refresh failed: these are older figures. */
  stale: boolean;
}

/** The chat's actions that depend on what the running zcode supports (see `SessionView.featureUnavailable`). */
export interface FeatureUnavailable {
  steer?: string;
  rewindLatestPrompt?: string;
  rewindWithFiles?: string;
  rewindEarlier?: string;
  fileRewind?: string;
  retryTurn?: string;
  forkAssistant?: string;
}

/** Everything about the active session that is not a transcript item. */
export interface SessionView {
  sessionId?: string;
  title?: string;
  connection: ConnectionState;
  /** Plain-words reason when `connection` is `error`/`crashed`. */
  connectionMessage?: string;
  /** A prompt of this window is running on the session. */
  running: boolean;
  /**
   * Steer chip: sent → queued (zcode holds it) → drained (the running turn took it in), or
   * deferred (the turn ended first: it will be the next turn's input; the chip offers Remove);
   * `none`: no chip (not undefined: a patch field set to undefined is lost in postMessage's JSON).
   */
  steer?: 'none' | 'sent' | 'queued' | 'drained' | 'deferred';
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } | null };
  /** The GLM Coding Plan window with the least left (`_zcode/account/usage`); absent: no figures. */
  planQuota?: PlanQuotaView;
  configOptions: SessionConfigOption[];
  commands: AvailableCommand[];
  currentModeId?: string;
  promptCapabilities: { image: boolean; embeddedContext: boolean };
  backgroundTasks: BackgroundTaskView[];
  queue: QueuedPrompt[];
  /**
   * Why an action cannot work with the running zcode (the bridge's reason, '' when it gave none),
   * shown before the click; absent key: it can, or it is not known yet (the bridge answers the click).
   */
  featureUnavailable?: FeatureUnavailable;
  /** Why "Rewind to here" / "Fork from here" cannot work on this session (absent: they can); `noList`: the build lists no checkpoints. */
  checkpointUnavailable?: { rewind?: string; fork?: string };
  /**
   * The bridge replayed only the tail of the history: `available` = earlier messages can be
   * loaded (`LoadEarlierCommand`), `loading` = a page is on its way, `none` (or absent) = the whole
   * history is shown. (`none`, not undefined: a patch field set to undefined is lost in postMessage's JSON.)
   */
  earlier?: 'available' | 'loading' | 'none';
  /** zcode cannot be found: what discovery tried (empty or absent: found, or not looked for yet). */
  notFound?: string;
  /** Which zcode runs (`zcode --version`, e.g. `0.16.9`) for the empty chat; empty or absent: not known yet. */
  zcodeVersion?: string;
  /** First prompts for this workspace (extension/chat/firstPrompts.ts); absent or empty: the generic ones. */
  firstPrompts?: string[];
}

export interface ChatSnapshot {
  seq: number;
  session: SessionView;
  items: TranscriptItem[];
}

/** One change to the transcript. `append` adds streamed text without resending the item. */
export type TranscriptOp =
  | { op: 'upsert'; item: TranscriptItem }
  | { op: 'append'; id: string; field: 'text' | 'terminal'; text: string }
  | { op: 'remove'; id: string }
  | { op: 'clear' }
  /** Earlier history: `items` go before every item, in order (ids already present are skipped). */
  | { op: 'prepend'; items: TranscriptItem[] };

export interface ChatPatch {
  seq: number;
  ops: TranscriptOp[];
  /** Replaced session fields (each present field replaces the old value). */
  session?: Partial<SessionView>;
}

export function emptySessionView(): SessionView {
  return {
    connection: 'notStarted',
    running: false,
    configOptions: [],
    commands: [],
    promptCapabilities: { image: false, embeddedContext: false },
    backgroundTasks: [],
    queue: [],
  };
}

/** A transcript with an id index, shared by host and webview so both apply ops identically. */
export interface ItemList {
  items: TranscriptItem[];
  index: Map<string, number>;
}

export function itemList(items: TranscriptItem[] = []): ItemList {
  return { items, index: new Map(items.map((item, i) => [item.id, i])) };
}

/**
 * Applies ops to `list` in place: the array is replaced (`list.items` gets a new array) and every
 * changed item is a new object, so views can compare by identity. Unknown ids in `append`/`remove`
 * are ignored (a late delta for an item the user cleared must not throw).
 */
export function applyTranscriptOps(list: ItemList, ops: readonly TranscriptOp[]): void {
  if (ops.length === 0) return;
  let items = list.items.slice();
  let reindex = false;
  for (const op of ops) {
    switch (op.op) {
      case 'clear':
        items = [];
        reindex = true;
        list.index = new Map();
        break;
      case 'upsert': {
        const at = reindex ? items.findIndex((i) => i.id === op.item.id) : (list.index.get(op.item.id) ?? -1);
        if (at >= 0) items[at] = op.item;
        else {
          items.push(op.item);
          if (!reindex) list.index.set(op.item.id, items.length - 1);
        }
        break;
      }
      case 'append': {
        const at = reindex ? items.findIndex((i) => i.id === op.id) : (list.index.get(op.id) ?? -1);
        const item = items[at];
        if (!item) break;
        if (op.field === 'text' && (item.type === 'agent' || item.type === 'thought' || item.type === 'user')) {
          items[at] = { ...item, text: item.text + op.text };
        } else if (op.field === 'terminal' && item.type === 'tool' && item.terminal) {
          items[at] = { ...item, terminal: appendTerminal(item.terminal, op.text) };
        }
        break;
      }
      case 'prepend': {
        const present = reindex ? new Set(items.map((i) => i.id)) : list.index;
        items = [...op.items.filter((i) => !present.has(i.id)), ...items];
        reindex = true;
        break;
      }
      case 'remove': {
        const at = reindex ? items.findIndex((i) => i.id === op.id) : (list.index.get(op.id) ?? -1);
        if (at >= 0) {
          items.splice(at, 1);
          reindex = true;
        }
        break;
      }
    }
  }
  list.items = items;
  if (reindex) list.index = new Map(items.map((item, i) => [item.id, i]));
}

/** Appends shell output, keeping only the last `TERMINAL_TAIL_LIMIT` characters. */
function appendTerminal(terminal: TerminalView, data: string): TerminalView {
  const output = terminal.output + data;
  if (output.length <= TERMINAL_TAIL_LIMIT) return { ...terminal, output };
  return { ...terminal, output: output.slice(output.length - TERMINAL_TAIL_LIMIT), truncated: true };
}

// ---------------------------------------------------------------------------------------------
// The calls
// ---------------------------------------------------------------------------------------------

/** The webview (re)started or lost a patch: send a full snapshot. */
export const ReadyCommand = new IpcCommand<{ reason?: 'start' | 'resync' }>('ready');

/** Send a prompt now, or queue it while a turn runs (the host decides: it knows whether one runs). */
export const SendPromptCommand = new IpcCommand<{ text: string; attachments: Attachment[] }>('prompt/send');
/** Append instructions to the running turn (the bridge's `SteerRequest`). */
export const SteerCommand = new IpcCommand<{ text: string }>('prompt/steer');
/** Drop a queued prompt. */
export const RemoveQueuedCommand = new IpcCommand<{ id: string }>('prompt/removeQueued');
/** Stop the running turn (`session/cancel`). */
export const CancelTurnCommand = new IpcCommand('turn/cancel');
/** Re-send the prompt that failed with error card `itemId` (only the last prompt's error retries). */
export const RetryCommand = new IpcCommand<{ itemId: string }>('turn/retry');
/** An error line's other action (not Retry): open the ZCode desktop app, its provider settings, or the logs. */
/** A way out of "zcode was not found" (the empty chat's buttons). */
export const SetupActionCommand = new IpcCommand<{ action: 'locate' | 'openSettings' | 'install' }>('setup/action');
export const ErrorActionCommand = new IpcCommand<{ action: Exclude<ErrorAction, 'retry'> }>('turn/errorAction');

/** Answer a permission card (`optionId`), or dismiss it (`cancelled: true`); one of the two. */
export const AnswerPermissionCommand = new IpcCommand<{ id: string; optionId?: string; cancelled?: boolean }>('permission/answer');
/** Answer an elicitation form with the raw ACP response (content keyed by field name). */
export const AnswerElicitationCommand = new IpcCommand<{ id: string; response: CreateElicitationResponse }>('elicitation/answer');

/** Open VS Code's diff editor for a tool call's diff content. */
export const OpenDiffCommand = new IpcCommand<{ toolCallId: string; index: number }>('diff/open');
/** Open VS Code's multi-file diff editor (before the turn ⇄ now) for a changes card, or one file's diff. */
export const ReviewChangesCommand = new IpcCommand<{ changeSetId: string; path?: string }>('changes/review');
/** Restore the content from before the turn: one file (`path`) or every file of the card. */
export const UndoChangesCommand = new IpcCommand<{ changeSetId: string; path?: string }>('changes/undo');
/** Drop the deferred steer before it starts as the next turn (its text goes back into the composer). */
export const RemoveSteerCommand = new IpcCommand('prompt/removeSteer');
/** zcode's own rewind at a user message: ask the latest prompt again (edited, maybe restoring files), or undo its turn's files. */
export const RewindMessageCommand = new IpcCommand<{ itemId: string; action: 'askAgain' | 'filesOnly' }>('message/rewind');
/** Rewind the session to a user message's checkpoint (keeps it and its answer), then reload the transcript. */
export const RewindToCommand = new IpcCommand<{ itemId: string }>('checkpoint/rewind');
/** Fork a new session from a user message's checkpoint and show it. */
export const ForkFromCommand = new IpcCommand<{ itemId: string }>('checkpoint/fork');
/** Open a file (absolute path or URI) at an optional 1-based line. */
export const OpenLocationCommand = new IpcCommand<{ path: string; line?: number }>('location/open');
/** Put text on the clipboard. */
export const CopyTextCommand = new IpcCommand<{ text: string }>('clipboard/copy');

/** `session/set_config_option` on the active session. */
export const SetConfigOptionCommand = new IpcCommand<{ configId: string; value: string | boolean }>('config/set');
export const NewSessionCommand = new IpcCommand('session/new');
/** The user began a `/command` in a chat without a session: make the session the first prompt would, so its menu arrives. */
export const PrepareSessionCommand = new IpcCommand('session/prepare');
export const LoadSessionCommand = new IpcCommand<{ sessionId: string }>('session/load');
export const ForkSessionCommand = new IpcCommand('session/fork');
/** Something the host should log (e.g. a CSP violation or an uncaught error in the webview). */
export const WebviewLogCommand = new IpcCommand<{ level: 'info' | 'warn' | 'error'; message: string }>('log');
/** The user scrolled past the first item shown while `SessionView.earlier` is `available`: load the page before it. */
export const LoadEarlierCommand = new IpcCommand('transcript/loadEarlier');
/** Cancel a background task of the active session (the bridge's `CancelBackgroundTaskRequest`). */
export const CancelBackgroundTaskCommand = new IpcCommand<{ taskId: string }>('background/cancel');

/** A session as the switcher lists it. */
export interface SessionSummary {
  sessionId: string;
  title?: string;
  updatedAt?: string;
}
export const ListSessionsRequest = new IpcRequest<Record<string, never>, { sessions: SessionSummary[] }>('session/list');

/** Attach the active editor's selection, the active file, or files picked in a dialog. */
export const AttachContextRequest = new IpcRequest<{ source: 'selection' | 'activeFile' | 'pickFiles' }, { attachments: Attachment[] }>('context/attach');

/** Full state: after `ReadyCommand`, after a session switch, after a resync. */
export const DidChangeSnapshotNotification = new IpcNotification<ChatSnapshot>('snapshot');
/** Incremental change; `seq` is the previous seq + 1. */
export const DidPatchNotification = new IpcNotification<ChatPatch>('patch');
/** Adds attachments to the composer (the editor command "ZCode: Add Selection to Chat" ran). */
export const DidAttachNotification = new IpcNotification<{ attachments: Attachment[] }>('context/didAttach');

/** The VS Code settings the chat follows (`zcode.chat.*`). */
export interface ChatSettings {
  /** Which key sends: `enter` (Shift+Enter = new line) or `ctrlEnter` (Ctrl/Cmd+Enter; Enter = new line). */
  sendKey: 'enter' | 'ctrlEnter';
  /** Font size of the chat in px; 0 = the size of VS Code's interface text. */
  fontSize: number;
}
export const DEFAULT_CHAT_SETTINGS: ChatSettings = { sendKey: 'enter', fontSize: 0 };
/** The settings, after `ReadyCommand` and whenever they change. */
export const DidChangeSettingsNotification = new IpcNotification<ChatSettings>('settings');
/**
 * A send (or a steer) did not reach zcode: its text and attachments go back into the composer, before
 * whatever was typed since, so nothing the user typed is lost.
 */
export const DidRestoreDraftNotification = new IpcNotification<{ text: string; attachments: Attachment[] }>('composer/restoreDraft');
/** Move the keyboard to the composer ("ZCode: Focus Chat Input"). */
export const FocusInputNotification = new IpcNotification<Record<string, never>>('composer/focus');
/** Put the whole conversation on the clipboard as markdown (the host renders it, as Export does). */
export const CopyTranscriptCommand = new IpcCommand('transcript/copy');
/**
 * The chat webview gained or lost the keyboard. VS Code's `focusedView` does not follow focus into
 * a webview view, so the host keeps its own context key (`zcode.chatFocused`) for keybindings.
 */
export const ChatFocusCommand = new IpcCommand<{ focused: boolean }>('focus');

/** One entry of the composer's `@` picker: a workspace file, an open editor or a workspace symbol. */
export interface MentionCandidate {
  kind: 'file' | 'editor' | 'symbol';
  /** What the list shows first (file or symbol name). */
  label: string;
  /** The folder-relative path (and line of a symbol). */
  description?: string;
  /** What choosing it adds to the composer (a file; a symbol's uri carries its lines, `#L3-L9`). */
  attachment: Attachment & { kind: 'file' };
}
/** The `@` picker's candidates for the text typed after `@` (fuzzy, best first). */
export const SearchMentionsRequest = new IpcRequest<{ query: string }, { candidates: MentionCandidate[] }>('mentions/search');
