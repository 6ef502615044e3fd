/**
 * Test harness for the remote endpoint: a log-capturing logger, official SDK `client()` apps over
 * real WebSockets (the SDK's own ws client stream), a tap that schema-validates every message the
 * bridge sends to a client, raw HTTP upgrade probes for the security tests, and the waits (a
 * condition, a free port) the tests share.
 */
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { client, RequestError } from '@agentclientprotocol/sdk';
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
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { WebSocket } from 'ws';
import { validateOutgoing } from '../../helpers/acpSchema.ts';
import type { AcpVersion } from '../../helpers/acpSchema.ts';
import type { Logger } from '../../../bridge/logger.ts';

// ── logging ─────────────────────────────────────────────────────────────────────────────────────

export interface CapturedLogger extends Logger {
  /** Every line logged, level-prefixed, with its extra args serialized. */
  readonly lines: string[];
  text(): string;
}

export function captureLogger(echo = process.env.REMOTE_TEST_LOG === '1'): CapturedLogger {
  const lines: string[] = [];
  const serialize = (arg: unknown): string => {
    if (arg instanceof Error) return `${arg.message}\n${arg.stack ?? ''}`;
    if (typeof arg === 'string') return arg;
    try {
      return JSON.stringify(arg);
    } catch {
      return String(arg);
    }
  };
  const log =
    (level: string) =>
    (message: unknown, ...args: unknown[]): void => {
      const line = `[${level}] ${[message, ...args].map(serialize).join(' ')}`;
      lines.push(line);
      if (echo) process.stderr.write(`${line}\n`);
    };
  return {
    lines,
    text: () => lines.join('\n'),
    trace: log('trace'),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}

// ── transport + validation tap ──────────────────────────────────────────────────────────────────

export interface TokenCarrier {
  header?: string;
  query?: string;
  subprotocol?: string;
}

/** The SDK's WebSocket client stream with the token in the header (default), query or subprotocol. */
export function wsClientStream(url: string, auth: TokenCarrier): Stream {
  const target = new URL(url);
  if (auth.query) target.searchParams.set('token', auth.query);
  return createWebSocketStream(target.toString(), {
    WebSocket,
    headers: auth.header ? { Authorization: `Bearer ${auth.header}` } : undefined,
    protocols: auth.subprotocol ? ['acp', `acp.token.${auth.subprotocol}`] : undefined,
  });
}

export interface Tap {
  stream: Stream;
  /** Everything the agent sent to this client, in order. */
  received: AnyMessage[];
  /** Schema violations in what the agent sent (the test asserts this is empty). */
  violations: string[];
}

/**
 * Wraps a client-side stream: every message coming from the agent is recorded and validated with
 * `validateOutgoing` (requests and notifications by method; responses by the method of the request
 * this client sent with that id).
 */
export function tapClientStream(inner: Stream, version: AcpVersion = 1): Tap {
  const received: AnyMessage[] = [];
  const violations: string[] = [];
  const sentMethods = new Map<string, string>();
  const check = (method: string, value: unknown, part: 'request' | 'notification' | 'response'): void => {
    try {
      validateOutgoing(method, value, part, version);
    } catch (error) {
      violations.push(`${part} ${method}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const readable = inner.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        received.push(message);
        if ('method' in message) {
          check(message.method, message.params ?? {}, 'id' in message ? 'request' : 'notification');
        } else if ('result' in message) {
          const method = sentMethods.get(JSON.stringify(message.id));
          if (method) check(method, message.result ?? {}, 'response');
        }
        if ('id' in message && !('method' in message)) sentMethods.delete(JSON.stringify(message.id));
        controller.enqueue(message);
      },
    }),
  );
  const writer = inner.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if ('method' in message && 'id' in message) sentMethods.set(JSON.stringify(message.id), message.method);
      return writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { stream: { readable, writable }, received, violations };
}

/** A connected pair of in-memory streams: `agentSide` for `bridge.connect`, `clientSide` for a client app. */
export function inProcessStreams(): { agentSide: Stream; clientSide: Stream } {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return {
    agentSide: { readable: toAgent.readable, writable: toClient.writable },
    clientSide: { readable: toClient.readable, writable: toAgent.writable },
  };
}

// ── a scripted ACP client ───────────────────────────────────────────────────────────────────────

/** One interaction request the bridge sent to this client, waiting for the test to answer it. */
export interface PendingInteraction<P, R> {
  params: P;
  /** Aborted when the bridge withdraws the request (`$/cancel_request`) or the connection closes. */
  signal: AbortSignal;
  answer(response: R): void;
  /** Settles when the bridge withdrew the request (or the connection closed). */
  withdrawn: Promise<void>;
}

type Permission = PendingInteraction<RequestPermissionRequest, RequestPermissionResponse>;
type Elicitation = PendingInteraction<CreateElicitationRequest, CreateElicitationResponse>;

class Queue<T> {
  private items: T[] = [];
  private waiters: ((item: T) => void)[] = [];
  push(item: T): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(item);
    else this.items.push(item);
  }
  next(timeoutMs: number, what: string): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const waiter = (value: T): void => {
        clearTimeout(timer);
        resolve(value);
      };
      this.waiters.push(waiter);
    });
  }
  get size(): number {
    return this.items.length;
  }
}

export interface TestClientOptions {
  name: string;
  capabilities?: ClientCapabilities;
  /** Answer permission requests automatically (bench); default: queue them for the test. */
  autoPermission?: (params: RequestPermissionRequest) => RequestPermissionResponse;
}

/**
 * An official SDK `client()` app with recording handlers. Interaction requests are queued until the
 * test answers them; a withdrawn request (`$/cancel_request`) answers `cancelled` like a real
 * client closing its dialog.
 */
export class TestClient {
  readonly updates: SessionNotification[] = [];
  readonly permissions = new Queue<Permission>();
  readonly elicitations = new Queue<Elicitation>();
  /** Interaction requests this client saw withdrawn. */
  withdrawnCount = 0;
  readonly connection: ClientConnection;
  private readonly updateListeners = new Set<(n: SessionNotification) => void>();

  constructor(
    readonly name: string,
    readonly tap: Tap,
    options: TestClientOptions,
  ) {
    const app = client({ name })
      .onNotification('session/update', ({ params }) => {
        this.updates.push(params);
        for (const listener of this.updateListeners) listener(params);
      })
      .onRequest('session/request_permission', ({ params, signal }) => {
        if (options.autoPermission) return options.autoPermission(params);
        return this.pending(params, signal, this.permissions, { outcome: { outcome: 'cancelled' } });
      })
      .onRequest('elicitation/create', ({ params, signal }) =>
        this.pending(params, signal, this.elicitations, { action: 'cancel' } as CreateElicitationResponse),
      )
      .onRequest('*', ({ method }) => {
        throw RequestError.methodNotFound(method);
      })
      .onNotification('*', () => undefined);
    this.connection = app.connect(tap.stream);
  }

  get agent(): ClientContext {
    return this.connection.agent;
  }

  private pending<P, R>(params: P, signal: AbortSignal, queue: Queue<PendingInteraction<P, R>>, onWithdraw: R): Promise<R> {
    return new Promise<R>((resolve) => {
      let settled = false;
      let markWithdrawn!: () => void;
      const withdrawn = new Promise<void>((r) => (markWithdrawn = r));
      const answer = (response: R): void => {
        if (settled) return;
        settled = true;
        resolve(response);
      };
      const onAbort = (): void => {
        this.withdrawnCount++;
        markWithdrawn();
        answer(onWithdraw);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      queue.push({ params, signal, answer, withdrawn });
    });
  }

  /** Resolves with the first update for which `predicate` holds (already received or future). */
  waitForUpdate(predicate: (n: SessionNotification) => boolean, timeoutMs = 10_000): Promise<SessionNotification> {
    const found = this.updates.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.updateListeners.delete(listener);
        reject(new Error(`${this.name}: timed out waiting for a session/update`));
      }, timeoutMs);
      const listener = (n: SessionNotification): void => {
        if (!predicate(n)) return;
        clearTimeout(timer);
        this.updateListeners.delete(listener);
        resolve(n);
      };
      this.updateListeners.add(listener);
    });
  }

  /** `$/cancel_request` notifications this client received. */
  cancelRequests(): AnyMessage[] {
    return this.tap.received.filter((m) => 'method' in m && m.method === '$/cancel_request');
  }

  async initialize(capabilities: ClientCapabilities = {}): Promise<void> {
    await this.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: capabilities,
      clientInfo: { name: this.name, version: '0.0.0-test' },
    });
  }

  close(): Promise<void> {
    this.connection.close();
    return this.connection.closed.catch(() => undefined);
  }
}

/** An SDK client over a real WebSocket to `url`, validated by a tap. Call `initialize()` next. */
export function remoteClient(url: string, auth: TokenCarrier, options: TestClientOptions): TestClient {
  return new TestClient(options.name, tapClientStream(wsClientStream(url, auth)), options);
}

// ── raw HTTP probes ─────────────────────────────────────────────────────────────────────────────

export interface ProbeResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends a WebSocket upgrade request (or a plain GET with `upgrade: false`) and reports the HTTP
 * answer: 101 for an accepted upgrade (the socket is closed at once), else the refusal.
 */
export function probe(url: string, options: { headers?: Record<string, string>; upgrade?: boolean; path?: string } = {}): Promise<ProbeResult> {
  const target = new URL(url.replace(/^ws/, 'http'));
  const upgrade = options.upgrade ?? true;
  const headers: Record<string, string> = {
    ...(upgrade
      ? { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' }
      : {}),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: options.path ?? `${target.pathname}${target.search}`, headers });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Resolves once `ws` is open, or rejects with its error. */
export function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}

/** Resolves with the close code once `ws` closes. */
export function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) return resolve(1006);
    ws.once('close', (code) => resolve(code));
  });
}

/** Resolves with the next parsed text frame of `ws`. */
export function nextFrame(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) => ws.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))));
}

/**
 * An upgrade request to `/acp` on 127.0.0.1:`port` sent from `localAddress` (any 127.x address is
 * this machine on Linux), with a bearer token; resolves with the HTTP status (101 when upgraded).
 */
export function upgradeFrom(localAddress: string, port: number, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/acp',
      localAddress,
      agent: false,
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', Authorization: `Bearer ${token}` },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

// ── waiting ─────────────────────────────────────────────────────────────────────────────────────

/** Resolves once `predicate` holds (polled every 10 ms); rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Fails unless `port` on 127.0.0.1 can be listened on at once (nothing holds it any more). */
export async function assertPortFree(port: number): Promise<void> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve());
  });
  await new Promise<void>((r) => s.close(() => r()));
}
