/**
 * zcode `session/event`s → ACP `session/update`s plus turn signals, for one session.
 *
 * The state persists across turns (tool-call cache, terminal tails already sent, background tasks,
 * message ids, whether the running turn is a backend-started `background_task` turn). Everything
 * here is pure: `translateEvent(state, event)` mutates only `state` and returns what to send; the
 * ACP layer (bridge/acp) does the sending, ends prompts on signals, and routes background turns.
 *
 * Rules: issue 3 ("session/prompt") and issue 4 ("Background tasks"), the seed's "Background Tasks
 * & Sub-Agents", zcode-protocol.md ("Events").
 */
import { randomUUID } from 'node:crypto';
import type { SessionUpdate, StopReason, ToolCallContent, ToolCallStatus, ToolCallUpdate } from '@agentclientprotocol/sdk';
import {
  isBackgroundTaskPayload,
  type BackgroundTaskPayload,
  type BackgroundTaskStatus,
  type EventOf,
  type Interaction,
  type ModelStreamingPayload,
  type StateUpdatedPayload,
  type ToolUpdatedPayload,
  type Usage,
  type UsagePayload,
  type ZcodeEvent,
} from '../zcode/protocol.ts';
import { errorText, parseSubagentResult, resultText, tailDelta, textContent, unsentRemainder } from './content.ts';
import { interactionCardId, pendingInteractionCard } from './interactions.ts';
import { planUpdate } from './plan.ts';
import {
  completionContent,
  exitCodeOf,
  isTerminalCard,
  shellTextContent,
  terminalExitMeta,
  terminalOutputMeta,
  toolCallCard,
  zcodeMeta,
  type Meta,
  type ToolCallProgress,
} from './toolCards.ts';
import { asRecord, canonicalToolName, isAgentTool, isShellTool, stringField, type ToolInput } from './toolInfo.ts';

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

/** A background task as the `_zcode/session/backgroundTasks` notification and the tree view show it. */
export interface BackgroundTaskInfo {
  id: string;
  kind: 'agent' | 'bash';
  description: string;
  status: BackgroundTaskStatus;
  startedAt?: string;
  outputPath?: string;
  /** The tool call that launched the task, when known. */
  toolCallId?: string;
  /** The ACP card showing the task: the reused launch card (Bash) or `bg_<taskId>`. */
  cardId: string;
}

/**
 * What a zcode event means for the turn, next to the updates. The ACP layer ends prompts on
 * `turn_completed`/`turn_failed` (unless `background`), adds `turn_terminal` figures to the prompt
 * response's `_meta.zcode`, and forwards the rest as notifications / config updates.
 */
export type TurnSignal =
  /** A turn began. `background`: the backend started it itself after a background task finished. */
  | { type: 'turn_started'; background: boolean; turnId?: string; inputSource?: string }
  /** `turn.completed`. `stopReason` is the ACP reading of `resultType`. */
  | { type: 'turn_completed'; resultType: string; stopReason: StopReason; usage?: Usage; background: boolean; turnId?: string }
  /** `turn.failed`. `retryable` per `isRetryableFailure`. */
  | { type: 'turn_failed'; code?: number | string; message: string; retryable: boolean; background: boolean; turnId?: string }
  /** `turn.terminal` (0.15.2+): figures only, never ends a turn by itself. */
  | {
      type: 'turn_terminal';
      status?: string;
      resultType?: string;
      durationMs?: number;
      inputTokens?: number;
      outputTokens?: number;
      totalTokens?: number;
      background: boolean;
    }
  /** `turn.steerQueued` / `turn.steerDrained`. */
  | { type: 'steer'; state: 'queued' | 'drained' }
  /** The session's full background task list, on every change. */
  | { type: 'background_tasks'; tasks: BackgroundTaskInfo[] }
  /** Backend-side settings change (`state.updated`); `model` is the model id. */
  | { type: 'config'; mode?: string; model?: string; thoughtLevel?: string; reason?: string }
  /** Compaction progress/outcome reported by `state.updated`. */
  | { type: 'compaction'; status: string; reason?: string }
  /** The session got a (new) title. */
  | { type: 'title'; title: string };

/** The result of translating one event. */
export interface TranslateResult {
  updates: SessionUpdate[];
  signals: TurnSignal[];
}

export interface SessionTranslatorOptions {
  /** Session working directory (titles, absolute paths). */
  cwd: string;
  /** The client advertised `clientCapabilities._meta.terminal_output` (see `CardOptions`). */
  terminalOutput: boolean;
  /** Message id generator (tests inject a deterministic one). Default: random UUIDs. */
  newId?: () => string;
  /** Context window size known from `session/read`, used until zcode reports one. */
  contextWindow?: number;
}

/** Output of one shell tool call seen so far. */
export interface OutputTrack {
  /** Last cumulative `stdoutTail`. */
  stdout: string;
  /** Last cumulative `stderrTail`. */
  stderr: string;
  /** Some output was sent to the client. */
  streamed: boolean;
  /** Accumulated output (text-content clients, whose content lists replace). */
  text: string;
}

