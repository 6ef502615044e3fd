/**
 * `createZcodeBackend()`: the real `ZcodeBackend` (backend.ts), the typed-method layer on top of
 * locate.ts (find), process.ts (spawn), lineCodec.ts (framing) and connection.ts (correlation).
 *
 * Lifecycle (design.md rule 9), observable through `state` / `onDidChangeState`:
 *
 *   stopped ──first call / start()──▶ starting ──spawned──▶ ready ──died on its own──▶ crashed
 *     ▲ ▲                                 │                    │                            │
 *     │ └──── locate/spawn failed ────────┘                    │            next call: a fresh
 *     └──────────── restart() / dispose() ─────────────────────┘            process (starting)
 *
 * One running process is an "incarnation" (process + connection + interaction broker). When it
 * ends, everything that was waiting on it is rejected promptly (ProcessExited, or Disposed after
 * dispose()), pending interaction handlers are aborted, and only then `onDidExit` fires. Callers
 * (the ACP layer) re-subscribe / resume their sessions on the next use.
 */
import type * as z from 'zod';
import { BackendErrorCode, ZcodeError } from './backend.ts';
import type {
  BackendOptions,
  BackendState,
  ExitInfo,
  InteractionHandler,
  Logger,
  ZcodeBackend,
} from './backend.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, ZcodeConnection } from './connection.ts';
import { Emitter } from './emitter.ts';
import { parseZcodeEvent, SESSION_EVENT_METHOD, sessionEventLane } from './events.ts';
import { InteractionBroker, PERMISSION_METHOD, USER_INPUT_METHOD } from './interactions.ts';
import { LineMessageWriter } from './lineCodec.ts';
import { LineMessageReader } from './lineReader.ts';
import { locateZcode } from './locate.ts';
import type { LocatedCli } from './locate.ts';
import { ZcodeMethods } from './methods.ts';
import { DEFAULT_KILL_GRACE_MS, ZcodeProcess } from './process.ts';
import type { StartZcodeProcess, ZcodeChild } from './process.ts';
import { RUNTIME_PREFERENCES_REPLY, RuntimePreferencesParams } from './protocol.ts';
import type { ZcodeEvent } from './protocol.ts';

export const RUNTIME_PREFERENCES_METHOD = 'session/requestRuntimePreferences';

/** Seams for tests: where the CLI comes from and how it is started. Defaults are the real ones. */
export interface BackendDeps {
  locate?: (options: BackendOptions) => LocatedCli;
  startProcess?: StartZcodeProcess;
}

/** Create a backend client. Nothing starts until the first call (or `start()`). */
export function createZcodeBackend(options: BackendOptions, deps: BackendDeps = {}): ZcodeBackend {
  return new Backend(options, deps);
}

interface Incarnation {
  proc: ZcodeChild;
  conn: ZcodeConnection;
  broker: InteractionBroker;
}

class Backend extends ZcodeMethods implements ZcodeBackend {
  private readonly logger: Logger;
  private readonly stateEmitter: Emitter<BackendState>;
  private readonly exitEmitter: Emitter<ExitInfo>;
  private readonly eventEmitter: Emitter<ZcodeEvent>;
  private _state: BackendState = 'stopped';
  private current: Incarnation | undefined;
  private starting: Promise<Incarnation> | undefined;
  private handler: InteractionHandler | undefined;
  private disposed = false;

  readonly onDidChangeState: ZcodeBackend['onDidChangeState'];
  readonly onDidExit: ZcodeBackend['onDidExit'];
  readonly onEvent: ZcodeBackend['onEvent'];

  constructor(
    private readonly options: BackendOptions,
    private readonly deps: BackendDeps,
  ) {
    super();
    this.logger = options.logger;
    this.stateEmitter = new Emitter('onDidChangeState', this.logger);
    this.exitEmitter = new Emitter('onDidExit', this.logger);
    this.eventEmitter = new Emitter('onEvent', this.logger);
    this.onDidChangeState = this.stateEmitter.event;
    this.onDidExit = this.exitEmitter.event;
    this.onEvent = this.eventEmitter.event;
  }

  get state(): BackendState {
    return this._state;
  }

  setInteractionHandler(handler: InteractionHandler): void {
    this.handler = handler;
  }

