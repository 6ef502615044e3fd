/**
 * Who may open the remote ACP endpoint: the token check of every WebSocket upgrade, with failed
 * attempts rate-limited per source (auth.ts `FailedAuthLimiter`) and each refusal logged once per
 * lockout, so a flood of wrong tokens cannot flood the log. The server (server.ts) asks it.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../logger.ts';
import { rateLimitSource } from './address.ts';
import { extractToken, FailedAuthLimiter, tokenMatches } from './auth.ts';
import type { FailedAuthLimiterOptions } from './auth.ts';

/** An HTTP refusal of an upgrade. */
export interface Refusal {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export class AuthGate {
  private readonly limiter: FailedAuthLimiter;
  /** Sources (or `everyone`) whose rate-limit refusal was logged (once per lockout, so a flood cannot flood the log). */
  private readonly limitedLogged = new Set<string>();

  constructor(
    limits: FailedAuthLimiterOptions | undefined,
    private readonly logger: Logger,
    /** The current token (rotated by the server). */
    private readonly token: () => string,
  ) {
    this.limiter = new FailedAuthLimiter(limits);
  }

  /**
   * Undefined when the request is authorized; otherwise the HTTP refusal. Logs address + reason only.
   *
   * The right token always gets in, even while its source (or everyone) is locked out: otherwise
   * any local process could lock the user's own phone out by sending wrong tokens. That a 429 now
   * also means "wrong token" gives a guesser nothing usable: the token's entropy, not the limiter,
   * is what makes guessing infeasible (README, "Remote access"). The limiter only rate-limits and
   * quiets wrong tokens.
   */
  check(req: IncomingMessage): Refusal | undefined {
    const address = req.socket.remoteAddress ?? 'unknown';
    const presented = extractToken(req);
    if (presented && tokenMatches(presented.token, this.token())) return undefined;
    const lockout = this.limiter.lockout(address);
    if (lockout) {
      const seconds = Math.ceil(lockout.retryAfterMs / 1000);
      const key = lockout.scope === 'everyone' ? 'everyone' : rateLimitSource(address);
      if (!this.limitedLogged.has(key)) {
        if (this.limitedLogged.size >= 1024) this.limitedLogged.clear();
        this.limitedLogged.add(key);
        const who = lockout.scope === 'everyone' ? 'every address' : `${address} (source ${key})`;
        this.logger.warn(`remote access: refusing wrong tokens from ${who} for ${seconds} s: too many failed authentications`);
      }
      return { status: 429, body: 'Too many failed authentications', headers: { 'Retry-After': String(seconds) } };
    }
    this.limitedLogged.delete(rateLimitSource(address));
    this.limitedLogged.delete('everyone');
    this.limiter.recordFailure(address);
    this.logger.warn(`remote access: refused ${address}: ${presented ? `invalid token (from ${presented.source})` : 'no token'}`);
    return { status: 401, body: 'Unauthorized', headers: { 'WWW-Authenticate': 'Bearer realm="zcode-acp"' } };
  }
}
