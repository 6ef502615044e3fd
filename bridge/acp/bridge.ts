/**
 * The zcode ⇄ ACP bridge: one ACP agent app serving any number of clients (in-process, stdio,
 * WebSocket) on top of one zcode backend.
 *
 *   const bridge = createBridge({ locate, logger, storageDir });
 *   bridge.connect(ndJsonStream(stdout, stdin), { kind: 'stdio' });      // zcode-acp
 *   bridge.connectClient(clientApp, { kind: 'local' });                   // the VS Code extension
 *   await bridge.dispose();                                               // closes clients, stops zcode
 *
 * Files, by folder: transport/ (clients.ts: registry, capability merge, broadcast; streams.ts: the
 * traced in-process link; stdio and initialize; v2/: ACP v2 clients translated to v1 per connection) · sessions/ (sessionTable.ts: lazy sessions and
 * subscriptions; sessionEvents.ts: event routing and the outbound pipe; lazySessionStore.ts: the
 * persisted placeholders; configOptions.ts) · turns/ (turns.ts + promptQueue.ts + turnState.ts: the
 * prompt queue and turn engine; updateSink.ts: streaming text merged under load; races.ts:
 * first-answer-wins requests; interactionRouter.ts: zcode dialogs → ACP; signals.ts: translator
 * signals → notifications) · extensions/ (the `_zcode/*` contract, methods and slash commands) ·
 * here: handlers.ts (the stable ACP methods), coreContext.ts (the seam's implementation) and
 * translation.ts (the core's way to the session translator; sessionOperations.ts and
 * interactionRouter.ts import sessionTranslator.ts directly, for background tasks and interactions,
 * and the pure helpers of bridge/translate are imported where they are used).
 *
 * ## Extension seam
 * `_zcode/*` extension methods live in extensionMethods.ts and slash commands in slashCommands.ts.
 * Both get a `BridgeContext` (context.ts) and nothing else:
 *   - `registerExtensionMethods(app, ctx)` is called once at creation, after the core handlers;
 *     a new method is a descriptor in contractDescriptors.ts (name, params schema, result schema)
 *     plus one `register(descriptor, handler)` line there (the SDK answers -32602 when the params
 *     schema rejects the params; the extension calls it with `host.call(descriptor, params)`).
 *     Every `_zcode/*` method registers there, `_zcode/session/loadEarlier` too (loadEarlier.ts:
 *     a handler gets the asking client when its answer is for that client only).
 *   - `runSlashCommand(ctx, {sessionId, prompt, signal})` is called for every `session/prompt`
 *     once its turn in the session's FIFO has come (`/steer` at once); return undefined to pass
 *     the prompt to zcode.
 *   - `ctx.materialize(id)` resolves an ACP id to the live zcode session (creating a lazy one,
 *     resuming after a restart; -32002 when unknown), `ctx.peek(id)` without I/O; handles expose
 *     the translator state (`cancelledBackgroundTaskUpdates(handle.translator, taskId)`) and
 *     whether a turn runs; `ctx.sendUpdates`, `ctx.notifySession` (a `_zcode/*` notification, once per alias), `ctx.applyConfig`,
 *     `ctx.onSignal` (e.g. wait for `compaction`), `ctx.whenIdle`. `ctx.sendUpdates` sends at once
 *     (nothing is held back), so a response returned right after it follows its text.
 *
 * ## Notifications the bridge sends to every client
 * `session/update`, and the `_zcode/*` notifications of contractDescriptors.ts: `BackgroundTasksNotification`
 * `{sessionId, tasks}` on every change of a session's background tasks; `SteerStateNotification`
 * `{sessionId, state: 'queued'|'drained'}`; `CheckpointsChangedNotification` `{sessionId, checkpointId?}`
 * when zcode made a checkpoint (current builds); `SessionQueueNotification` `{sessionId, running?, waiting}`
 * on every change of a session's prompt queue (promptQueue.ts).
 *
 * ## Behaviour worth knowing
 * - `session/new` is lazy (lazySessionStore.ts); the zcode session is created on first real use.
 * - Prompts of one session are queued FIFO (turns.ts), advertised in `initialize` `_meta.zcode.promptQueue`;
 *   `session/cancel` cancels the running prompt and every queued one; `$/cancel_request` only its
 *   prompt; a client that disconnects does not cancel the shared turn.
 * - A permission dialog that every client answers `cancelled` cancels the turn (ACP's meaning of
 *   that outcome).
 * - zcode's own shell commands are rendered as terminal cards when the merged client capabilities
 *   advertise `_meta.terminal_output`, else as text. The mode follows the connected clients (a
 *   terminal client connecting later, or the last one leaving, switches cards opened from then on);
 *   a card already open keeps the form it was announced with (sessionEvents.ts `syncTerminalOutput`).
 * - Consecutive text chunks read from zcode in one burst are merged (updateSink.ts): clients must
 *   not assume one `agent_message_chunk` per zcode delta.
 * - The default mode for `session/create` is `build` (edits and commands, asking before risky
 *   actions): the reference bridge's example `yolo` never asks, which is not a safe default for an
 *   editor. `defaultMode` overrides it (VS Code setting `zcode.defaultMode`).
 */