  async start(): Promise<void> {
    await this.ensureStarted();
  }

  async restart(): Promise<void> {
    const inc = this.current ?? (await this.starting?.catch(() => undefined));
    if (!inc) return;
    if (this.current === inc) this.current = undefined;
    const reason = new ZcodeError('zcode was restarted', BackendErrorCode.ProcessExited);
    inc.conn.close(reason);
    inc.broker.close(reason);
    await inc.proc.stop(this.killGraceMs);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const reason = new ZcodeError('the zcode backend was disposed', BackendErrorCode.Disposed);
    const inc = this.current;
    this.current = undefined;
    this.setState('stopped');
    const disposeEmitters = (): void => {
      this.stateEmitter.dispose();
      this.exitEmitter.dispose();
      this.eventEmitter.dispose();
    };
    if (!inc) {
      // A start in flight notices `disposed` and stops its process itself.
      disposeEmitters();
      return;
    }
    inc.conn.close(reason);
    inc.broker.close(reason);
    // onDidExit still fires (expected: true) once the process is gone; then the emitters go.
    void inc.proc.stop(this.killGraceMs).then(disposeEmitters, disposeEmitters);
  }

  // -------------------------------------------------------------------------------------------
  // Requests (the typed methods in methods.ts all come through here)

  protected async call<S extends z.ZodType>(method: string, params: unknown, schema: S): Promise<z.infer<S>> {
    const inc = await this.ensureStarted();
    let raw: unknown;
    try {
      raw = await inc.conn.request(method, params);
    } catch (error) {
      throw explainError(method, error);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(result)'}: ${i.message}`).join('; ');
      this.logger.error(`zcode answered ${method} with an unexpected result (${issues}): ${JSON.stringify(raw)?.slice(0, 500)}`);
      throw new ZcodeError(`zcode answered ${method} with an unexpected result: ${issues}`, BackendErrorCode.InvalidResponse, method, raw);
    }
    return parsed.data;
  }

