/**
 * The GLM Coding Plan quota, pure: the provider's answer → windows, and the one-line
 * texts `/quota` and the status bar show.
 *
 * zcode itself does not expose plan quota (docs/zcode-protocol.md "Listings, usage and quota": no `account/usage_stats`; `usage/stats`
 * and `session/usage` are token counts). The quota comes from the provider's own monitor endpoint,
 * `GET <host>/api/monitor/usage/quota/limit` → `{success, code?, msg?, data:{level?, limits:[{type,
 * number?, usage?, currentValue?, remaining?, percentage?, nextResetTime?}]}}` — how the reference
 * bridge reads it (`william0wang/zcode-acp` `src/quota/*`, not verified live): `TOKENS_LIMIT` with number 5 is the 5-hour window, 7 the
 * weekly one; the share comes from `remaining`/`currentValue` over their sum or `usage`, else from
 * `percentage` (used); `nextResetTime` is epoch ms.
 */
import { bt } from '../l10n/messages.ts';
import type { BridgeLocale } from '../l10n/messages.ts';

export interface QuotaWindow {
  /** Stable id: `tokens_5h`, `tokens_week`, `tokens_<n>`, `mcp`, or the raw type in lower case. */
  key: string;
  label: string;
  usedPercent: number;
  remainingPercent: number;
  /** ISO 8601, when the provider says. */
  resetsAt?: string;
  used?: number;
  total?: number;
}

export type QuotaParse =
  | { ok: true; plan?: string; windows: QuotaWindow[] }
  | { ok: false; reason: 'auth' | 'rate_limited' | 'unexpected'; message: string };

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const clamp = (v: number): number => Math.max(0, Math.min(100, Math.round(v)));

function usedShare(limit: Record<string, unknown>): number | undefined {
  const remaining = num(limit.remaining);
  const current = num(limit.currentValue);
  const allowance = num(limit.usage);
  const total = remaining !== undefined && current !== undefined && remaining + current > 0 ? remaining + current : allowance;
  if (total !== undefined && total > 0) {
    if (remaining !== undefined && remaining >= 0 && remaining <= total) return clamp(100 - (remaining / total) * 100);
    if (current !== undefined && current >= 0 && current <= total) return clamp((current / total) * 100);
  }
  const percentage = num(limit.percentage);
  return percentage === undefined ? undefined : clamp(percentage);
}

function windowName(type: string, n: number | undefined): { key: string; label: string } {
  if (type === 'TOKENS_LIMIT') {
    if (n === 5) return { key: 'tokens_5h', label: '5-hour window' };
    if (n === 7) return { key: 'tokens_week', label: 'weekly window' };
    return n === undefined ? { key: 'tokens', label: 'token window' } : { key: `tokens_${n}`, label: `${n}-unit token window` };
  }
  if (type === 'MCP_LIMIT' || type === 'TIME_LIMIT') return { key: 'mcp', label: 'MCP calls' };
  return { key: type.toLowerCase() || 'quota', label: type || 'quota' };
}

const ORDER = ['tokens_5h', 'tokens_week'];
const rank = (key: string): number => (ORDER.includes(key) ? ORDER.indexOf(key) : key.startsWith('tokens') ? 2 : key === 'mcp' ? 3 : 4);

/** The provider's HTTP answer (status and parsed body) as windows or a failure. */
export function parseQuota(status: number, body: unknown): QuotaParse {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const msg = typeof record?.msg === 'string' ? record.msg : '';
  if (status === 429 || /rate.?limit|too many|频繁|限流/i.test(msg)) return { ok: false, reason: 'rate_limited', message: 'the provider is rate limiting quota requests; try again in a minute' };
  if (status === 401 || status === 403 || record?.code === 401 || record?.code === 1001) return { ok: false, reason: 'auth', message: 'the provider refused the stored Coding Plan key' };
  if (!record || record.success !== true) return { ok: false, reason: 'unexpected', message: msg ? `the provider answered: ${msg}` : `the provider answered HTTP ${status} without quota data` };
  const data = typeof record.data === 'object' && record.data !== null ? (record.data as Record<string, unknown>) : {};
  const limits = Array.isArray(data.limits) ? data.limits : [];
  const windows: QuotaWindow[] = [];
  for (const raw of limits) {
    if (typeof raw !== 'object' || raw === null) continue;
    const limit = raw as Record<string, unknown>;
    const used = usedShare(limit);
    if (used === undefined) continue;
    const w: QuotaWindow = { ...windowName(typeof limit.type === 'string' ? limit.type : '', num(limit.number)), usedPercent: used, remainingPercent: 100 - used };
    const reset = num(limit.nextResetTime);
    if (reset !== undefined) w.resetsAt = new Date(reset).toISOString();
    if (num(limit.currentValue) !== undefined) w.used = num(limit.currentValue);
    if (num(limit.usage) !== undefined) w.total = num(limit.usage);
    windows.push(w);
  }
  windows.sort((a, b) => rank(a.key) - rank(b.key) || a.key.localeCompare(b.key));
  if (windows.length === 0) return { ok: false, reason: 'unexpected', message: 'the provider answered without any quota window' };
  return { ok: true, ...(typeof data.level === 'string' && data.level ? { plan: data.level } : {}), windows };
}

/** "72% left of the 5-hour window, resets 14:05 UTC" in `locale` — times in UTC so every client reads the same. */
export function windowLine(w: QuotaWindow, locale: BridgeLocale = 'en'): string {
  const reset = w.resetsAt ? bt(locale, ', resets {0} UTC', w.resetsAt.slice(0, 16).replace('T', ' ')) : '';
  const counts = w.used !== undefined && w.total !== undefined ? bt(locale, ' ({0} of {1} used)', w.used, w.total) : '';
  return bt(locale, '{0}% left of the {1}', w.remainingPercent, windowLabel(w, locale)) + counts + reset;
}

/** The window's name in `locale`: the known windows by key; an unknown one keeps the provider's name. */
function windowLabel(w: QuotaWindow, locale: BridgeLocale): string {
  switch (w.key) {
    case 'tokens_5h':
      return bt(locale, '5-hour window');
    case 'tokens_week':
      return bt(locale, 'weekly window');
    case 'tokens':
      return bt(locale, 'token window');
    case 'mcp':
      return bt(locale, 'MCP calls');
    default:
      return w.label;
  }
}
