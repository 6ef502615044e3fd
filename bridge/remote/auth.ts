/**
 * Authentication for the remote ACP endpoint: token generation, extraction from an HTTP upgrade
 * request, constant-time comparison and a per-address limit on failed attempts.
 *
 * What must stay true: no function here logs, returns in an error message, or otherwise echoes a
 * token. Callers log the remote address and a reason (`AuthFailure`), never the credential.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Bytes of randomness in a generated token: 32 bytes = 256 bits (the issue asks for ≥ 128). */
const TOKEN_BYTES = 32;
/** Shortest token `startRemoteServer` accepts: 22 base64url chars ≈ 128 bits. */
export const MIN_TOKEN_LENGTH = 22;

/** The non-secret WebSocket subprotocol the endpoint speaks (and echoes back). */
export const ACP_SUBPROTOCOL = 'acp';
/**
 * Prefix of the subprotocol that carries the token for browser clients, which cannot set headers:
 * `new WebSocket(url, ['acp', 'acp.token.' + token])`. base64url characters are all legal in a
 * subprotocol name. The server answers with `acp`, never with the token-bearing entry.
 */
const TOKEN_SUBPROTOCOL_PREFIX = 'acp.token.';

/** A fresh bearer token: 256 random bits, base64url without padding (43 chars). */
export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Where a presented token came from (logged; the token itself never is). */
export type TokenSource = 'header' | 'query' | 'subprotocol';

export interface PresentedToken {
  token: string;
  source: TokenSource;
}

/**
 * The token a request presents, by precedence: `Authorization: Bearer`, then the `acp.token.*`
 * subprotocol, then `?token=`. Undefined when none is present.
 */
export function extractToken(req: IncomingMessage): PresentedToken | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth);
    if (match) return { token: match[1], source: 'header' };
  }
  for (const protocol of offeredSubprotocols(req)) {
    if (protocol.startsWith(TOKEN_SUBPROTOCOL_PREFIX)) {
      return { token: protocol.slice(TOKEN_SUBPROTOCOL_PREFIX.length), source: 'subprotocol' };
    }
  }
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams.get('token');
  if (query) return { token: query, source: 'query' };
  return undefined;
}

/** The subprotocols a WebSocket upgrade request offers (`Sec-WebSocket-Protocol`, comma separated). */
export function offeredSubprotocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (typeof header !== 'string') return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/**
 * Constant-time token check. Both sides are hashed first so the comparison runs over equal-length
 * digests: neither the content nor the length of the expected token leaks through timing.
 */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export interface FailedAuthLimiterOptions {
  /** Failed attempts allowed per address within `windowMs` before it is refused with 429. */
  maxFailures?: number;
  windowMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Counts failed authentications per remote address in a sliding window. Once an address reaches
 * `maxFailures`, every attempt from it is refused (429) until its oldest failure leaves the
 * window — including attempts with the right token, or the limit would not slow a guesser.
 */
export class FailedAuthLimiter {
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly failures = new Map<string, number[]>();

  constructor(options: FailedAuthLimiterOptions = {}) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds until `address` may try again, or 0 when it is not limited. */
  retryAfterMs(address: string): number {
    const times = this.recent(address);
    if (times.length < this.maxFailures) return 0;
    return Math.max(1, times[times.length - this.maxFailures] + this.windowMs - this.now());
  }

  recordFailure(address: string): void {
    const times = this.recent(address);
    times.push(this.now());
    // Keep only what the window decision needs, so a flood cannot grow memory.
    if (times.length > this.maxFailures) times.splice(0, times.length - this.maxFailures);
    this.failures.set(address, times);
    this.prune();
  }

  /** Number of addresses currently tracked (for tests). */
  get trackedAddresses(): number {
    return this.failures.size;
  }

  private recent(address: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const times = (this.failures.get(address) ?? []).filter((t) => t > cutoff);
    if (times.length === 0) this.failures.delete(address);
    return times;
  }

  private prune(): void {
    if (this.failures.size < 1024) return;
    const cutoff = this.now() - this.windowMs;
    for (const [address, times] of this.failures) {
      if (times[times.length - 1] <= cutoff) this.failures.delete(address);
    }
  }
}
