/**
 * The remote ACP endpoint: an HTTP server that authenticates WebSocket upgrades and hands each
 * accepted socket to the bridge as one more ACP connection (`bridge.connect(stream, {kind:'remote'})`).
 *
 * The multi-client semantics (broadcast, first-answer-wins, capability merge, serialized prompts,
 * shared cancel, catch-up on load/resume) live in the bridge; this file is transport, auth and
 * lifetime only.
 *
 * What must stay true:
 * - Auth happens before the upgrade: a refused request never becomes a WebSocket.
 * - Tokens, and request URLs (which may carry `?token=`), are never logged or echoed.
 * - Nothing here keeps the process alive: the listener and every accepted socket are unref'd,
 *   so the host (VS Code window / stdio client) alone decides when the process ends.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Stream } from '@agentclientprotocol/sdk';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import type { Disposable } from '../zcode/backend.ts';
import type { Logger } from '../logger.ts';
import { BRIDGE_NAME, BRIDGE_VERSION } from '../version.ts';
import { endpointUrl, isLoopbackHost } from './address.ts';
import { ACP_SUBPROTOCOL, MIN_TOKEN_LENGTH, offeredSubprotocols } from './auth.ts';
import type { FailedAuthLimiterOptions } from './auth.ts';
import { ConnectionGuard } from './connectionGuard.ts';
import type { ConnectionLimits } from './connectionGuard.ts';
import { isAddressInUse, listenOnce, pathOf, rejectUpgrade } from './http.ts';
import { webSocketStream } from './wsStream.ts';
import { AuthGate } from './authGate.ts';

export const DEFAULT_REMOTE_HOST = '127.0.0.1';
export const DEFAULT_REMOTE_PORT = 8378;
/** Same default as the SDK's ndjson framing (`DEFAULT_MAX_MESSAGE_BYTES`, 32 MiB): room for image prompts. */
const DEFAULT_MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;
/** The WebSocket path. `/` is accepted too, for clients that only take host:port. */
const ACP_PATH = '/acp';
/** Close code sent to connected clients when the token is rotated (private-use range). */
const CLOSE_TOKEN_ROTATED = 4001;
/** Close code sent to connected clients when the endpoint shuts down (RFC 6455 "going away"). */
const CLOSE_GOING_AWAY = 1001;

/** The part of the bridge the endpoint needs. `Bridge` from bridge/acp satisfies it. */
export interface RemoteHost {
  /** Serve one more ACP client over `stream`; the returned connection closes when the stream does. */
  connect(stream: Stream, info: { kind: 'remote'; label?: string }): { readonly closed: Promise<void>; close(error?: unknown): void };
  /** Session overview for `GET /status` (optional). */
  sessionSummaries?(): unknown;
  /** When present, the endpoint closes itself when the bridge is disposed. */
  onDidDispose?(listener: () => void): Disposable;
}

export interface RemoteServerOptions {
  bridge: RemoteHost;
  /** Bearer token clients must present (≥ 22 chars, i.e. ≥ 128 bits when random; see `generateToken`). */
  token: string;
  logger: Logger;
  /** Default 127.0.0.1. A non-loopback address is refused unless `allowNonLoopback`. */
  host?: string;
  /** Default 8378; if taken, the next free port (up to `portAttempts` tries). 0 = any free port. */
  port?: number;
  allowNonLoopback?: boolean;
  /** Largest accepted frame; a bigger one closes the connection with 1009. Default 32 MiB. */
  maxPayloadBytes?: number;
  /** Ports tried from `port` upwards before giving up. Default 20. */
  portAttempts?: number;
  /** Failed-auth limits: 10 a minute per source (all of loopback is one), 100 a minute in total. */
  authLimit?: FailedAuthLimiterOptions;
  /** Open connections per source (default 16) and the upgrade deadline of a socket (default 10 s). */
  connectionLimits?: ConnectionLimits;
  /** Ping interval; a client that misses a pong for a whole interval is dropped. Default 30 s; 0 = off. */
  heartbeatMs?: number;
}

export interface RemoteServer extends Disposable {
  /** `ws://host:port/acp` — no token in it; clients add their own credential. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Connected remote clients. */
  readonly clientCount: number;
  onDidChangeClients(listener: (count: number) => void): Disposable;
  /** Replace the token; every connected remote client is dropped (close code 4001). */
  setToken(token: string): void;
  /** Close every remote connection and the listener. Idempotent; resolves when the port is free. */
  close(): Promise<void>;
}

