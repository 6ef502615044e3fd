/**
 * The sessions of one editor-tab chat: a `ChatSessions` bound to its own session, independent of
 * the sidebar's active session (ClientSessions). New, load and fork go straight to the bridge
 * without touching the active session; listing, titles and config options are shared with the
 * ClientSessions (they are per session anyway).
 *
 * A session shows in one chat at a time: loading a session another chat shows would replay its
 * history into both, so `loadSession` refuses it (the caller reveals that chat instead). When the
 * sidebar re-loads the session this chat shows, this chat starts over too (the replay is shared).
 *
 * Every session this chat opens is registered with the ClientSessions (`didOpen`): it resumes them
 * after a zcode restart with its own, and closes them once no chat shows them (sessionRelease.ts).
 */
import * as vscode from 'vscode';
import type { SessionConfigOption, SessionInfo } from '@agentclientprotocol/sdk';
import { replayOf } from '../../bridge/acp/extensionSchemas.ts';
import type { ZcodeClientHost } from '../acpClient.ts';
import { requireSession, type ClientSessions } from './registry.ts';
import type { ChatSessions, LoadedSession } from '../chat/chatPorts.ts';

export class SessionShownElsewhereError extends Error {
  constructor(readonly sessionId: string) {
    super(vscode.l10n.t('This session is already open in another ZCode chat.'));
  }
}

export class BoundSessions implements ChatSessions, vscode.Disposable {
  private readonly _onDidChangeActiveSession = new vscode.EventEmitter<string | undefined>();
  readonly onDidChangeActiveSession = this._onDidChangeActiveSession.event;
  private readonly _onWillLoadSession = new vscode.EventEmitter<string>();
  readonly onWillLoadSession = this._onWillLoadSession.event;
  private readonly _onDidLoadSession = new vscode.EventEmitter<LoadedSession>();
  /** This tab's load succeeded; `earlierCursor`: the bridge replayed only the tail (the chat pages back from it). */
  readonly onDidLoadSession = this._onDidLoadSession.event;
  private readonly _onDidChangeConfigOptions = new vscode.EventEmitter<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>();
  readonly onDidChangeConfigOptions = this._onDidChangeConfigOptions.event;
  private readonly options = new Map<string, readonly SessionConfigOption[]>();
  private readonly subscriptions: vscode.Disposable[];
  private restored: Promise<string | undefined> | undefined;

  /**
   * @param sessionId the session to show (undefined: a new one is made on the first prompt)
   * @param cwd the folder of new sessions
   * @param shownElsewhere whether another chat shows a session
   * @param log where a failed restore is reported
   */
  constructor(
    private readonly host: ZcodeClientHost,
    private readonly sessions: ClientSessions,
    private sessionId: string | undefined,
    readonly cwd: string,
    private readonly shownElsewhere: (sessionId: string) => boolean,
    private readonly log: (message: string) => void = () => {},
  ) {
    this.subscriptions = [
      this._onDidChangeActiveSession,
      this._onWillLoadSession,
      this._onDidLoadSession,
      this._onDidChangeConfigOptions,
      sessions.onDidChangeConfigOptions((c) => {
        this.options.set(c.sessionId, c.configOptions);
        this._onDidChangeConfigOptions.fire(c);
      }),
      sessions.onWillLoadSession((id) => {
        if (id === this.sessionId) this._onWillLoadSession.fire(id);
      }),
      sessions.onDidCloseSession((id) => this.options.delete(id)),
    ];
  }

  get activeSessionId(): string | undefined {
    return this.sessionId;
  }

  configOptions(sessionId: string): readonly SessionConfigOption[] | undefined {
    return this.options.get(sessionId) ?? this.sessions.configOptions(sessionId);
  }

  title(sessionId: string): string | undefined {
    return this.sessions.title(sessionId);
  }

  async newSession(): Promise<string> {
    const result = await this.host.request('session/new', { cwd: this.cwd, mcpServers: [] });
    this.sessions.rememberFolder(result.sessionId, this.cwd);
    this.sessions.didOpen(result.sessionId);
    this.setOptions(result.sessionId, result.configOptions);
    this.bind(result.sessionId);
    return result.sessionId;
  }

  async loadSession(sessionId: string): Promise<void> {
    if (sessionId !== this.sessionId && this.shownElsewhere(sessionId)) throw new SessionShownElsewhereError(sessionId);
    this._onWillLoadSession.fire(sessionId);
    const previous = this.sessionId;
    this.bind(sessionId);
    try {
      const result = await this.host.request('session/load', { sessionId, cwd: this.sessions.cwdOf(sessionId), mcpServers: [] });
      this.sessions.didOpen(sessionId);
      this.setOptions(sessionId, result?.configOptions ?? undefined);
      const earlierCursor = replayOf(result)?.cursor;
      this._onDidLoadSession.fire({ sessionId, ...(earlierCursor ? { earlierCursor } : {}) });
    } catch (error) {
      if (previous !== sessionId) this.bind(previous);
      throw error;
    }
  }

  listSessions(): Promise<SessionInfo[]> {
    return this.sessions.listSessions();
  }

  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<readonly SessionConfigOption[]> {
    return this.sessions.setConfigOption(sessionId, configId, value);
  }

  fork(checkpointId?: string): Promise<string> {
    return this.sessions.forkThenLoad(requireSession(this.sessionId), checkpointId, (id) => this.loadSession(id));
  }

  /** Loads the bound session once (a restored tab shows its history again). */
  restore(): Promise<string | undefined> {
    this.restored ??= (async () => {
      const id = this.sessionId;
      if (!id) return undefined;
      try {
        await this.loadSession(id);
        return id;
      } catch (error) {
        this.log(`chat tab: could not load session ${id}, starting a new one: ${error instanceof Error ? error.message : String(error)}`);
        this.bind(undefined);
        return undefined;
      }
    })();
    return this.restored;
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }

  private bind(sessionId: string | undefined): void {
    if (sessionId === this.sessionId) return;
    this.sessionId = sessionId;
    this._onDidChangeActiveSession.fire(sessionId);
  }

  private setOptions(sessionId: string, configOptions: readonly SessionConfigOption[] | null | undefined): void {
    if (!configOptions) return;
    this.options.set(sessionId, configOptions);
    this._onDidChangeConfigOptions.fire({ sessionId, configOptions });
  }
}
