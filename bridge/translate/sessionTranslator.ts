/**
 * zcode `session/event`s → ACP `session/update`s plus turn signals, for one session.
 *
 * The state persists across turns (tool-call cache, terminal tails already sent, background tasks,
 * message ids, whether the running turn is a backend-started `background_task` turn). Everything
 * here is pure: `translateEvent(state, event)` mutates only `state` and returns what to send; the
 * ACP layer (bridge/acp) does the sending, ends prompts on signals, and routes background turns.
 *
 * What zcode sends is described in docs/zcode-protocol.md, "Events" and "Background tasks and
 * sub-agents"; how a prompt ends in ACP in docs/acp.md.
 */
import type { SessionUpdate, StopReason, ToolCallStatus, ToolCallUpdate } from '@agentclientprotocol/sdk';
import {
  isBackgroundTaskPayload,
  type EventOf,
  type Interaction,
  type ModelStreamingPayload,
  type StateUpdatedPayload,
  type UsagePayload,
  compactionOutcomeOf,
  type ZcodeEvent,
} from '../zcode/protocol.ts';
import { translateBackgroundTask } from './backgroundTaskCards.ts';
import { errorText } from './content.ts';
import { explainTurnFailure } from './failures.ts';
import { readTurnFailure } from '../zcode/turnFailure.ts';
import { interactionCardId, pendingInteractionCard } from './interactionCards.ts';
import { isTerminalCard, toolCallCard, zcodeMeta } from './toolCards.ts';
import { flushOpenTools, onToolUpdated } from './toolEvents.ts';
import { isFinished, recordFor, update, type SessionTranslatorState, type TranslateResult, type TurnSignal } from './translatorState.ts';

// The translator's public API lives here; its parts are in translatorState.ts, toolEvents.ts and
// backgroundTaskCards.ts.
export { createSessionTranslator } from './translatorState.ts';
export type {
  BackgroundTaskInfo,
  OutputTrack,
  SessionTranslatorOptions,
  SessionTranslatorState,
  TaskRecord,
  ToolRecord,
  TranslateResult,
  TurnSignal,
} from './translatorState.ts';
export { flushOpenTools } from './toolEvents.ts';
export { cancelledBackgroundTaskUpdates, listBackgroundTasks } from './backgroundTaskCards.ts';

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
      return onTurnStarted(state, event.payload, event.turnId);
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
    case 'turn.steerQueued': {
      const { pendingInputId, inputPreview } = event.payload ?? {};
      return signal({ type: 'steer', state: 'queued', ...(pendingInputId ? { queueItemIds: [pendingInputId] } : {}), ...(inputPreview ? { text: inputPreview } : {}) });
    }
    case 'turn.steerDrained': {
      const ids = event.payload?.pendingInputIds;
      return signal({ type: 'steer', state: 'drained', ...(ids?.length ? { queueItemIds: ids } : {}) });
    }
    case 'session.updated':
      return isBackgroundTaskPayload(event.payload) ? translateBackgroundTask(state, event.payload) : only(onUsage(state, event.payload));
    case 'state.updated':
      return onStateUpdated(event.payload);
    case 'session.titleUpdated':
      // `source` marks the title as zcode's own announcement (signals.ts stops reading titles then).
      return event.payload.title === '' ? NONE : signal({ type: 'title', title: event.payload.title, source: event.payload.source ?? 'zcode' });
    case 'checkpoint.created':
      return signal(checkpointSignal(event.payload ?? {}));
    case 'usage.delta':
      return event.payload ? only(onUsage(state, event.payload)) : NONE;
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

