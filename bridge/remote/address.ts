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

/**
 * The source a connection is counted under for rate limits (failed authentications, open
 * connections). The one place that decides which peer addresses are "the same machine":
 * - every loopback address (127.0.0.0/8, `::1`, `::ffff:127.x.x.x`) is this machine, one source —
 *   otherwise binding to 127.0.0.2 … 127.255.255.254 multiplies any per-address budget by 16 million;
 * - an IPv4-mapped IPv6 address counts as its IPv4 address;
 * - other IPv6 addresses count by their /64 prefix (one subscriber network hands out 2^64 of them).
 */
export function rateLimitSource(address: string | undefined): string {
  if (!address) return 'unknown';
  const a = address.trim().toLowerCase();
  if (isLoopbackHost(a)) return 'loopback';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1];
  if (isIP(a) === 6) return `${expandIpv6(a).slice(0, 4).join(':')}::/64`;
  return a;
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, zone id dropped), as lower-case hex. */
function expandIpv6(address: string): string[] {
  const [head, tail] = address.replace(/%.*$/, '').split('::');
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((g) => (/\./.test(g) ? g : String(parseInt(g, 16).toString(16))));
}
