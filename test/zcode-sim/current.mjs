// The current-build wire shapes (profiles 0.16.5 and desktop-3.12), written from zcode's own published zod
// schemas (zcode-current.md, source S1: packages/shared/src/zcode-protocol/index.ts and
// zcode-protocol-legacy-types.ts). The simulator keeps ONE internal model (the seed-era shapes of
// sessions.mjs / turns.mjs); this file renders it the way a current build puts it on the wire:
// snapshots, settings, messages, session infos, event envelopes and payloads, top-level state.updated.
import { SimError, isObject } from './util.mjs';

export const PROTOCOL = { name: 'ZCode Protocol', version: 1 };
export const CURRENT_MODES = ['plan', 'build', 'edit', 'yolo', 'auto'];

/** The modes a profile's `zcodeSessionModeSchema` takes: 3.15 adds `guarded` (profile flag `guarded`). */
export function modesOf(profile) {
  return profile.guarded ? ['plan', 'build', 'edit', 'yolo', 'guarded', 'auto'] : CURRENT_MODES;
}
export const DELIVERY_KINDS = ['desktop-continuous', 'web-remote-replayable'];

/** Reasoning levels as current builds describe them (objects, not strings). */
export const LEVELS = [
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'max', label: 'Max' },
];

const TEXT_ONLY = { inputFormat: { supportsText: true, supportsImage: false, supportsVideo: false, supportsAudio: false, supportsPdf: false }, outputFormat: { supportsText: true } };
const WITH_IMAGES = { ...TEXT_ONLY, inputFormat: { ...TEXT_ONLY.inputFormat, supportsImage: true } };

/**
 * Current model options: ids under `ref`, provider ids as the desktop app's account plans name them. The
 * Start Plan model is the one whose requests need provider runtime headers (hostRequests.mjs).
 */