/** What the translator knows about one tool call. */
export interface ToolRecord {
  readonly id: string;
  name?: string;
  input?: ToolInput;
  /** A `tool_call` was sent for it. */
  announced: boolean;
  status: ToolCallStatus;
  /** Its card is a terminal card (decided when announced). */
  terminalCard: boolean;
  /** A `result` or `error` was translated (later duplicates are ignored). */
  resultSeen: boolean;
  /** A background Bash launch card kept open (in_progress) for its task's lifecycle. */
  launchPending: boolean;
  /** Created for an interaction that names no tool call (closed by `settleInteraction`). */
  synthetic: boolean;
  output?: OutputTrack;
  /** The launch acknowledgement of a background command. */
  launchText?: string;
  parentToolCallId?: string;
}

interface TaskRecord {
  info: BackgroundTaskInfo;
  reusesLaunchCard: boolean;
  terminalCard: boolean;
  /** Last `outputTail` seen. */
  lastTail: string;
  finished: boolean;
  toolName?: string;
}

/** Session-scoped translator state. Create with `createSessionTranslator`; treat as opaque. */
export interface SessionTranslatorState {
  readonly cwd: string;
  readonly terminalOutput: boolean;
  readonly newId: () => string;
  readonly tools: Map<string, ToolRecord>;
  readonly tasks: Map<string, TaskRecord>;
  /** taskId → the tool call that launched it (parsed from a launch acknowledgement). */
  readonly taskLaunchCards: Map<string, string>;
  /** The assistant message being streamed: consecutive chunks of one kind share its id. */
  segment: { kind: 'text' | 'reasoning'; id: string } | undefined;
  turn: { active: boolean; background: boolean; turnId?: string; lastBackground: boolean };
  contextWindow: number | undefined;
}

