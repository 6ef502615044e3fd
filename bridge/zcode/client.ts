/**
 * `createZcodeBackend()`: the real `ZcodeBackend` (backend.ts), the typed-method layer on top of
 * locateZcode.ts (find), process.ts (spawn), lineCodec.ts (framing) and connection.ts (correlation).
 *
 * Lifecycle (explicit states, never inferred), observable through `state` / `onDidChangeState`:
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
import type { BackendOptions, BackendState, ExitInfo, InteractionHandler, ZcodeBackend } from './backend.ts';
import type { Logger } from '../logger.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, ZcodeConnection } from './connection.ts';
import type { Answer } from './connection.ts';
import { Emitter } from './emitter.ts';
import { eventOfNotification, parseZcodeEvent, SESSION_EVENT_METHOD, sessionEventLane } from './legacy/sessionEvents.ts';
import { explainError, lastLine } from './callErrors.ts';
import { sendStop } from './legacy/stopRequest.ts';
import { InteractionBroker, PERMISSION_METHOD, USER_INPUT_METHOD } from './interactionBroker.ts';
import { LineMessageWriter } from './lineCodec.ts';
import { LineMessageReader } from './lineReader.ts';
import { buildLaunchEnv, cliFileOf, defaultLaunchHost, describeLaunch, explainStartupExit, isKnownStartupFailure } from './launchEnv.ts';
import type { LaunchHost, LaunchPlan } from './launchEnv.ts';
import { locateZcode } from './locateZcode.ts';
import { defaultConfigSource, HostRequests } from './hostRequests.ts';
import type { ZcodeConfigSource } from './hostRequests.ts';
import type { LocatedCli } from './locateZcode.ts';
import { V4Commands } from './v4/v4Commands.ts';
import { ZcodeMethods } from './legacy/legacyMethods.ts';
import { DEFAULT_KILL_GRACE_MS, ZcodeProcess } from './process.ts';
import type { StartZcodeProcess, ZcodeChild } from './process.ts';
import { UnknownFields } from './unknownFields.ts';
import type { ZcodeEvent } from './protocol.ts';

/** Seams for tests: where the CLI comes from and how it is started. Defaults are the real ones. */
export interface BackendDeps {
  locate?: (options: BackendOptions) => LocatedCli;
  startProcess?: StartZcodeProcess;
  /** What the launch environment is derived from (launchEnv.ts); default: this machine. */
  launchHost?: LaunchHost;
  /** zcode's own configuration (`~/.zcode/v2/config.json`), read for provider runtime headers. */
  zcodeConfig?: ZcodeConfigSource;
}

/** Create a backend client. Nothing starts until the first call (or `start()`). */
export function createZcodeBackend(options: BackendOptions, deps: BackendDeps = {}): ZcodeBackend {
  return new Backend(options, deps);
}

interface Incarnation {
  proc: ZcodeChild;
  conn: ZcodeConnection;
  broker: InteractionBroker;
  /** How it was launched (for the explanation when it ends at start). */
  plan: LaunchPlan | undefined;
  /** zcode answered at least one request: an exit from now on is not a start-up failure. */
  answered: boolean;
  /** zcode wrote anything at all on stdout. */
  heard: boolean;
  /** The process is gone. */
  exited: boolean;
  /** zcode closed its stdout but kept running (the bridge stopped it). */
  outputLost: boolean;
  /** This process refused `session/stop` as a request (a seed build): send it as a notification. */
  stopAsNotification?: boolean;
}

/** How long a zcode whose stdout ended may take to exit before it is treated as stuck (a crash exits at once). */
const OUTPUT_END_GRACE_MS = 1000;
const OUTPUT_LOST_MESSAGE = 'zcode closed its output but kept running, so it could not answer any more; the bridge stopped it. The next request starts a fresh zcode.';

class Backend extends ZcodeMethods implements ZcodeBackend {
  private readonly logger: Logger;
  private readonly noted = new Set<string>();
  private readonly unknownFields: UnknownFields;
  private readonly stateEmitter: Emitter<BackendState>;
  private readonly exitEmitter: Emitter<ExitInfo>;
  private readonly eventEmitter: Emitter<ZcodeEvent>;
  private _state: BackendState = 'stopped';
  private current: Incarnation | undefined;
  private starting: Promise<Incarnation> | undefined;
  private handler: InteractionHandler | undefined;
  private disposed = false;
  private readonly hostRequests: HostRequests;

  readonly onDidChangeState: ZcodeBackend['onDidChangeState'];
  readonly onDidExit: ZcodeBackend['onDidExit'];
  readonly onEvent: ZcodeBackend['onEvent'];
  private readonly drainEmitter: Emitter<void>;
  readonly onDidDrainEvents: ZcodeBackend['onDidDrainEvents'];
  readonly v4: V4Commands;

