/**
 * The window's one registry of ACP sessions: the only caller of `session/new`, `session/load`,
 * `session/resume`, `session/close`, `session/list`, `session/set_config_option` and the fork
 * contract (`ForkRequest`), all through the in-process ACP client (`ZcodeClientHost`).
 *
 * It owns what is per session, whichever chat shows it: the sessions this window has open on the
 * bridge (resumed after a zcode restart, closed again by sessionRelease.ts once no chat shows
 * them), their folders (remembered in `workspaceState`, so a reload loads each in its own folder),
 * their config options (mode, model, thought level) and titles, and the one answer to "is this
 * session busy". Which session a chat shows is not here: that is a `ChatBinding` (chatBinding.ts),
 * one per chat, which delegates every call to this registry.
 */
import * as vscode from 'vscode';
import type { SessionConfigOption, SessionInfo, SetSessionConfigOptionRequest } from '@agentclientprotocol/sdk';
import { ForkRequest, replayOf } from '../../bridge/acp/extensionSchemas.ts';
import type { ForkKind, ForkResponse } from '../../bridge/acp/extensionSchemas.ts';
import type { ZcodeClientHost } from '../acpClient.ts';
import type { LoadedSession } from '../chat/chatPorts.ts';
import { Disposable } from '../disposable.ts';

/** Session id → its workspace folder (multi-root: a session is loaded in its own folder). */
const SESSION_FOLDERS_KEY = 'zcode.sessionFolders';
const MAX_REMEMBERED_FOLDERS = 200;

/** A change of a session's config options. */
export interface ConfigOptionsChange {
  sessionId: string;
  configOptions: readonly SessionConfigOption[];
}

/** The ACP client's sessions (the bridge's own session table is bridge/acp/sessions.ts `SessionManager`). */
export class SessionRegistry extends Disposable {
  private readonly _onDidChangeConfigOptions = this.register(new vscode.EventEmitter<ConfigOptionsChange>());
  /** Fires when a session's config options change (new/load results, `config_option_update`, set). */
  readonly onDidChangeConfigOptions = this._onDidChangeConfigOptions.event;

  private readonly _onWillLoadSession = this.register(new vscode.EventEmitter<string>());
  /**
   * Fires with the session id when a `session/load` starts, before the bridge replays its history
   * (every load goes through `loadSession`). A chat showing that session must drop what it shows:
   * the replay rebuilds all of it.
   */
  readonly onWillLoadSession = this._onWillLoadSession.event;

  private readonly _onDidLoadSession = this.register(new vscode.EventEmitter<LoadedSession>());
  /**
   * A `session/load` succeeded: its replay is complete (the chat then adds what zcode does not
   * replay). The bridge replays the tail only; `earlierCursor` is where the chat pages back from.
   */
  readonly onDidLoadSession = this._onDidLoadSession.event;

  private readonly _onDidChangeTitle = this.register(new vscode.EventEmitter<{ sessionId: string; title: string | undefined }>());
  /** Fires on `session_info_update` titles. */
  readonly onDidChangeTitle = this._onDidChangeTitle.event;

  private readonly _onDidCloseSession = this.register(new vscode.EventEmitter<string>());
  /** A session was closed on the bridge (`closeSession`): drop what is kept of it. */
  readonly onDidCloseSession = this._onDidCloseSession.event;

  private readonly options = new Map<string, readonly SessionConfigOption[]>();
  private readonly titles = new Map<string, string>();
  /** Sessions this window opened on the bridge (resumed after a zcode restart). */
  private readonly open = new Set<string>();
  private readonly folders: Map<string, string>;

  /**
   * @param host the ACP client host
   * @param workspaceState where the sessions' folders are remembered
   * @param cwd the folder of sessions started without a choice (absolute path)
   */
  constructor(
    private readonly host: ZcodeClientHost,
    private readonly workspaceState: vscode.Memento,
    readonly cwd: () => string,
  ) {
    super();
    this.folders = new Map(Object.entries(workspaceState.get<Record<string, string>>(SESSION_FOLDERS_KEY) ?? {}));
    this.register(host.onSessionUpdate((notification) => {
      const update = notification.update;
      if (update.sessionUpdate === 'config_option_update') {
        this.setOptions(notification.sessionId, update.configOptions);
      } else if (update.sessionUpdate === 'current_mode_update') {
        this.applyCurrentMode(notification.sessionId, update.currentModeId);
      } else if (update.sessionUpdate === 'session_info_update' && update.title !== undefined) {
        const title = update.title ?? undefined;
        if (title) this.titles.set(notification.sessionId, title);
        else this.titles.delete(notification.sessionId);
        this._onDidChangeTitle.fire({ sessionId: notification.sessionId, title });
      }
    }));
    this.register(host.onDidRestart(() => void this.resumeOpenSessions()));
    this.register(host.onDidResetBridge(() => void this.resumeOpenSessions()));
  }