  /** Notifications only make sense to a running process: nothing is started for them. */
  protected notify(method: string, params: unknown): void {
    if (!this.current) {
      this.logger.debug(`not sending ${method}: zcode is not running`);
      return;
    }
    this.current.conn.notify(method, params);
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle

  private get killGraceMs(): number {
    return this.options.timeouts?.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  private ensureStarted(): Promise<Incarnation> {
    if (this.disposed) return Promise.reject(new ZcodeError('the zcode backend was disposed', BackendErrorCode.Disposed));
    if (this.current) return Promise.resolve(this.current);
    this.starting ??= this.launch().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async launch(): Promise<Incarnation> {
    this.setState('starting');
    let proc: ZcodeChild;
    try {
      const cli = (this.deps.locate ?? locateZcode)(this.options);
      proc = await (this.deps.startProcess ?? ZcodeProcess.start)({
        cli,
        extraArgs: this.options.extraArgs,
        env: this.options.env,
        cwd: this.options.cwd,
        logger: this.logger,
      });
    } catch (error) {
      if (!this.disposed) this.setState('stopped');
      this.logger.error(error instanceof Error ? error.message : String(error));
      throw error instanceof ZcodeError ? error : new ZcodeError(`could not start zcode: ${String(error)}`, BackendErrorCode.NotFound);
    }
    if (this.disposed) {
      void proc.stop(this.killGraceMs);
      throw new ZcodeError('the zcode backend was disposed', BackendErrorCode.Disposed);
    }
    const inc = this.connect(proc);
    this.current = inc;
    this.logger.info(`zcode started (pid ${proc.pid})`);
    this.setState('ready');
    return inc;
  }

  private connect(proc: ZcodeChild): Incarnation {
    const broker = new InteractionBroker(() => this.handler, this.logger);
    const conn = new ZcodeConnection(new LineMessageReader(proc.stdout, this.logger), new LineMessageWriter(proc.stdin), {
      logger: this.logger,
      requestTimeoutMs: this.options.timeouts?.requestMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      onRequest: (method, params) => this.onServerRequest(broker, method, params),
      onNotification: (method, params) => this.onServerNotification(method, params),
      // Events (nearly all of the traffic) skip vscode-jsonrpc's one-message-per-turn queue.
      lanes: new Map([[SESSION_EVENT_METHOD, sessionEventLane(this.logger, this.fireEvent)]]),
    });
    const inc: Incarnation = { proc, conn, broker };
    proc.onExit((info) => this.onProcessExit(inc, info));
    conn.listen();
    return inc;
  }

  private onProcessExit(inc: Incarnation, info: ExitInfo): void {
    const wasCurrent = this.current === inc;
    if (wasCurrent) this.current = undefined;
    const how = info.signal ? `signal ${info.signal}` : `code ${info.code}`;
    const reason = this.disposed
      ? new ZcodeError('the zcode backend was disposed', BackendErrorCode.Disposed)
      : new ZcodeError(
          info.expected ? `zcode was stopped (${how})` : `zcode exited unexpectedly (${how})${info.stderrTail ? `: ${lastLine(info.stderrTail)}` : ''}`,
          BackendErrorCode.ProcessExited,
        );
    // Reject first, so that `onDidExit` listeners see a backend with nothing pending.
    inc.conn.close(reason);
    inc.broker.close(reason);
    if (info.expected) {
      this.logger.info(`zcode (pid ${inc.proc.pid}) stopped (${how})`);
    } else {
      this.logger.error(`zcode (pid ${inc.proc.pid}) exited unexpectedly (${how})${info.stderrTail ? `; last stderr lines:\n${info.stderrTail}` : ''}`);
    }
    // A newer incarnation may already be starting/running (restart): leave its state alone.
    if (!this.disposed && !this.current && !this.starting) this.setState(info.expected ? 'stopped' : 'crashed');
    this.exitEmitter.fire(info);
  }

  private setState(state: BackendState): void {
    if (this._state === state) return;
    this._state = state;
    this.stateEmitter.fire(state);
  }

  // -------------------------------------------------------------------------------------------
  // What zcode sends us

  private async onServerRequest(broker: InteractionBroker, method: string, params: unknown): Promise<unknown> {
    switch (method) {
      case RUNTIME_PREFERENCES_METHOD: {
        // session/create does not finish until this is answered: answer at once, whatever came.
        const parsed = RuntimePreferencesParams.safeParse(params);
        if (!parsed.success) this.logger.debug(`unexpected ${method} params: ${JSON.stringify(params)}`);
        return { ...RUNTIME_PREFERENCES_REPLY };
      }
      case PERMISSION_METHOD:
      case USER_INPUT_METHOD:
        return broker.handle(method, params);
      default:
        this.logger.warn(`zcode sent a request the bridge does not know: ${method}; answering -32601`);
        throw new ZcodeError(`method not found: ${method}`, -32601, method);
    }
  }

  /**
   * Notifications that reach vscode-jsonrpc. `session/event` normally comes through its lane
   * (`connect()`); it is handled here too so that a connection without lanes stays correct.
   */
  private onServerNotification(method: string, params: unknown): void {
    if (method !== SESSION_EVENT_METHOD) {
      this.logger.debug(`ignoring zcode notification ${method}`);
      return;
    }
    const event = parseZcodeEvent(params, this.logger);
    if (event) this.fireEvent(event);
  }

  private readonly fireEvent = (event: ZcodeEvent): void => this.eventEmitter.fire(event);
}

/**
 * Turn "method not found" into what it means for the user (zcode-protocol.md "Version support"):
 * no `session/subscribe` → zcode is too old; anything else → this build does not have it (0.16
 * removed steer and rewind). zcode's code is kept so callers can still branch on -32601.
 */
export function explainError(method: string, error: unknown): ZcodeError {
  if (!(error instanceof ZcodeError)) return new ZcodeError(`${method} failed: ${String(error)}`, BackendErrorCode.ProcessExited, method);
  if (error.code !== -32601) return error;
  if (method === 'session/subscribe') {
    return new ZcodeError(
      'zcode 0.14.8 or newer is required (this build has no session/subscribe). Update ZCode, or point "zcode.path" at a newer zcode.',
      BackendErrorCode.Incompatible,
      method,
      error.data,
    );
  }
  return new ZcodeError(`${method} is not supported by this zcode version (zcode answered: ${error.message})`, error.code, method, error.data);
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