  constructor(
    private readonly options: BackendOptions,
    private readonly deps: BackendDeps,
  ) {
    super();
    this.logger = options.logger;
    this.unknownFields = new UnknownFields(this.logger);
    this.stateEmitter = new Emitter('onDidChangeState', this.logger);
    this.exitEmitter = new Emitter('onDidExit', this.logger);
    this.eventEmitter = new Emitter('onEvent', this.logger);
    this.onDidChangeState = this.stateEmitter.event;
    this.onDidExit = this.exitEmitter.event;
    this.onEvent = this.eventEmitter.event;
    this.drainEmitter = new Emitter('onDidDrainEvents', this.logger);
    this.onDidDrainEvents = this.drainEmitter.event;
    this.hostRequests = new HostRequests(this.logger, deps.zcodeConfig ?? defaultConfigSource(options.env));
    this.v4 = new V4Commands(this, this.logger);
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
      this.drainEmitter.dispose();
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
  // Requests (the typed methods in legacy/legacyMethods.ts all come through here)

  protected async call<S extends z.ZodType>(method: string, params: unknown, schema: S, atAnswer?: (result: z.infer<S>) => void): Promise<z.infer<S>> {
    const inc = await this.ensureStarted();
    let raw: unknown;
    // A result that does not parse is reported below, by the awaiting path.
    const onAnswer = atAnswer && ((answer: Answer): void => {
      if (answer.error) return;
      const parsed = schema.safeParse(answer.result);
      if (parsed.success) atAnswer(parsed.data);
    });
    try {
      raw = await inc.conn.request(method, params, { onAnswer });
      inc.answered = true;
    } catch (error) {
      if (error instanceof ZcodeError && error.code !== BackendErrorCode.ProcessExited && error.code !== BackendErrorCode.Timeout) inc.answered = true;
      throw explainError(method, error);
    }
    this.unknownFields.noteResult(method, raw, schema);
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

  /**
   * `session/stop` as a request (current builds drop notifications and answer `{}`). A seed build
   * that refuses the request (-32601 / -32600) gets the notification it expects, and every later
   * stop of that process goes as a notification at once. Nothing is started for a stop.
   */
  protected sendStop(sessionId: string): void {
    // A turn a v4 command started (a re-asked prompt, a retried turn, a deferred steer zcode ran by
    // itself) is not stopped by the legacy request: zcode's v4 stop goes too.
    if (this.v4.runsV4Turn(sessionId)) void this.v4.stopV4Turn(sessionId);
    const inc = this.current;
    if (!inc) {
      this.logger.debug('not sending session/stop: zcode is not running');
      return;
    }
    sendStop(inc, sessionId, { logger: this.logger, noteOnce: (key, message) => this.noteOnce(key, message), isCurrent: () => this.current === inc });
  }

  protected noteOnce(key: string, message: string): void {
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.logger.info(message);
  }

  protected deliverEvents(events: readonly unknown[]): void {
    for (const params of events) {
      const event = parseZcodeEvent(params, this.logger);
      if (event) this.fireEvent(event);
    }
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
    let plan: LaunchPlan | undefined;
    try {
      const cli = (this.deps.locate ?? locateZcode)(this.options);
      plan = buildLaunchEnv(cliFileOf(cli), this.options.env ?? process.env, this.deps.launchHost ?? defaultLaunchHost());
      this.logger.info(describeLaunch(plan));
      proc = await (this.deps.startProcess ?? ZcodeProcess.start)({
        cli,
        extraArgs: this.options.extraArgs,
        env: plan.env,
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
    const inc = this.connect(proc, plan);
    this.current = inc;
    this.logger.info(`zcode started (pid ${proc.pid})`);
    this.setState('ready');
    return inc;
  }

  private connect(proc: ZcodeChild, plan: LaunchPlan | undefined): Incarnation {
    const broker = new InteractionBroker(() => this.handler, this.logger);
    const conn = new ZcodeConnection(new LineMessageReader(proc.stdout, this.logger, { onIdle: () => this.drainEmitter.fire() }), new LineMessageWriter(proc.stdin), {
      logger: this.logger,
      requestTimeoutMs: this.options.timeouts?.requestMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      onRequest: (method, params) => this.onServerRequest(broker, method, params),
      onNotification: (method, params) => this.onServerNotification(method, params),
      // Events (nearly all of the traffic) skip vscode-jsonrpc's one-message-per-turn queue.
      lanes: new Map([[SESSION_EVENT_METHOD, sessionEventLane(this.logger, this.fireEvent, this.unknownFields)]]),
    });
    const inc: Incarnation = { proc, conn, broker, plan, answered: false, heard: false, exited: false, outputLost: false };
    proc.onExit((info) => this.onProcessExit(inc, info));
    conn.listen();
    proc.stdout.once('data', () => (inc.heard = true));
    proc.stdout.once('end', () => this.onOutputEnded(inc));
    // A write that fails (EPIPE) while zcode still runs means the same: nothing can reach it any more.
    proc.stdin.once('error', () => this.onOutputEnded(inc));
    return inc;
  }

  /**
   * zcode's stdout ended. A crash ends stdout and exits together; a zcode that
   * closed its stdout but keeps running can never answer again. If it has not exited within
   * `OUTPUT_END_GRACE_MS`, it is treated as gone: its group is stopped, everything pending fails
   * with a clear error, and the next call starts a fresh zcode (as after a crash).
   */
  private onOutputEnded(inc: Incarnation): void {
    if (inc.exited) return;
    const timer = setTimeout(() => {
      if (inc.exited) return;
      inc.outputLost = true;
      this.logger.error(`zcode (pid ${inc.proc.pid}) closed its output but is still running; stopping its process group`);
      if (this.current === inc) this.current = undefined;
      const reason = new ZcodeError(OUTPUT_LOST_MESSAGE, BackendErrorCode.ProcessExited);
      inc.conn.close(reason);
      inc.broker.close(reason);
      void inc.proc.stop(0);
    }, OUTPUT_END_GRACE_MS);
    timer.unref();
  }

  private onProcessExit(inc: Incarnation, reported: ExitInfo): void {
    inc.exited = true;
    const wasCurrent = this.current === inc;
    if (wasCurrent) this.current = undefined;
    const how = reported.signal ? `signal ${reported.signal}` : `code ${reported.code}`;
    const info = this.explainExit(inc, reported, how);
    const reason = this.disposed
      ? new ZcodeError('the zcode backend was disposed', BackendErrorCode.Disposed)
      : new ZcodeError(
          info.expected ? `zcode was stopped (${how})` : (info.reason ?? `zcode exited unexpectedly (${how})${info.stderrTail ? `: ${lastLine(info.stderrTail)}` : ''}`),
          BackendErrorCode.ProcessExited,
          undefined,
          info.reason ? { stderrTail: info.stderrTail } : undefined,
        );
    // Reject first, so that `onDidExit` listeners see a backend with nothing pending.
    inc.conn.close(reason);
    inc.broker.close(reason);
    if (info.expected) {
      this.logger.info(`zcode (pid ${inc.proc.pid}) stopped (${how})`);
    } else if (info.reason) {
      this.logger.error(`zcode (pid ${inc.proc.pid}): ${info.reason}${info.stderrTail ? `; last stderr lines:\n${info.stderrTail}` : ''}`);
    } else {
      this.logger.error(`zcode (pid ${inc.proc.pid}) exited unexpectedly (${how})${info.stderrTail ? `; last stderr lines:\n${info.stderrTail}` : ''}`);
    }
    // A newer incarnation may already be starting/running (restart): leave its state alone.
    if (!this.disposed && !this.current && !this.starting) this.setState(info.expected ? 'stopped' : 'crashed');
    this.exitEmitter.fire(info);
  }

  /**
   * The exit as the user should hear it: a zcode that closed its output was stopped by us but did
   * not stop on its own; a known start-up message (provider table, model config) or an exit before
   * zcode wrote anything gets zcode's own words plus what to do (launchEnv.ts).
   */
  private explainExit(inc: Incarnation, info: ExitInfo, how: string): ExitInfo {
    if (inc.outputLost) return { ...info, expected: false, reason: OUTPUT_LOST_MESSAGE };
    if (info.expected) return info;
    const known = isKnownStartupFailure(info.stderrTail);
    const silentAtStart = !inc.heard && !inc.answered && info.signal === null;
    if (known || silentAtStart) return { ...info, reason: explainStartupExit(how, info.stderrTail, inc.plan) };
    return info;
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
      case PERMISSION_METHOD:
      case USER_INPUT_METHOD:
        return broker.handle(method, params);
      default:
        // Everything else is answered at once, honestly (hostRequests.ts); unknown ones -32601.
        return this.hostRequests.answer(method, params);
    }
  }

  /**
   * Notifications that reach vscode-jsonrpc. `session/event` normally comes through its lane
   * (`connect()`); it is handled here too so that a connection without lanes stays correct.
   */
  private onServerNotification(method: string, params: unknown): void {
    const event = eventOfNotification(method, params, this.logger, this.unknownFields);
    if (event) this.fireEvent(event);
  }

  private readonly fireEvent = (event: ZcodeEvent): void => this.eventEmitter.fire(event);
}