import { resolveLocale } from '../l10n/messages.ts';
import { BridgeLanguage } from '../l10n/language.ts';
import type { AgentApp, AgentConnection, ClientApp, ClientConnection, Stream } from '@agentclientprotocol/sdk';
import { agent } from '@agentclientprotocol/sdk';
import { createZcodeBackend } from '../zcode/client.ts';
import type { Disposable, LocateOptions, ZcodeBackend } from '../zcode/backend.ts';
import type { Logger } from '../logger.ts';
import { Emitter } from '../zcode/emitter.ts';
import { BRIDGE_NAME } from '../version.ts';
import { ClientRegistry } from './transport/clients.ts';
import { ResponseOrder } from './transport/responseOrder.ts';
import { answerInitializeFirst } from './transport/initializeFirst.ts';
import type { ClientInfo } from './transport/clients.ts';
import { ConfigService } from './sessions/configOptions.ts';
import type { SlashCommandRunner } from './context.ts';
import { registerExtensionMethods } from './extensions/extensionMethods.ts';
import { ZcodeFeatures } from './extensions/capabilities.ts';
import { registerCoreHandlers } from './handlers.ts';
import { CommandCatalog, unavailableSlashCommands } from './extensions/commandCatalog.ts';
import { QuotaService } from './extensions/quota.ts';
import { DEFAULT_INTERACTION_TUNING, InteractionRouter } from './turns/interactionRouter.ts';
import type { InteractionTuning } from './turns/interactionRouter.ts';
import { RequestRaces } from './turns/races.ts';
import { SessionManager } from './sessions/sessionTable.ts';
import { handleSignal } from './turns/signals.ts';
import { coreContext } from './coreContext.ts';
import { runSlashCommand } from './extensions/slashCommands.ts';
import { LazySessionStore } from './sessions/lazySessionStore.ts';
import { ModelOptionCache } from './sessions/modelCache.ts';
import { ModelDraft } from './sessions/modelDraft.ts';
import { BuildModes } from '../zcode/buildModes.ts';
import { AutomationProbe } from '../zcode/automation.ts';
import { TurnEngine } from './turns/turns.ts';
import { DEFAULT_TURN_TUNING } from './turns/turnTuning.ts';
import type { RetryTurnInPlace, TurnTuning } from './turns/turnTuning.ts';
import { retryTurnInPlace } from '../zcode/v4/v4Rows.ts';
import { linkedStreams } from './transport/streams.ts';
import { negotiatedStream } from './transport/v2/negotiatedStream.ts';
import type { MessageTap } from './transport/streams.ts';
import { SessionQueueNotification } from './extensions/contractDescriptors.ts';

export type { ClientInfo } from './transport/clients.ts';
export type { BridgeContext, SessionHandle } from './context.ts';
export type { MessageTap } from './transport/streams.ts';