/** A configuration the endpoint refuses to start with (bad token, non-loopback host, no free port). */
export class RemoteConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteConfigError';
  }
}

/** Start the remote endpoint. Rejects with `RemoteConfigError` for a refused configuration. */
export async function startRemoteServer(options: RemoteServerOptions): Promise<RemoteServer> {
  const host = options.host ?? DEFAULT_REMOTE_HOST;
  assertTokenStrength(options.token);
  if (!isLoopbackHost(host)) {
    if (!options.allowNonLoopback) {
      throw new RemoteConfigError(
        `refusing to expose remote access on non-loopback address ${host}; allow it explicitly (allowNonLoopback / ZCODE_ACP_REMOTE_ALLOW_NON_LOOPBACK=1) or use 127.0.0.1 with a tunnel`,
      );
    }
    options.logger.warn(
      `remote access: listening on non-loopback address ${host}: any machine that can reach it and holds the token can drive zcode in this workspace (the connection is unencrypted ws://; prefer 127.0.0.1 and an SSH tunnel or a TLS proxy)`,
    );
  }
  const endpoint = new RemoteEndpoint(options, host);
  await endpoint.listen(options.port ?? DEFAULT_REMOTE_PORT, options.portAttempts ?? 20);
  return endpoint;
}

function assertTokenStrength(token: string): void {
  if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH) {
    throw new RemoteConfigError(`the remote access token must be at least ${MIN_TOKEN_LENGTH} characters (≥ 128 random bits)`);
  }
}

interface RemoteClient {
  ws: WebSocket;
  label: string;
  alive: boolean;
  connection?: { close(error?: unknown): void };
}

class RemoteEndpoint implements RemoteServer {
  private readonly logger: Logger;
  private readonly bridge: RemoteHost;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly gate: AuthGate;
  private readonly guard: ConnectionGuard;
  private readonly clients = new Set<RemoteClient>();
  private readonly listeners = new Set<(count: number) => void>();
  private readonly disposeSubscription?: Disposable;
  private token: string;
  private heartbeat?: NodeJS.Timeout;
  private closing?: Promise<void>;
  private boundPort = 0;

