/**
 * The extension's own ACP client of the in-process bridge.
 *
 * `ZcodeClientHost` owns the bridge's lifetime (created lazily on first use, never in
 * `activate()`), connects an SDK `client()` app to it in-process and initializes it, and exposes
 * what the rest of the extension (commands, tree, chat webview) needs: typed requests, the
 * `session/update` stream, the bridge's `_zcode/*` notifications, the zcode state for the
 * status bar, and one pluggable interactive UI for permission prompts and elicitation forms.
 *
 * Everything goes through ACP, exactly as a remote client's calls would.
 */
import * as vscode from 'vscode';
import type * as AcpSdk from '@agentclientprotocol/sdk';
import type { ClientApp, ClientConnection, InitializeResponse, SessionNotification } from '@agentclientprotocol/sdk';
import type { Bridge, BridgeOptions } from '../bridge/acp/bridge.ts';
import { callExtension, CompactRequest, loadExtensionSchemas } from '../bridge/acp/extensionSchemas.ts';
import type { ExtensionRequest, ParamsOf, ResultOf } from '../bridge/acp/extensionSchemas.ts';
import type { ExitInfo, LocateOptions, Logger } from '../bridge/zcode/backend.ts';
import { protocolTrace } from './protocolTrace.ts';
import { Disposable } from './disposable.ts';
import { InteractiveUiSlot } from './interactiveUi.ts';
import type { InteractiveUi } from './interactiveUi.ts';

export type { InteractiveUi } from './interactiveUi.ts';

/** zcode's state as the user sees it (status bar, context keys). */
export type HostState = 'notStarted' | 'starting' | 'ready' | 'turnRunning' | 'crashed';

/** A notification from the bridge outside the stable ACP set (read it with `readNotification` and its descriptor, extensionSchemas.ts). */
export interface ExtNotification {
  method: string;
  params: unknown;
}

/** The bridge as the host uses it (bridge/acp/bridge.ts). */
export type HostedBridge = Bridge;

export interface ZcodeClientHostOptions {
  /**
   * `createBridge` from bridge/acp/bridge.ts (injected: the environment is passed in). May load the bridge
   * first: it is not part of activation (the bridge and the ACP SDK build their schemas
   * when loaded).
   */
  createBridge: (options: BridgeOptions) => Bridge | Promise<Bridge>;
  /** VS Code's LogOutputChannel (it satisfies the bridge's Logger port). */
  logger: Logger;
  /** Session store directory: the extension's global storage. */
  storageDir: string;
  /** Read when the bridge is created (settings `zcode.path` / `zcode.nodePath`). */
  locate: () => LocateOptions;
  /** Read when the bridge is created (setting `zcode.defaultMode`). */
  defaultMode: () => string | undefined;
  /** VS Code's display language: the bridge writes its own texts in it. */
  locale?: string;
  /** Used when no interactive UI is registered and `revealUi` did not bring one up in time. */
  fallbackUi: InteractiveUi;
  /** Shows the chat view so that it can register its UI (e.g. `zcode.chat.focus`). */
  revealUi?: () => Thenable<unknown>;
  /** How long to wait for a UI after `revealUi` (default 5 s). */
  uiWaitMs?: number;
  /** Default request timeout in ms (default 60 s); `session/prompt` and interactive calls have none. */
  requestTimeoutMs?: number;
  /** Client name sent in `initialize`. */
  clientInfo?: { name: string; version: string };
}

/** Request options of `ZcodeClientHost.request`. */
export interface HostRequestOptions {
  /** Aborting sends `$/cancel_request` and rejects at once. */
  signal?: AbortSignal;
  /** Overrides the default timeout; 0 = none. */
  timeoutMs?: number;
}

/** Methods that legitimately run long: no default timeout (they are still rejected on dispose). */
const UNTIMED_METHODS = new Set<string>(['session/prompt', 'session/load', CompactRequest.method]);

