// What a current build (profiles 0.16.5, desktop-3.12) asks of its host, and the exact replies it accepts
// (docs/zcode-protocol.md "Requests zcode sends", zcode's zod schemas). Kept apart from the seed-era interactions so the bridge side
// of each request (bridge/zcode/hostRequests.ts) has one place to be tested against:
//
// - `session/requestRuntimePreferences {sessionId, scope:"runtime-materialization"|"user-execution"}` on
//   create/resume (materialization) and send (user execution); 15 s timeout; -32601/-32020 → defaults.
// - `interaction/requestProviderRuntimeHeaders` before each model request of a Start Plan model (desktop-3.12;
//   quirk `headers-every-request`: every model); false → the turn fails with the host's message.
// - `interaction/requestOfficialMcpAuthHeaders` once after each create; never blocks it.
import { Cancelled, SimError, TurnFailure, isObject, log } from './util.mjs';
import { accountAccessOf, selectionOf } from './current.mjs';

const PREFERENCE_KEYS = ['nativeSearchEnhancementsEnabled', 'memoryEnabled', 'askUserQuestionAutoResolutionEnabled', 'integratedTerminalShell', 'modelContextBudgetStrategy'];
const OFFICIAL_MCP_REASONS = ['official_auth_unavailable', 'official_auth_plan_required', 'official_mcp_origin_untrusted'];
/** Defaults the runtime uses when the host answers -32601 / -32020 (zcodeSessionRuntimePreferencesResultSchema). */
const DEFAULT_PREFERENCES = { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: true, modelContextBudgetStrategy: 'preflight-v1' };

function timeoutMs(name, fallback) {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** Why a runtime-preferences result is not what the strict schema accepts, or undefined. */
function preferencesProblem(result) {
  if (!isObject(result)) return 'the result must be an object';
  const extra = Object.keys(result).filter((k) => !PREFERENCE_KEYS.includes(k));
  if (extra.length) return `Unrecognized key(s): ${extra.join(', ')}`;
  if (typeof result.nativeSearchEnhancementsEnabled !== 'boolean') return 'nativeSearchEnhancementsEnabled: expected boolean';
  for (const key of ['memoryEnabled', 'askUserQuestionAutoResolutionEnabled']) {
    if (result[key] !== undefined && typeof result[key] !== 'boolean') return `${key}: expected boolean`;
  }
  if (result.modelContextBudgetStrategy !== undefined && !['legacy', 'preflight-v1'].includes(result.modelContextBudgetStrategy)) return 'modelContextBudgetStrategy: expected "legacy" or "preflight-v1"';
  return undefined;
}

/** Why a provider-headers reply is not `{headersApplied:true, requestAuth, errorMessage?}` / `{headersApplied:false, errorMessage?}`. */
function headersProblem(result) {
  if (!isObject(result) || typeof result.headersApplied !== 'boolean') return 'expected {headersApplied: boolean, …}';
  const allowed = result.headersApplied ? ['headersApplied', 'requestAuth', 'errorMessage'] : ['headersApplied', 'errorMessage'];
  const extra = Object.keys(result).filter((k) => !allowed.includes(k));
  if (extra.length) return `Unrecognized key(s): ${extra.join(', ')}`;
  if (result.errorMessage !== undefined && (typeof result.errorMessage !== 'string' || result.errorMessage === '')) return 'errorMessage: expected a non-empty string';
  if (!result.headersApplied) return undefined;
  const auth = result.requestAuth;
  if (!isObject(auth)) return 'requestAuth is required when headersApplied is true';
  if (Object.keys(auth).some((k) => k !== 'apiKey' && k !== 'headers')) return 'requestAuth: only apiKey and headers are allowed';
  if (auth.apiKey !== undefined && (typeof auth.apiKey !== 'string' || auth.apiKey === '')) return 'requestAuth.apiKey: expected a non-empty string';
  if (auth.headers !== undefined && !(isObject(auth.headers) && Object.values(auth.headers).every((v) => typeof v === 'string' && v !== ''))) return 'requestAuth.headers: expected {name: value}';
  return undefined;
}

function officialMcpProblem(result) {
  if (isObject(result) && result.ok === true && Object.keys(result).every((k) => k === 'ok' || k === 'headers') && isObject(result.headers) && Object.values(result.headers).every((v) => typeof v === 'string')) return undefined;
  if (isObject(result) && result.ok === false && Object.keys(result).every((k) => k === 'ok' || k === 'reason') && OFFICIAL_MCP_REASONS.includes(result.reason)) return undefined;
  return `expected {ok:true, headers} or {ok:false, reason: ${OFFICIAL_MCP_REASONS.join(' | ')}}`;
}

/** Resolve with the reply message, or with `{timedOut:true}` after `ms`. */
function withTimeout(response, ms) {
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), ms)));
  return Promise.race([response, timeout]).finally(() => clearTimeout(timer));
}

export class HostRequests {
  constructor(sv) {
    this.sv = sv;
    /** Every provider-headers request answered so far: { requestId, providerId, headersApplied } (self-tests read the record file instead). */
    this.headerRequests = 0;
  }

