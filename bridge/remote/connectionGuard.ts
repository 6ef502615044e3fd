/**
 * Limits on raw TCP connections to the remote endpoint, before any HTTP is parsed: how many one
 * source (`rateLimitSource`: all of loopback is one) may hold open at once, and how long a socket
 * may take to become a WebSocket.
 *
 * What must stay true:
 * - A socket that has not completed the upgrade within `handshakeTimeoutMs` is destroyed, whatever
 *   it is doing (a slowloris client trickling headers, an idle keep-alive, a half-sent request).
 *   Node's own `headersTimeout` is checked only every 30 s, so such sockets lived ~71 s.
 * - Upgraded sockets still count towards their source's cap until they close.
 * - At the cap, the source's oldest socket still in its handshake is closed to make room; only a
 *   source whose sockets are all upgraded clients is refused (429). Holding unfinished handshakes
 *   open therefore does not lock a newcomer (with the right token) out.
 * - A refusal is logged once per source per episode, so a flood cannot flood the log.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../logger.ts';
import { rateLimitSource } from './address.ts';
import { rejectUpgrade } from './http.ts';

export interface ConnectionLimits {
  /** Open sockets (pending or upgraded) allowed per source. Default 16. */
  maxPerSource?: number;
  /** Milliseconds a socket has to complete the WebSocket upgrade. Default 10 s. */
  handshakeTimeoutMs?: number;
}

export class ConnectionGuard {
  private readonly maxPerSource: number;
  private readonly handshakeTimeoutMs: number;
  /** Counted sockets by source, oldest first (a socket leaves when it closes or is evicted). */
  private readonly open = new Map<string, Set<Socket>>();
  /** Sockets still in their handshake, with their deadline timer. */
  private readonly pending = new Map<Socket, NodeJS.Timeout>();
  private readonly refusedLogged = new Set<string>();

  constructor(
    limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {
    this.maxPerSource = limits.maxPerSource ?? 16;
    this.handshakeTimeoutMs = limits.handshakeTimeoutMs ?? 10_000;
  }

  /**
   * A new TCP connection (the HTTP server's `connection` event): count it. A source at its cap
   * makes room by closing its oldest socket still in its handshake — a socket that has not
   * authenticated holds no claim a newcomer with the right token lacks, and refusing the newcomer
   * instead would let any local process lock the user out by holding sockets open. Only a source
   * whose every socket is an upgraded (authenticated) client is refused, with 429.
   */
  admit(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    const source = rateLimitSource(socket.remoteAddress);
    const sockets = this.open.get(source) ?? new Set<Socket>();
    if (sockets.size >= this.maxPerSource) {
      const oldestPending = [...sockets].find((s) => this.pending.has(s));
      if (oldestPending === undefined) {
        this.logOnce(source, `remote access: refusing connections from ${source}: ${sockets.size} clients connected (limit ${this.maxPerSource})`);
        rejectUpgrade(socket, 429, 'Too many connections');
        return;
      }
      this.logOnce(source, `remote access: ${source} is at its limit of ${this.maxPerSource} connections: closing its oldest unfinished handshakes`);
      this.release(source, oldestPending);
      oldestPending.destroy();
    }
    sockets.add(socket);
    this.open.set(source, sockets);
    const timer = setTimeout(() => {
      this.pending.delete(socket);
      socket.destroy();
    }, this.handshakeTimeoutMs);
    timer.unref();
    this.pending.set(socket, timer);
    socket.once('close', () => this.release(source, socket));
  }

  /** The socket became a WebSocket: it no longer has a handshake deadline. */
  upgraded(socket: Socket): void {
    const timer = this.pending.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.pending.delete(socket);
  }

  /** Stop every handshake timer (shutdown destroys the sockets). */
  dispose(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  /** Frees `socket`'s slot (once: on eviction or on close, whichever comes first). */
  private release(source: string, socket: Socket): void {
    this.upgraded(socket);
    const sockets = this.open.get(source);
    if (!sockets?.delete(socket)) return;
    if (sockets.size === 0) this.open.delete(source);
    if (sockets.size < this.maxPerSource) this.refusedLogged.delete(source);
  }

  /** A refusal or eviction is logged once per source per episode, so a flood cannot flood the log. */
  private logOnce(source: string, line: string): void {
    if (this.refusedLogged.has(source)) return;
    if (this.refusedLogged.size >= 1024) this.refusedLogged.clear();
    this.refusedLogged.add(source);
    this.logger.warn(line);
  }
}
