/**
 * The extension's view of ACP sessions: which one is active, their config options (mode, model,
 * thought level), and the session lifecycle calls (new / load / list / fork), all through the
 * in-process ACP client (`ZcodeClientHost`).
 *
 * The active session id is remembered in `workspaceState`, so a window reload can load it again
 * (`restore()`); the bridge's persisted lazy-session store makes that id valid across restarts.
 *
 * `open` is every session this window has open on the bridge, the editor-tab chats' too
 * (boundSessions.ts registers theirs with `didOpen`): they are resumed after a zcode restart, and
 * `closeSession` (sessionRelease.ts, when no chat shows one any more) closes them again.
 */
import * as vscode from 'vscode';
import type {
  ListSessionsResponse,
  LoadSessionResponse,
  SessionConfigOption,
  SessionInfo,
  SetSessionConfigOptionRequest,
} from '@agentclientprotocol/sdk';
import { ForkRequest, replayOf } from '../../bridge/acp/extensionSchemas.ts';
import type { ZcodeClientHost } from '../acpClient.ts';
import type { LoadedSession } from '../chat/chatPorts.ts';
import { Disposable } from '../disposable.ts';

const ACTIVE_SESSION_KEY = 'zcode.activeSessionId';
/** Session id → its workspace folder (multi-root: a session is loaded in its own folder). */
const SESSION_FOLDERS_KEY = 'zcode.sessionFolders';
const MAX_REMEMBERED_FOLDERS = 200;

/** A change of a session's config options. */
export interface ConfigOptionsChange {
  sessionId: string;
  configOptions: readonly SessionConfigOption[];
}

/** The ACP client's sessions (the bridge's own session table is bridge/acp/sessions.ts `SessionManager`). */
export class ClientSessions extends Disposable {
  private readonly _onDidChangeActiveSession = this.register(new vscode.EventEmitter<string | undefined>());
  /** Fires with the new active session id (undefined when none). */
  readonly onDidChangeActiveSession = this._onDidChangeActiveSession.event;

  private readonly _onDidChangeConfigOptions = this.register(new vscode.EventEmitter<ConfigOptionsChange>());
  /** Fires when a session's config options change (new/load results, `config_option_update`, set). */
  readonly onDidChangeConfigOptions = this._onDidChangeConfigOptions.event;

  private readonly _onWillLoadSession = this.register(new vscode.EventEmitter<string>());
  /**
   * Fires with the session id when a `session/load` starts, before the session becomes active and
   * before the bridge replays its history — also when it is the active session already (the
   * palette, the chat's menu, `restore()`, `fork()`: every load goes through `loadSession`). A
   * view of that session must drop what it shows: the replay rebuilds all of it.
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

  private _activeSessionId: string | undefined;
  private readonly options = new Map<string, SessionConfigOption[]>();
  private readonly titles = new Map<string, string>();
  /** Sessions this window opened on the bridge (resumed after a zcode restart). */
  private readonly open = new Set<string>();
  private restorePromise: Promise<string | undefined> | undefined;
  private readonly folders: Map<string, string>;