const DEFAULT_MODE = 'build';

export interface BridgeOptions {
  /** Where zcode is (passed to createZcodeBackend). */
  locate: LocateOptions;
  logger: Logger;
  /** The lazy-session store lives in `<storageDir>/acp-lazy-sessions.json` (CLI: ~/.zcode/v2). */
  storageDir: string;
  /** Mode for `session/create` (default `build`, see above). */
  defaultMode?: string;
  /** Injected backend (tests); else `createZcodeBackend({...locate, logger})`. */
  backend?: ZcodeBackend;
  /** Timing knobs (tests shorten them); defaults in turns.ts / interactionRouter.ts. */
  tuning?: { turns?: Partial<TurnTuning>; interactions?: Partial<InteractionTuning> };
  /**
   * Protocol trace of `connectClient` links: every message in both directions, as objects (the
   * extension's trace log, the tests' schema validation). Stream connections are traced by whoever
   * owns the stream.
   */
  tap?: MessageTap;
  /**
   * Retry a failed turn in place, without re-adding the user's message (turns.ts `RetryTurnInPlace`;
   * zcode's v4 `retryTurn` once the v4 command client is wired). Absent: a failed turn is answered,
   * not retried.
   */
  retryTurnInPlace?: RetryTurnInPlace;
  /**
   * The client's language (`zh-cn`, `zh_CN.UTF-8` …) for what the bridge writes itself; default
   * English. A client's `initialize` `_meta.zcode.locale` replaces it (l10n/language.ts).
   */
  locale?: string;
}

/**
 * The zcode process as a host of the bridge sees it: its state, its exits, start and restart.
 * Everything else of zcode (sessions, turns, commands) a host reaches through ACP only.
 */
export type ZcodeProcess = Pick<ZcodeBackend, 'state' | 'onDidChangeState' | 'onDidExit' | 'start' | 'restart'>;

export interface Bridge {
  /** The one agent app. `clientApp.connect(bridge.app)` works too (registered via onConnect), but prefer connectClient. */
  readonly app: AgentApp;
  /** Serve a client over a stream (stdio, WebSocket). */
  connect(stream: Stream, info: ClientInfo): AgentConnection;
  /**
   * Link an in-process client app (the VS Code extension); returns the client side. `tap` sees this
   * link's messages in wire order, before the client app reads them (after `BridgeOptions.tap`).
   */
  connectClient(clientApp: ClientApp, info: ClientInfo, tap?: MessageTap): ClientConnection;
  readonly backend: ZcodeBackend;
  /** The zcode process's lifecycle (the VS Code extension's status bar, crash notice and Restart). */
  readonly process: ZcodeProcess;
  readonly clients: ReadonlyArray<{ id: number; info: ClientInfo }>;
  onDidChangeClients(listener: () => void): Disposable;
  /** Fires once when the bridge is disposed (the remote endpoint closes itself). */
  onDidDispose(listener: () => void): Disposable;
  /** Sessions currently known to this bridge (for GET /status). */
  sessionSummaries(): Array<{ sessionId: string; title?: string; running: boolean }>;
  /** Closes every connection, stops zcode, flushes the store. */
  dispose(): Promise<void>;
}

export function createBridge(options: BridgeOptions): Bridge {
  return new BridgeImpl(options);
}

class BridgeImpl implements Bridge {
  readonly app: AgentApp;
  readonly backend: ZcodeBackend;
  get process(): ZcodeProcess {
    return this.backend;
  }
  private readonly registry: ClientRegistry;
  private readonly store: LazySessionStore;
  private readonly sessions: SessionManager;
  private readonly races: RequestRaces;
  private readonly router: InteractionRouter;
  private readonly turns: TurnEngine;
  private readonly config: ConfigService;
  private readonly commands: CommandCatalog;
  private readonly quota: QuotaService;
  private readonly features: ZcodeFeatures;
  /** Which modes the running zcode takes (learned by the model-list draft; zcode/buildModes.ts). */
  private readonly buildModes = new BuildModes();
  private readonly disposables: Disposable[] = [];
  private readonly disposeEmitter: Emitter<void>;
  /** The ClientInfo for the connection being opened right now (onConnect runs synchronously inside connect). */
  private pendingInfo: ClientInfo | undefined;
  /** That connection's outgoing-stream watch (responseOrder.ts). */
  private pendingOrder: ResponseOrder | undefined;
  private disposing: Promise<void> | undefined;