/**
 * Hosts the bridge and the extension's ACP client of it.
 *
 * Lifecycle: nothing happens until `ready()` (or any call that needs it). `ready()` creates the
 * bridge, connects the client app and sends `initialize`; zcode itself starts lazily on the first
 * request that needs it (or `start()`). `dispose()`/`shutdown()` close the client link, dispose
 * the bridge (which kills zcode) and reject everything pending.
 */
export class ZcodeClientHost extends Disposable {
  private readonly _onDidChangeState = this.register(new vscode.EventEmitter<HostState>());
  /** Fires whenever `state` changes. */
  readonly onDidChangeState = this._onDidChangeState.event;

  private readonly _onSessionUpdate = this.register(new vscode.EventEmitter<SessionNotification>());
  /** Every `session/update` the bridge sends (all sessions). */
  readonly onSessionUpdate = this._onSessionUpdate.event;

  private readonly _onExtNotification = this.register(new vscode.EventEmitter<ExtNotification>());
  /** Every other notification from the bridge (the `_zcode/*` ones of extensionSchemas.ts: background tasks, steer state, …). */
  readonly onExtNotification = this._onExtNotification.event;

  private readonly _onDidCrash = this.register(new vscode.EventEmitter<ExitInfo>());
  /** zcode exited without being asked to. */
  readonly onDidCrash = this._onDidCrash.event;

  private readonly _onDidRestart = this.register(new vscode.EventEmitter<void>());
  /** A fresh zcode process is up after `restart()` (session owners resume their sessions). */
  readonly onDidRestart = this._onDidRestart.event;

  private readonly _onDidChangeRunningSessions = this.register(new vscode.EventEmitter<ReadonlySet<string>>());
  /** Fires when a `session/prompt` of this client starts or ends. */
  readonly onDidChangeRunningSessions = this._onDidChangeRunningSessions.event;

  private readonly _onDidSettle = this.register(new vscode.EventEmitter<void>());
  /**
   * Fires when something of this client that keeps a session in use ends: a `session/prompt`, a
   * permission prompt or form (answered or withdrawn), a `session/load` (session release).
   */
  readonly onDidSettle = this._onDidSettle.event;

  private readonly _onDidResetBridge = this.register(new vscode.EventEmitter<void>());
  /** The bridge was dropped by `resetBridge()` (the remote endpoint re-attaches to the next one). */
  readonly onDidResetBridge = this._onDidResetBridge.event;

  private readonly _onDidCreateBridge = this.register(new vscode.EventEmitter<HostedBridge>());
  /** Fires once the bridge exists (the remote endpoint attaches to it). */
  readonly onDidCreateBridge = this._onDidCreateBridge.event;

  private _bridge: HostedBridge | undefined;
  private connection: ClientConnection | undefined;
  private readyPromise: Promise<void> | undefined;
  private _initializeResult: InitializeResponse | undefined;
  private _state: HostState = 'notStarted';
  private readonly running = new Map<string, number>();
  /** Sessions with a permission prompt or form of the bridge waiting for this client's answer. */
  private readonly asking = new Map<string, number>();
  private loads = 0;
  private readonly ui: InteractiveUiSlot;
  /** Aborted on dispose: rejects every pending call. */
  private readonly lifetime = new AbortController();
  private shutdownPromise: Promise<void> | undefined;
  private bridgeSubscriptions: { dispose(): void } | undefined;

  constructor(private readonly options: ZcodeClientHostOptions) {
    super();
    this.ui = new InteractiveUiSlot({ fallback: options.fallbackUi, reveal: options.revealUi, waitMs: options.uiWaitMs, logger: options.logger });
  }

  /** zcode's state: not started / starting / ready / turn running / crashed. */
  get state(): HostState {
    return this._state;
  }

  /** The bridge's `initialize` answer, once `ready()` resolved. */
  get initializeResult(): InitializeResponse | undefined {
    return this._initializeResult;
  }

