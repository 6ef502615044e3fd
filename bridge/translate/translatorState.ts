/**
 * The session translator's state and the small helpers its parts share (sessionTranslator.ts is the
 * entry point; toolEvents.ts and backgroundTaskCards.ts translate tool and background-task events).
 */
import type { BridgeLocale } from '../l10n/messages.ts';
import type { BackgroundTask } from '../../shared/backgroundTasks.ts';
import type { FailureCause } from './failures.ts';
import { randomUUID } from 'node:crypto';
import type { SessionUpdate, StopReason, ToolCallStatus } from '@agentclientprotocol/sdk';
import type { BackgroundTaskStatus, Usage } from '../zcode/protocol.ts';
import { planUpdate } from './plan.ts';
import { isTerminalCard, toolCallCard, type ToolCallProgress } from './toolCards.ts';
import { canonicalToolName, type ToolInput } from './toolInfo.ts';

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

/**
 * A background task as the bridge keeps it: the shared wire type (shared/backgroundTasks.ts, sent
 * as `BackgroundTasksNotification`) with zcode's status type and the card always known.
 */
export interface BackgroundTaskInfo extends BackgroundTask {
  status: BackgroundTaskStatus;
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
  /** `turn.failed`: `message`, `cause` and `retryable` as failures.ts explains them. */
  | { type: 'turn_failed'; code?: number | string; message: string; retryable: boolean; background: boolean; turnId?: string; cause?: FailureCause; retryAfterMs?: number }
  /** `turn.terminal` (0.15.2+): figures only, never ends a turn by itself; `turnId` when zcode gives one. */
  | {
      type: 'turn_terminal';
      turnId?: string;
      status?: string;
      resultType?: string;
      durationMs?: number;
      inputTokens?: number;
      outputTokens?: number;
      totalTokens?: number;
      background: boolean;
    }
  /** `turn.steerQueued` / `turn.steerDrained`. */
  | { type: 'steer'; state: 'queued' | 'drained'; queueItemIds?: string[]; text?: string }
  /** The session's full background task list, on every change. */
  | { type: 'background_tasks'; tasks: BackgroundTaskInfo[] }
  /** Backend-side settings change (`state.updated`); `model` is the model id. */
  | { type: 'config'; mode?: string; model?: string; thoughtLevel?: string; reason?: string }
  /** Compaction progress/outcome reported by `state.updated`. */
  | { type: 'compaction'; status: string; reason?: string }
  /** The session got a (new) title (`session.titleUpdated`, or a seed-era `state.updated` title patch). */
  | { type: 'title'; title: string; source?: string }
  /** zcode made a checkpoint (`checkpoint.created`): fork/rewind pickers are out of date. */
  | { type: 'checkpoint'; checkpointId?: string; createdAt?: string; label?: string; turnId?: string };

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
  /** The client's language for the bridge's own words (failure explanations); default English. */
  locale?: BridgeLocale;
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
  /** The Agent call a sub-agent's tool runs under, and that sub-agent's type (zcode 3.15+). */
  parentToolCallId?: string;
  agentType?: string;
}

/** What the translator knows about one background task. */
export interface TaskRecord {
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
  readonly locale: BridgeLocale;
  /**
   * Render new shell cards as terminals. May be changed when the audience's capabilities change;
   * cards already shown keep the form they were announced with.
   */
  terminalOutput: boolean;
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
    locale: options.locale ?? 'en',
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
// Shared helpers
// ---------------------------------------------------------------------------------------------

/** True once a card reached a final status. */
export function isFinished(record: ToolRecord): boolean {
  return record.status === 'completed' || record.status === 'failed';
}

/** The record of a tool call id, created empty on first sight. */
export function recordFor(state: SessionTranslatorState, id: string): ToolRecord {
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

/** The tool was started with `run_in_background: true`. */
export function isBackgroundInput(record: ToolRecord): boolean {
  return record.input?.run_in_background === true;
}

/** A `tool_call_update` for `toolCallId`. */
export function update(toolCallId: string, fields: Omit<ToolCallProgress, 'sessionUpdate' | 'toolCallId'>): ToolCallProgress {
  return { sessionUpdate: 'tool_call_update', toolCallId, ...fields };
}

/** The `tool_call` for a record (once), plus the plan for TodoWrite. */
export function announce(state: SessionTranslatorState, record: ToolRecord, status: ToolCallStatus): SessionUpdate[] {
  record.announced = true;
  record.status = status;
  record.terminalCard = isTerminalCard(record.name, state);
  const extra: Record<string, unknown> = {};
  if (isBackgroundInput(record)) extra.background = true;
  if (record.parentToolCallId) extra.parentToolCallId = record.parentToolCallId;
  if (record.agentType) extra.agentType = record.agentType;
  const out: SessionUpdate[] = [toolCallCard(record.id, record.name, record.input, status, state, extra)];
  if (canonicalToolName(record.name) === 'TodoWrite' && Array.isArray(record.input?.todos)) out.push(planUpdate(record.input.todos));
  return out;
}
