/**
 * Pure mappings between the payloads of ACP v1 (what the bridge's handlers speak) and the draft
 * ACP v2 (`@agentclientprotocol/sdk/experimental/v2`, schema/v2/schema.json): v2 requests from a
 * client become v1 requests for the handlers, v1 answers, updates and requests from the handlers
 * become v2 ones for the client. No state lives here; the per-connection bookkeeping (which request
 * an answer belongs to, message ids, turn state) is v2Translator.ts.
 *
 * What v2 changed that matters here: one `capabilities` and a required `info` object each way;
 * `authMethods` carry `type` and `methodId`; a config option's id is `configId`; a command is a
 * tagged `{type: "command"}`; a diff is a list of `changes` plus a patch; a permission request has
 * a `title` and names the tool call as its `subject`; stdio MCP servers are tagged and their
 * `args`/`env` optional; `session/load` is gone (resume with `replayFrom`); modes are gone (the mode
 * is a config option), so `current_mode_update` has no v2 form.
 */
import type * as V1 from '@agentclientprotocol/sdk';
import type * as V2 from '@agentclientprotocol/sdk/experimental/v2';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` without the keys whose value is undefined (the schema's optional fields stay absent). */
function defined<T extends Json>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A v1 capability flag (`true`) as v2's capability object (`{}`), absent when not offered. */
const flag = (on: boolean | undefined | null): Json | undefined => (on ? {} : undefined);

// ── client → agent ──────────────────────────────────────────────────────────────────────────────

/**
 * A v2 `initialize` as the v1 handler reads it. The v2 client's capabilities keep their meaning;
 * what v2 has no capability for because every v2 client takes it (config options of type boolean,
 * notices) is declared, and what v2 dropped (`fs/*`, `terminal/*`) is refused. The terminal-card
 * `_meta` extension is not carried over: a v2 terminal is a `terminal_update` stream the bridge does
 * not produce, so a v2 client gets zcode's command output as text.
 */
export function initializeParamsV1(params: V2.InitializeRequest): V1.InitializeRequest {
  const caps = params.capabilities ?? {};
  const meta = isObject(caps._meta) ? Object.fromEntries(Object.entries(caps._meta).filter(([key]) => key !== 'terminal_output')) : undefined;
  return defined({
    protocolVersion: params.protocolVersion,
    clientInfo: params.info,
    clientCapabilities: defined({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      session: { configOptions: { boolean: {} }, notices: {} },
      auth: { terminal: caps.auth?.terminal != null },
      elicitation: caps.elicitation ?? undefined,
      _meta: meta,
    }),
    _meta: params._meta ?? undefined,
  }) as V1.InitializeRequest;
}

/** v2 MCP servers as v1 ones: stdio loses its tag and gets its required lists, http its headers. */
export function mcpServersV1(servers: readonly V2.McpServer[] | undefined): V1.McpServer[] {
  return (servers ?? []).map((server) => {
    const s = server as Json;
    if (s.type === 'stdio') {
      const { type: _type, ...rest } = s;
      return { ...rest, args: s.args ?? [], env: s.env ?? [] } as V1.McpServer;
    }
    if (s.type === 'http') return { ...s, headers: s.headers ?? [] } as V1.McpServer;
    // Anything else goes on as it came: the v1 handler's schema refuses it with -32602.
    return s as V1.McpServer;
  });
}

/** A v2 `session/set_config_option`: a select value (`type: "id"`) is untagged in v1. */
export function setConfigOptionV1(params: V2.SetSessionConfigOptionRequest): V1.SetSessionConfigOptionRequest {
  const p = params as Json;
  if (p.type === 'id') {
    const { type: _type, ...rest } = p;
    return rest as V1.SetSessionConfigOptionRequest;
  }
  return p as V1.SetSessionConfigOptionRequest;
}

/** A v2 `session/new`: `mcpServers` is optional in v2, required in v1. */
export function newSessionV1(params: V2.NewSessionRequest): V1.NewSessionRequest {
  return { ...params, mcpServers: mcpServersV1(params.mcpServers) } as V1.NewSessionRequest;
}

/**
 * A v2 `session/resume`: with `replayFrom: {type: "start"}` it is v1's `session/load` (replay, then
 * answer), without it v1's `session/resume`. Another `replayFrom` is refused (undefined).
 */
export function resumeV1(params: V2.ResumeSessionRequest): { method: 'session/load' | 'session/resume'; params: Json } | undefined {
  const { replayFrom, ...rest } = params as V2.ResumeSessionRequest & Json;
  const common = { ...rest, mcpServers: mcpServersV1(params.mcpServers) };
  if (replayFrom === undefined || replayFrom === null) return { method: 'session/resume', params: common };
  if ((replayFrom as Json).type === 'start') return { method: 'session/load', params: common };
  return undefined;
}

// ── agent → client ──────────────────────────────────────────────────────────────────────────────