  constructor(private readonly options: BridgeOptions) {
    const { logger } = options;
    this.backend = options.backend ?? createZcodeBackend({ ...options.locate, locale: () => this.sessions.locale, logger });
    this.disposeEmitter = new Emitter('bridge.onDidDispose', logger);
    this.registry = new ClientRegistry(logger);
    this.store = new LazySessionStore({ storageDir: options.storageDir, logger });
    void this.store.load();
    const draft = new ModelDraft(this.backend, this.buildModes, logger);
    this.sessions = new SessionManager({
      backend: this.backend,
      store: this.store,
      clients: this.registry,
      logger,
      defaultMode: options.defaultMode ?? DEFAULT_MODE,
      language: new BridgeLanguage(resolveLocale(options.locale)),
      models: new ModelOptionCache(options.storageDir, logger),
      draft,
      modes: this.buildModes,
      automation: new AutomationProbe(this.backend, logger),
    });
    this.races = new RequestRaces(this.registry, logger);
    this.router = new InteractionRouter(this.sessions, this.registry, this.races, logger, (runtime) => this.turns.cancelRunning(runtime), {
      ...DEFAULT_INTERACTION_TUNING,
      ...options.tuning?.interactions,
    });
    this.turns = new TurnEngine(
      this.sessions,
      this.backend,
      { withdrawInteractions: (runtime) => this.router.withdraw(runtime), retryTurnInPlace: options.retryTurnInPlace ?? ((params, hooks) => this.retryWithZcode(params.sessionId, hooks)) },
      logger,
      { ...DEFAULT_TURN_TUNING, ...options.tuning?.turns },
    );
    this.config = new ConfigService(this.sessions, this.backend);
    this.commands = new CommandCatalog(this.backend, logger, undefined, () => unavailableSlashCommands(this.features.snapshot), () => this.sessions.locale);
    this.quota = new QuotaService(logger);
    this.features = new ZcodeFeatures(this.backend, (method, params) => this.registry.broadcast(method, params), logger, () => this.sessions.locale);
    this.backend.setInteractionHandler(this.router.handle);

    const context = coreContext({
      backend: this.backend,
      logger: this.options.logger,
      registry: this.registry,
      commands: this.commands,
      quota: this.quota,
      features: this.features,
      sessions: this.sessions,
      turns: this.turns,
      config: this.config,
    });
    this.disposables.push(
      this.features,
      draft,
      this.sessions,
      this.turns,
      this.sessions.events.onSignal(({ runtime, signal }) => handleSignal({ runtime, signal, registry: this.registry, titles: this.turns.titles, config: this.config })),
      // Every client hears every change of a session's prompt queue, at once (promptQueue.ts says when).
      this.turns.onQueueChanged(({ sessionId, state }) => context.notifySession(sessionId, SessionQueueNotification, state)),
    );

    this.app = agent({ name: BRIDGE_NAME });
    // Every connection — connect(), connectClient(), or a client app connecting to `app` itself —
    // registers here. onConnect runs synchronously inside connect(), before the first message.
    this.app.onConnect((connection) => {
      const info = this.pendingInfo ?? { kind: 'local' as const };
      const order = this.pendingOrder;
      this.pendingInfo = undefined;
      this.pendingOrder = undefined;
      this.registry.add(connection, info, order);
    });
    registerCoreHandlers({
      app: this.app,
      backend: this.backend,
      clients: this.registry,
      sessions: this.sessions,
      turns: this.turns,
      config: this.config,
      races: this.races,
      logger,
      context,
      slashCommands: runSlashCommand as SlashCommandRunner,
    });
    registerExtensionMethods(this.app, context);
  }

