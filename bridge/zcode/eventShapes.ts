/**
 * `session/event` payloads of both eras, parsed at the boundary (design.md rule 2): the seed era
 * (zcode-protocol.md "Events") and current builds (zcode-current.md §8, zcode's own schemas), read into
 * one shape. Split from protocol.ts, which re-exports everything here.
 */
import * as z from 'zod';
import { ModelInfo } from './sessionShapes.ts';

const ToolInput = z.record(z.string(), z.unknown());

export const Usage = z
  .object({
    source: z.string().optional(),
    modelRequestCount: z.number().optional(),
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
    webFetchRequests: z.number().optional(),
    webSearchRequests: z.number().optional(),
  })
  .passthrough();
export type Usage = z.infer<typeof Usage>;

/**
 * `turn.started`. Seed builds put `turnId` in the payload; current ones put it in the envelope and
 * add `turnNumber` / `input` (zcode-current.md §8). The translator reads either.
 */
export const TurnStartedPayload = z
  .object({
    turnId: z.string().optional(),
    turnNumber: z.number().optional(),
    inputSource: z.string().optional(),
    inputVisibility: z.string().optional(),
    input: z.string().optional(),
    /** The input that started the turn: a v4 command's id (v4 uses the commandId as inputId). */
    inputId: z.string().optional().catch(undefined),
  })
  .passthrough();

/** `turn.steerQueued`: the queued input's id (`queue_<commandId>` for a v4 sendText) and a preview. */
export const SteerQueuedPayload = z
  .object({ pendingInputId: z.string().optional().catch(undefined), inputPreview: z.string().optional().catch(undefined), delivery: z.string().optional().catch(undefined) })
  .passthrough();

/** `turn.steerDrained`: the queued inputs the running turn took in. */
export const SteerDrainedPayload = z.object({ pendingInputIds: z.array(z.string()).optional().catch(undefined) }).passthrough();

/** `model.streaming` kinds current builds send that carry nothing the bridge shows (start/end markers, tool input streaming). */
export const SILENT_STREAMING_KINDS = [
  'start',
  'finish',
  'error',
  'text_start',
  'text_end',
  'reasoning_start',
  'reasoning_end',
  'tool_input_start',
  'tool_input_delta',
  'tool_input_end',
] as const;

/** Deltas carry `messageId` (seed) or `assistantMessageId` (current). */
const deltaShape = { delta: z.string(), messageId: z.string().optional(), assistantMessageId: z.string().optional() };

export const ModelStreamingPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text_delta'), ...deltaShape }).passthrough(),
  z.object({ kind: z.literal('reasoning_delta'), ...deltaShape }).passthrough(),
  z
    .object({ kind: z.literal('tool_call'), toolCallId: z.string(), toolName: z.string(), input: ToolInput.optional() })
    .passthrough(),
  z.object({ kind: z.enum(SILENT_STREAMING_KINDS) }).passthrough(),
]);
export type ModelStreamingPayload = z.infer<typeof ModelStreamingPayload>;

export const ToolResult = z
  .object({ success: z.boolean().optional(), content: z.unknown().optional() })
  .passthrough();
export type ToolResult = z.infer<typeof ToolResult>;

/**
 * `tool.updated`. Current builds add `startedAt` (started) and `duration` (result), send errors as
 * objects `{type, message, …}` (seed: a string; `errorText` reads both), count a batch as
 * `successCount` / `errorCount` (seed: `succeeded` / `failed`) and add a `raw` kind.
 */
/**
 * Whose tool call it is (desktop 3.15+, every field optional): a sub-agent's tools carry the Agent
 * call they run under (`parentToolCallId`), `source:"subagent"`, the sub-agent's `agentType` /
 * `agentId` / `description`, and the call's id inside the child session (`childToolCallId`).
 * `scheduled` may also carry the scheduler's `assistantMessageId`, `dependencies`,
 * `parallelGroupIndex`, `canRunParallel` (read by no one yet; passed through).
 */
const attribution = {
  parentToolCallId: z.string().optional().catch(undefined),
  agentType: z.string().optional().catch(undefined),
  childToolCallId: z.string().optional().catch(undefined),
};

