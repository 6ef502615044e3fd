/**
 * Remote access: follows the `zcode.remote.*` settings live, starting and stopping the bridge's
 * WebSocket endpoint (bridge/remote) without a window reload.
 *
 * The bearer token is generated once and kept in SecretStorage (never in settings, never logged).
 * "Rotate Token" replaces it and drops every connected remote client. The endpoint lives as long
 * as this window: `shutdown()` closes the listener and every remote connection.
 */
import * as vscode from 'vscode';
import { generateToken } from '../bridge/remote/auth.ts';
import type { RemoteServer } from '../bridge/remote/server.ts';
import type { Logger } from '../bridge/logger.ts';
import type { ZcodeClientHost } from './acpClient.ts';
import { Disposable } from './disposable.ts';
import { errorMessage } from './errorValues.ts';

const TOKEN_SECRET = 'zcode.remote.token';

/** What the status bar and context keys show. */
export interface RemoteState {
  /** The setting. */
  enabled: boolean;
  /** Listening (the URL has no token in it). */
  url?: string;
  port?: number;
  clientCount: number;
  /** Why it is enabled but not listening. */
  error?: string;
}

/** The remote settings as read from the configuration. */
export interface RemoteSettings {
  enabled: boolean;
  host: string;
  port: number;
  allowNonLoopback: boolean;
}

function readRemoteSettings(config: vscode.WorkspaceConfiguration = vscode.workspace.getConfiguration('zcode')): RemoteSettings {
  return {
    enabled: config.get<boolean>('remote.enabled', false),
    host: config.get<string>('remote.host', '127.0.0.1') || '127.0.0.1',
    port: config.get<number>('remote.port', 8378),
    allowNonLoopback: config.get<boolean>('remote.allowNonLoopback', false),
  };
}

export class RemoteAccess extends Disposable {
  private readonly _onDidChange = this.register(new vscode.EventEmitter<RemoteState>());
  /** Fires when the endpoint starts/stops or the remote client count changes. */
  readonly onDidChange = this._onDidChange.event;

  private server: RemoteServer | undefined;
  private serverSubscription: { dispose(): void } | undefined;
  private settings: RemoteSettings | undefined;
  private _state: RemoteState = { enabled: false, clientCount: 0 };
  /** Start/stop runs one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly host: ZcodeClientHost,
    private readonly secrets: vscode.SecretStorage,
    private readonly logger: Logger,
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('zcode.remote')) void this.reconcile();
      }),
    );
    // A new bridge (zcode location changed): the endpoint closed with the old one; re-attach.
    this.register(
      host.onDidResetBridge(() => {
        this.settings = undefined;
        void this.reconcile();
      }),
    );
    // Another window of this profile rotated the token: follow it.
    this.register(
      secrets.onDidChange(async (event) => {
        if (event.key !== TOKEN_SECRET || !this.server) return;
        const token = await secrets.get(TOKEN_SECRET);
        if (token) this.server?.setToken(token);
      }),
    );
  }

  get state(): RemoteState {
    return this._state;
  }

  /** Apply the current settings (call once after activation; later changes apply themselves). */
  reconcile(): Promise<void> {
    this.queue = this.queue.then(() => this.apply(readRemoteSettings())).catch((error: unknown) => {
      this.logger.error(`remote access: ${errorMessage(error)}`);
    });
    return this.queue;
  }

  /** Turns the setting on or off (where it is set: workspace if set there, else user settings). */
  async toggle(enable?: boolean): Promise<void> {
    const config = vscode.workspace.getConfiguration('zcode');
    const next = enable ?? !config.get<boolean>('remote.enabled', false);
    const inspected = config.inspect<boolean>('remote.enabled');
    const target = inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await config.update('remote.enabled', next, target);
    await this.reconcile();
  }

  /** The URL with the token (for clients that take one string). Throws when remote access is off. */
  async urlWithToken(): Promise<string> {
    await this.queue;
    if (!this.server) throw new Error(this._state.error ?? vscode.l10n.t('Remote access is off. Turn it on with "ZCode: Toggle Remote Access".'));
    const token = await this.token();
    return `${this.server.url}?token=${encodeURIComponent(token)}`;
  }

  /** Puts the URL and token on the clipboard. */
  async copyUrl(): Promise<void> {
    const url = await this.urlWithToken();
    await vscode.env.clipboard.writeText(url);
  }

  /** A new token; connected remote clients are dropped and must reconnect with it. */
  async rotateToken(): Promise<void> {
    const token = generateToken();
    await this.secrets.store(TOKEN_SECRET, token);
    await this.queue;
    this.server?.setToken(token);
  }

  /** The stored token, generated and stored on first use. */
  async token(): Promise<string> {
    const existing = await this.secrets.get(TOKEN_SECRET);
    if (existing) return existing;
    const token = generateToken();
    await this.secrets.store(TOKEN_SECRET, token);
    return token;
  }

  /** Closes the endpoint and every remote connection; resolves when the port is free. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await this.queue.catch(() => undefined);
    await this.stop();
    super.dispose();
  }

  override dispose(): void {
    void this.shutdown();
  }

  private async apply(settings: RemoteSettings): Promise<void> {
    if (this.closed) return;
    const previous = this.settings;
    this.settings = settings;
    const same = previous !== undefined && previous.host === settings.host && previous.port === settings.port && previous.allowNonLoopback === settings.allowNonLoopback;
    if (!settings.enabled) {
      await this.stop();
      this.setState({ enabled: false, clientCount: 0 });
      return;
    }
    if (this.server && same) return;
    await this.stop();
    try {
      await this.host.ready();
      const bridge = this.host.bridge;
      if (!bridge) throw new Error(vscode.l10n.t('ZCode is shutting down.'));
      // Loaded when remote access is turned on: the server and `ws` are not part of activation.
      const { startRemoteServer } = await import('../bridge/remote/server.ts');
      const server = await startRemoteServer({
        bridge,
        token: await this.token(),
        logger: this.logger,
        host: settings.host,
        port: settings.port,
        allowNonLoopback: settings.allowNonLoopback,
      });
      if (this.closed) {
        await server.close();
        return;
      }
      this.server = server;
      this.serverSubscription = server.onDidChangeClients((count) => this.setState({ ...this._state, clientCount: count }));
      this.setState({ enabled: true, url: server.url, port: server.port, clientCount: server.clientCount });
    } catch (error) {
      const message = errorMessage(error);
      this.setState({ enabled: true, clientCount: 0, error: message });
      void vscode.window.showErrorMessage(vscode.l10n.t('Remote access could not start: {0}', message));
    }
  }

  private async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.serverSubscription?.dispose();
    this.serverSubscription = undefined;
    if (server) await server.close();
  }

  private setState(state: RemoteState): void {
    this._state = state;
    if (!this.isDisposed) this._onDidChange.fire(state);
  }
}
