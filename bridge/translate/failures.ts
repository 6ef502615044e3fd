/**
 * A failed turn as the user should read it: zcode's `turn.failed` attribution,
 * codes and texts → one cause, whether it is worth retrying, and an actionable message. Pure.
 *
 * Causes, in the order they are recognised (first match wins):
 * - `captcha`: provider code 3007 / "captcha verify failed" (live; docs/zcode-protocol.md "Errors zcode answers"). Turns started outside the
 *   desktop app are refused for Start Plan; never retried (a retry cannot pass a captcha).
 * - `blocked`: 3012 "request has been blocked due to unusual activity" (live). Never retried.
 * - `headers_not_applied`: -32031, the host could not give runtime headers (reference bridge); the message is
 *   the one the bridge gave zcode (hostRequests.ts). Never retried.
 * - `quota`: 1113 (insufficient balance), 1310, or 1308 with a quota text (live). Never retried.
 * - `auth_failed`: attribution reason `auth_failed`, 401/403, "unauthorized", "invalid api key".
 * - `provider_not_configured`: what a switch to an unregistered provider gives (reference bridge). Retried
 *   (bridges treat it as transient: the registry may still be arriving).
 * - `rate_limit`: 429, 1302/1303/1305, "rate limit", "too many requests". Retried.
 * - `network`: timeouts, ECONNRESET, "Cannot connect to API". Retried (a bare 5xx stays `unknown`,
 *   retried by the heuristics, with zcode's own message).
 * - `model_request_failed`: attribution reason `model_request_failed`. Retried.
 * The retried causes are retried unless zcode itself says `retryable:false` (current builds).
 * - `unknown`: zcode's own message; retried only when zcode says `retryable:true` or the text
 *   matches the transient heuristics (sessionTranslator.ts `isRetryableFailure`).
 */
import { bt, type BridgeLocale } from '../l10n/messages.ts';
import type { TurnFailureDetail } from '../zcode/turnFailure.ts';
import { errorText } from './content.ts';

export type FailureCause =
  | 'captcha'
  | 'blocked'
  | 'headers_not_applied'
  | 'quota'
  | 'auth_failed'
  | 'provider_not_configured'
  | 'rate_limit'
  | 'network'
  | 'model_request_failed'
  | 'unknown';

export interface ExplainedFailure {
  cause: FailureCause;
  retryable: boolean;
  /** What the user reads (the ACP error message). */
  message: string;
  /** zcode's own code (top level, else the provider's), for `data`. */
  code?: number | string;
  /** How long zcode or the provider asked to wait before a retry, when it said (`retryAfterMs`). */
  retryAfterMs?: number;
}

const FINAL: ReadonlySet<FailureCause> = new Set(['captcha', 'blocked', 'headers_not_applied', 'quota', 'auth_failed']);

/** Everything textual the failure carries, for matching (never shown as is). */
function haystack(d: TurnFailureDetail): string {
  const parts = [d.message, d.type, d.underlyingErrorMessage, d.attribution?.reason, stringify(d.detail), stringify(d.underlyingErrorDetail), stringify(d.data), stringify(d.cause)];
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' \n ');
}

function stringify(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    return errorText(value);
  }
}

function codes(d: TurnFailureDetail, text: string): Set<number> {
  const out = new Set<number>();
  for (const c of [d.code, d.attribution?.code]) {
    const n = typeof c === 'number' ? c : typeof c === 'string' && /^-?\d+$/.test(c) ? Number(c) : undefined;
    if (n !== undefined) out.add(n);
  }
  // Provider bodies like {"code":3007,"msg":…} or "[1113] …" inside the texts.
  for (const m of text.matchAll(/"code"\s*:\s*"?(-?\d{3,5})"?|\[(\d{4})\]/g)) out.add(Number(m[1] ?? m[2]));
  return out;
}