  /**
   * @param host the ACP client host
   * @param workspaceState where the active session id is remembered
   * @param cwd the workspace folder sessions live in (absolute path)
   */
  constructor(
    private readonly host: ZcodeClientHost,
    private readonly workspaceState: vscode.Memento,
    private readonly cwd: () => string,
  ) {
    super();
    this._activeSessionId = workspaceState.get<string>(ACTIVE_SESSION_KEY);
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

  /**
   * The session the UI shows and commands act on. After a reload this is the remembered id even
   * before `restore()` loaded it (so commands can act on it; the bridge resumes it lazily).
   */
  get activeSessionId(): string | undefined {
    return this._activeSessionId;
  }

  /** Sessions opened (new/load/fork) by this window since activation and not closed since. */
  get openSessions(): ReadonlySet<string> {
    return new Set(this.open);
  }

  /** A session another chat of this window opened on the bridge itself (boundSessions.ts). */
  didOpen(sessionId: string): void {
    this.open.add(sessionId);
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

  /** `session/new` in `cwd` (default: the workspace folder); becomes the active session. */
  async newSession(cwd = this.cwd()): Promise<string> {
    const result = await this.host.request('session/new', { cwd, mcpServers: [] });
    this.rememberFolder(result.sessionId, cwd);
    this.open.add(result.sessionId);
    if (result.configOptions) this.setOptions(result.sessionId, result.configOptions);
    await this.setActive(result.sessionId);
    return result.sessionId;
  }

  /**
   * `session/load`: the bridge replays the history as `session/update`s before answering; the
   * session becomes active. Listen to `onWillLoadSession` (start from an empty transcript),
   * `onDidChangeActiveSession` and `host.onSessionUpdate` before calling if you render the replay.
   */
  async loadSession(sessionId: string, cwd = this.cwdOf(sessionId)): Promise<void> {
    // Announce the load whether or not the session changes (re-loading the active session replays
    // it all again), then switch first so that a UI filtering updates by the active session shows
    // the replay; switch back if the bridge cannot load it.
    this._onWillLoadSession.fire(sessionId);
    const previous = this._activeSessionId;
    await this.setActive(sessionId);
    let result: LoadSessionResponse | null;
    try {
      // The bridge's default tail; the chat pages back with `_zcode/session/loadEarlier` when the user scrolls up.
      result = await this.host.request('session/load', { sessionId, cwd, mcpServers: [] });
    } catch (error) {
      if (this._activeSessionId === sessionId && previous !== sessionId) await this.setActive(previous);
      throw error;
    }
    this.open.add(sessionId);
    this.rememberFolder(sessionId, cwd);
    if (result?.configOptions) this.setOptions(sessionId, result.configOptions);
    const earlierCursor = replayOf(result)?.cursor;
    this._onDidLoadSession.fire({ sessionId, ...(earlierCursor ? { earlierCursor } : {}) });
  }

  /** Every session of a folder (default: the workspace folder; `session/list`, all pages), most recent first. */
  async listSessions(cwd = this.cwd()): Promise<SessionInfo[]> {
    const sessions: SessionInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result: ListSessionsResponse = await this.host.request('session/list', { cwd, ...(cursor ? { cursor } : {}) });
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
   * `ForkRequest` of the active session (from `checkpointId`, else the latest checkpoint),
   * then loads the fork, which becomes active. Returns the new session id.
   */
  fork(checkpointId?: string): Promise<string> {
    return this.forkThenLoad(this.requireActive(), checkpointId, (id) => this.loadSession(id));
  }

  /**
   * `ForkRequest` of `sessionId` (from `checkpointId`, else the latest checkpoint), then `load`s
   * the fork (this class's `loadSession`, or a chat tab's own). Returns the new session id.
   */
  async forkThenLoad(sessionId: string, checkpointId: string | undefined, load: (forkId: string) => Promise<void>): Promise<string> {
    // The answer is checked against the contract (a fork without its session id is refused there).
    const result = await this.host.call(ForkRequest, checkpointId ? { sessionId, checkpointId } : { sessionId });
    await load(result.sessionId);
    return result.sessionId;
  }

  /**
   * Loads the remembered active session once per activation (a reload shows it again).
   * Resolves with its id, or undefined when there was none or it could not be loaded (then it
   * is forgotten).
   */
  restore(): Promise<string | undefined> {
    this.restorePromise ??= (async () => {
      const id = this._activeSessionId;
      if (!id) return undefined;
      try {
        await this.loadSession(id);
        return id;
      } catch {
        await this.setActive(undefined);
        return undefined;
      }
    })();
    return this.restorePromise;
  }

  /** Makes `sessionId` active without calling the bridge (for a UI that already has it open). */
  async setActive(sessionId: string | undefined): Promise<void> {
    if (sessionId === this._activeSessionId) return;
    this._activeSessionId = sessionId;
    await this.workspaceState.update(ACTIVE_SESSION_KEY, sessionId);
    this._onDidChangeActiveSession.fire(sessionId);
  }

  /** The active session id, or an error in plain words. */
  requireActive(): string {
    return requireSession(this._activeSessionId);
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

  private setOptions(sessionId: string, configOptions: SessionConfigOption[]): void {
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
