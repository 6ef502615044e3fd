/**
 * Drive the bridge like an editor does: the official SDK `client()` app against the bridge, with the
 * zcode simulator as a real child process behind it, in one of two ways:
 * - `inproc`: `bridge.connectClient(clientApp)` in this process (the VS Code extension's path);
 * - `stdio`:  the bundled `zcode-acp` CLI as a child process, ACP over its stdin/stdout (Zed's path).
 * Every message the bridge sends is validated (traffic.ts); in stdio mode every stdout line must be
 * an ACP message (conformance 11).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { client } from '@agentclientprotocol/sdk';
import type {
  AnyMessage,
  ClientCapabilities,
  ClientConnection,
  ClientContext,
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  Stream,
} from '@agentclientprotocol/sdk';
import { createBridge } from '../../../bridge/acp/bridge.ts';
import type { Bridge, BridgeOptions } from '../../../bridge/acp/bridge.ts';
import { createZcodeBackend } from '../../../bridge/zcode/client.ts';
import type { ZcodeBackend } from '../../../bridge/zcode/backend.ts';
import type { ZcodeEvent } from '../../../bridge/zcode/protocol.ts';
import { readSimRecord, SIM_PATH, simLocateOptions, testLogger } from '../../helpers/sim.ts';
import type { SimOptions, SimRecord, TestLogger } from '../../helpers/sim.ts';
import { Traffic } from './traffic.ts';

export type Mode = 'inproc' | 'stdio';
export const MODES: readonly Mode[] = ['inproc', 'stdio'];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface HarnessOptions {
  sim?: SimOptions;
  /** Client capabilities declared at initialize (default: none). */
  caps?: ClientCapabilities;
  /** Lazy-session store directory (default: a fresh temp dir, removed on dispose). */
  storeDir?: string;
  /** Bridge timing knobs (inproc only; stdio uses the CLI defaults). */
  tuning?: BridgeOptions['tuning'];
  /** Send `initialize` at start (default true). */
  initialize?: boolean;
  /**
   * Wrap the bridge's real backend client (inproc only), e.g. to play a zcode build that does not
   * send some event (`withoutEvents`).
   */
  wrapBackend?: (backend: ZcodeBackend) => ZcodeBackend;
  /** The bridge's in-place retry of a failed turn (inproc only; BridgeOptions.retryTurnInPlace). */
  retryTurnInPlace?: BridgeOptions['retryTurnInPlace'];
  /** The language the bridge is created with (inproc only; BridgeOptions.locale). */
  locale?: string;
  /** `_meta` of the primary client's `initialize` (e.g. `{ zcode: { locale: 'zh-CN' } }`). */
  initializeMeta?: Record<string, unknown>;
  /** More environment for the `zcode-acp` process (stdio only), e.g. `LANG`. */
  env?: Record<string, string>;
}

/**
 * The real backend with its event stream rewritten (a zcode build that orders or omits events
 * differently): `perListener()` makes one rewriter per `onEvent` listener, which gets every event
 * and calls `deliver` for what the listener should see, when it should see it. Every other member
 * is the backend's own (bound to it).
 */