export const CURRENT_MODELS = [
  { ref: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.2' }, label: 'GLM-5.2', providerLabel: 'GLM Coding Plan', contextWindow: 200000, maxOutputTokens: 131072, reasoning: { levels: LEVELS, defaultLevel: 'max' }, properties: WITH_IMAGES },
  { ref: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.1-Air' }, label: 'GLM-5.1 Air', providerLabel: 'GLM Coding Plan', contextWindow: 128000, reasoning: { levels: LEVELS, defaultLevel: 'high' }, properties: TEXT_ONLY },
  { ref: { providerId: 'account:zai-coding-plan', modelId: 'GLM-4.6' }, label: 'GLM-4.6', providerLabel: 'GLM Coding Plan', contextWindow: 128000, properties: TEXT_ONLY },
  { ref: { providerId: 'account:zai-start-plan', modelId: 'GLM-5.2-Start' }, label: 'GLM-5.2 (Start Plan)', providerLabel: 'Z.ai Start Plan', contextWindow: 200000, reasoning: { levels: LEVELS, defaultLevel: 'max' }, properties: WITH_IMAGES },
];

/** The account access of a provider (the `accountAccess` of `requestProviderRuntimeHeaders`). */
export function accountAccessOf(providerId) {
  if (providerId === 'account:zai-start-plan') return { type: 'zhipu-account', accountType: 'zai', mode: 'start-plan', entitled: true };
  if (providerId === 'account:zai-coding-plan') return { type: 'zhipu-account', accountType: 'zai', mode: 'individual-coding-plan', entitled: true };
  return undefined;
}

export function modelOf(session) {
  return CURRENT_MODELS.find((m) => m.ref.modelId === session.modelId) ?? CURRENT_MODELS[0];
}

export function selectionOf(session) {
  const { ref } = modelOf(session);
  return session.reasoningLevel ? { ...ref, options: { reasoningLevel: session.reasoningLevel } } : { ...ref };
}

/** `settings` (zcodeSessionSettingsStateSchema): model {current, available, lastUsed}, thoughtLevel, mode, permission. */
export function currentSettings(session) {
  return {
    model: { current: selectionOf(session), available: CURRENT_MODELS, lastUsed: selectionOf(session) },
    thoughtLevel: { enabled: true, current: session.thoughtLevel, defaultLevel: 'high', available: LEVELS },
    mode: { current: session.mode },
    permission: { mode: session.mode, rulesRevision: session.rules?.length ?? 0 },
  };
}

/** A goal as `zcodeSessionGoalSchema` has it (seed internal: {objective, status}). */
export function currentGoal(session) {
  const goal = session.goal;
  if (!goal) return null;
  goal.targetId ??= `target_${session.sessionId.slice(5)}`;
  goal.createdAt ??= Date.now();
  goal.updatedAt ??= goal.createdAt;
  return {
    sessionId: session.sessionId, targetId: goal.targetId, objective: goal.objective, summaryTitle: null,
    status: goal.status === 'paused' ? 'paused' : 'active', tokenBudget: null, tokensUsed: 0, timeUsedSeconds: 0,
    createdAt: goal.createdAt, updatedAt: goal.updatedAt,
  };
}

/** `zcodeSessionInfoSchema`: what `session` of a snapshot and every `session/list` entry is. */
export function sessionInfo(session) {
  const info = {
    sessionId: session.sessionId,
    workspace: { workspacePath: session.workspace.workspacePath, workspaceKey: session.workspace.workspaceKey ?? session.workspace.workspacePath },
    traceId: session.traceId,
    sessionKind: session.forkedFrom ? 'fork' : 'interactive',
    title: session.title,
    titleSource: session.titleSource ?? (session.title === 'New session' ? 'default' : 'first_input'),
    mode: session.mode,
    status: session.turn ? 'running' : 'idle',
    model: { providerId: modelOf(session).ref.providerId, modelId: modelOf(session).ref.modelId },
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
  if (session.forkedFrom) info.parentSessionId = session.forkedFrom.sessionId;
  return info;
}

/** The projection. Its `sessionId` is the literal "unknown" on current builds (zcode-current.md §3): never the id. */
function projection(session) {
  const out = {
    sessionId: 'unknown',
    status: session.turn ? 'running' : 'idle',
    mode: session.mode,
    turnCount: session.turnCount ?? 0,
    totalTokenCount: session.totalTokenCount,
    contextUsed: session.contextUsed,
    contextWindow: session.contextWindow,
    pendingPermissions: [],
    activeToolCalls: [],
    backgroundJobs: [],
    target: currentGoal(session),
  };
  if (session.turn) out.currentTurnId = session.turn.id;
  return out;
}

const SLASH_COMMANDS = [
  { name: 'compact', description: 'Compact the conversation', source: 'builtin' },
  { name: 'goal', description: 'Set or show the session goal', inputHint: '[set|show|clear] <objective>', source: 'builtin' },
];

/** `zcodeSessionStateSnapshotSchema`: the result of create, resume and read. */
export function snapshot(session, { messageLimit } = {}) {
  const messages = session.messages.map((m) => currentMessage(session, m));
  return {
    protocol: PROTOCOL,
    session: sessionInfo(session),
    settings: currentSettings(session),
    projection: projection(session),
    runtime: { eventSeq: session.seq, stateRevision: session.stateRevision ?? 0, deliveryKind: 'desktop-continuous', ...(session.turn ? { activeTurnId: session.turn.id, activeTurnKind: 'regular' } : {}), pendingRequestIds: [] },
    messages: messageLimit ? messages.slice(-messageLimit) : messages,
    todos: session.todos,
    todoGroups: [],
    slashCommands: SLASH_COMMANDS,
  };
}

// ---------------------------------------------------------------------------------------------
// Messages (`zcodeMessageWithPartsSchema`)
// ---------------------------------------------------------------------------------------------

function toolState(state, created) {
  const input = isObject(state.input) ? state.input : {};
  const output = typeof state.output === 'string' ? state.output : state.output === undefined ? '' : JSON.stringify(state.output);
  switch (state.status) {
    case 'completed':
      return { status: 'completed', input, output, title: '', metadata: state.metadata ?? {}, startedAt: created, completedAt: created };
    case 'error':
      return { status: 'error', input, error: typeof state.error === 'string' ? state.error : String(state.error?.message ?? state.error), ...(state.metadata ? { metadata: state.metadata } : {}), startedAt: created, completedAt: created };
    case 'running':
      return { status: 'running', input, startedAt: created };
    default:
      return { status: 'pending', input, raw: JSON.stringify(input) };
  }
}

/** One internal (seed-shaped) message as a current `{info, parts}`. */
export function currentMessage(session, message) {
  const { info } = message;
  const created = info.createdAt ?? session.createdAt;
  const base = { messageId: info.id, sessionId: session.sessionId, time: { created } };
  const model = { providerId: modelOf(session).ref.providerId, modelId: info.modelId ?? session.modelId };
  const currentInfo = info.role === 'user'
    ? { ...base, role: 'user', agent: session.mode, model, ...(info.inputSource === 'background_task' ? { synthetic: true, source: 'background_task', visibility: 'model-only' } : {}) }
    : { ...base, role: 'assistant', parentMessageId: info.parentId ?? info.id, agent: session.mode, model, path: { cwd: session.workspace.workspacePath, root: session.workspace.workspacePath }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } };
  // A stored message may carry zcode's `semantics` (reminders, compaction summaries …: zcodeMessageSemanticsSchema).
  if (info.semantics) currentInfo.semantics = info.semantics;
  const parts = message.parts.map((part, i) => {
    const ids = { partId: `${info.id}_p${i}`, sessionId: session.sessionId, messageId: info.id };
    if (part.type === 'tool') return { ...ids, type: 'tool', callId: part.callId, tool: part.tool, state: toolState(part.state, created) };
    if (part.type === 'image') return { ...ids, type: 'file', mime: part.mimeType, filename: part.name, url: `attachment://${part.name ?? 'image'}` };
    return { ...ids, type: part.type, text: part.text ?? '' };
  });
  return { info: currentInfo, parts };
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

/** A `state.updated` patch in the current form: settings as `{current}`, the goal as `target`. */
function currentPatch(session, patch) {
  const out = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'mode' || key === 'thoughtLevel') out[key] = { current: value };
    else if (key === 'model') out.model = { current: selectionOf(session) };
    else if (key === 'goal') out.target = currentGoal(session);
    else if (key !== 'title') out[key] = value;
  }
  return out;
}

/** The current error object (`zcodeProtocolErrorDetailSchema`) of an internal failure. */
export function currentError(error) {
  const out = { type: error.type ?? 'ModelRequestError', message: error.message || 'turn failed' };
  if (error.code !== undefined) out.code = String(error.code);
  for (const key of ['detail', 'attribution', 'retryable', 'underlyingErrorMessage']) if (error[key] !== undefined) out[key] = error[key];
  if (error.cause !== undefined) out.data = { cause: error.cause };
  return out;
}

/**
 * An internal event as a current build sends it: `{envelope, payload}` for a `session/event`, `{state}` for a
 * top-level `state.updated`, or null when current builds do not send it (`turn.terminal`).
 */
export function currentEvent(session, type, payload) {
  const turn = session.turn;
  const events315 = Boolean(session.store.profile?.events315);
  switch (type) {
    case 'turn.terminal':
      return null;
    case 'state.updated': {
      if (typeof payload.patch?.title === 'string') {
        // Titles are their own event on current builds.
        return { type: 'session.titleUpdated', payload: { previousTitle: session.previousTitle ?? 'New session', source: 'generated', title: payload.patch.title } };
      }
      return { state: { patch: currentPatch(session, payload.patch ?? {}), reason: payload.reason } };
    }
    case 'turn.started': {
      const { turnId, input, inputSource, inputVisibility } = payload;
      session.turnCount = (session.turnCount ?? 0) + 1;
      const out = { turnNumber: session.turnCount, input: input ?? turn?.spec.prompt ?? '' };
      if (inputSource) out.inputSource = inputSource;
      if (inputVisibility) out.inputVisibility = inputVisibility;
      // v4-started turns (v4Input.mjs): the commandId is the inputId and queryId.
      for (const key of ['inputId', 'queryId', 'foregroundExecutionId']) if (payload[key] !== undefined) out[key] = payload[key];
      if (turn) out.messageId = turn.assistant.info.id;
      // 3.15: when execution began (may be fractional: a high-resolution clock).
      if (events315 && turn) out.executionStartedAt = turn.startedAt + 0.25;
      return { type, turnId, payload: out };
    }
    case 'model.streaming': {
      if (payload.kind !== 'text_delta' && payload.kind !== 'reasoning_delta') return { type, payload };
      return { type, payload: { kind: payload.kind, delta: payload.delta, assistantMessageId: payload.messageId } };
    }
    case 'tool.updated':
      return { type, turnId: turn?.id, payload: currentToolPayload(turn, payload, events315) };
    case 'turn.completed': {
      const { turnId, resultType, usage } = payload;
      const text = (turn?.assistant.parts ?? []).filter((p) => p.type === 'text').map((p) => p.text).join('');
      const toolCallCount = (turn?.assistant.parts ?? []).filter((p) => p.type === 'tool').length;
      return { type, turnId, payload: { response: text, tokenCount: usage?.totalTokens ?? 0, usage, toolCallCount, duration: turn ? Date.now() - turn.startedAt : 0, resultType } };
    }
    case 'turn.steerQueued':
    case 'turn.steerDrained':
      return { type, turnId: turn?.id, payload };
    case 'turn.failed':
      return { type, turnId: payload.turnId, payload: { error: currentError(payload.error), turnPhase: payload.error?.turnPhase ?? 'model_request', ...(events315 ? { backgroundSubagentResultConsumed: false } : {}) } };
    default:
      return { type, payload };
  }
}

/**
 * 3.15 (`events315`): the tool events of a synchronous sub-agent's tools (a scenario's `inner` steps) say
 * whose they are: `parentToolCallId` (the Agent call), `source:"subagent"`, `agentId`, `agentType`,
 * `description`, and the call's id inside the child session (`childToolCallId`).
 */
function subagentFields(turn, toolCallId, events315) {
  const sub = events315 ? turn?.subagent : undefined;
  if (!sub || toolCallId === sub.parentToolCallId) return {};
  return { parentToolCallId: sub.parentToolCallId, source: 'subagent', agentId: sub.agentId, agentType: sub.agentType, description: sub.description, childToolCallId: `child_${toolCallId.slice(5)}` };
}

function currentToolPayload(turn, payload, events315) {
  const { kind, toolCallId, toolName } = payload;
  const named = { ...(toolName === undefined ? {} : { toolName }), ...subagentFields(turn, toolCallId, events315) };
  switch (kind) {
    case 'scheduled': {
      // 3.15 adds the scheduler's view: dependencies, the parallel group and whether the call may run alongside others.
      const schedule = events315 ? { dependencies: [], parallelGroupIndex: 0, canRunParallel: false } : {};
      return { kind, toolCallId, ...named, toolName, ...(payload.input === undefined ? { inputOmitted: true, inputRef: 'model_stream' } : { input: payload.input }), ...(turn ? { assistantMessageId: turn.assistant.info.id } : {}), ...schedule };
    }
    case 'started': {
      const startedAt = Date.now();
      turn?.toolStarts.set(toolCallId, startedAt);
      return { kind, toolCallId, ...named, startedAt };
    }
    case 'progress':
      return { kind, toolCallId, ...named, stdoutTail: payload.stdoutTail, stderrTail: payload.stderrTail };
    case 'result': {
      const started = turn?.toolStarts.get(toolCallId);
      return { kind, toolCallId, ...named, result: payload.result, duration: started ? Date.now() - started : 0 };
    }
    case 'error': {
      const error = { type: 'ToolExecutionError', message: typeof payload.error === 'string' ? payload.error : String(payload.error?.message ?? 'tool failed') };
      const data = {};
      for (const key of ['exitCode', 'stdoutTail', 'stderrTail']) if (payload[key] !== undefined) data[key] = payload[key];
      if (Object.keys(data).length) error.data = data;
      return { kind, toolCallId, ...named, error };
    }
    case 'batch':
      return { kind, toolCallIds: payload.toolCallIds, successCount: payload.succeeded ?? 0, errorCount: payload.failed ?? 0 };
    default:
      return payload;
  }
}

// ---------------------------------------------------------------------------------------------
// Strict params (zod `.strict()`): unknown keys are -32602 with `data.issues`, as zcode answers
// ---------------------------------------------------------------------------------------------

/** -32602 shaped like zcode's zod answer; `violation` because the client sent it. */
export function zodError(issues) {
  const message = issues.map((i) => (i.code === 'unrecognized_keys' ? `Unrecognized key${i.keys.length > 1 ? 's' : ''}: ${i.keys.map((k) => JSON.stringify(k)).join(', ')}` : i.message)).join('; ');
  return new SimError(-32602, message, { violation: true, data: { issues } });
}

/** Check a params object against a strict shape: `required` / `optional` key lists. Returns it. */
export function strict(params, { required = [], optional = [] }) {
  if (!isObject(params)) throw zodError([{ code: 'invalid_type', expected: 'object', path: [], message: 'expected object, received ' + (params === null ? 'null' : typeof params) }]);
  const issues = [];
  for (const key of required) {
    if (params[key] === undefined) issues.push({ code: 'invalid_type', expected: 'nonoptional', path: [key], message: `expected ${key}, received undefined` });
  }
  const allowed = new Set([...required, ...optional]);
  const extra = Object.keys(params).filter((k) => !allowed.has(k));
  if (extra.length) issues.push({ code: 'unrecognized_keys', keys: extra, path: [], message: `Unrecognized key(s): ${extra.join(', ')}` });
  if (issues.length) throw zodError(issues);
  return params;
}

/** A strict `zcodeWorkspaceRefSchema`: workspacePath and workspaceKey required. */
export function workspaceRef(value, path = 'workspace') {
  if (!isObject(value)) throw zodError([{ code: 'invalid_type', expected: 'object', path: [path], message: `${path}: expected object` }]);
  strict(value, { required: ['workspacePath', 'workspaceKey'], optional: ['workspaceIdentity', 'remoteSessionId'] });
  for (const key of ['workspacePath', 'workspaceKey']) {
    if (typeof value[key] !== 'string' || value[key].trim() === '') throw zodError([{ code: 'too_small', path: [path, key], message: `${path}.${key}: expected a non-empty string` }]);
  }
  return value;
}
