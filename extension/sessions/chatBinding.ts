/**
 * The session one chat shows: the sidebar's, or an editor tab's. Everything per session (new,
 * load, fork, options, titles, folders) is the `SessionRegistry`'s (registry.ts); a binding only
 * says which session its chat shows and announces when that changes, so a chat's controller
 * (chatController.ts) sees the same `ChatSessions` port whichever chat it is.
 *
 * The sidebar's binding persists its session in `workspaceState`, so a window reload loads it
 * again (`restore()`; the bridge's persisted lazy-session store keeps that id valid across
 * restarts); an editor tab's binding does not (the webview keeps its id in its own state).
 *
 * A session shows in one chat at a time: loading a session another chat shows would replay its
 * history into both, so `loadSession` refuses it (the caller reveals that chat instead). When
 * another chat re-loads the session this chat shows, this chat starts over too (the replay is
 * shared).
 */
import * as vscode from 'vscode';
import type { SessionConfigOption, SessionInfo } from '@agentclientprotocol/sdk';
import type { ChatSessions, LoadedSession } from '../chat/chatPorts.ts';
import { Disposable } from '../disposable.ts';
import { requireSession, type SessionRegistry } from './registry.ts';

const ACTIVE_SESSION_KEY = 'zcode.activeSessionId';

export class SessionShownElsewhereError extends Error {
  constructor(readonly sessionId: string) {
    super(vscode.l10n.t('This session is already open in another ZCode chat.'));
  }
}

export interface ChatBindingOptions {
  /** The session to show (undefined: a new one is made on the first prompt). */
  sessionId?: string;
  /** The folder of this chat's new sessions. */
  cwd: () => string;
  /** Where the sidebar remembers its session across reloads (absent: an editor tab's, not remembered). */
  memento?: vscode.Memento;
  /** Whether another chat shows a session (absent: none can). */
  shownElsewhere?: (sessionId: string) => boolean;
  /** Where a failed restore is reported. */
  log?: (message: string) => void;
}

export class ChatBinding extends Disposable implements ChatSessions {
  private readonly _onDidChangeActiveSession = this.register(new vscode.EventEmitter<string | undefined>());
  /** Fires with the session this chat shows now (undefined when none). */
  readonly onDidChangeActiveSession = this._onDidChangeActiveSession.event;
  private readonly _onWillLoadSession = this.register(new vscode.EventEmitter<string>());
  /** A `session/load` of the session this chat shows, or is about to show, starts: its replay follows. */
  readonly onWillLoadSession = this._onWillLoadSession.event;
  private readonly _onDidLoadSession = new vscode.EventEmitter<LoadedSession>();
  /** That load succeeded; `earlierCursor`: the bridge replayed only the tail (the chat pages back from it). */
  readonly onDidLoadSession = this._onDidLoadSession.event;
  /** Config options of every session (they are per session: the registry's). */
  readonly onDidChangeConfigOptions: vscode.Event<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>;
  private sessionId: string | undefined;
  /** The session this chat's own `loadSession` is loading (its will-load is this chat's too). */
  private loadingId: string | undefined;
  private restorePromise: Promise<string | undefined> | undefined;

  constructor(
    readonly registry: SessionRegistry,
    private readonly options: ChatBindingOptions,
  ) {
    super();
    this.sessionId = options.memento?.get<string>(ACTIVE_SESSION_KEY) ?? options.sessionId;
    this.onDidChangeConfigOptions = registry.onDidChangeConfigOptions;
    this.register(this._onDidLoadSession);
    this.register(registry.onWillLoadSession((id) => {
      if (id === this.sessionId || id === this.loadingId) this._onWillLoadSession.fire(id);
    }));
    this.register(registry.onDidLoadSession((loaded) => {
      if (loaded.sessionId === this.sessionId) this._onDidLoadSession.fire(loaded);
    }));
  }

  /**
   * The session this chat shows and its commands act on. After a reload this is the remembered id
   * even before `restore()` loaded it (so commands can act on it; the bridge resumes it lazily).
   */
  get activeSessionId(): string | undefined {
    return this.sessionId;
  }

  /** The folder of this chat's new sessions. */
  get cwd(): string {
    return this.options.cwd();
  }

  configOptions(sessionId: string): readonly SessionConfigOption[] | undefined {
    return this.registry.configOptions(sessionId);
  }

  title(sessionId: string): string | undefined {
    return this.registry.title(sessionId);
  }

  listSessions(): Promise<SessionInfo[]> {
    return this.registry.listSessions();
  }

  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<readonly SessionConfigOption[]> {
    return this.registry.setConfigOption(sessionId, configId, value);
  }

  /** `session/new` in `cwd` (default: this chat's folder); this chat shows it. */
  async newSession(cwd = this.options.cwd()): Promise<string> {
    const sessionId = await this.registry.newSession(cwd);
    await this.setActive(sessionId);
    return sessionId;
  }

  /**
   * `session/load` (in `cwd`, default: the session's folder); this chat shows it from the start of
   * its replay, and shows what it showed before if the bridge cannot load it.
   */
  async loadSession(sessionId: string, cwd?: string): Promise<void> {
    if (sessionId !== this.sessionId && this.options.shownElsewhere?.(sessionId)) throw new SessionShownElsewhereError(sessionId);
    const previous = this.sessionId;
    this.loadingId = sessionId;
    try {
      await this.registry.loadSession(sessionId, { ...(cwd ? { cwd } : {}), show: () => this.setActive(sessionId) });
    } catch (error) {
      if (this.sessionId === sessionId && previous !== sessionId) await this.setActive(previous);
      throw error;
    } finally {
      this.loadingId = undefined;
    }
  }

  /** Forks the session shown (from `checkpointId`, else the latest checkpoint) and shows the fork. */
  fork(checkpointId?: string): Promise<string> {
    return this.forkAndShow(checkpointId ? { checkpointId } : {});
  }

  /** Forks the session shown (`assistant`: the whole conversation) and loads the fork here. */
  async forkAndShow(from: { checkpointId?: string; kind?: 'assistant' }): Promise<string> {
    const fork = await this.registry.fork(this.requireActive(), from);
    await this.loadSession(fork.sessionId, fork.cwd || undefined);
    return fork.sessionId;
  }

  /**
   * Loads the bound session once (a reload, or a restored tab, shows its history again). Resolves
   * with its id, or undefined when there was none or it could not be loaded (then it is forgotten).
   */
  restore(): Promise<string | undefined> {
    this.restorePromise ??= (async () => {
      const id = this.sessionId;
      if (!id) return undefined;
      try {
        await this.loadSession(id);
        return id;
      } catch (error) {
        this.options.log?.(`chat: could not load session ${id}, starting a new one: ${error instanceof Error ? error.message : String(error)}`);
        await this.setActive(undefined);
        return undefined;
      }
    })();
    return this.restorePromise;
  }

  /** Shows `sessionId` without calling the bridge (for a session already open, or none). */
  async setActive(sessionId: string | undefined): Promise<void> {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    await this.options.memento?.update(ACTIVE_SESSION_KEY, sessionId);
    this._onDidChangeActiveSession.fire(sessionId);
  }

  /** The session shown, or an error in plain words. */
  requireActive(): string {
    return requireSession(this.sessionId);
  }
}