/** The bridge's v1 `initialize` answer in v2's shape (`info`, one `capabilities`, tagged auth methods). */
export function initializeResultV2(result: V1.InitializeResponse): V2.InitializeResponse {
  const agent = result.agentCapabilities ?? {};
  const prompt = agent.promptCapabilities ?? {};
  const sessionCaps = (agent.sessionCapabilities ?? {}) as Json;
  return defined({
    protocolVersion: 2,
    info: result.agentInfo ?? { name: 'unknown', version: 'unknown' },
    capabilities: {
      session: defined({
        prompt: defined({ image: flag(prompt.image), audio: flag(prompt.audio), embeddedContext: flag(prompt.embeddedContext) }),
        // v2 has no SSE transport; zcode takes stdio and http servers.
        mcp: defined({ stdio: {}, http: flag(agent.mcpCapabilities?.http) }),
        delete: sessionCaps.delete != null ? {} : undefined,
      }),
    },
    // A non-empty list is what advertises `auth/login` and `auth/logout` in v2 (v2Translator.ts maps them to v1's methods).
    authMethods: (result.authMethods ?? []).map((method) => {
      const { id, ...rest } = method as Json;
      return { ...rest, type: 'agent', methodId: id } as V2.AuthMethod;
    }),
    _meta: result._meta ?? undefined,
  }) as V2.InitializeResponse;
}

/** A v1 config option (`id`) as v2's (`configId`). */
export function configOptionsV2(options: readonly V1.SessionConfigOption[] | undefined): V2.SessionConfigOption[] | undefined {
  if (!options) return undefined;
  return options.map((option) => {
    const { id, ...rest } = option as Json;
    return { ...rest, configId: id } as V2.SessionConfigOption;
  });
}

/** v1 commands as v2's tagged ones (an input hint becomes a `text` input). */
export function commandsV2(commands: readonly V1.AvailableCommand[]): V2.AvailableCommand[] {
  return commands.map((command) =>
    defined({
      type: 'command',
      name: command.name,
      description: command.description,
      input: command.input ? defined({ type: 'text', hint: command.input.hint, _meta: command.input._meta ?? undefined }) : undefined,
      _meta: command._meta ?? undefined,
    }) as V2.AvailableCommand,
  );
}

/**
 * A v1 diff (`path`, `oldText`, `newText`) as v2's (`changes` + a git patch). The patch is one hunk
 * replacing the whole old text by the whole new one: correct for any client that applies or
 * renders it, if not minimal (the bridge has both texts, not zcode's edit operations).
 */