  /** Sessions opened (new/load/resume/fork) by this window since activation and not closed since. */
  get openSessions(): ReadonlySet<string> {
    return new Set(this.open);
  }

  /**
   * Whether something of this window keeps `sessionId` in use: a `session/prompt` running or
   * waiting in the bridge's queue, or a permission prompt or form waiting for the user.
   */
  isBusy(sessionId: string): boolean {
    return this.host.activity.isBusy(sessionId);
  }

  /** A `session/load` is on its way (the session shown before it comes back if it fails). */
  get loading(): boolean {
    return this.host.activity.loading;
  }

  /** Fires when something that keeps a session in use ends (sessionRelease.ts sweeps then). */
  get onDidSettle(): vscode.Event<void> {
    return this.host.activity.onDidSettle;
  }

  /**
   * `session/close` (the bridge advertises `sessionCapabilities.close`): the bridge drops the
   * session's runtime; it stays in the history and a later `session/load` opens it again. What
   * this window kept of it goes too (config options, title; the folder stays, to load it in).
   * Call only for a session no chat shows and none uses (sessionRelease.ts decides).
   */
  async closeSession(sessionId: string): Promise<void> {
    if (!this.open.delete(sessionId)) return;
    this.options.delete(sessionId);
    this.titles.delete(sessionId);
    this._onDidCloseSession.fire(sessionId);
    if (!this.host.initializeResult?.agentCapabilities?.sessionCapabilities?.close) return;
    await this.host.request('session/close', { sessionId });
  }

  /**
   * `session/close` of a session removed from the history, open in this window or not (a session
   * the bridge no longer knows is closed already).
   */
  async forgetSession(sessionId: string): Promise<void> {
    const wasOpen = this.open.has(sessionId);
    try {
      if (wasOpen) await this.closeSession(sessionId);
      else await this.host.request('session/close', { sessionId });
    } catch {
      // Unknown to the bridge (never opened in this window): nothing to close.
    }
  }

  /** The last known config options of a session (undefined when never seen). */
  configOptions(sessionId: string): readonly SessionConfigOption[] | undefined {
    return this.options.get(sessionId);
  }

  /**
   * The session's config options; when none are known yet (e.g. after a reload, before the chat
   * loaded it) or `refresh` is set, `session/resume` (no replay) fetches the current ones. (A lazy
   * `session/new` knows no model yet: the model option appears once zcode created the session.)
   */
  async fetchConfigOptions(sessionId: string, refresh = false): Promise<readonly SessionConfigOption[]> {
    const known = this.options.get(sessionId);
    if (known && !refresh) return known;
    const result = await this.host.request('session/resume', { sessionId, cwd: this.cwdOf(sessionId), mcpServers: [] });
    this.open.add(sessionId);
    // (an agent may answer with null: the SDK's type says an object)
    if (result?.configOptions) this.setOptions(sessionId, result.configOptions);
    return result?.configOptions ?? [];
  }

  /** The last known title of a session. */
  title(sessionId: string): string | undefined {
    return this.titles.get(sessionId);
  }

  /** The folder a session lives in (remembered from new/load/list; else the default folder). */
  cwdOf(sessionId: string): string {
    return this.folders.get(sessionId) ?? this.cwd();
  }

  /** Remembers a session's folder (bounded: the oldest entries go). */
  rememberFolder(sessionId: string, cwd: string): void {
    if (this.folders.get(sessionId) === cwd) return;
    this.folders.delete(sessionId);
    this.folders.set(sessionId, cwd);
    for (const old of [...this.folders.keys()].slice(0, Math.max(0, this.folders.size - MAX_REMEMBERED_FOLDERS))) this.folders.delete(old);
    void this.workspaceState.update(SESSION_FOLDERS_KEY, Object.fromEntries(this.folders));
  }

