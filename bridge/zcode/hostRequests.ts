/**
 * The requests current zcode sends to its host that are not user dialogs (docs/zcode-protocol.md
 * "Requests zcode sends"). Each gets the answer a host without that capability should give, honestly
 * and at once: the bridge never claims headers, an official sign-in or a browser it does not have.
 *
 * - `session/requestRuntimePreferences`: the preferences a headless host has (no native search
 *   enhancements, no memory, questions are never auto-resolved). zcode waits for this answer
 *   (15 s) before `session/create` finishes (source; live).
 * - `interaction/requestProviderRuntimeHeaders`: for a Coding Plan provider whose API key is in
 *   zcode's own `~/.zcode/v2/config.json`, that key, as the desktop app would send it (as the
 *   reference bridge `william0wang/zcode-acp` does); otherwise `{headersApplied:false, errorMessage}` with a message the user will read
 *   (Start Plan needs the desktop app's captcha, seen live). Never -32601: that makes zcode sign the
 *   request itself and fail with a misleading error (reference bridge). The key is never logged.
 * - `interaction/requestOfficialMcpAuthHeaders`: `{ok:false, reason:"official_auth_unavailable"}`
 *   (zcode's schemas).
 * - `interaction/browserList` / `interaction/browserExecute`: an error (no browser).
 * - Anything else: -32601, logged once per method name.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import { ZcodeError } from './backend.ts';
import type { Logger } from '../logger.ts';

const HOST_REQUEST = {
  runtimePreferences: 'session/requestRuntimePreferences',
  providerHeaders: 'interaction/requestProviderRuntimeHeaders',
  officialMcpAuth: 'interaction/requestOfficialMcpAuthHeaders',
  browserList: 'interaction/browserList',
  browserExecute: 'interaction/browserExecute',
} as const;

/**
 * The runtime preferences reply. Older builds took exactly the three booleans, and 0.16.5 / 0.16.9
 * still accept them (live); the newer optional fields keep their defaults by being left out
 * (`modelContextBudgetStrategy` defaults to "preflight-v1", the only value current builds use).
 */
export const RUNTIME_PREFERENCES_REPLY = {
  nativeSearchEnhancementsEnabled: false,
  memoryEnabled: false,
  askUserQuestionAutoResolutionEnabled: false,
} as const;

/** `interaction/requestProviderRuntimeHeaders` params (only what the answer depends on). */
const ProviderHeadersParams = z
  .object({
    requestId: z.string(),
    sessionId: z.string().optional(),
    providerId: z.string(),
    accountAccess: z.object({ mode: z.string().optional(), accountType: z.string().optional() }).passthrough().optional(),
    reason: z.string().optional(),
  })
  .passthrough();

/** The part of zcode's `~/.zcode/v2/config.json` that holds account-plan keys. */
const ZcodeConfig = z
  .object({
    provider: z
      .record(
        z.string(),
        z
          .object({
            enabled: z.boolean().optional(),
            disabled: z.boolean().optional(),
            // A key stored as something other than a string (an encoded envelope) is not usable, not a reason to drop the table.
            options: z.object({ apiKey: z.string().optional().catch(undefined) }).passthrough().optional(),
          })
          .passthrough(),
      )
      .optional(),
  })
  .passthrough();

export type ProviderHeadersReply =
  | { headersApplied: true; requestAuth: { apiKey: string } }
  | { headersApplied: false; errorMessage: string };

export const START_PLAN_MESSAGE =
  'This ZCode plan (Start Plan) needs the ZCode desktop app: its provider asks for a captcha only the app can show. ' +
  'In the editor, use a GLM Coding Plan API key (configure it in the ZCode desktop app), or run this turn in the ZCode app.';
export const NO_KEY_MESSAGE =
  'The bridge has no credentials for this provider: zcode asked the host for sign-in headers, and editor sessions can only pass a Coding Plan API key ' +
  'stored in ZCode\'s own configuration (~/.zcode/v2/config.json). Add a GLM Coding Plan API key in the ZCode desktop app, or pick a provider configured with an API key.';

/**
 * A secret zcode stored encoded (desktop 3.18.2 and later write `enc:v2…` values): only zcode can
 * read it, so it is never handed on as a key (it would fail as one, with a confusing error).
 */
export function isEncodedSecret(value: string): boolean {
  return /^enc:v\d+\b/.test(value);
}

/** Where zcode keeps its own configuration; `readText` is the file system (tests pass a fake). */
export interface ZcodeConfigSource {
  readText(): string | undefined;
  /** For messages: where it was read. */
  readonly file: string;
}