/** Create the state for one session (persists across its turns). */
export function createSessionTranslator(options: SessionTranslatorOptions): SessionTranslatorState {
  return {
    cwd: options.cwd,
    terminalOutput: options.terminalOutput,
    newId: options.newId ?? randomUUID,
    tools: new Map(),
    tasks: new Map(),
    taskLaunchCards: new Map(),
    segment: undefined,
    turn: { active: false, background: false, lastBackground: false },
    contextWindow: options.contextWindow,
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const NONE: TranslateResult = Object.freeze({ updates: [], signals: [] }) as TranslateResult;

function only(updates: SessionUpdate[]): TranslateResult {
  return { updates, signals: [] };
}

function signal(...signals: TurnSignal[]): TranslateResult {
  return { updates: [], signals };
}

function isFinished(record: ToolRecord): boolean {
  return record.status === 'completed' || record.status === 'failed';
}

function recordFor(state: SessionTranslatorState, id: string): ToolRecord {
  let record = state.tools.get(id);
  if (!record) {
    record = {
      id,
      announced: false,
      status: 'pending',
      terminalCard: false,
      resultSeen: false,
      launchPending: false,
      synthetic: false,
    };
    state.tools.set(id, record);
  }
  return record;
}

function isBackgroundInput(record: ToolRecord): boolean {
  return record.input?.run_in_background === true;
}

function update(toolCallId: string, fields: Omit<ToolCallProgress, 'sessionUpdate' | 'toolCallId'>): ToolCallProgress {
  return { sessionUpdate: 'tool_call_update', toolCallId, ...fields };
}

/** Cap for accumulated text output (text-content clients): keep the end. */
const MAX_TEXT_OUTPUT = 200_000;

function appendCapped(text: string, data: string): string {
  const joined = text + data;
  return joined.length <= MAX_TEXT_OUTPUT ? joined : `…\n${joined.slice(joined.length - MAX_TEXT_OUTPUT)}`;
}

/** The `tool_call` for a record (once), plus the plan for TodoWrite. */
function announce(state: SessionTranslatorState, record: ToolRecord, status: ToolCallStatus): SessionUpdate[] {
  record.announced = true;
  record.status = status;
  record.terminalCard = isTerminalCard(record.name, state);
  const extra: Record<string, unknown> = {};
  if (isBackgroundInput(record)) extra.background = true;
  if (record.parentToolCallId) extra.parentToolCallId = record.parentToolCallId;
  const out: SessionUpdate[] = [toolCallCard(record.id, record.name, record.input, status, state, extra)];
  if (canonicalToolName(record.name) === 'TodoWrite' && Array.isArray(record.input?.todos)) out.push(planUpdate(record.input.todos));
  return out;
}

function messageId(state: SessionTranslatorState, kind: 'text' | 'reasoning', given: string | undefined): string {
  if (given) {
    state.segment = { kind, id: given };
    return given;
  }
  if (state.segment?.kind === kind) return state.segment.id;
  const id = state.newId();
  state.segment = { kind, id };
  return id;
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/**
 * Translate one zcode event. Summary of the rules:
 * - `text_delta` → `agent_message_chunk`, `reasoning_delta` → `agent_thought_chunk`, each with a
 *   `messageId` (zcode's when given, else a new id per run of one kind: a tool call or turn
 *   boundary starts a new message); chunks of a background turn carry `_meta.zcode.background`;
 * - `model.streaming tool_call` is cached; `scheduled` opens ONE `tool_call` (pending); `started`
 *   → in_progress; `progress` → the new part of the cumulative tails (terminal meta or text);
 *   `result` → completed/failed with content; `error` → failed; `batch` → completes what is open;
 * - TodoWrite → also a `plan`; Agent results → `_meta.subagent`;
 * - background Bash / Agent lifecycle (`session.updated` with `taskId`) → card updates and a
 *   `background_tasks` signal; usage → `usage_update`;
 * - turn lifecycle, steer, `state.updated` → signals.
 */
export function translateEvent(state: SessionTranslatorState, event: ZcodeEvent): TranslateResult {
  switch (event.type) {
    case 'turn.started':
      return onTurnStarted(state, event.payload);
    case 'model.streaming':
      return only(onStreaming(state, event.payload));
    case 'tool.updated':
      return only(onToolUpdated(state, event.payload));
    case 'turn.completed':
      return onTurnCompleted(state, event.payload);
    case 'turn.failed':
      return onTurnFailed(state, event.payload);
    case 'turn.terminal':
      return onTurnTerminal(state, event.payload);
    case 'turn.steerQueued':
      return signal({ type: 'steer', state: 'queued' });
    case 'turn.steerDrained':
      return signal({ type: 'steer', state: 'drained' });
    case 'session.updated':
      return isBackgroundTaskPayload(event.payload) ? onBackgroundTask(state, event.payload) : only(onUsage(state, event.payload));
    case 'state.updated':
      return onStateUpdated(event.payload);
    default: {
      // Unknown event types are filtered out when parsing; nothing to do at run time.
      const unreachable: never = event;
      void unreachable;
      return NONE;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Turn lifecycle
// ---------------------------------------------------------------------------------------------

function onTurnStarted(state: SessionTranslatorState, payload: EventOf<'turn.started'>['payload']): TranslateResult {
  const background = payload.inputSource === 'background_task';
  state.turn = { active: true, background, turnId: payload.turnId, lastBackground: state.turn.lastBackground };
  state.segment = undefined;
  const started: TurnSignal = { type: 'turn_started', background };
  if (payload.turnId) started.turnId = payload.turnId;
  if (payload.inputSource) started.inputSource = payload.inputSource;
  return signal(started);
}

/** The turn ends: remember whether it was a background turn (for a later `turn.terminal`), forget finished tools. */
function endTurn(state: SessionTranslatorState): { background: boolean; turnId?: string } {
  const { background, turnId } = state.turn;
  state.turn = { active: false, background: false, lastBackground: background };
  state.segment = undefined;
  for (const [id, record] of state.tools) {
    if (isFinished(record) && !record.launchPending) state.tools.delete(id);
  }
  return { background, turnId };
}

/** zcode `resultType` → ACP stop reason (unknown values end the turn normally). */
export function stopReasonOf(resultType: string | undefined): StopReason {
  switch ((resultType ?? '').toLowerCase()) {
    case 'cancelled':
    case 'canceled':
    case 'aborted':
    case 'interrupted':
    case 'stopped':
      return 'cancelled';
    case 'max_tokens':
    case 'length':
      return 'max_tokens';
    case 'max_turn_requests':
    case 'max_turns':
      return 'max_turn_requests';
    case 'refusal':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

function onTurnCompleted(state: SessionTranslatorState, payload: EventOf<'turn.completed'>['payload']): TranslateResult {
  const resultType = payload.resultType ?? 'success';
  const stopReason = stopReasonOf(resultType);
  // A cancelled turn leaves its running tools behind: close them so no card spins forever.
  const updates = stopReason === 'cancelled' ? flushOpenTools(state, 'failed') : [];
  const { background, turnId } = endTurn(state);
  const done: TurnSignal = { type: 'turn_completed', resultType, stopReason, background };
  if (payload.usage) done.usage = payload.usage;
  if (turnId) done.turnId = turnId;
  return { updates, signals: [done] };
}

/** zcode / model-provider codes that mean "try again shortly". */
const RETRYABLE_CODES = new Set<number>([
  408, // request timeout
  429, // rate limited
  1302, // GLM: concurrency limit
  1303, // GLM: request frequency limit
  1305, // GLM: service overloaded
  1308, // zcode: prompt is running (busy)
  -32010, // zcode: a prompt is already running
]);
const RETRYABLE_TEXT = /rate[\s_-]?limit|too many requests|overload|temporarily unavailable|service unavailable|bad gateway|gateway timeout|timed?[\s_-]?out|econnreset|etimedout|socket hang up|\b(429|50[0234])\b/i;

/**
 * Whether a failed turn is worth retrying: codes 408, 429, any 5xx, 1302/1303/1305 (GLM
 * concurrency / frequency / overload), 1308 and -32010 (busy); or a code or message that says rate
 * limit, too many requests, overloaded, unavailable, bad gateway, timeout, connection reset, or names
 * 429/500/502/503/504. Everything else (auth, quota, bad request, content policy) is final.
 */
export function isRetryableFailure(code: number | string | undefined, message: string, cause?: unknown): boolean {
  const numeric = typeof code === 'number' ? code : typeof code === 'string' && /^-?\d+$/.test(code) ? Number(code) : undefined;
  if (numeric !== undefined && (RETRYABLE_CODES.has(numeric) || (numeric >= 500 && numeric <= 599))) return true;
  if (typeof code === 'string' && RETRYABLE_TEXT.test(code)) return true;
  if (RETRYABLE_TEXT.test(message)) return true;
  const causeText = cause === undefined ? '' : errorText(cause);
  return causeText !== '' && RETRYABLE_TEXT.test(causeText);
}

function onTurnFailed(state: SessionTranslatorState, payload: EventOf<'turn.failed'>['payload']): TranslateResult {
  const { code, message, cause } = payload.error;
  const text = message ?? 'turn failed';
  const updates = flushOpenTools(state, 'failed');
  const { background, turnId } = endTurn(state);
  const failed: TurnSignal = { type: 'turn_failed', message: text, retryable: isRetryableFailure(code, text, cause), background };
  if (code !== undefined) failed.code = code;
  if (turnId) failed.turnId = turnId;
  return { updates, signals: [failed] };
}

function onTurnTerminal(state: SessionTranslatorState, payload: EventOf<'turn.terminal'>['payload']): TranslateResult {
  const terminal: TurnSignal = { type: 'turn_terminal', background: state.turn.active ? state.turn.background : state.turn.lastBackground };
  for (const key of ['status', 'resultType'] as const) if (payload[key] !== undefined) terminal[key] = payload[key];
  for (const key of ['durationMs', 'inputTokens', 'outputTokens', 'totalTokens'] as const) if (payload[key] !== undefined) terminal[key] = payload[key];
  return signal(terminal);
}

// ---------------------------------------------------------------------------------------------
// Streaming text
// ---------------------------------------------------------------------------------------------

function onStreaming(state: SessionTranslatorState, payload: ModelStreamingPayload): SessionUpdate[] {
  switch (payload.kind) {
    case 'text_delta':
    case 'reasoning_delta': {
      if (payload.delta === '') return [];
      const kind = payload.kind === 'text_delta' ? 'text' : 'reasoning';
      const chunk: SessionUpdate = {
        sessionUpdate: kind === 'text' ? 'agent_message_chunk' : 'agent_thought_chunk',
        content: { type: 'text', text: payload.delta },
        messageId: messageId(state, kind, payload.messageId),
      };
      if (state.turn.background) chunk._meta = zcodeMeta(undefined, { background: true });
      return [chunk];
    }
    case 'tool_call': {
      // The announcement can precede `scheduled`: cache name and input, show nothing yet.
      state.segment = undefined;
      const record = recordFor(state, payload.toolCallId);
      record.name = payload.toolName;
      if (payload.input) record.input = payload.input;
      return [];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

function onToolUpdated(state: SessionTranslatorState, payload: ToolUpdatedPayload): SessionUpdate[] {
  state.segment = undefined;
  switch (payload.kind) {
    case 'scheduled': {
      const record = recordFor(state, payload.toolCallId);
      if (payload.toolName) record.name = payload.toolName;
      if (payload.input) record.input = payload.input;
      const parent = stringField(asRecord(payload), 'parentToolCallId', 'parentId');
      if (parent) record.parentToolCallId = parent;
      // A duplicate `scheduled` (or one after an interaction card) must not open a second card.
      return record.announced ? [] : announce(state, record, 'pending');
    }
    case 'started': {
      const record = recordFor(state, payload.toolCallId);
      if (payload.toolName && !record.name) record.name = payload.toolName;
      if (isFinished(record)) return [];
      if (!record.announced) return announce(state, record, 'in_progress');
      if (record.status === 'in_progress') return [];
      record.status = 'in_progress';
      return [update(record.id, { status: 'in_progress' })];
    }
    case 'progress':
      return onProgress(state, payload);
    case 'result':
      return onResult(state, payload);
    case 'error':
      return onError(state, payload);
    case 'batch':
      return onBatch(state, payload);
  }
}

/** Announce a tool seen only now (e.g. subscribed mid-turn) before updating it. */
function ensureAnnounced(state: SessionTranslatorState, record: ToolRecord): SessionUpdate[] {
  return record.announced ? [] : announce(state, record, 'in_progress');
}

function onProgress(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'progress' }>): SessionUpdate[] {
  const record = recordFor(state, payload.toolCallId);
  if (payload.toolName && !record.name) record.name = payload.toolName;
  if (isFinished(record)) return [];
  const out = ensureAnnounced(state, record);
  const statusChange = record.status !== 'in_progress';
  record.status = 'in_progress';
  const track = (record.output ??= { stdout: '', stderr: '', streamed: false, text: '' });
  let data = '';
  if (payload.stdoutTail !== undefined) {
    data += tailDelta(track.stdout, payload.stdoutTail);
    track.stdout = payload.stdoutTail;
  }
  if (payload.stderrTail !== undefined) {
    data += tailDelta(track.stderr, payload.stderrTail);
    track.stderr = payload.stderrTail;
  }
  const status = statusChange ? { status: 'in_progress' as const } : {};
  if (data === '') {
    if (statusChange) out.push(update(record.id, status));
    return out;
  }
  track.streamed = true;
  if (record.terminalCard) {
    out.push(update(record.id, { ...status, _meta: terminalOutputMeta(record.id, data) }));
  } else {
    // Content lists replace: send everything accumulated so far.
    track.text = appendCapped(track.text, data);
    out.push(update(record.id, { ...status, content: [shellTextContent(track.text)] }));
  }
  return out;
}

/** The text of a `result` payload (its `content`, else `output` / `error`). */
function payloadResultText(result: Record<string, unknown>): string {
  if (result.content !== undefined) return resultText(result.content);
  if (result.output !== undefined) return resultText(result.output);
  return errorText(result.error);
}

/** A background command's id in its launch acknowledgement ("… running in background with ID: exec_…"). */
function launchedTaskId(text: string): string | undefined {
  return /background with ID:\s*([\w.:-]+)/i.exec(text)?.[1] ?? /\b(exec_[\w-]+)/.exec(text)?.[1];
}

function onResult(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'result' }>): SessionUpdate[] {
  const record = recordFor(state, payload.toolCallId);
  // `result` may carry no toolName: the cached one from `tool_call`/`scheduled` is used.
  if (payload.toolName && !record.name) record.name = payload.toolName;
  if (record.resultSeen) return [];
  const out = ensureAnnounced(state, record);
  const result = asRecord(payload.result);
  const success = payload.result.success !== false;
  const text = payloadResultText(result);
  record.resultSeen = true;
  if (isShellTool(record.name)) {
    if (success && isBackgroundInput(record)) return [...out, ...onBackgroundLaunch(state, record, text)];
    return [...out, ...finishShell(record, success, text, result)];
  }
  const status: ToolCallStatus = success ? 'completed' : 'failed';
  record.status = status;
  if (isAgentTool(record.name)) {
    const meta: Meta = zcodeMeta(record.name);
    const subagent = parseSubagentResult(text);
    if (subagent) meta.subagent = subagent;
    out.push(update(record.id, { status, ...(text !== '' ? { content: [textContent(text)] } : {}), _meta: meta }));
    return out;
  }
  const content = completionContent(record.name, record.input ?? {}, state, { success, text, metadata: result.metadata });
  out.push(update(record.id, { status, ...(content ? { content } : {}), _meta: zcodeMeta(record.name) }));
  return out;
}

/**
 * A background Bash launch acknowledgement: the card stays in_progress (no terminal_exit) and is
 * reused by the task's lifecycle (seed, "Background Bash"). If the task already finished on this
 * card (lifecycle raced ahead of the result), the card is left alone.
 */
function onBackgroundLaunch(state: SessionTranslatorState, record: ToolRecord, text: string): SessionUpdate[] {
  record.launchText = text;
  const taskId = launchedTaskId(text);
  if (taskId) state.taskLaunchCards.set(taskId, record.id);
  const task = [...state.tasks.values()].find((t) => t.reusesLaunchCard && t.info.cardId === record.id);
  if (task?.finished) return [];
  record.launchPending = true;
  record.status = 'in_progress';
  const meta: Meta = zcodeMeta(record.name, { background: true, ...(taskId ? { taskId } : {}) });
  if (record.terminalCard) {
    const data = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    return [update(record.id, { status: 'in_progress', _meta: data !== '' ? { ...meta, ...terminalOutputMeta(record.id, data) } : meta })];
  }
  return [update(record.id, { status: 'in_progress', ...(text !== '' ? { content: [textContent(text)] } : {}), _meta: meta })];
}

/** A shell command finished: the output not yet streamed, then the exit (terminal) or the output as text. */
function finishShell(record: ToolRecord, success: boolean, text: string, result: Record<string, unknown>): SessionUpdate[] {
  const status: ToolCallStatus = success ? 'completed' : 'failed';
  record.status = status;
  record.launchPending = false;
  const track = record.output;
  if (record.terminalCard) {
    const out: SessionUpdate[] = [];
    const remainder = track?.streamed ? unsentRemainder(track.stdout || track.stderr, text) : text;
    if (remainder !== '') out.push(update(record.id, { _meta: terminalOutputMeta(record.id, remainder) }));
    out.push(update(record.id, { status, _meta: { ...zcodeMeta(record.name), ...terminalExitMeta(record.id, exitCodeOf(result, success)) } }));
    return out;
  }
  const output = text !== '' ? text : (track?.text ?? '');
  return [update(record.id, { status, ...(output !== '' ? { content: [shellTextContent(output)] } : {}), _meta: zcodeMeta(record.name) })];
}

function onError(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'error' }>): SessionUpdate[] {
  const record = recordFor(state, payload.toolCallId);
  if (payload.toolName && !record.name) record.name = payload.toolName;
  if (record.resultSeen) return [];
  const out = ensureAnnounced(state, record);
  const text = errorText(payload.error);
  record.resultSeen = true;
  record.status = 'failed';
  record.launchPending = false;
  if (record.terminalCard) {
    if (text !== '') out.push(update(record.id, { _meta: terminalOutputMeta(record.id, text.endsWith('\n') ? text : `${text}\n`) }));
    out.push(update(record.id, { status: 'failed', _meta: { ...zcodeMeta(record.name), ...terminalExitMeta(record.id, 1) } }));
    return out;
  }
  out.push(update(record.id, { status: 'failed', ...(text !== '' ? { content: [textContent(text)] } : {}), _meta: zcodeMeta(record.name) }));
  return out;
}

/**
 * `batch`: several tools finished together. The listed ids still open are completed (the payload's
 * counts do not say which failed). Background launches stay open for their lifecycle.
 */
function onBatch(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'batch' }>): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  for (const id of payload.toolCallIds ?? []) {
    const record = state.tools.get(id);
    if (!record || isFinished(record) || record.launchPending) continue;
    if (isShellTool(record.name) && isBackgroundInput(record) && !record.resultSeen) continue;
    out.push(...ensureAnnounced(state, record));
    record.status = 'completed';
    out.push(update(id, { status: 'completed', ...(record.terminalCard ? { _meta: terminalExitMeta(id, 0) } : {}) }));
  }
  return out;
}

/**
 * Close every card still pending / in progress (turn cancelled or failed, or the ACP layer
 * cancelling): `status` on each, plus `terminal_exit` on terminal cards (exit code 0 when
 * completed, 1 when failed). Background launch cards are left to their task.
 */
export function flushOpenTools(state: SessionTranslatorState, status: 'completed' | 'failed'): SessionUpdate[] {
  state.segment = undefined;
  const out: SessionUpdate[] = [];
  for (const record of state.tools.values()) {
    if (!record.announced || isFinished(record) || record.launchPending) continue;
    record.status = status;
    out.push(update(record.id, { status, ...(record.terminalCard ? { _meta: terminalExitMeta(record.id, status === 'completed' ? 0 : 1) } : {}) }));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Usage and state
// ---------------------------------------------------------------------------------------------

function nonNegativeInt(n: number): number {
  return Math.max(0, Math.round(n));
}

function onUsage(state: SessionTranslatorState, payload: UsagePayload): SessionUpdate[] {
  if (payload.contextWindow !== undefined) state.contextWindow = payload.contextWindow;
  const used = payload.usage?.inputTokens;
  const size = state.contextWindow;
  // usage_update requires both figures; without a known window there is nothing valid to send.
  if (used === undefined || size === undefined) return [];
  return [{ sessionUpdate: 'usage_update', used: nonNegativeInt(used), size: nonNegativeInt(size) }];
}

function onStateUpdated(payload: StateUpdatedPayload): TranslateResult {
  const patch = payload.patch ?? {};
  const signals: TurnSignal[] = [];
  const model = typeof patch.model === 'string' ? patch.model : patch.model?.modelId;
  if (patch.mode !== undefined || model !== undefined || patch.thoughtLevel !== undefined) {
    const config: TurnSignal = { type: 'config' };
    if (patch.mode !== undefined) config.mode = patch.mode;
    if (model !== undefined) config.model = model;
    if (patch.thoughtLevel !== undefined) config.thoughtLevel = patch.thoughtLevel;
    if (payload.reason !== undefined) config.reason = payload.reason;
    signals.push(config);
  }
  if (patch.compaction) signals.push({ type: 'compaction', status: patch.compaction.status, ...(payload.reason !== undefined ? { reason: payload.reason } : {}) });
  if (patch.title) signals.push({ type: 'title', title: patch.title });
  return signal(...signals);
}

// ---------------------------------------------------------------------------------------------
// Background tasks
// ---------------------------------------------------------------------------------------------

/** The session's background tasks, oldest first (copies). */
export function listBackgroundTasks(state: SessionTranslatorState): BackgroundTaskInfo[] {
  return [...state.tasks.values()].map((task) => ({ ...task.info }));
}

function taskKind(payload: BackgroundTaskPayload, launch: ToolRecord | undefined): 'agent' | 'bash' {
  const name = payload.toolName ?? launch?.name;
  if (isShellTool(name)) return 'bash';
  if (isAgentTool(name)) return 'agent';
  return payload.taskId.startsWith('exec_') ? 'bash' : 'agent';
}

/** A task seen for the first time: reuse its Bash launch card, or mint `[background] …` card `bg_<taskId>`. */
function openTask(state: SessionTranslatorState, payload: BackgroundTaskPayload, out: SessionUpdate[]): TaskRecord {
  const launchId = payload.toolCallId ?? state.taskLaunchCards.get(payload.taskId);
  const launch = launchId ? state.tools.get(launchId) : undefined;
  const reuse =
    launch !== undefined &&
    launch.announced &&
    isShellTool(launch.name) &&
    (launch.launchPending || (isBackgroundInput(launch) && !isFinished(launch)));
  const description =
    payload.description ?? stringField(launch?.input ?? {}, 'description', 'command') ?? payload.toolName ?? payload.taskId;
  const cardId = reuse ? launch.id : `bg_${payload.taskId}`;
  const info: BackgroundTaskInfo = { id: payload.taskId, kind: taskKind(payload, launch), description, status: payload.status, cardId };
  if (payload.startedAt) info.startedAt = payload.startedAt;
  if (payload.outputPath) info.outputPath = payload.outputPath;
  if (launchId) info.toolCallId = launchId;
  const toolName = payload.toolName ?? launch?.name;
  const task: TaskRecord = { info, reusesLaunchCard: reuse, terminalCard: reuse && launch.terminalCard, lastTail: '', finished: false, toolName };
  state.tasks.set(payload.taskId, task);
  const meta = zcodeMeta(toolName, { taskId: payload.taskId, background: true });
  if (reuse) {
    launch.launchPending = true;
    launch.status = 'in_progress';
    out.push(update(cardId, { status: 'in_progress', _meta: meta }));
  } else {
    const rawInput: Record<string, unknown> = { taskId: payload.taskId, description };
    if (toolName) rawInput.toolName = toolName;
    if (payload.outputPath) rawInput.outputPath = payload.outputPath;
    out.push({
      sessionUpdate: 'tool_call',
      toolCallId: cardId,
      title: `[background] ${description}`,
      kind: 'other',
      status: 'in_progress',
      rawInput,
      ...(toolName ? { name: toolName } : {}),
      _meta: meta,
    });
  }
  return task;
}

/** Merge changed descriptive fields; true when the task list changed. */
function mergeTaskInfo(info: BackgroundTaskInfo, payload: BackgroundTaskPayload): boolean {
  let changed = false;
  if (payload.description && payload.description !== info.description) {
    info.description = payload.description;
    changed = true;
  }
  if (payload.outputPath && payload.outputPath !== info.outputPath) {
    info.outputPath = payload.outputPath;
    changed = true;
  }
  if (payload.startedAt && payload.startedAt !== info.startedAt) {
    info.startedAt = payload.startedAt;
    changed = true;
  }
  if (payload.status !== info.status) {
    info.status = payload.status;
    changed = true;
  }
  return changed;
}

/** Text content of a non-terminal background card: the launch note, the output tail, and (at the end) a link to the output file. */
function taskContent(state: SessionTranslatorState, task: TaskRecord, final: boolean): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  const launchText = task.reusesLaunchCard ? state.tools.get(task.info.cardId)?.launchText : undefined;
  if (launchText) content.push(textContent(launchText));
  if (task.lastTail !== '') content.push(task.info.kind === 'bash' ? shellTextContent(task.lastTail) : textContent(task.lastTail));
  if (final && task.info.outputPath) {
    content.push({ type: 'content', content: { type: 'resource_link', name: 'output', uri: fileUri(task.info.outputPath) } });
  }
  return content;
}

function fileUri(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  const normalized = path.replace(/\\/g, '/');
  return `file://${normalized.startsWith('/') ? '' : '/'}${encodeURI(normalized)}`;
}

/** Close a task's card: completed → completed (exit 0); failed / cancelled → failed (exit 1), cancelled marked in `_meta.backgroundTask`. */
function finishTask(state: SessionTranslatorState, task: TaskRecord, status: Exclude<BackgroundTaskStatus, 'running'>): SessionUpdate[] {
  task.finished = true;
  task.info.status = status;
  const acpStatus: ToolCallStatus = status === 'completed' ? 'completed' : 'failed';
  const cardId = task.info.cardId;
  if (task.reusesLaunchCard) {
    const launch = state.tools.get(cardId);
    if (launch) {
      launch.launchPending = false;
      launch.status = acpStatus;
    }
  }
  const meta: Meta = zcodeMeta(task.toolName, { taskId: task.info.id, background: true });
  if (status === 'cancelled') meta.backgroundTask = { cancelled: true };
  if (task.terminalCard) {
    return [update(cardId, { status: acpStatus, _meta: { ...meta, ...terminalExitMeta(cardId, status === 'completed' ? 0 : 1) } })];
  }
  const content = taskContent(state, task, true);
  return [update(cardId, { status: acpStatus, ...(content.length > 0 ? { content } : {}), _meta: meta })];
}

/**
 * A background-task lifecycle step (`session.updated` with a `taskId`). First sight opens the card
 * (see `openTask`); a new `outputTail` is streamed (terminal cards: only the part not yet sent;
 * text cards: the tail as content); completed / failed / cancelled close it. Late events for a
 * finished task are ignored. Any change to the task list emits `background_tasks`.
 */
function onBackgroundTask(state: SessionTranslatorState, payload: BackgroundTaskPayload): TranslateResult {
  const updates: SessionUpdate[] = [];
  let task = state.tasks.get(payload.taskId);
  if (task?.finished) return NONE;
  let changed: boolean;
  if (!task) {
    task = openTask(state, payload, updates);
    changed = true;
  } else {
    changed = mergeTaskInfo(task.info, payload);
  }
  if (payload.outputTail !== undefined) {
    const delta = tailDelta(task.lastTail, payload.outputTail);
    task.lastTail = payload.outputTail;
    if (delta !== '') {
      if (task.terminalCard) updates.push(update(task.info.cardId, { _meta: terminalOutputMeta(task.info.cardId, delta) }));
      else if (payload.status === 'running') updates.push(update(task.info.cardId, { content: taskContent(state, task, false) }));
    }
  }
  task.info.status = payload.status;
  if (payload.status !== 'running') updates.push(...finishTask(state, task, payload.status));
  return { updates, signals: changed ? [{ type: 'background_tasks', tasks: listBackgroundTasks(state) }] : [] };
}

/**
 * The updates for a background task the user cancelled (`_zcode/session/cancelBackgroundTask`):
 * its card is marked failed with `_meta.backgroundTask.cancelled = true` (plus `terminal_exit` for
 * a Bash terminal card). The task's status becomes `cancelled` (see `listBackgroundTasks`). A task
 * the translator never saw, or one already finished, gives `[]`.
 */
export function cancelledBackgroundTaskUpdates(state: SessionTranslatorState, taskId: string): SessionUpdate[] {
  let task = state.tasks.get(taskId);
  if (!task) {
    const launchId = state.taskLaunchCards.get(taskId);
    const launch = launchId ? state.tools.get(launchId) : undefined;
    if (!launch?.launchPending) return [];
    task = openTask(state, { taskId, toolCallId: launchId, toolName: launch.name, status: 'running' }, []);
  }
  if (task.finished) return [];
  return finishTask(state, task, 'cancelled');
}

// ---------------------------------------------------------------------------------------------
// Interactions
// ---------------------------------------------------------------------------------------------

/** What the ACP layer needs to show an interaction. */
export interface InteractionCard {
  /** Updates to send first (the pending card), empty when the card already exists. */
  updates: SessionUpdate[];
  /** The card, for the `toolCall` of `session/request_permission` / the elicitation's `toolCallId`. */
  toolCall: ToolCallUpdate;
}

/**
 * Make sure an interaction has a card: the tool call it names when the translator already showed
 * it, otherwise a new pending card (`pendingInteractionCard`) that a later `scheduled` for the same
 * id will not duplicate. Re-sent duplicates (same request id) reuse the same card.
 */
export function noteInteraction(state: SessionTranslatorState, interaction: Interaction): InteractionCard {
  const id = interactionCardId(interaction);
  const existing = state.tools.get(id);
  if (existing?.announced) {
    const card = toolCallCard(id, existing.name, existing.input, existing.status, state);
    return { updates: [], toolCall: { toolCallId: id, title: card.title, kind: card.kind, rawInput: card.rawInput, status: existing.status } };
  }
  const card = pendingInteractionCard(interaction, state);
  const record = recordFor(state, id);
  record.announced = true;
  record.status = 'pending';
  record.synthetic = interaction.params.toolCallId === undefined;
  record.terminalCard = isTerminalCard(interaction.kind === 'permission' ? interaction.params.toolName : undefined, state);
  if (interaction.kind === 'permission') {
    record.name ??= interaction.params.toolName;
    record.input ??= interaction.params.input;
  }
  const { sessionUpdate: _drop, ...toolCall } = card;
  return { updates: [card], toolCall };
}

/**
 * Close the card of an interaction that names no tool call once it is answered (approved /
 * answered → completed; rejected / cancelled → failed). Cards of real tool calls are left to the
 * tool's own events.
 */
export function settleInteraction(state: SessionTranslatorState, interaction: Interaction, outcome: 'approved' | 'answered' | 'rejected' | 'cancelled'): SessionUpdate[] {
  const record = state.tools.get(interactionCardId(interaction));
  if (!record || !record.synthetic || isFinished(record)) return [];
  const status: ToolCallStatus = outcome === 'approved' || outcome === 'answered' ? 'completed' : 'failed';
  record.status = status;
  return [update(record.id, { status })];
}
