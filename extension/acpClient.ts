/**
 * The extension's own ACP client of the in-process bridge.
 *
 * `ZcodeClientHost` owns the bridge's lifetime (created lazily on first use, never in
 * `activate()`), connects an SDK `client()` app to it in-process and initializes it, and exposes
 * what the rest of the extension (commands, tree, chat webview) needs: requests typed by method,
 * the `session/update` stream, the bridge's `_zcode/*` notifications and named prompts' answers,
 * all three in the order the bridge wrote them (bridgeInbox.ts), and one pluggable interactive UI
 * for permission prompts and elicitation forms. zcode's process state (status bar,
 * crash, restart) is zcodeProcess.ts; what keeps a session busy is sessions/sessionActivity.ts.
 *
 * Everything goes through ACP, exactly as a remote client's calls would.
 */
import * as vscode from 'vscode';
import type {
  AgentNotificationMethod,
  AgentNotificationParamsByMethod,
  AgentRequestMethod,
  AgentRequestParamsByMethod,
  AgentRequestResponsesByMethod,
  ClientApp,
  ClientConnection,
  InitializeResponse,
  SendRequestOptions,
  SessionNotification,
} from '@agentclientprotocol/sdk';
import type { Bridge } from '../bridge/acp/bridge.ts';
import { CompactRequest } from '../bridge/acp/extensions/contractDescriptors.ts';
import { loadContractSchemas, loadSdk, type Contract, type Sdk } from './lazyModules.ts';
import type { ExtensionRequest, ParamsOf, ResultOf } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { HostRequestOptions, ZcodeClientHostOptions } from './acpClientOptions.ts';
import { BridgeInbox, type PromptAnswer } from './bridgeInbox.ts';
import { REQUEST_CANCELLED } from './errorValues.ts';
import { protocolTrace } from './protocolTrace.ts';
import { Disposable } from './disposable.ts';
import { InteractiveUiSlot } from './interactiveUi.ts';
import type { InteractiveUi } from './interactiveUi.ts';
import { SessionActivity } from './sessions/sessionActivity.ts';
import { ZcodeProcessState } from './zcodeProcess.ts';
import type { HostState } from './zcodeProcess.ts';

export type { InteractiveUi } from './interactiveUi.ts';
export type { PromptAnswer } from './bridgeInbox.ts';
export type { HostState } from './zcodeProcess.ts';
export type { HostRequestOptions, ZcodeClientHostOptions } from './acpClientOptions.ts';

/** A `_zcode/*` notification from the bridge, checked at this client's boundary (pick one with `notificationOf` and its descriptor, contractDescriptors.ts). */
export interface ExtNotification {
  method: string;
  params: unknown;
}