export function defaultConfigSource(env: NodeJS.ProcessEnv = process.env): ZcodeConfigSource {
  const file = path.join(env.HOME || env.USERPROFILE || homedir(), '.zcode', 'v2', 'config.json');
  return {
    file,
    readText: () => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** The `provider` table of zcode's configuration text; undefined when it is missing or unreadable. */
function configProviders(configText: string | undefined): NonNullable<z.infer<typeof ZcodeConfig>['provider']> | undefined {
  if (!configText) return undefined;
  try {
    const parsed = ZcodeConfig.safeParse(JSON.parse(configText));
    return parsed.success ? parsed.data.provider : undefined;
  } catch {
    return undefined;
  }
}

/** The user's key for an account provider in zcode's configuration (`account:X` is `builtin:X` there). */
export function accountApiKey(providerId: string, configText: string | undefined): string | undefined {
  const providers = configProviders(configText);
  if (!providers) return undefined;
  const suffix = providerId.replace(/^(?:account|builtin):/, '');
  for (const id of [providerId, `builtin:${suffix}`, suffix]) {
    const entry = providers[id];
    if (!entry || entry.enabled === false || entry.disabled === true) continue;
    const key = entry.options?.apiKey?.trim();
    if (key && !isEncodedSecret(key)) return key;
  }
  return undefined;
}

/**
 * The enabled GLM Coding Plan provider with a stored key (`builtin:zai-coding-plan`, a
 * `…bigmodel…coding-plan` one …), first by id: what the quota request signs with (acp/extensions/quota.ts).
 */
export function codingPlanCredentials(configText: string | undefined): { providerId: string; apiKey: string } | undefined {
  const providers = configProviders(configText) ?? {};
  for (const id of Object.keys(providers).sort()) {
    const entry = providers[id];
    if (!/coding-plan/.test(id) || entry.enabled === false || entry.disabled === true) continue;
    const apiKey = entry.options?.apiKey?.trim();
    if (apiKey && !isEncodedSecret(apiKey)) return { providerId: id, apiKey };
  }
  return undefined;
}

/**
 * The answer to one provider-headers request (pure). Coding Plan: the stored key when there is one.
 * Start Plan: refused with the captcha explanation, whatever is stored (a key does not replace the
 * captcha ticket). Other providers: the stored key if any, else refused.
 */
export function providerHeadersReply(params: z.infer<typeof ProviderHeadersParams>, configText: string | undefined): ProviderHeadersReply {
  const mode = params.accountAccess?.mode;
  const startPlan = mode === 'start-plan' || (mode === undefined && /start-plan/.test(params.providerId));
  if (startPlan) return { headersApplied: false, errorMessage: START_PLAN_MESSAGE };
  const apiKey = accountApiKey(params.providerId, configText);
  if (apiKey) return { headersApplied: true, requestAuth: { apiKey } };
  return { headersApplied: false, errorMessage: NO_KEY_MESSAGE };
}

/** Answers the host requests (see the file comment). One per backend; the log of unknown methods is per instance. */
export class HostRequests {
  private readonly unknownLogged = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly config: ZcodeConfigSource = defaultConfigSource(),
  ) {}

  /** True when `method` is one of the host requests this class answers (unknown ones included). */
  answer(method: string, params: unknown): unknown {
    switch (method) {
      case HOST_REQUEST.runtimePreferences:
        return { ...RUNTIME_PREFERENCES_REPLY };
      case HOST_REQUEST.providerHeaders: {
        const parsed = ProviderHeadersParams.safeParse(params);
        if (!parsed.success) {
          // Still the documented result shape: an error here would fail the turn less clearly.
          this.logger.warn(`unexpected ${method} params (${z.prettifyError(parsed.error)}); answering headersApplied:false`);
          return { headersApplied: false, errorMessage: NO_KEY_MESSAGE };
        }
        const reply = providerHeadersReply(parsed.data, this.config.readText());
        // Names and outcome only: the key itself never reaches a log.
        this.logger.info(
          `zcode asked for runtime headers for ${parsed.data.providerId} (${parsed.data.accountAccess?.mode ?? 'no account mode'}): ` +
            (reply.headersApplied ? `answered with the API key stored in ${this.config.file}` : 'answered headersApplied:false'),
        );
        return reply;
      }
      case HOST_REQUEST.officialMcpAuth:
        this.logOnce(method, 'official MCP servers need the ZCode desktop sign-in; answered official_auth_unavailable', 'info');
        return { ok: false, reason: 'official_auth_unavailable' };
      case HOST_REQUEST.browserList:
      case HOST_REQUEST.browserExecute:
        this.logOnce(method, 'the bridge has no browser for zcode\'s browser use; answered with an error', 'info');
        throw new ZcodeError('This host has no browser for browser use (editor sessions run without the ZCode desktop app).', -32601, method);
      default:
        this.logOnce(method, 'the bridge does not know this request; answered -32601');
        throw new ZcodeError(`Method not found: ${method}`, -32601, method);
    }
  }

  /** Documented requests with a documented "unsupported" answer are routine (info); unknown ones are worth a warning. */
  private logOnce(method: string, what: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.unknownLogged.has(method)) return;
    this.unknownLogged.add(method);
    this.logger[level](`zcode sent ${method}: ${what} (logged once)`);
  }
}