  /** The bridge, once created (undefined before first use and after dispose). */
  get bridge(): HostedBridge | undefined {
    return this._bridge;
  }

  /** Sessions with a `session/prompt` of this client in flight. */
  get runningSessions(): ReadonlySet<string> {
    return new Set(this.running.keys());
  }

  /** Whether a `session/prompt` of this client, or a permission prompt or form, of `sessionId` is in flight. */
  isBusy(sessionId: string): boolean {
    return this.running.has(sessionId) || this.asking.has(sessionId);
  }

  /** A `session/load` of this client is on its way (the session shown before it comes back if it fails). */
  get loading(): boolean {
    return this.loads > 0;
  }

  /**
   * Creates the bridge (once), connects the client and sends `initialize`. Does not start zcode.
   * A failure is not cached: the next call tries again.
   */
  ready(): Promise<void> {
    if (this.isDisposed) return Promise.reject(new Error(vscode.l10n.t('ZCode is shutting down.')));
    this.readyPromise ??= this.connect().catch((error: unknown) => {
      this.readyPromise = undefined;
      throw error;
    });
    return this.readyPromise;
  }

  /** `ready()` and start the zcode process now (surfaces "zcode not found" / "too old" early). */
  async start(): Promise<void> {
    await this.ready();
    await this.requireBridge().backend.start();
  }

  /** Stops zcode and starts a fresh process; then fires `onDidRestart` so open sessions resume. */
  async restart(): Promise<void> {
    await this.ready();
    const backend = this.requireBridge().backend;
    await backend.restart();
    await backend.start();
    this._onDidRestart.fire();
  }

