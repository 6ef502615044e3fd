/**
 * `/quota` and `_zcode/account/usage`: the GLM Coding Plan windows, fetched from the
 * provider by the bridge itself, because zcode does not expose plan quota (docs/zcode-protocol.md
 * "Listings, usage and quota").
 *
 * - Credentials: the enabled Coding Plan key in zcode's own `~/.zcode/v2/config.json` (the key
 *   zcode's turns already use, hostRequests.ts); never logged. No key → `unavailable: no_key`.
 * - Endpoint: `https://api.z.ai` (Z.AI plans) or `https://open.bigmodel.cn` (a bigmodel plan) +
 *   `/api/monitor/usage/quota/limit`, `Authorization: Bearer <key>` (as the reference
 *   bridge `william0wang/zcode-acp` does; not verified live);
 *   `ZCODE_ACP_QUOTA_URL` replaces the whole URL (tests, proxies).
 * - A value is fresh for `FRESH_MS`; a failed refresh keeps the last value marked `stale` with
 *   the reason, so a client can show "as of …" instead of nothing.
 */
import type { Logger } from '../../logger.ts';
import { codingPlanCredentials, defaultConfigSource } from '../../zcode/hostRequests.ts';
import type { ZcodeConfigSource } from '../../zcode/hostRequests.ts';
import { parseQuota } from '../../translate/quotaWindows.ts';
import type { AccountQuota, AccountUsageResponse, QuotaUnavailable } from './contractDescriptors.ts';

const QUOTA_PATH = '/api/monitor/usage/quota/limit';
const FRESH_MS = 60_000;
const TIMEOUT_MS = 8_000;

export interface QuotaOptions {
  config?: ZcodeConfigSource;
  fetch?: typeof globalThis.fetch;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

export class QuotaService {
  private last: AccountQuota | undefined;
  private lastAt = 0;
  private inFlight: Promise<Pick<AccountUsageResponse, 'quota' | 'unavailable'>> | undefined;
  /** Injected (tests), else derived from the environment at each read (HOME may change). */
  private readonly config: ZcodeConfigSource | undefined;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;

  constructor(
    private readonly logger: Logger,
    options: QuotaOptions = {},
  ) {
    this.env = options.env ?? process.env;
    this.config = options.config;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  /** The plan quota: cached while fresh unless `refresh`; one request at a time. */
  quota(refresh = false): Promise<Pick<AccountUsageResponse, 'quota' | 'unavailable'>> {
    if (!refresh && this.last && !this.last.stale && this.now() - this.lastAt < FRESH_MS) return Promise.resolve({ quota: this.last });
    this.inFlight ??= this.fetchQuota().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async fetchQuota(): Promise<Pick<AccountUsageResponse, 'quota' | 'unavailable'>> {
    const config = this.config ?? defaultConfigSource(this.env);
    const credentials = codingPlanCredentials(config.readText());
    if (!credentials) {
      return this.failed({ reason: 'no_key', message: `no GLM Coding Plan API key in zcode's configuration (${config.file}); zcode does not report plan quota itself` });
    }
    const host = /bigmodel/.test(credentials.providerId) ? 'https://open.bigmodel.cn' : 'https://api.z.ai';
    const url = this.env.ZCODE_ACP_QUOTA_URL || `${host}${QUOTA_PATH}`;
    let status: number;
    let body: unknown;
    try {
      const response = await this.fetchImpl(url, {
        headers: { Accept: 'application/json', Authorization: `Bearer ${credentials.apiKey}` },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      status = response.status;
      const text = await response.text();
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
    } catch (error) {
      return this.failed({ reason: 'network', message: `could not reach ${new URL(url).host}: ${error instanceof Error ? error.message : String(error)}` });
    }
    const parsed = parseQuota(status, body);
    if (!parsed.ok) return this.failed({ reason: parsed.reason, message: parsed.message });
    this.last = { provider: credentials.providerId, ...(parsed.plan ? { plan: parsed.plan } : {}), windows: parsed.windows, fetchedAt: new Date(this.now()).toISOString(), stale: false };
    this.lastAt = this.now();
    this.logger.debug(`plan quota read for ${credentials.providerId}: ${parsed.windows.map((w) => `${w.key} ${w.remainingPercent}%`).join(', ')}`);
    return { quota: this.last };
  }

  /** A failure: the last value, marked stale, when there is one. */
  private failed(unavailable: QuotaUnavailable): Pick<AccountUsageResponse, 'quota' | 'unavailable'> {
    this.logger.debug(`plan quota unavailable (${unavailable.reason}): ${unavailable.message}`);
    if (!this.last) return { quota: null, unavailable };
    this.last = { ...this.last, stale: true, staleReason: unavailable.message };
    return { quota: this.last, unavailable };
  }
}
