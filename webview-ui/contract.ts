/**
 * The messages between the chat webview (webview-ui/) and the extension host (extension/chat/).
 * The host ⇄ webview contract is three files, the only ones of webview-ui/ the host may import
 * (eslint.config.mjs): this one (the messages), viewModel.ts (the state they carry) and
 * transcriptOps.ts (how that state changes, applied identically on both sides).
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
 * tiny pure helpers only. ACP types come from the SDK, type-only (no SDK runtime in the bundle).
 */
import type { CreateElicitationResponse } from '@agentclientprotocol/sdk';
import type { ChatPatch } from './transcriptOps.ts';
import type { Attachment, ChatSnapshot, ErrorAction } from './viewModel.ts';

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
/** A way out of "zcode was not found" (the empty chat's buttons). */
export const SetupActionCommand = new IpcCommand<{ action: 'locate' | 'openSettings' | 'install' }>('setup/action');
/** An error line's other action (not Retry): open the ZCode desktop app, its provider settings, or the logs. */
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
