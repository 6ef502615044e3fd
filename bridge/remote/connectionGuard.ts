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
 * - A refusal is logged once per source per episode, so a flood cannot flood the log.
 */
import type { Socket } from 'node:net';
import type { Logger } from '../zcode/backend.ts';
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
  private readonly open = new Map<string, number>();
  private readonly pending = new Map<Socket, NodeJS.Timeout>();
  private readonly refusedLogged = new Set<string>();

  constructor(
    limits: ConnectionLimits,
    private readonly logger: Logger,
  ) {
    this.maxPerSource = limits.maxPerSource ?? 16;
    this.handshakeTimeoutMs = limits.handshakeTimeoutMs ?? 10_000;
  }

  /** A new TCP connection (the HTTP server's `connection` event): count it, or refuse it with 429. */
  admit(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    const source = rateLimitSource(socket.remoteAddress);
    const count = this.open.get(source) ?? 0;
    if (count >= this.maxPerSource) {
      if (!this.refusedLogged.has(source)) {
        if (this.refusedLogged.size >= 1024) this.refusedLogged.clear();
        this.refusedLogged.add(source);
        this.logger.warn(`remote access: refusing connections from ${source}: ${count} already open (limit ${this.maxPerSource})`);
      }
      rejectUpgrade(socket, 429, 'Too many connections');
      return;
    }
    this.open.set(source, count + 1);
    const timer = setTimeout(() => {
      this.pending.delete(socket);
      socket.destroy();
    }, this.handshakeTimeoutMs);
    timer.unref();
    this.pending.set(socket, timer);
    socket.once('close', () => {
      this.upgraded(socket);
      const left = (this.open.get(source) ?? 1) - 1;
      if (left > 0) this.open.set(source, left);
      else this.open.delete(source);
      if (left < this.maxPerSource) this.refusedLogged.delete(source);
    });
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
}