  /**
   * `session/requestRuntimePreferences` of a current build. Resolves with the preferences in force; throws the
   * SimError `session/create` (or send) then fails with: the host's own error, a strict-schema -32602, or
   * -32022 after 15 s without an answer (ZCODE_SIM_PREFS_TIMEOUT_MS overrides).
   */
  async runtimePreferences(sessionId, scope) {
    const method = 'session/requestRuntimePreferences';
    const { response } = this.sv.conn.request(method, { sessionId, scope });
    const reply = await withTimeout(response, timeoutMs('ZCODE_SIM_PREFS_TIMEOUT_MS', 15000));
    if (reply.timedOut) throw new SimError(-32022, `Client request timed out: ${method}`);
    if ('error' in reply) {
      const code = reply.error?.code;
      if (code === -32601 || code === -32020) return { ...DEFAULT_PREFERENCES };
      throw new SimError(typeof code === 'number' ? code : -32603, String(reply.error?.message ?? 'runtime preferences failed'));
    }
    const problem = preferencesProblem(reply.result);
    if (problem) {
      this.sv.conn.violation(`${method} reply rejected by the strict schema: ${problem}`, reply);
      throw new SimError(-32602, `Invalid ${method} result: ${problem}`);
    }
    return { ...DEFAULT_PREFERENCES, ...reply.result };
  }

  /** Whether the model request of `turn` needs provider runtime headers first (desktop 3.12+, Start Plan). */
  needsHeaders(session) {
    if (!this.sv.profile.providerHeaders) return false;
    const access = accountAccessOf(selectionOf(session).providerId);
    return access?.mode === 'start-plan' || this.sv.quirks.has('headers-every-request');
  }

  /**
   * `interaction/requestProviderRuntimeHeaders` before a model request. A true reply lets the request go;
   * false fails the turn with the host's `errorMessage`; -32601 makes the runtime sign with the provider's
   * OAuth token, which the provider refuses (the misleading error a host without the handler sees).
   */
  async beforeModelRequest(turn) {
    const { session } = turn;
    if (!this.needsHeaders(session)) return;
    const method = 'interaction/requestProviderRuntimeHeaders';
    const selection = selectionOf(session);
    const params = {
      requestId: `hdr_${this.sv.ids.hex(12)}`,
      sessionId: session.sessionId,
      turnId: turn.id,
      workspace: { workspacePath: session.workspace.workspacePath, workspaceKey: session.workspace.workspaceKey ?? session.workspace.workspacePath },
      modelSelection: selection,
      providerId: selection.providerId,
      reason: 'model-request',
    };
    const access = accountAccessOf(selection.providerId);
    if (access) params.accountAccess = access;
    this.headerRequests++;
    const { response } = this.sv.conn.request(method, params);
    const aborted = new Promise((resolve) => turn.signal.addEventListener('abort', () => resolve({ aborted: true }), { once: true }));
    const reply = await Promise.race([withTimeout(response, timeoutMs('ZCODE_SIM_HEADERS_TIMEOUT_MS', 180000)), aborted]);
    if (reply.aborted) {
      this.sv.conn.notify('interaction/providerRuntimeHeadersCancelled', { requestId: params.requestId, sessionId: session.sessionId, workspace: params.workspace });
      throw new Cancelled();
    }
    const attribution = { source: 'provider', reason: 'auth_failed', providerId: selection.providerId, modelId: selection.modelId, transport: 'sse' };
    if (reply.timedOut) throw new TurnFailure(-32022, `Client request timed out: ${method}`, undefined, { type: 'ProviderRuntimeHeadersError', code: 'runtime_headers_timeout', attribution, retryable: false });
    if ('error' in reply) {
      log(`${method} answered ${JSON.stringify(reply.error)}: signing with the provider's OAuth token instead`);
      throw new TurnFailure(401, 'Invalid API key: the key must contain one separator', undefined, { type: 'ProviderAuthError', code: 'auth_failed', attribution: { ...attribution, statusCode: 401 }, retryable: false });
    }
    const problem = headersProblem(reply.result);
    if (problem) {
      this.sv.conn.violation(`${method} reply rejected by the strict schema: ${problem}`, reply);
      throw new TurnFailure(-32602, `zcode-sim: invalid reply to ${method}: ${problem}`);
    }
    if (!reply.result.headersApplied) {
      const message = reply.result.errorMessage ?? 'Provider runtime headers were not applied before model request attempt.';
      throw new TurnFailure(-32031, message, undefined, { type: 'ProviderRuntimeHeadersError', code: 'runtime_headers_not_applied', attribution, retryable: false });
    }
  }

  /** `interaction/requestOfficialMcpAuthHeaders` after a create: checked, never blocking, -32601 only disables the MCP. */
  officialMcpAuth(session) {
    const method = 'interaction/requestOfficialMcpAuthHeaders';
    const params = {
      requestId: `mcpauth_${this.sv.ids.hex(12)}`,
      workspace: { workspacePath: session.workspace.workspacePath, workspaceKey: session.workspace.workspaceKey ?? session.workspace.workspacePath },
      pluginId: 'zcode-official@builtin',
      mcpKey: 'image_search',
      targetOrigin: 'https://api.z.ai',
    };
    const { response } = this.sv.conn.request(method, params);
    void response.then((reply) => {
      if ('error' in reply) return void log(`${method} answered ${JSON.stringify(reply.error)}: official MCP "${params.mcpKey}" disabled`);
      const problem = officialMcpProblem(reply.result);
      if (problem) this.sv.conn.violation(`${method} reply rejected by the strict schema: ${problem}`, reply);
    });
  }
}

/** `startup/storageState` notifications current desktop builds send before the client has sent anything. */
export function storageStartup(sv) {
  const attemptId = `attempt_${sv.ids.hex(12)}`;
  const phases = ['checking', 'waiting_for_lock', 'migrating', 'committing', 'ready'];
  phases.forEach((phase, i) => {
    sv.conn.notify('startup/storageState', { schemaVersion: 1, attemptId, sequence: i + 1, databaseId: 'session-db', databaseKind: 'session', phase, elapsedMs: i * 3 });
  });
}
