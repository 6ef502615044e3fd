/**
 * The chat's view model: the state the host owns and the webview renders. The host sends it whole
 * as a `ChatSnapshot` (webview-ui/contract.ts `DidChangeSnapshotNotification`) and then changes it
 * with numbered patches (webview-ui/transcriptOps.ts). Types and one pure constructor only: no DOM,
 * no Node APIs. ACP types come from the SDK, type-only; the types all layers share from shared/.
 */
import type { AvailableCommand, ElicitationSchema, PermissionOption, PlanEntry, SessionConfigOption, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import type { BackgroundTask } from '../shared/backgroundTasks.ts';
import type { FormKind } from '../shared/forms.ts';

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
  /** The last `TERMINAL_TAIL_LIMIT` characters (transcriptOps.ts); `truncated` says there was more. */
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

/** A background task as the bridge announces it: the one type of all layers (shared/backgroundTasks.ts). */
export type BackgroundTaskView = BackgroundTask;

/** A prompt waiting in the session's queue for its turn. */
export interface QueuedPrompt {
  id: string;
  text: string;
  attachments: AttachmentSummary[];
  /** Sent by another client (what it is called): shown, not removable here. Absent: this chat's own. */
  from?: string;
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

/**
 * The host's fixed words in a card's `answer` (extension/chat/interactionView.ts writes them, in
 * English); the webview shows them in the UI language (`answerText`, webview-ui/answerText.ts).
 * Anything else in an answer (an option's name, the user's own words, zcode's questions) is shown as sent.
 */
export const ANSWER_WORDS = {
  planApproved: 'Plan approved',
  planRejected: 'Plan rejected',
  declined: 'Declined',
  cancelled: 'Cancelled',
  submitted: 'Submitted',
  dismissed: 'Dismissed',
  skipped: 'skipped',
  /** Followed by the user's feedback. */
  rejectedWithFeedback: 'Rejected with feedback: ',
} as const;
