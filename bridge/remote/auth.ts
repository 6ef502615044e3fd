/**
 * Authentication for the remote ACP endpoint: token generation, extraction from an HTTP upgrade
 * request, constant-time comparison and limits on failed attempts (per source and in total).
 *
 * What must stay true: no function here logs, returns in an error message, or otherwise echoes a
 * token. Callers log the remote address and a reason (`AuthFailure`), never the credential.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { rateLimitSource } from './address.ts';

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
  /** Failed attempts allowed per source (`rateLimitSource`) within `windowMs` before it is refused with 429. Default 10. */
  maxFailures?: number;
  /**
   * Failed attempts allowed from all sources together within `windowMs`; past it every source is
   * refused until the oldest counted failure ages out. Default 100: a guesser spread over many
   * addresses gets at most this many guesses a window.
   */
  maxGlobalFailures?: number;
  windowMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** Why and for how long an attempt is refused: its own source's budget, or everyone's. */
export interface AuthLockout {
  retryAfterMs: number;
  scope: 'source' | 'everyone';
}

/**
 * Counts failed authentications per source (`rateLimitSource`: all of loopback is one source) and
 * in total, in sliding windows. Once a source reaches `maxFailures`, or all sources together reach
 * `maxGlobalFailures`, attempts with a wrong token are refused (429) until the oldest counted
 * failure leaves the window. The right token is never refused (server.ts checks it first), so a
 * 429 answers a guess as surely as a 401 does: what keeps a guesser out is the token's 256 bits, and
 * the limiter only keeps the work and the log for wrong tokens small.
 */
export class FailedAuthLimiter {
  private readonly maxFailures: number;
  private readonly maxGlobalFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly failures = new Map<string, number[]>();
  private global: number[] = [];

  constructor(options: FailedAuthLimiterOptions = {}) {
    this.maxFailures = options.maxFailures ?? 10;
    this.maxGlobalFailures = options.maxGlobalFailures ?? 100;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The lockout an attempt from `address` meets now, or undefined when it may try. */
  lockout(address: string): AuthLockout | undefined {
    const own = this.waitMs(this.recent(rateLimitSource(address)), this.maxFailures);
    this.global = this.inWindow(this.global);
    const everyone = this.waitMs(this.global, this.maxGlobalFailures);
    if (own === 0 && everyone === 0) return undefined;
    return own >= everyone ? { retryAfterMs: own, scope: 'source' } : { retryAfterMs: everyone, scope: 'everyone' };
  }

  recordFailure(address: string): void {
    const source = rateLimitSource(address);
    const times = this.recent(source);
    times.push(this.now());
    // Keep only what the window decision needs, so a flood cannot grow memory.
    if (times.length > this.maxFailures) times.splice(0, times.length - this.maxFailures);
    this.failures.set(source, times);
    this.global = this.inWindow(this.global);
    this.global.push(this.now());
    if (this.global.length > this.maxGlobalFailures) this.global.splice(0, this.global.length - this.maxGlobalFailures);
    this.prune();
  }

  /** Number of sources currently tracked (for tests). */
  get trackedSources(): number {
    return this.failures.size;
  }

  private waitMs(times: number[], max: number): number {
    if (times.length < max) return 0;
    return Math.max(1, times[times.length - max] + this.windowMs - this.now());
  }

  private inWindow(times: number[]): number[] {
    const cutoff = this.now() - this.windowMs;
    return times.filter((t) => t > cutoff);
  }

  private recent(source: string): number[] {
    const times = this.inWindow(this.failures.get(source) ?? []);
    if (times.length === 0) this.failures.delete(source);
    return times;
  }

  private prune(): void {
    if (this.failures.size < 1024) return;
    const cutoff = this.now() - this.windowMs;
    for (const [source, times] of this.failures) {
      if (times[times.length - 1] <= cutoff) this.failures.delete(source);
    }
  }
}