  /**
   * Calls one of the bridge's `_zcode/*` methods through its descriptor (extensionSchemas.ts):
   * params typed, the answer checked against the descriptor's result schema. Rejects like `request`.
   */
  call<D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>, options: HostRequestOptions = {}): Promise<ResultOf<D>> {
    return callExtension((method, p) => this.request(method, p, options), descriptor, params);
  }

  /**
   * Sends an ACP request to the bridge (a stable ACP method; `_zcode/*` methods go through `call`).
   * Rejects with the bridge's `RequestError` (use `errorMessage()` for plain words), on timeout,
   * on `signal` abort, and on dispose.
   */
  async request<T = unknown>(method: string, params: unknown, options: HostRequestOptions = {}): Promise<T> {
    await this.ready();
    const connection = this.connection;
    if (!connection) throw new Error(vscode.l10n.t('ZCode is shutting down.'));
    const timeoutMs = options.timeoutMs ?? (UNTIMED_METHODS.has(method) ? 0 : (this.options.requestTimeoutMs ?? 60_000));
    const signals = [this.lifetime.signal];
    if (options.signal) signals.push(options.signal);
    if (timeoutMs > 0) signals.push(AbortSignal.timeout(timeoutMs));
    const cancellationSignal = AbortSignal.any(signals);
    const sessionId = method === 'session/prompt' ? promptSessionId(params) : undefined;
    if (sessionId) this.markRunning(sessionId, +1);
    const load = method === 'session/load';
    if (load) this.loads++;
    try {
      return await connection.agent.request<T>(method, params, { cancellationSignal, stopWaitingOnCancel: true });
    } catch (error) {
      // (the SDK is loaded: `ready()` above loaded it)
      if (error instanceof (await loadSdk()).RequestError && error.code === -32800 && cancellationSignal.reason instanceof DOMException && cancellationSignal.reason.name === 'TimeoutError') {
        throw new Error(vscode.l10n.t('zcode did not answer {0} within {1} seconds.', method, Math.round(timeoutMs / 1000)), { cause: error });
      }
      throw error;
    } finally {
      if (sessionId) this.markRunning(sessionId, -1);
      if (load) this.loads--;
      if (sessionId || load) this._onDidSettle.fire();
    }
  }

  /** Sends an ACP notification (e.g. `session/cancel`). */
  async notify(method: string, params: unknown): Promise<void> {
    await this.ready();
    await this.connection?.agent.notify(method, params);
  }

  /** Cancels the running turn of a session (`session/cancel`). */
  cancelTurn(sessionId: string): Promise<void> {
    return this.notify('session/cancel', { sessionId });
  }

  /**
   * Registers the UI for permission prompts and elicitation forms (the chat webview does this).
   * The last registration wins; disposing it unregisters. Without a UI, requests first reveal the
   * chat view (`revealUi`) and wait `uiWaitMs` for one to register, then fall back to modal
   * QuickPicks / input boxes (`fallbackUi`).
   */
  setInteractiveUi(ui: InteractiveUi): vscode.Disposable {
    return new vscode.Disposable(this.ui.set(ui));
  }

  /**
   * Drops the bridge (stopping zcode and closing every client link) so that the next use creates
   * a fresh one with the current settings. The bridge reads `zcode.path` / `zcode.nodePath` only
   * when it is created, so this is how a changed location takes effect. Fires `onDidResetBridge`;
   * open sessions resume on the new bridge (the session store maps their ids).
   */
  async resetBridge(): Promise<void> {
    const bridge = this._bridge;
    if (!bridge || this.isDisposed) return;
    const connection = this.connection;
    this._bridge = undefined;
    this.connection = undefined;
    this.readyPromise = undefined;
    this._initializeResult = undefined;
    this.bridgeSubscriptions?.dispose();
    this.bridgeSubscriptions = undefined;
    this.running.clear();
    try {
      connection?.close();
    } catch {
      // already closed
    }
    try {
      await bridge.dispose();
    } catch (error) {
      this.options.logger.error(`disposing the bridge failed: ${String(error)}`);
    }
    this.updateState();
    this._onDidResetBridge.fire();
  }

  /** Disposes the bridge and waits until zcode is gone. Safe to call more than once. */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.doShutdown();
    return this.shutdownPromise;
  }

  override dispose(): void {
    void this.shutdown();
  }

  private async doShutdown(): Promise<void> {
    this.lifetime.abort(new Error('ZCode is shutting down.'));
    const bridge = this._bridge;
    const connection = this.connection;
    this._bridge = undefined;
    this.connection = undefined;
    this.bridgeSubscriptions?.dispose();
    this.ui.dispose();
    super.dispose();
    try {
      connection?.close();
    } catch {
      // already closed
    }
    if (bridge) {
      try {
        await bridge.dispose();
      } catch (error) {
        this.options.logger.error(`disposing the bridge failed: ${String(error)}`);
      }
    }
  }

  private async connect(): Promise<void> {
    let bridge = this._bridge;
    // The SDK is loaded with the bridge, on first use (see `createBridge`); so are the `_zcode/*`
    // schemas, which every message read from the bridge may need (readNotification, replayOf).
    const [sdk] = await Promise.all([loadSdk(), loadExtensionSchemas()]);
    if (!bridge) {
      const logger = this.options.logger;
      bridge = await this.options.createBridge({
        locate: this.options.locate(),
        logger,
        storageDir: this.options.storageDir,
        defaultMode: this.options.defaultMode(),
        ...(this.options.locale ? { locale: this.options.locale } : {}),
        // The in-process link's protocol trace, at trace level ("Developer: Set Log Level…").
        tap: protocolTrace(logger, vscode.LogLevel.Trace),
      });
      this._bridge = bridge;
      const current = bridge;
      const subscriptions = [
        bridge.backend.onDidChangeState(() => this.updateState()),
        bridge.backend.onDidExit((info) => {
          if (this._bridge !== current) return;
          this.running.clear();
          this.updateState();
          if (!info.expected) this._onDidCrash.fire(info);
        }),
      ];
      this.bridgeSubscriptions = { dispose: () => subscriptions.forEach((d) => d.dispose()) };
      this._onDidCreateBridge.fire(bridge);
    }
    const connection = bridge.connectClient(this.createClientApp(sdk.client), { kind: 'local' });
    this.connection = connection;
    void connection.closed.then(() => {
      if (this.connection === connection) {
        this.connection = undefined;
        this.readyPromise = undefined;
      }
    });
    this._initializeResult = await connection.agent.request(
      'initialize',
      {
        protocolVersion: 1,
        clientCapabilities: {
          // Native forms in the chat webview (and a QuickPick fallback) answer elicitations.
          elicitation: { form: {} },
          // zcode runs its own shell: show its output as terminal content (docs/acp.md).
          _meta: { terminal_output: true },
        },
        clientInfo: this.options.clientInfo ?? { name: 'zcode-vscode', version: '0.0.0' },
      },
      { cancellationSignal: this.lifetime.signal, stopWaitingOnCancel: true },
    );
    this.updateState();
  }

  private createClientApp(client: Sdk['client']): ClientApp {
    return client({ name: 'zcode-vscode' })
      .onNotification('session/update', ({ params }) => {
        this._onSessionUpdate.fire(params);
      })
      .onRequest('session/request_permission', async ({ params, signal }) => {
        const ui = await this.ui.resolve(signal);
        if (signal.aborted) return { outcome: { outcome: 'cancelled' } };
        return this.asked(params.sessionId, () => ui.requestPermission(params, signal));
      })
      .onRequest('elicitation/create', async ({ params, signal }) => {
        const ui = await this.ui.resolve(signal);
        if (signal.aborted) return { action: 'cancel' };
        return this.asked(promptSessionId(params), () => ui.createElicitation(params, signal));
      })
      .onNotification('*', ({ method, params }) => {
        this._onExtNotification.fire({ method, params });
      });
  }

  /** Counts a permission prompt or form of `sessionId` while the user has it (`isBusy`). */
  private async asked<R>(sessionId: string | undefined, ask: () => Promise<R>): Promise<R> {
    if (!sessionId) return ask();
    this.asking.set(sessionId, (this.asking.get(sessionId) ?? 0) + 1);
    try {
      return await ask();
    } finally {
      const left = (this.asking.get(sessionId) ?? 1) - 1;
      if (left > 0) this.asking.set(sessionId, left);
      else this.asking.delete(sessionId);
      this._onDidSettle.fire();
    }
  }

  private markRunning(sessionId: string, delta: number): void {
    const count = (this.running.get(sessionId) ?? 0) + delta;
    if (count > 0) this.running.set(sessionId, count);
    else this.running.delete(sessionId);
    this._onDidChangeRunningSessions.fire(this.runningSessions);
    this.updateState();
  }

  private updateState(): void {
    if (this.isDisposed) return;
    const next = this.computeState();
    if (next === this._state) return;
    this._state = next;
    this._onDidChangeState.fire(next);
  }

  private computeState(): HostState {
    const backend = this._bridge?.backend;
    if (!backend) return 'notStarted';
    switch (backend.state) {
      case 'stopped':
        return 'notStarted';
      case 'starting':
        return 'starting';
      case 'crashed':
        return 'crashed';
      case 'ready':
        return this.running.size > 0 ? 'turnRunning' : 'ready';
    }
  }

  private requireBridge(): HostedBridge {
    if (!this._bridge) throw new Error(vscode.l10n.t('ZCode is shutting down.'));
    return this._bridge;
  }
}

function promptSessionId(params: unknown): string | undefined {
  if (typeof params === 'object' && params !== null && 'sessionId' in params && typeof params.sessionId === 'string') return params.sessionId;
  return undefined;
}

type Sdk = typeof AcpSdk;
let sdkModule: Promise<Sdk> | undefined;

/** The ACP SDK, loaded on first use rather than with the extension (its import builds ~470 zod schemas). */
export function loadSdk(): Promise<Sdk> {
  return (sdkModule ??= import('@agentclientprotocol/sdk'));
}