export function diffV2(diff: V1.Diff): V2.ToolCallContent {
  const created = diff.oldText === undefined || diff.oldText === null;
  const oldLines = created ? [] : splitLines(diff.oldText ?? '');
  const newLines = splitLines(diff.newText);
  const relative = diff.path.replace(/^\/+/, '');
  const header = created ? `--- /dev/null\n+++ b/${relative}\n` : `--- a/${relative}\n+++ b/${relative}\n`;
  const range = (start: number, count: number): string => `${count === 0 ? 0 : start},${count}`;
  const hunk = `@@ -${range(1, oldLines.length)} +${range(1, newLines.length)} @@\n`;
  const body = [...oldLines.map((line) => `-${line}\n`), ...newLines.map((line) => `+${line}\n`)].join('');
  return defined({
    type: 'diff',
    changes: [{ operation: created ? 'add' : 'modify', path: diff.path }],
    patch: { format: 'git_patch', text: `${header}${hunk}${body}` },
    _meta: diff._meta ?? undefined,
  }) as V2.ToolCallContent;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** v1 tool call content as v2's (only the diff changed shape). */
export function toolContentV2(content: readonly V1.ToolCallContent[] | undefined | null): V2.ToolCallContent[] | undefined {
  if (!content) return undefined;
  return content.map((item) => (item.type === 'diff' ? diffV2(item) : (item as V2.ToolCallContent)));
}

/** A v1 `tool_call` or `tool_call_update` as v2's one upsert (`tool_call_update` creates a card too). */
export function toolCallV2(call: V1.ToolCall | V1.ToolCallUpdate): V2.ToolCallUpdate {
  return defined({
    toolCallId: call.toolCallId,
    name: call.name ?? undefined,
    title: call.title ?? undefined,
    kind: call.kind ?? undefined,
    status: call.status ?? undefined,
    content: toolContentV2(call.content),
    locations: call.locations ?? undefined,
    rawInput: call.rawInput,
    rawOutput: call.rawOutput,
    _meta: call._meta ?? undefined,
  });
}

/**
 * A v1 `session/update` as v2's, given the message id a chunk belongs to (v2 requires one), or
 * undefined for an update v2 has no form for (`current_mode_update`: v2 has no modes, the mode's
 * config option is announced with `config_option_update`).
 */
export function sessionUpdateV2(update: V1.SessionUpdate, messageId: string): V2.SessionUpdate | undefined {
  switch (update.sessionUpdate) {
    case 'user_message_chunk':
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
      return { ...update, messageId: update.messageId ?? messageId } as V2.SessionUpdate;
    case 'tool_call':
    case 'tool_call_update':
      return { sessionUpdate: 'tool_call_update', ...toolCallV2(update) };
    case 'plan':
      return defined({ sessionUpdate: 'plan_update', plan: { type: 'items', planId: PLAN_ID, entries: update.entries }, _meta: update._meta ?? undefined }) as V2.SessionUpdate;
    case 'available_commands_update':
      return defined({ sessionUpdate: 'available_commands_update', availableCommands: commandsV2(update.availableCommands), _meta: update._meta ?? undefined }) as V2.SessionUpdate;
    case 'config_option_update':
      return defined({ sessionUpdate: 'config_option_update', configOptions: configOptionsV2(update.configOptions) ?? [], _meta: update._meta ?? undefined }) as V2.SessionUpdate;
    case 'current_mode_update':
      return undefined;
    default: {
      const kind = (update as { sessionUpdate: string }).sessionUpdate;
      // session_info_update, usage_update, notice: the same in both versions. An extension kind
      // (`_…`) goes as it is; a v1 kind this mapping does not know has no v2 meaning.
      return SAME_IN_V2.has(kind) || kind.startsWith('_') ? (update as unknown as V2.SessionUpdate) : undefined;
    }
  }
}

/** The one plan of a session: v1's `plan` always carries the complete list, so it is one v2 plan. */
export const PLAN_ID = 'plan';

const SAME_IN_V2 = new Set(['session_info_update', 'usage_update', 'notice']);

/** The chunk kinds whose v2 form needs a `messageId`. */
export function isChunk(update: V1.SessionUpdate): boolean {
  return update.sessionUpdate === 'user_message_chunk' || update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'agent_thought_chunk';
}

/** A v1 `session/request_permission` as v2's: a title, the tool call as its subject. */
export function permissionRequestV2(params: V1.RequestPermissionRequest): V2.RequestPermissionRequest {
  const toolCall = toolCallV2(params.toolCall);
  return defined({
    sessionId: params.sessionId,
    title: params.toolCall.title ?? 'Allow this tool call?',
    subject: { type: 'tool_call', toolCall },
    options: params.options as V2.PermissionOption[],
    _meta: params._meta ?? undefined,
  }) as V2.RequestPermissionRequest;
}

/** A v1 `session/new` answer in v2's shape (no `modes`). */
export function newSessionResultV2(result: V1.NewSessionResponse): V2.NewSessionResponse {
  return defined({ sessionId: result.sessionId, configOptions: configOptionsV2(result.configOptions ?? undefined), _meta: result._meta ?? undefined });
}

/** A v1 `session/load` or `session/resume` answer as v2's `session/resume` answer. */
export function resumeResultV2(result: V1.LoadSessionResponse | V1.ResumeSessionResponse): V2.ResumeSessionResponse {
  return defined({ configOptions: configOptionsV2(result.configOptions ?? undefined), _meta: result._meta ?? undefined });
}

/** A v1 `session/set_config_option` answer in v2's shape. */
export function setConfigOptionResultV2(result: V1.SetSessionConfigOptionResponse): V2.SetSessionConfigOptionResponse {
  return defined({ configOptions: configOptionsV2(result.configOptions) ?? [], _meta: result._meta ?? undefined });
}

/**
 * The `state_update` that ends a v2 turn, from the v1 prompt answer. `usage` (unstable in v1, absent
 * from v2's idle state) goes under `_meta.usage`, next to the answer's own `_meta`.
 */
export function idleStateV2(result: V1.PromptResponse): V2.SessionUpdate {
  const usage = (result as { usage?: unknown }).usage;
  const meta = { ...(result._meta ?? {}), ...(usage !== undefined && usage !== null ? { usage } : {}) };
  return defined({ sessionUpdate: 'state_update', state: 'idle', stopReason: result.stopReason, _meta: Object.keys(meta).length > 0 ? meta : undefined }) as V2.SessionUpdate;
}

/** The `state_update` of a prompt that failed after v2 acknowledged it: an `error` stop (a cancelled request: `cancelled`). */
export function failedStateV2(error: { code: number; message: string; data?: unknown }): V2.SessionUpdate {
  if (error.code === REQUEST_CANCELLED) return { sessionUpdate: 'state_update', state: 'idle', stopReason: 'cancelled' };
  return { sessionUpdate: 'state_update', state: 'idle', stopReason: 'error', error: defined({ code: error.code, message: error.message, data: error.data }) } as V2.SessionUpdate;
}

/** ACP's -32800, "request cancelled". */
const REQUEST_CANCELLED = -32800;