/** The bridge as the host uses it (bridge/acp/bridge.ts). */
export type HostedBridge = Bridge;

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
  /** What keeps each session in use: this client's prompts, loads and open dialogs (sessionActivity.ts). */
  readonly activity = this.register(new SessionActivity());
  /** zcode's process state (zcodeProcess.ts); whether a turn runs is this client's to say. */
  private readonly process = this.register(new ZcodeProcessState(() => this.activity.promptRunning, () => this.activity.forgetPrompts()));
  /** Fires whenever `state` changes. */
  readonly onDidChangeState = this.process.onDidChangeState;
  /** zcode exited without being asked to. */
  readonly onDidCrash = this.process.onDidCrash;
  /** A fresh zcode process is up after `restart()` (session owners resume their sessions). */
  readonly onDidRestart = this.process.onDidRestart;

  private readonly _onSessionUpdate = this.register(new vscode.EventEmitter<SessionNotification>());
  /** Every `session/update` the bridge sends (all sessions). */
  readonly onSessionUpdate = this._onSessionUpdate.event;

  private readonly _onExtNotification = this.register(new vscode.EventEmitter<ExtNotification>());
  /** Every other notification from the bridge (the `_zcode/*` ones of contractDescriptors.ts: background tasks, steer state, …). */
  readonly onExtNotification = this._onExtNotification.event;

  private readonly _onPromptAnswered = this.register(new vscode.EventEmitter<PromptAnswer>());
  /**
   * The answer of a `session/prompt` that carried `_meta.zcode.promptId`, at its place among the
   * notifications (before the request's promise settles; bridgeInbox.ts).
   */
  readonly onPromptAnswered = this._onPromptAnswered.event;

  /** Fires when something of this client that keeps a session in use ends (sessionActivity.ts). */
  readonly onDidSettle = this.activity.onDidSettle;

  private readonly _onDidResetBridge = this.register(new vscode.EventEmitter<void>());
  /** The bridge was dropped by `resetBridge()` (the remote endpoint re-attaches to the next one). */
  readonly onDidResetBridge = this._onDidResetBridge.event;

  private readonly _onDidCreateBridge = this.register(new vscode.EventEmitter<HostedBridge>());
  /** Fires once the bridge exists (the remote endpoint attaches to it). */
  readonly onDidCreateBridge = this._onDidCreateBridge.event;

  private _bridge: HostedBridge | undefined;
  private connection: ClientConnection | undefined;
  private readyPromise: Promise<void> | undefined;
  /** `readyPromise` resolved: a request goes out without waiting a tick, so calls leave in the order they are made. */
  private isReady = false;
  private _initializeResult: InitializeResponse | undefined;
  private readonly ui: InteractiveUiSlot;
  /** Aborted on dispose: rejects every pending call. */
  private readonly lifetime = new AbortController();
  private shutdownPromise: Promise<void> | undefined;

  constructor(private readonly options: ZcodeClientHostOptions) {
    super();
    this.ui = new InteractiveUiSlot({ fallback: options.fallbackUi, reveal: options.revealUi, waitMs: options.uiWaitMs, logger: options.logger });
    this.register(this.activity.onDidChangePrompts(() => this.process.update()));
  }

  /** zcode's state: not started / starting / ready / turn running / crashed. */
  get state(): HostState {
    return this.process.state;
  }

  /** The bridge's `initialize` answer, once `ready()` resolved. */
  get initializeResult(): InitializeResponse | undefined {
    return this._initializeResult;
  }

  /** The bridge, once created (undefined before first use and after dispose). */
  get bridge(): HostedBridge | undefined {
    return this._bridge;
  }

  /** Whether a `session/prompt` of this client, or a permission prompt or form, of `sessionId` is in flight. */
  isBusy(sessionId: string): boolean {
    return this.activity.isBusy(sessionId);
  }

  /** A `session/load` of this client is on its way (the session shown before it comes back if it fails). */
  get loading(): boolean {
    return this.activity.loading;
  }

  /**
   * Creates the bridge (once), connects the client and sends `initialize`. Does not start zcode.
   * A failure is not cached: the next call tries again.
   */
  ready(): Promise<void> {
    if (this.isDisposed) return Promise.reject(new Error(vscode.l10n.t('ZCode is shutting down.')));
    this.readyPromise ??= this.connect().then(
      () => {
        this.isReady = true;
      },
      (error: unknown) => {
        this.readyPromise = undefined;
        throw error;
      },
    );
    return this.readyPromise;
  }

  /** `ready()` and start the zcode process now (surfaces "zcode not found" / "too old" early). */
  async start(): Promise<void> {
    await this.ready();
    await this.process.start();
  }

  /** Stops zcode and starts a fresh process; then fires `onDidRestart` so open sessions resume. */
  async restart(): Promise<void> {
    await this.ready();
    await this.process.restart();
  }

  /**
   * Calls one of the bridge's `_zcode/*` methods through its descriptor (contractDescriptors.ts):
   * params typed, the answer checked against the descriptor's result schema. Rejects like `request`.
   */
  call<D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>, options: HostRequestOptions = {}): Promise<ResultOf<D>> {
    return this.send(descriptor.method, options, (agent, sendOptions) => agent.request(descriptor.method, params, sendOptions)).then(async (answer) =>
      (await loadContractSchemas()).parseResult(descriptor, answer),
    );
  }

  /**
   * Sends a stable ACP request to the bridge, typed by method from the SDK (`_zcode/*` methods go
   * through `call`). Rejects with the bridge's `RequestError` (`errorMessage()` of errors.ts gives
   * plain words), on timeout, on `signal` abort, and on dispose.
   */
  request<M extends AgentRequestMethod>(method: M, params: AgentRequestParamsByMethod[M], options: HostRequestOptions = {}): Promise<AgentRequestResponsesByMethod[M]> {
    return this.send(method, options, (agent, sendOptions) => agent.request(method, params, sendOptions), params);
  }

  /** One request to the bridge: the timeout, the cancellation, and what keeps a session busy. */
  private async send<R>(method: string, options: HostRequestOptions, run: (agent: ClientConnection['agent'], sendOptions: SendRequestOptions) => Promise<R>, params?: unknown): Promise<R> {
    // Once connected, nothing here awaits before the SDK writes the request: two prompts sent one
    // after the other reach the bridge's queue in that order.
    if (!this.isReady || !this.readyPromise) await this.ready();
    const connection = this.connection;
    if (!connection) throw new Error(vscode.l10n.t('ZCode is shutting down.'));
    const timeoutMs = options.timeoutMs ?? (UNTIMED_METHODS.has(method) ? 0 : (this.options.requestTimeoutMs ?? 60_000));
    const signals = [this.lifetime.signal];
    if (options.signal) signals.push(options.signal);
    if (timeoutMs > 0) signals.push(AbortSignal.timeout(timeoutMs));
    const cancellationSignal = AbortSignal.any(signals);
    const sessionId = method === 'session/prompt' ? promptSessionId(params) : undefined;
    const send = (): Promise<R> => run(connection.agent, { cancellationSignal, stopWaitingOnCancel: true });
    try {
      if (sessionId) return await this.activity.track({ prompt: sessionId }, send);
      if (method === 'session/load') return await this.activity.track('load', send);
      return await send();
    } catch (error) {
      // (the SDK is loaded: `ready()` above loaded it)
      if (error instanceof (await loadSdk()).RequestError && error.code === REQUEST_CANCELLED && cancellationSignal.reason instanceof DOMException && cancellationSignal.reason.name === 'TimeoutError') {
        throw new Error(vscode.l10n.t('zcode did not answer {0} within {1} seconds.', method, Math.round(timeoutMs / 1000)), { cause: error });
      }
      throw error;
    }
  }

  /** Sends a stable ACP notification (e.g. `session/cancel`), typed by method from the SDK. */
  async notify<M extends AgentNotificationMethod>(method: M, params: AgentNotificationParamsByMethod[M]): Promise<void> {
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
    this.isReady = false;
    this._initializeResult = undefined;
    this.activity.forgetPrompts();
    this.process.forget();
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
    // schemas, which check every `_zcode/*` message read from the bridge.
    const [sdk, contract] = await Promise.all([loadSdk(), loadContractSchemas()]);
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
      this.process.follow(bridge.process);
      this._onDidCreateBridge.fire(bridge);
    }
    const inbox = new BridgeInbox({
      sessionUpdate: (notification) => this._onSessionUpdate.fire(notification),
      notification: (method, params) => this.deliver(contract, method, params),
      promptAnswered: (answer) => this._onPromptAnswered.fire(answer),
      failed: (what, error) => this.options.logger.error(`a listener of ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    });
    const connection = bridge.connectClient(this.createClientApp(sdk.client), { kind: 'local' }, inbox.observe);
    this.connection = connection;
    void connection.closed.then(() => {
      if (this.connection === connection) {
        this.connection = undefined;
        this.readyPromise = undefined;
        this.isReady = false;
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
    this.process.update();
  }

  /** A `_zcode/*` notification, in wire order (bridgeInbox.ts), parsed here once: listeners pick theirs with `notificationOf` and get checked params. */
  private deliver(contract: Contract, method: string, params: unknown): void {
    const notification = contract.parseNotification({ method, params });
    if (notification) this._onExtNotification.fire(notification);
    else this.options.logger.warn(`ignored a notification outside the _zcode/* contract or unlike its schema: ${method}`);
  }

  private createClientApp(client: Sdk['client']): ClientApp {
    return client({ name: 'zcode-vscode' })
      .onRequest('session/request_permission', async ({ params, signal }) => {
        const ui = await this.ui.resolve(signal);
        if (signal.aborted) return { outcome: { outcome: 'cancelled' } };
        return this.activity.asked(params.sessionId, () => ui.requestPermission(params, signal));
      })
      .onRequest('elicitation/create', async ({ params, signal }) => {
        const ui = await this.ui.resolve(signal);
        if (signal.aborted) return { action: 'cancel' };
        return this.activity.asked(promptSessionId(params), () => ui.createElicitation(params, signal));
      });
  }
}

function promptSessionId(params: unknown): string | undefined {
  if (typeof params === 'object' && params !== null && 'sessionId' in params && typeof params.sessionId === 'string') return params.sessionId;
  return undefined;
}