/** `envelopeTurnId`: current builds name the turn in the envelope, seed builds in the payload. */
function onTurnStarted(state: SessionTranslatorState, payload: EventOf<'turn.started'>['payload'], envelopeTurnId: string | undefined): TranslateResult {
  const background = payload.inputSource === 'background_task';
  const turnId = payload.turnId ?? envelopeTurnId;
  state.turn = { active: true, background, turnId, lastBackground: state.turn.lastBackground };
  state.segment = undefined;
  const started: TurnSignal = { type: 'turn_started', background };
  if (turnId) started.turnId = turnId;
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
    case 'error_max_turns': // current builds (docs/zcode-protocol.md "Events")
    case 'error_max_tool_calls':
      return 'max_turn_requests';
    case 'error_max_budget':
      return 'max_tokens';
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
  const { code, message, cause, retryable } = payload.error;
  const text = message ?? 'turn failed';
  const updates = flushOpenTools(state, 'failed');
  const { background, turnId } = endTurn(state);
  // Attribution and provider codes → a cause the user understands (failures.ts); current builds say
  // themselves whether a failure is retryable, seed builds leave it to the code and text.
  const explained = explainTurnFailure(readTurnFailure(payload.error), retryable ?? isRetryableFailure(code, text, cause), state.locale);
  const failed: TurnSignal = { type: 'turn_failed', message: explained.message, retryable: explained.retryable, background, cause: explained.cause };
  // Current builds send the code as a string ("500", "rate_limit"); a numeric one stays a number.
  if (code !== undefined) failed.code = typeof code === 'string' && /^-?\d+$/.test(code) ? Number(code) : code;
  if (turnId) failed.turnId = turnId;
  if (explained.retryAfterMs !== undefined) failed.retryAfterMs = explained.retryAfterMs;
  return { updates, signals: [failed] };
}

/**
 * `turn.terminal` (0.15.2+): the turn's figures. zcode sends it right before `turn.completed`, but a
 * build may send it after, even once the next turn began: with a `turnId` that is not the running
 * turn's, it belongs to the turn that ended (its `background` flag is that turn's).
 */
function onTurnTerminal(state: SessionTranslatorState, payload: EventOf<'turn.terminal'>['payload']): TranslateResult {
  const turnId = typeof payload.turnId === 'string' && payload.turnId !== '' ? payload.turnId : undefined;
  const ofRunningTurn = state.turn.active && (turnId === undefined || state.turn.turnId === undefined || turnId === state.turn.turnId);
  const terminal: TurnSignal = { type: 'turn_terminal', background: ofRunningTurn ? state.turn.background : state.turn.lastBackground };
  if (turnId) terminal.turnId = turnId;
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
        messageId: messageId(state, kind, payload.messageId ?? payload.assistantMessageId),
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
    default:
      // Start/end markers and tool-input streaming of current builds: nothing to show.
      return [];
  }
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

/** `checkpoint.created` is a free object: read what a checkpoint picker can show (times as ISO strings). */
function checkpointSignal(payload: Record<string, unknown>): TurnSignal {
  const out: TurnSignal = { type: 'checkpoint' };
  const id = payload.checkpointId ?? payload.id;
  if (typeof id === 'string' && id !== '') out.checkpointId = id;
  const created = payload.createdAt;
  if (typeof created === 'number' && Number.isFinite(created)) out.createdAt = new Date(created).toISOString();
  else if (typeof created === 'string' && created !== '') out.createdAt = created;
  if (typeof payload.label === 'string' && payload.label !== '') out.label = payload.label;
  if (typeof payload.turnId === 'string' && payload.turnId !== '') out.turnId = payload.turnId;
  return out;
}

function onStateUpdated(payload: StateUpdatedPayload): TranslateResult {
  const patch = payload.patch ?? {};
  const signals: TurnSignal[] = [];
  const model = patch.model?.modelId;
  if (patch.mode !== undefined || model !== undefined || patch.thoughtLevel !== undefined) {
    const config: TurnSignal = { type: 'config' };
    if (patch.mode !== undefined) config.mode = patch.mode;
    if (model !== undefined) config.model = model;
    if (patch.thoughtLevel !== undefined) config.thoughtLevel = patch.thoughtLevel;
    if (payload.reason !== undefined) config.reason = payload.reason;
    signals.push(config);
  }
  const compaction = compactionOutcomeOf(payload);
  if (compaction) signals.push({ type: 'compaction', status: compaction.status, ...(payload.reason !== undefined ? { reason: payload.reason } : {}) });
  if (patch.title) signals.push({ type: 'title', title: patch.title });
  return signal(...signals);
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