  /** `session/new` in `cwd` (default: the default folder). Returns the new session's id. */
  async newSession(cwd = this.cwd()): Promise<string> {
    const result = await this.host.request('session/new', { cwd, mcpServers: [] });
    this.rememberFolder(result.sessionId, cwd);
    this.open.add(result.sessionId);
    if (result.configOptions) this.setOptions(result.sessionId, result.configOptions);
    return result.sessionId;
  }

  /**
   * `session/load`: fires `onWillLoadSession`, lets the caller `show` the session (a chat binds to
   * it, so that whatever filters updates by the shown session shows the replay), then asks the
   * bridge, which replays the history as `session/update`s before answering. On failure the
   * caller shows what it showed before.
   */
  async loadSession(sessionId: string, { cwd = this.cwdOf(sessionId), show }: { cwd?: string; show?: () => unknown } = {}): Promise<LoadedSession> {
    this._onWillLoadSession.fire(sessionId);
    await show?.();
    // The bridge's default tail; the chat pages back with `_zcode/session/loadEarlier` when the user scrolls up.
    const result = await this.host.request('session/load', { sessionId, cwd, mcpServers: [] });
    this.open.add(sessionId);
    this.rememberFolder(sessionId, cwd);
    // (an agent may answer `session/load` with null: the SDK's type says an object)
    if (result?.configOptions) this.setOptions(sessionId, result.configOptions);
    const earlierCursor = replayOf(result)?.cursor;
    const loaded = { sessionId, ...(earlierCursor ? { earlierCursor } : {}) };
    this._onDidLoadSession.fire(loaded);
    return loaded;
  }

  /** Every session of a folder (default: the default folder; `session/list`, all pages), most recent first. */
  async listSessions(cwd = this.cwd()): Promise<SessionInfo[]> {
    const sessions: SessionInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await this.host.request('session/list', { cwd, ...(cursor ? { cursor } : {}) });
      sessions.push(...result.sessions);
      cursor = result.nextCursor ?? undefined;
      if (!cursor) break;
    }
    return sessions.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  }

  /** `session/set_config_option`; returns (and keeps) the full option list. */
  async setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<readonly SessionConfigOption[]> {
    const params: SetSessionConfigOptionRequest = typeof value === 'boolean' ? { sessionId, configId, type: 'boolean', value } : { sessionId, configId, value };
    const result = await this.host.request('session/set_config_option', params);
    this.setOptions(sessionId, result.configOptions);
    return result.configOptions;
  }

  /**
   * `ForkRequest` of `sessionId` (from `checkpointId`, else the latest checkpoint; `assistant`: the
   * whole conversation). Returns the fork's id and the folder to load it in; the caller loads it
   * where it shows it.
   */
  async fork(sessionId: string, from: { checkpointId?: string; kind?: ForkKind } = {}): Promise<ForkResponse> {
    // The answer is checked against the contract (a fork without its session id is refused there).
    const result = await this.host.call(ForkRequest, { sessionId, ...from });
    if (result.cwd) this.rememberFolder(result.sessionId, result.cwd);
    return result;
  }

  /** After a zcode restart, resume every open session on the fresh process (no replay). */
  private async resumeOpenSessions(): Promise<void> {
    for (const sessionId of this.open) {
      try {
        await this.host.request('session/resume', { sessionId, cwd: this.cwdOf(sessionId), mcpServers: [] });
      } catch {
        // A session zcode lost is reported when it is used next.
      }
    }
  }

  private setOptions(sessionId: string, configOptions: readonly SessionConfigOption[]): void {
    this.options.set(sessionId, configOptions);
    this._onDidChangeConfigOptions.fire({ sessionId, configOptions });
  }

  /** `current_mode_update` moves the mode option's current value. */
  private applyCurrentMode(sessionId: string, modeId: string): void {
    const current = this.options.get(sessionId);
    if (!current) return;
    let changed = false;
    const next = current.map((option) => {
      if (option.category === 'mode' && option.type === 'select' && option.currentValue !== modeId) {
        changed = true;
        return { ...option, currentValue: modeId };
      }
      return option;
    });
    if (changed) this.setOptions(sessionId, next);
  }
}

/** `sessionId`, or the plain-words error of a chat or command without a session. */
export function requireSession(sessionId: string | undefined): string {
  if (!sessionId) throw new Error(vscode.l10n.t('There is no active ZCode session. Start one with "ZCode: New Session".'));
  return sessionId;
}