/** The cause of a failure (see the file comment). */
export function failureCause(d: TurnFailureDetail): FailureCause {
  const text = haystack(d);
  const c = codes(d, text);
  const reason = d.attribution?.reason?.toLowerCase() ?? '';
  if (c.has(3007) || /captcha/i.test(text)) return 'captcha';
  if (c.has(3012) || /blocked due to unusual activity/i.test(text)) return 'blocked';
  if (c.has(-32031) || /runtime headers were not applied/i.test(text)) return 'headers_not_applied';
  if (c.has(1113) || c.has(1310) || /余额不足|insufficient balance|quota|no available resource package/i.test(text)) return 'quota';
  if (reason === 'auth_failed' || c.has(401) || c.has(403) || /\bunauthori[sz]ed\b|invalid api[\s_-]?key|authentication failed|auth_failed/i.test(text)) return 'auth_failed';
  if (reason === 'provider_not_configured' || /provider_not_configured|provider (?:is )?not configured|Provider Registry/i.test(text)) return 'provider_not_configured';
  if (reason === 'rate_limit' || c.has(429) || c.has(1302) || c.has(1303) || c.has(1305) || /rate[\s_-]?limit|too many requests/i.test(text)) return 'rate_limit';
  if (reason === 'timeout' || /\btimed?[\s_-]?out\b|timeout|econnreset|etimedout|socket hang up|cannot connect to api|network/i.test(text)) return 'network';
  if (reason === 'model_request_failed' || /model_request_failed|model request failed/i.test(text)) return 'model_request_failed';
  return 'unknown';
}

function providerSays(d: TurnFailureDetail): string {
  const said = d.underlyingErrorMessage ?? d.message;
  return said ? ` (zcode: ${said.length > 300 ? `${said.slice(0, 300)}…` : said})` : '';
}

/**
 * The explanation of a failed turn. `heuristicRetryable` is the older text-based judgement, used
 * for `unknown` causes only.
 */
export function explainTurnFailure(d: TurnFailureDetail, heuristicRetryable: boolean, locale: BridgeLocale = 'en'): ExplainedFailure {
  const cause = failureCause(d);
  const code = d.code ?? d.attribution?.code;
  const said = providerSays(d);
  // Final causes (captcha, auth, quota…) are never retried, whatever zcode says; otherwise zcode's own
  // `retryable` (current builds) wins, then the cause, then the older text-based judgement.
  const retryable = FINAL.has(cause) ? false : d.retryable ?? (cause === 'unknown' ? heuristicRetryable : true);
  const message = ((): string => {
    switch (cause) {
      case 'captcha':
        return `${bt(locale, 'The model provider asked for a captcha verification (code 3007), which only the ZCode desktop app can show: this plan needs the ZCode desktop app. Use a GLM Coding Plan API key for editor sessions, or run this turn in the ZCode desktop app.')}${said}`;
      case 'blocked':
        return `${bt(locale, 'The model provider blocked the request because of unusual activity (code 3012). Wait a while, then use the ZCode desktop app or a GLM Coding Plan API key.')}${said}`;
      case 'headers_not_applied':
        return d.message && !/runtime headers were not applied/i.test(d.message)
          ? d.message
          : bt(locale, 'zcode needed sign-in headers for this provider that the editor cannot give. Use a GLM Coding Plan API key (configured in the ZCode desktop app) for editor sessions.');
      case 'quota':
        return `${bt(locale, 'Your plan has no quota left for this model (insufficient balance or no resource package). Check your plan in the ZCode desktop app or pick another model.')}${said}`;
      case 'auth_failed':
        return `${bt(locale, 'Authentication with the model provider failed. Sign in again in the ZCode desktop app, or check the API key of the selected provider.')}${said}`;
      case 'provider_not_configured':
        return `${bt(locale, "The selected model's provider is not configured in zcode. Pick another model, or set the provider up in the ZCode desktop app.")}${said}`;
      case 'rate_limit':
        return `${bt(locale, 'The model provider is rate-limiting requests. Wait a moment and try again.')}${said}`;
      case 'network':
        return `${bt(locale, 'zcode could not reach the model provider (network error or timeout). Check your connection (and proxy), then try again.')}${said}`;
      case 'model_request_failed':
        return `${bt(locale, 'The model request failed. Try again, or pick another model.')}${said}`;
      case 'unknown':
        return d.message ?? bt(locale, 'The turn failed (zcode gave no reason).');
    }
  })();
  const retryAfterMs = retryAfterOf(d);
  return { cause, retryable, message, ...(code !== undefined ? { code } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/**
 * A `retryAfterMs` that zcode put on the failure (non-negative ms): on the error itself, its
 * attribution, its `cause`, or its `data` — where current builds move a seed-era `cause` to
 * (`data.cause`). Not every build says it; undefined then.
 */
function retryAfterOf(d: TurnFailureDetail): number | undefined {
  const data = field(d.data, 'cause');
  for (const holder of [d, d.attribution, d.cause, d.data, data]) {
    const value = field(holder, 'retryAfterMs');
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return undefined;
}

function field(holder: unknown, key: string): unknown {
  const value: unknown = typeof holder === 'object' && holder !== null && Object.hasOwn(holder, key) ? Reflect.get(holder, key) : undefined;
  return value;
}