  connect(stream: Stream, info: ClientInfo): AgentConnection {
    this.assertAlive();
    const order = new ResponseOrder();
    this.pendingInfo = info;
    this.pendingOrder = order;
    try {
      // The client's `initialize` picks v1 or the v2 draft; a v2 connection is translated to v1 here (transport/v2/).
      const negotiated = negotiatedStream(stream, (version) => version === 2 && this.options.logger.info(`a ${info.kind} client speaks ACP v2 (draft): translating it to v1`));
      return this.app.connect(order.wrap(answerInitializeFirst(negotiated)));
    } finally {
      this.pendingInfo = undefined;
      this.pendingOrder = undefined;
    }
  }

  connectClient(clientApp: ClientApp, info: ClientInfo, tap?: MessageTap): ClientConnection {
    this.assertAlive();
    // Our own linked stream pair (instead of clientApp.connect(app)) so the link can be tapped.
    const { agentSide, clientSide } = linkedStreams(info, [this.options.tap, tap]);
    const agentConnection = this.connect(agentSide, info);
    const clientConnection = clientApp.connect(clientSide);
    void clientConnection.closed.then(() => agentConnection.close());
    void agentConnection.closed.then(() => clientConnection.close());
    return clientConnection;
  }

  get clients(): ReadonlyArray<{ id: number; info: ClientInfo }> {
    return this.registry.all.map(({ id, info }) => ({ id, info }));
  }

  onDidChangeClients(listener: () => void): Disposable {
    return this.registry.onDidChange(listener);
  }

  onDidDispose(listener: () => void): Disposable {
    return this.disposeEmitter.event(listener);
  }

  sessionSummaries(): Array<{ sessionId: string; title?: string; running: boolean }> {
    return this.sessions.allEntries.map(({ id, runtime }) => ({
      sessionId: id,
      ...(runtime?.title ? { title: runtime.title } : {}),
      running: runtime ? this.turns.isRunning(runtime) : false,
    }));
  }

  /**
   * The turn engine's automatic retry of a failed turn, on builds with zcode's v4 `retryTurn`: the
   * turn is re-run without a second copy of the user's message. Builds without it get no automatic
   * retry (the failure is answered as retryable). `onAccepted` is called once zcode's ACK arrived;
   * the retried turn's own `turn.started` may come before it, which the turn state accepts as the
   * start of this attempt either way.
   */
  private async retryWithZcode(zcodeSessionId: string, hooks: { onAccepted(): void }): Promise<boolean> {
    const caps = await this.features.probe();
    if (!caps.retryTurn.available) return false;
    const outcome = await retryTurnInPlace(this.backend.v4, zcodeSessionId);
    if (!outcome.retried) {
      this.options.logger.info(`zcode did not retry the failed turn of ${zcodeSessionId} in place: ${outcome.reason}`);
      return false;
    }
    hooks.onAccepted();
    return true;
  }

  dispose(): Promise<void> {
    this.disposing ??= this.doDispose();
    return this.disposing;
  }

  private async doDispose(): Promise<void> {
    this.options.logger.info('disposing the bridge');
    this.races.dispose();
    this.registry.dispose();
    for (const d of this.disposables) d.dispose();
    const exited = new Promise<void>((resolve) => {
      if (this.backend.state === 'stopped' || this.backend.state === 'crashed') return resolve();
      const sub = this.backend.onDidExit(() => {
        sub.dispose();
        resolve();
      });
      // A backend that never started never exits: do not wait for it.
      setTimeout(resolve, 10_000).unref();
    });
    this.backend.dispose();
    await Promise.all([exited, this.store.flush()]);
    this.disposeEmitter.fire();
    this.disposeEmitter.dispose();
  }

  private assertAlive(): void {
    if (this.disposing) throw new Error('the bridge is disposed');
  }
}