  constructor(
    private readonly options: RemoteServerOptions,
    readonly host: string,
  ) {
    this.logger = options.logger;
    this.bridge = options.bridge;
    this.token = options.token;
    this.gate = new AuthGate(options.authLimit, this.logger, () => this.token);
    this.guard = new ConnectionGuard(options.connectionLimits ?? {}, this.logger);
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
      // Answer with the non-secret `acp`, never with an `acp.token.*` entry.
      handleProtocols: (protocols) => (protocols.has(ACP_SUBPROTOCOL) ? ACP_SUBPROTOCOL : false),
    });
    this.http = createServer((req, res) => this.onRequest(req, res));
    this.http.on('connection', (socket: Socket) => this.guard.admit(socket));
    this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    this.http.on('clientError', (_error, socket) => socket.destroy());
    this.disposeSubscription = this.bridge.onDidDispose?.(() => void this.close());
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return endpointUrl(this.host, this.boundPort, ACP_PATH);
  }

  get clientCount(): number {
    return this.clients.size;
  }

  onDidChangeClients(listener: (count: number) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  setToken(token: string): void {
    assertTokenStrength(token);
    this.token = token;
    const dropped = this.clients.size;
    for (const client of this.clients) client.ws.close(CLOSE_TOKEN_ROTATED, 'token rotated');
    this.logger.info(`remote access: token rotated; ${dropped} remote client(s) disconnected`);
  }

  async listen(firstPort: number, attempts: number): Promise<void> {
    const tries = firstPort === 0 ? 1 : Math.max(1, attempts);
    for (let i = 0; i < tries; i++) {
      const port = firstPort === 0 ? 0 : firstPort + i;
      if (port > 65535) break;
      try {
        this.boundPort = await listenOnce(this.http, this.host, port);
        this.http.unref();
        const heartbeatMs = this.options.heartbeatMs ?? 30_000;
        if (heartbeatMs > 0) {
          this.heartbeat = setInterval(() => this.beat(), heartbeatMs);
          this.heartbeat.unref();
        }
        if (i > 0) this.logger.info(`remote access: port ${firstPort} is taken, using ${port}`);
        this.logger.info(`remote access: listening on ${this.url}`);
        return;
      } catch (error) {
        if (!isAddressInUse(error)) {
          this.disposeSubscription?.dispose();
          throw new RemoteConfigError(`remote access: cannot listen on ${this.host}:${port}: ${describe(error)}`);
        }
      }
    }
    this.disposeSubscription?.dispose();
    throw new RemoteConfigError(`remote access: no free port in ${firstPort}–${Math.min(65535, firstPort + tries - 1)} on ${this.host}`);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  dispose(): void {
    void this.close();
  }

  private async shutdown(): Promise<void> {
    this.disposeSubscription?.dispose();
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.guard.dispose();
    const listenerClosed = new Promise<void>((resolve) => {
      if (!this.http.listening) return resolve();
      this.http.close(() => resolve());
    });
    this.http.closeAllConnections();
    const socketsClosed = [...this.clients].map((client) => closeClient(client, CLOSE_GOING_AWAY, 'bridge shutting down'));
    await Promise.all([listenerClosed, ...socketsClosed]);
    this.wss.close();
    this.logger.info('remote access: closed');
  }

  // ── HTTP ────────────────────────────────────────────────────────────────────────────────────

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req);
    if (req.method !== 'GET' || path !== '/status') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    const refusal = this.gate.check(req);
    if (refusal) {
      res.writeHead(refusal.status, { 'Content-Type': 'text/plain; charset=utf-8', ...refusal.headers }).end(`${refusal.body}\n`);
      return;
    }
    const body = JSON.stringify({
      name: BRIDGE_NAME,
      version: BRIDGE_VERSION,
      sessions: this.bridge.sessionSummaries?.() ?? [],
      clients: this.clients.size,
    });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(body);
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    if (this.closing) return rejectUpgrade(socket, 503, 'Shutting down');
    const path = pathOf(req);
    if (path !== ACP_PATH && path !== '/') return rejectUpgrade(socket, 404, 'Not found');
    const refusal = this.gate.check(req);
    if (refusal) return rejectUpgrade(socket, refusal.status, refusal.body, refusal.headers);
    const offered = offeredSubprotocols(req);
    if (offered.length > 0 && !offered.includes(ACP_SUBPROTOCOL)) {
      // Browsers fail a handshake whose answer names none of the offered subprotocols, and the
      // token-bearing one is never echoed: a browser client must offer `acp` as well.
      return rejectUpgrade(socket, 400, `Offer the "${ACP_SUBPROTOCOL}" subprotocol`);
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req));
  }

  // ── WebSocket clients ───────────────────────────────────────────────────────────────────────

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const label = `${req.socket.remoteAddress ?? 'unknown'}:${req.socket.remotePort ?? 0}`;
    // Remote clients never keep the bridge alive; an upgraded socket has no handshake deadline.
    req.socket.unref();
    this.guard.upgraded(req.socket);
    const client: RemoteClient = { ws, label, alive: true };
    ws.on('pong', () => (client.alive = true));
    if (this.closing) {
      ws.close(CLOSE_GOING_AWAY, 'bridge shutting down');
      return;
    }
    this.clients.add(client);
    ws.once('close', (code) => {
      this.clients.delete(client);
      client.connection?.close();
      this.logger.info(`remote access: client ${label} disconnected (${code}); ${this.clients.size} connected`);
      this.fireChange();
    });
    const stream = webSocketStream(ws, { logger: this.logger, label });
    try {
      const connection = this.bridge.connect(stream, { kind: 'remote', label });
      client.connection = connection;
      // The bridge may end the connection itself (dispose, protocol failure): close the socket too.
      void connection.closed.then(
        () => ws.close(1000),
        () => ws.close(1011),
      );
    } catch (error) {
      this.logger.error(`remote access: the bridge refused client ${label}: ${describe(error)}`);
      ws.close(1011, 'bridge unavailable');
      return;
    }
    this.logger.info(`remote access: client ${label} connected; ${this.clients.size} connected`);
    this.fireChange();
  }

  private beat(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        this.logger.info(`remote access: client ${client.label} missed a heartbeat; dropping it`);
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
    }
  }

  private fireChange(): void {
    const count = this.clients.size;
    for (const listener of [...this.listeners]) {
      try {
        listener(count);
      } catch (error) {
        this.logger.error(`remote access: client-count listener failed: ${describe(error)}`);
      }
    }
  }
}

/** Close one client gracefully, terminating it if the peer does not finish the close handshake. */
function closeClient(client: RemoteClient, code: number, reason: string): Promise<void> {
  const { ws } = client;
  return new Promise<void>((resolve) => {
    if (ws.readyState === ws.CLOSED) return resolve();
    const timer = setTimeout(() => ws.terminate(), 1000);
    timer.unref();
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(code, reason);
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