export function rewriteEvents(perListener: () => (event: ZcodeEvent, deliver: (event: ZcodeEvent) => void) => void): (backend: ZcodeBackend) => ZcodeBackend {
  return (backend) =>
    new Proxy(backend, {
      get(target, prop) {
        if (prop === 'onEvent') {
          return (listener: (event: ZcodeEvent) => void) => {
            const rewrite = perListener();
            return target.onEvent((event) => rewrite(event, listener));
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
}

/** The real backend, minus the events `drop` matches (a zcode build that never sends them). */
export function withoutEvents(drop: (event: ZcodeEvent) => boolean): (backend: ZcodeBackend) => ZcodeBackend {
  return rewriteEvents(() => (event, deliver) => {
    if (!drop(event)) deliver(event);
  });
}

type PermissionAnswerer = (params: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;
type FormAnswerer = (params: CreateElicitationRequest, signal: AbortSignal) => Promise<CreateElicitationResponse>;

const execFileAsync = promisify(execFile);
let cliBundle: Promise<string> | undefined;

/**
 * `zcode-acp` as a user runs it: esbuild.mjs itself builds the bundles (dist/cli.js and the
 * dist/cli-bridge.js it loads) into a temp dir, once per test process. Returns the cli.js path.
 */
export function buildCli(): Promise<string> {
  cliBundle ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-cli-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    await execFileAsync(process.execPath, ['esbuild.mjs', `--outdir=${dir}`], { cwd: ROOT });
    return path.join(dir, 'cli.js');
  })();
  return cliBundle;
}

/** One ACP client of the bridge: the official SDK client app, with what it received. */
export class TestClient {
  readonly traffic = new Traffic();
  readonly updates: SessionNotification[] = [];
  /** `_zcode/*` (and any other non-update) notifications. */
  readonly notifications: Array<{ method: string; params: unknown }> = [];
  /** Incoming permission / form requests, in order. */
  readonly dialogs: Array<{ method: string; params: unknown; signal: AbortSignal }> = [];
  connection!: ClientConnection;
  /** Answer permission requests (default: first allow option). */
  onPermission: PermissionAnswerer = async (params) => {
    const allow = params.options.find((o) => o.kind.startsWith('allow')) ?? params.options[0];
    return { outcome: { outcome: 'selected', optionId: allow.optionId } };
  };
  /** Answer forms (default: accept, empty content). */
  onForm: FormAnswerer = async () => ({ action: 'accept', content: {} });
  /** The ClientInfo of this link (identifies its traffic in the bridge's tap). */
  readonly info: { kind: 'local'; label: string };
  /** `_meta` sent with `initialize`. */
  initializeMeta: Record<string, unknown> | undefined;

  constructor(
    label: string,
    readonly caps: ClientCapabilities | undefined,
  ) {
    this.info = { kind: 'local', label };
  }

  get agent(): ClientContext {
    return this.connection.agent;
  }

  async initialize(caps: ClientCapabilities | undefined = this.caps): Promise<unknown> {
    return this.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: caps ?? {},
      clientInfo: { name: 'acp-test', version: '1.0.0' },
      ...(this.initializeMeta ? { _meta: this.initializeMeta } : {}),
    });
  }

  app() {
    return client({ name: 'acp-test' })
      .onNotification('session/update', ({ params }) => void this.updates.push(params))
      .onNotification('*', ({ method, params }) => void this.notifications.push({ method, params }))
      .onRequest('session/request_permission', ({ params, signal }) => {
        this.dialogs.push({ method: 'session/request_permission', params, signal });
        return this.onPermission(params, signal);
      })
      .onRequest('elicitation/create', ({ params, signal }) => {
        this.dialogs.push({ method: 'elicitation/create', params, signal });
        return this.onForm(params, signal);
      });
  }

  /** Updates of one session, in order. */
  updatesOf(sessionId: string): SessionNotification['update'][] {
    return this.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  /** Wait until `predicate` holds (polling; the default 10 s bound keeps a broken test from hanging). */
  async waitFor(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Wait for the n-th dialog (permission or form) to arrive. */
  async dialog(n = 1, timeoutMs = 10_000): Promise<{ method: string; params: unknown; signal: AbortSignal }> {
    await this.waitFor(`dialog #${n}`, () => this.dialogs.length >= n, timeoutMs);
    return this.dialogs[n - 1];
  }
}

export class AcpHarness extends TestClient {
  readonly logger: TestLogger = testLogger('bridge');
  readonly recordFile: string;
  readonly storeDir: string;
  bridge: Bridge | undefined;
  child: ChildProcess | undefined;
  stderr = '';
  /** Extra in-process clients (`addClient`). */
  readonly others: TestClient[] = [];
  private readonly temp: string;

  private constructor(
    readonly mode: Mode,
    readonly options: HarnessOptions,
  ) {
    super('primary', options.caps);
    this.initializeMeta = options.initializeMeta;
    this.temp = mkdtempSync(path.join(tmpdir(), 'zcode-acp-test-'));
    this.recordFile = path.join(this.temp, 'sim-record.jsonl');
    this.storeDir = options.storeDir ?? path.join(this.temp, 'store');
  }

  static async start(mode: Mode, options: HarnessOptions = {}): Promise<AcpHarness> {
    const h = new AcpHarness(mode, options);
    await h.connect();
    if (options.initialize !== false) await h.initialize();
    return h;
  }

  /** Another in-process client on the same bridge (inproc mode only). */
  async addClient(label: string, caps?: ClientCapabilities, initialize = true): Promise<TestClient> {
    if (!this.bridge) throw new Error('addClient needs the in-process bridge');
    const other = new TestClient(label, caps);
    other.connection = this.bridge.connectClient(other.app(), other.info);
    this.others.push(other);
    if (initialize) await other.initialize();
    return other;
  }

  /** The simulator options with this harness's record file. */
  get simOptions(): SimOptions {
    return { speed: 0, ...this.options.sim, recordFile: this.recordFile };
  }

  private async connect(): Promise<void> {
    if (this.mode === 'inproc') {
      const locate = simLocateOptions(this.simOptions);
      const wrap = this.options.wrapBackend;
      this.bridge = createBridge({
        locate,
        ...(wrap ? { backend: wrap(createZcodeBackend({ ...locate, logger: this.logger })) } : {}),
        logger: this.logger,
        storageDir: this.storeDir,
        tuning: this.options.tuning,
        ...(this.options.retryTurnInPlace ? { retryTurnInPlace: this.options.retryTurnInPlace } : {}),
        ...(this.options.locale ? { locale: this.options.locale } : {}),
        tap: (dir, msg, info) => (info === this.info ? this : this.others.find((o) => o.info === info))?.traffic.record(dir, msg),
      });
      this.connection = this.bridge.connectClient(this.app(), this.info);
      return;
    }
    const cli = await buildCli();
    const simEnv = simLocateOptions(this.simOptions).env ?? {};
    const child = spawn(process.execPath, [cli], {
      env: { ...simEnv, ...this.options.env, ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_ACP_STORE_DIR: this.storeDir, ZCODE_ACP_DEBUG: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
      if (process.env.ZCODE_TEST_DEBUG) process.stderr.write(chunk);
    });
    this.connection = this.app().connect(this.childStream(child));
  }

  /** The client side of a stdio link, parsing stdout line by line (and checking each line). */
  private childStream(child: ChildProcess): Stream {
    const traffic = this.traffic;
    let buffer = '';
    const readable = new ReadableStream<AnyMessage>({
      start(controller) {
        child.stdout!.setEncoding('utf8');
        child.stdout!.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf('\n')) !== -1) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line.trim() === '') {
              traffic.badLine(line, 'empty line');
              continue;
            }
            let msg: unknown;
            try {
              msg = JSON.parse(line);
            } catch {
              traffic.badLine(line, 'not JSON');
              continue;
            }
            if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
              traffic.badLine(line, 'not an object');
              continue;
            }
            traffic.record('out', msg as AnyMessage);
            controller.enqueue(msg as AnyMessage);
          }
        });
        child.stdout!.on('end', () => {
          if (buffer.trim() !== '') traffic.badLine(buffer, 'unterminated last line');
          try {
            controller.close();
          } catch {
            // already closed
          }
        });
      },
    });
    const writable = new WritableStream<AnyMessage>({
      write(msg) {
        traffic.record('in', msg);
        return new Promise<void>((resolve, reject) => child.stdin!.write(`${JSON.stringify(msg)}\n`, (error) => (error ? reject(error) : resolve())));
      },
      close() {
        child.stdin!.end();
      },
    });
    return { readable, writable };
  }

  simRecord(): SimRecord {
    return readSimRecord(this.recordFile);
  }

  /** Fail on any invalid message from the bridge or any protocol violation the simulator saw. */
  assertClean(): void {
    this.traffic.assertClean();
    for (const other of this.others) other.traffic.assertClean();
    const { violations } = this.simRecord();
    if (violations.length > 0) throw new Error(`the simulator recorded ${violations.length} violation(s):\n${violations.map((v) => JSON.stringify(v)).join('\n')}`);
  }

  /** Close the client side and wait for the bridge (and zcode) to go. */
  async dispose(): Promise<void> {
    if (this.mode === 'inproc') {
      this.connection.close();
      for (const other of this.others) other.connection.close();
      await this.bridge?.dispose();
    } else if (this.child) {
      const child = this.child;
      const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      this.connection.close();
    }
    rmSync(this.temp, { recursive: true, force: true });
  }
}