export const ToolUpdatedPayload = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('scheduled'), toolCallId: z.string(), toolName: z.string().optional(), input: ToolInput.optional(), ...attribution })
    .passthrough(),
  z.object({ kind: z.literal('started'), toolCallId: z.string(), toolName: z.string().optional(), ...attribution }).passthrough(),
  z
    .object({
      kind: z.literal('progress'),
      toolCallId: z.string(),
      toolName: z.string().optional(),
      /** Cumulative: the whole tail so far, not a delta. */
      stdoutTail: z.string().optional(),
      stderrTail: z.string().optional(),
    })
    .passthrough(),
  z
    .object({ kind: z.literal('result'), toolCallId: z.string(), toolName: z.string().optional(), result: ToolResult })
    .passthrough(),
  z
    .object({ kind: z.literal('error'), toolCallId: z.string(), toolName: z.string().optional(), error: z.unknown() })
    .passthrough(),
  z
    .object({
      kind: z.literal('batch'),
      toolCallIds: z.array(z.string()).optional(),
      succeeded: z.number().optional(),
      failed: z.number().optional(),
      successCount: z.number().optional(),
      errorCount: z.number().optional(),
    })
    .passthrough(),
  z.object({ kind: z.literal('raw'), toolCallId: z.string().optional() }).passthrough(),
]);
export type ToolUpdatedPayload = z.infer<typeof ToolUpdatedPayload>;

/**
 * `turn.completed`. Current builds add `response`, `tokenCount`, `toolCallCount`, `duration` and
 * declare `usage` as free-form: a usage the bridge cannot read is dropped, not the event.
 */
export const TurnCompletedPayload = z
  .object({
    resultType: z.string().optional(),
    usage: Usage.optional().catch(undefined),
    response: z.string().optional(),
    tokenCount: z.number().optional(),
    toolCallCount: z.number().optional(),
    duration: z.number().optional(),
  })
  .passthrough();

/**
 * `turn.failed`. Seed: `{error:{code:number, message, cause?}}`. Current: `{error:{type, message,
 * code?:string, attribution?:{source, reason, providerId, statusCode, providerErrorCode, …},
 * retryable?, detail?}, turnPhase}`.
 */
export const TurnFailedPayload = z
  .object({
    error: z
      .object({
        code: z.union([z.number(), z.string()]).optional(),
        message: z.string().optional(),
        cause: z.unknown().optional(),
        type: z.string().optional(),
        detail: z.string().optional(),
        retryable: z.boolean().optional(),
        attribution: z.record(z.string(), z.unknown()).optional(),
      })
      .passthrough(),
    turnPhase: z.string().optional(),
  })
  .passthrough();

/** `turn.terminal` (seed 0.15.2–0.16.0 only; current builds moved it to v4 telemetry). Any `status` is read. */
export const TurnTerminalPayload = z
  .object({
    status: z.string().optional(),
    resultType: z.string().optional(),
    durationMs: z.number().optional(),
    inputTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    totalTokens: z.number().optional(),
  })
  .passthrough();

export const BackgroundTaskStatus = z.enum(['running', 'completed', 'failed', 'cancelled']);
export type BackgroundTaskStatus = z.infer<typeof BackgroundTaskStatus>;

