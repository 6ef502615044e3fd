/** Host-name helpers for the remote endpoint: what counts as loopback, and how a URL names a host. */
import { isIP } from 'node:net';

/**
 * True for addresses only this machine can reach: `localhost`, 127.0.0.0/8, `::1` and the
 * IPv4-mapped `::ffff:127.x.x.x`. Everything else (including `0.0.0.0` and `::`, which listen on
 * every interface) is non-loopback and needs `allowNonLoopback`.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) {
    if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
    return mapped !== null && mapped[1].startsWith('127.');
  }
  return false;
}

/** `ws://host:port/acp`, with IPv6 literals bracketed. Never carries a token. */
export function endpointUrl(host: string, port: number, path: string): string {
  const h = isIP(host) === 6 ? `[${host}]` : host;
  return `ws://${h}:${port}${path}`;
}