/** `session.updated` is two different things: a usage report, or a background-task lifecycle step. */
export const BackgroundTaskPayload = z
  .object({
    taskId: z.string(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    status: BackgroundTaskStatus,
    description: z.string().optional(),
    outputPath: z.string().optional(),
    outputTail: z.string().optional(),
    pid: z.number().optional(),
    terminalId: z.string().optional(),
    // Seed: an ISO string; current builds may send epoch ms.
    startedAt: z.union([z.string(), z.number().transform((ms) => new Date(ms).toISOString())]).optional(),
  })
  .passthrough();
export type BackgroundTaskPayload = z.infer<typeof BackgroundTaskPayload>;

export const UsagePayload = z
  .object({
    usage: z.object({ inputTokens: z.number().optional() }).passthrough().optional(),
    contextWindow: z.number().optional(),
  })
  .passthrough();
export type UsagePayload = z.infer<typeof UsagePayload>;

/** A setting in a patch: a bare string (seed) or `{current}` (current builds). */
const patchedValue = z
  .union([z.string(), z.object({ current: z.string().optional() }).passthrough().transform((v) => v.current)])
  .optional();
/** A model in a patch: an id, a model, or `{current: model}`. Normalised to the id and, when given, the provider. */
const patchedModel = z
  .union([
    z.string().transform((modelId): ModelInfo => ({ modelId })),
    ModelInfo,
    z.object({ current: ModelInfo.optional() }).passthrough().transform((v) => v.current),
  ])
  .optional();

/**
 * A state change, from a `state.updated` inside `session/event` (seed) or from the top-level
 * `state.updated` notification (current: `{type, scope, sessionId, revision, reason, patch}`).
 * Mode, model and thought level are normalised to strings (undefined when the patch names none).
 * Current builds report a compaction outcome by `reason` (`session_compacted`,
 * `session_compact_failed`, `session_compact_cancelled`), possibly with no `patch.compaction`.
 */
export const StateUpdatedPayload = z
  .object({
    patch: z
      .object({
        mode: patchedValue,
        model: patchedModel,
        thoughtLevel: patchedValue,
        compaction: z.object({ status: z.string().optional() }).passthrough().optional(),
        title: z.string().optional(),
      })
      .passthrough()
      .nullish()
      .catch(undefined),
    reason: z.string().optional(),
    revision: z.number().optional(),
  })
  .passthrough();
export type StateUpdatedPayload = z.infer<typeof StateUpdatedPayload>;

/** The compaction outcome each current `reason` stands for when the patch carries no status. */
const COMPACTION_REASONS: Readonly<Record<string, string>> = {
  session_compacted: 'compacted',
  session_compact_failed: 'failed',
  session_compact_cancelled: 'cancelled',
};

/**
 * The compaction state a `state.updated` reports, in either era: `patch.compaction` (with its
 * status, or the status its `reason` implies) or, with no compaction in the patch, a compaction
 * `reason` alone (current builds: `reason:"session_compact_failed"` and nothing else). Undefined
 * when the change is not about a compaction.
 */
export function compactionOutcomeOf(payload: StateUpdatedPayload): ({ status: string } & Record<string, unknown>) | undefined {
  const fromReason = payload.reason === undefined ? undefined : COMPACTION_REASONS[payload.reason];
  const compaction = payload.patch?.compaction;
  const status = compaction?.status ?? fromReason;
  if (status === undefined) return undefined;
  return { ...compaction, status };
}

/** `session.titleUpdated` (current builds; arrives before `turn.started` on the first send, and again for a generated title). */
export const TitleUpdatedPayload = z
  .object({ title: z.string(), previousTitle: z.string().optional(), source: z.string().optional() })
  .passthrough();

/** Fields every event envelope carries. Current builds add `eventId`, `timestamp`, `turnId`, `traceId`. */
const envelope = { sessionId: z.string(), seq: z.number().optional() };
/** Turn lifecycle events of current builds name the turn in the envelope. */
const turnEnvelope = { ...envelope, turnId: z.string().optional() };
const freeObject = z.record(z.string(), z.unknown());

/**
 * A parsed `session/event`. An unknown `type` does not parse: `parseZcodeEvent()` (events.ts)
 * logs it at debug and skips it (design.md: unknown variants are logged, never fatal).
 */
export const ZcodeEvent = z.discriminatedUnion('type', [
  z.object({ ...turnEnvelope, type: z.literal('turn.started'), payload: TurnStartedPayload }),
  z.object({ ...envelope, type: z.literal('model.streaming'), payload: ModelStreamingPayload }),
  z.object({ ...envelope, type: z.literal('tool.updated'), payload: ToolUpdatedPayload }),
  z.object({ ...turnEnvelope, type: z.literal('turn.completed'), payload: TurnCompletedPayload }),
  z.object({ ...turnEnvelope, type: z.literal('turn.failed'), payload: TurnFailedPayload }),
  z.object({ ...turnEnvelope, type: z.literal('turn.terminal'), payload: TurnTerminalPayload }),
  z.object({ ...envelope, type: z.literal('turn.steerQueued'), payload: SteerQueuedPayload.optional() }),
  z.object({ ...envelope, type: z.literal('turn.steerDrained'), payload: SteerDrainedPayload.optional() }),
  z.object({ ...envelope, type: z.literal('session.updated'), payload: z.union([BackgroundTaskPayload, UsagePayload]) }),
  z.object({ ...envelope, type: z.literal('state.updated'), payload: StateUpdatedPayload }),
  z.object({ ...envelope, type: z.literal('session.titleUpdated'), payload: TitleUpdatedPayload }),
  z.object({ ...envelope, type: z.literal('checkpoint.created'), payload: freeObject.optional() }),
  // S4 saw `usage.delta` as a live session event of 0.16.5 (the source files it under v4 telemetry).
  z.object({ ...envelope, type: z.literal('usage.delta'), payload: UsagePayload.optional() }),
]);
export type ZcodeEvent = z.infer<typeof ZcodeEvent>;
export type ZcodeEventType = ZcodeEvent['type'];
/** Narrow helper: the event of one type. */
export type EventOf<T extends ZcodeEventType> = Extract<ZcodeEvent, { type: T }>;

export function isBackgroundTaskPayload(p: EventOf<'session.updated'>['payload']): p is BackgroundTaskPayload {
  return typeof (p as { taskId?: unknown }).taskId === 'string';
}
