/**
 * The zcode app-server wire protocol, parsed at the boundary (design.md rule 2).
 *
 * Everything that comes off zcode's stdout goes through one of these schemas before any logic
 * sees it. Schemas are deliberately lenient (`.passthrough()`, optional fields): zcode builds add
 * fields over time and the bridge must keep working; what the bridge *relies on* is required.
 * See docs: zcode-protocol.md (shared) and the seed's PROTOCOL.md diff.
 */
import * as z from 'zod';

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/** zcode ids may be numbers or strings (its own request ids look like "server-1"). */
export const WireId = z.union([z.number(), z.string()]);
export type WireId = z.infer<typeof WireId>;

export const WireError = z
  .object({ code: z.number(), message: z.string(), data: z.unknown().optional() })
  .passthrough();
export type WireError = z.infer<typeof WireError>;

/** Known zcode error codes (zcode-protocol.md, "Error codes seen"). */
export const ZcodeErrorCode = {
  /** "prompt is running": the session is busy. */
  Busy: 1308,
  /** A prompt is already running (another spelling of busy). */
  AlreadyRunning: -32010,
  /** Session not active: evicted after idling. Resume and retry once. */
  SessionNotActive: -32004,
  /** Method not found / removed (0.16 removed steer and rewind). */
  MethodNotFound: -32601,
  /** The backend rejects a message that carries `jsonrpc`. */
  InvalidRequest: -32600,
} as const;

export const Workspace = z.object({ workspacePath: z.string(), workspaceKey: z.string().optional() }).passthrough();
export type Workspace = z.infer<typeof Workspace>;

// ---------------------------------------------------------------------------------------------
// Method results (bridge -> zcode requests). Params are built by typed methods, results parsed here.
// ---------------------------------------------------------------------------------------------

export const ModelInfo = z
  .object({ modelId: z.string(), name: z.string().optional(), displayName: z.string().optional() })
  .passthrough();
export type ModelInfo = z.infer<typeof ModelInfo>;

/** `settings` as returned by `session/read` (and by newer `session/create`). Every part optional. */
export const SessionSettings = z
  .object({
    mode: z
      .object({ current: z.string().optional(), available: z.array(z.string()).optional() })
      .passthrough()
      .optional(),
    model: z
      .object({ current: ModelInfo.optional(), available: z.array(ModelInfo).optional() })
      .passthrough()
      .optional(),
    thoughtLevel: z
      .object({ current: z.string().optional(), available: z.array(z.string()).optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type SessionSettings = z.infer<typeof SessionSettings>;

export const CreateSessionResult = z
  .object({
    session: z.object({ sessionId: z.string(), title: z.string().optional(), traceId: z.string().optional() }).passthrough(),
    settings: SessionSettings.optional(),
  })
  .passthrough();
export type CreateSessionResult = z.infer<typeof CreateSessionResult>;

export const SessionSummary = z
  .object({
    sessionId: z.string(),
    workspace: z.object({ workspacePath: z.string() }).passthrough().optional(),
    title: z.string().nullish(),
    /** epoch milliseconds */
    updatedAt: z.number().nullish(),
  })
  .passthrough();
export type SessionSummary = z.infer<typeof SessionSummary>;

export const ListSessionsResult = z.object({ sessions: z.array(SessionSummary) }).passthrough();
export type ListSessionsResult = z.infer<typeof ListSessionsResult>;

export const Todo = z
  .object({ content: z.string(), status: z.string(), priority: z.string().optional(), id: z.string().optional() })
  .passthrough();
export type Todo = z.infer<typeof Todo>;

export const ReadSessionResult = z
  .object({
    projection: z
      .object({
        status: z.string().optional(),
        contextUsed: z.number().optional(),
        contextWindow: z.number().optional(),
        totalTokenCount: z.number().optional(),
        title: z.string().optional(),
      })
      .passthrough()
      .optional(),
    settings: SessionSettings.optional(),
    todos: z.array(Todo).optional(),
  })
  .passthrough();
export type ReadSessionResult = z.infer<typeof ReadSessionResult>;

/** One part of a historical message (`session/messages`). */
export const MessagePart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }).passthrough(),
  z.object({ type: z.literal('reasoning'), text: z.string() }).passthrough(),
  z
    .object({
      type: z.literal('tool'),
      callId: z.string(),
      tool: z.string(),
      state: z
        .object({
          status: z.string().optional(),
          input: z.record(z.string(), z.unknown()).optional(),
          output: z.unknown().optional(),
          metadata: z.record(z.string(), z.unknown()).optional(),
          error: z.unknown().optional(),
        })
        .passthrough(),
    })
    .passthrough(),
]);
export type MessagePart = z.infer<typeof MessagePart>;

export const HistoryMessage = z
  .object({
    info: z.object({ id: z.string(), role: z.enum(['user', 'assistant', 'system']).or(z.string()) }).passthrough(),
    // Unknown part types are kept as raw records; readers skip what they do not know.
    parts: z.array(z.union([MessagePart, z.object({ type: z.string() }).passthrough()])),
  })
  .passthrough();
export type HistoryMessage = z.infer<typeof HistoryMessage>;

export const MessagesResult = z.object({ messages: z.array(HistoryMessage) }).passthrough();
export type MessagesResult = z.infer<typeof MessagesResult>;

export const SubscribeResult = z.object({ eventSeq: z.number().optional(), snapshot: z.unknown().optional() }).passthrough();
export type SubscribeResult = z.infer<typeof SubscribeResult>;

/** Fork results are read defensively: `sessionId` or `forkedSessionId` (zcode-protocol.md). */
export const ForkResult = z
  .object({
    sessionId: z.string().optional(),
    forkedSessionId: z.string().optional(),
    session: z.object({ sessionId: z.string() }).passthrough().optional(),
  })
  .passthrough();
export type ForkResult = z.infer<typeof ForkResult>;

export const CheckpointTarget = z.union([
  z.object({ kind: z.literal('latestCheckpoint') }),
  z.object({ kind: z.literal('checkpoint'), checkpointId: z.string() }),
]);
export type CheckpointTarget = z.infer<typeof CheckpointTarget>;

export const GoalAction = z.enum(['show', 'set', 'replace', 'clear', 'pause', 'resume']);
export type GoalAction = z.infer<typeof GoalAction>;

export const GoalResult = z
  .object({
    goal: z
      .object({ objective: z.string().nullish(), status: z.string().optional() })
      .passthrough()
      .nullish(),
  })
  .passthrough();
export type GoalResult = z.infer<typeof GoalResult>;

export const CancelBackgroundTaskResult = z.object({ cancelled: z.boolean() }).passthrough();
export type CancelBackgroundTaskResult = z.infer<typeof CancelBackgroundTaskResult>;

/** Results we only acknowledge (`{accepted:true}`, `{}` …). */
export const AnyResult = z.unknown();

// ---------------------------------------------------------------------------------------------
// Events (`session/event` notifications)
// ---------------------------------------------------------------------------------------------

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

export const TurnStartedPayload = z
  .object({
    turnId: z.string().optional(),
    inputSource: z.string().optional(),
    inputVisibility: z.string().optional(),
    input: z.string().optional(),
  })
  .passthrough();

export const ModelStreamingPayload = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text_delta'), delta: z.string(), messageId: z.string().optional() }).passthrough(),
  z.object({ kind: z.literal('reasoning_delta'), delta: z.string(), messageId: z.string().optional() }).passthrough(),
  z
    .object({ kind: z.literal('tool_call'), toolCallId: z.string(), toolName: z.string(), input: ToolInput.optional() })
    .passthrough(),
]);
export type ModelStreamingPayload = z.infer<typeof ModelStreamingPayload>;

export const ToolResult = z
  .object({ success: z.boolean().optional(), content: z.unknown().optional() })
  .passthrough();
export type ToolResult = z.infer<typeof ToolResult>;

export const ToolUpdatedPayload = z.discriminatedUnion('kind', [
  z
    .object({ kind: z.literal('scheduled'), toolCallId: z.string(), toolName: z.string().optional(), input: ToolInput.optional() })
    .passthrough(),
  z.object({ kind: z.literal('started'), toolCallId: z.string(), toolName: z.string().optional() }).passthrough(),
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
    })
    .passthrough(),
]);
export type ToolUpdatedPayload = z.infer<typeof ToolUpdatedPayload>;

export const TurnCompletedPayload = z
  .object({ resultType: z.string().optional(), usage: Usage.optional() })
  .passthrough();

export const TurnFailedPayload = z
  .object({
    error: z.object({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional(), cause: z.unknown().optional() }).passthrough(),
  })
  .passthrough();

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
    startedAt: z.string().optional(),
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

export const StateUpdatedPayload = z
  .object({
    patch: z
      .object({
        mode: z.string().optional(),
        model: z.union([z.string(), ModelInfo]).optional(),
        thoughtLevel: z.string().optional(),
        compaction: z.object({ status: z.string() }).passthrough().optional(),
        title: z.string().optional(),
      })
      .passthrough()
      .optional(),
    reason: z.string().optional(),
  })
  .passthrough();
export type StateUpdatedPayload = z.infer<typeof StateUpdatedPayload>;

/** Fields every event envelope carries. */
const envelope = { sessionId: z.string(), seq: z.number().optional() };

/**
 * A parsed `session/event`. An unknown `type` does not parse: `parseZcodeEvent()` (events.ts)
 * logs it at debug and skips it (design.md: unknown variants are logged, never fatal).
 */
export const ZcodeEvent = z.discriminatedUnion('type', [
  z.object({ ...envelope, type: z.literal('turn.started'), payload: TurnStartedPayload }),
  z.object({ ...envelope, type: z.literal('model.streaming'), payload: ModelStreamingPayload }),
  z.object({ ...envelope, type: z.literal('tool.updated'), payload: ToolUpdatedPayload }),
  z.object({ ...envelope, type: z.literal('turn.completed'), payload: TurnCompletedPayload }),
  z.object({ ...envelope, type: z.literal('turn.failed'), payload: TurnFailedPayload }),
  z.object({ ...envelope, type: z.literal('turn.terminal'), payload: TurnTerminalPayload }),
  z.object({ ...envelope, type: z.literal('turn.steerQueued'), payload: z.object({}).passthrough().optional() }),
  z.object({ ...envelope, type: z.literal('turn.steerDrained'), payload: z.object({}).passthrough().optional() }),
  z.object({ ...envelope, type: z.literal('session.updated'), payload: z.union([BackgroundTaskPayload, UsagePayload]) }),
  z.object({ ...envelope, type: z.literal('state.updated'), payload: StateUpdatedPayload }),
]);
export type ZcodeEvent = z.infer<typeof ZcodeEvent>;
export type ZcodeEventType = ZcodeEvent['type'];
/** Narrow helper: the event of one type. */
export type EventOf<T extends ZcodeEventType> = Extract<ZcodeEvent, { type: T }>;

export function isBackgroundTaskPayload(p: EventOf<'session.updated'>['payload']): p is BackgroundTaskPayload {
  return typeof (p as { taskId?: unknown }).taskId === 'string';
}

// ---------------------------------------------------------------------------------------------
// Requests the backend sends (zcode -> bridge)
// ---------------------------------------------------------------------------------------------

export const RuntimePreferencesParams = z.object({ sessionId: z.string().optional(), scope: z.unknown().optional() }).passthrough();

/** The exact reply zcode expects to `session/requestRuntimePreferences`. */
export const RUNTIME_PREFERENCES_REPLY = {
  nativeSearchEnhancementsEnabled: false,
  memoryEnabled: false,
  askUserQuestionAutoResolutionEnabled: false,
} as const;

export const PermissionOption = z
  .object({ optionId: z.string(), kind: z.string().optional(), name: z.string().optional() })
  .passthrough();
export type PermissionOption = z.infer<typeof PermissionOption>;

export const PermissionRequestParams = z
  .object({
    requestId: z.string(),
    sessionId: z.string(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    reason: z.string().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    options: z.array(PermissionOption).default([]),
  })
  .passthrough();
export type PermissionRequestParams = z.infer<typeof PermissionRequestParams>;

export const QuestionOption = z
  .object({ label: z.string(), value: z.string().optional(), description: z.string().optional() })
  .passthrough();
export type QuestionOption = z.infer<typeof QuestionOption>;

export const Question = z
  .object({
    question: z.string(),
    header: z.string().optional(),
    multiSelect: z.boolean().optional().default(false),
    options: z.array(QuestionOption).default([]),
  })
  .passthrough();
export type Question = z.infer<typeof Question>;

export const UserInputRequestParams = z
  .object({
    requestId: z.string(),
    sessionId: z.string(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    schema: z.object({ interaction: z.string().optional() }).passthrough().optional(),
    questions: z.array(Question).optional(),
    input: z
      .object({ plan: z.string().optional(), questions: z.array(Question).optional() })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type UserInputRequestParams = z.infer<typeof UserInputRequestParams>;

/** A zcode interaction, classified once at the boundary. */
export type Interaction =
  | { kind: 'permission'; params: PermissionRequestParams }
  | { kind: 'plan'; params: UserInputRequestParams; plan: string }
  | { kind: 'questions'; params: UserInputRequestParams; questions: Question[] };

/** Classify an `interaction/requestUserInput` into plan approval or questions (questions may sit under `input`). */
export function classifyUserInput(params: UserInputRequestParams): Interaction {
  if (params.schema?.interaction === 'plan_approval' || typeof params.input?.plan === 'string' && !params.questions && !params.input?.questions) {
    return { kind: 'plan', params, plan: params.input?.plan ?? '' };
  }
  return { kind: 'questions', params, questions: params.questions ?? params.input?.questions ?? [] };
}

/** Replies zcode accepts, by interaction kind (zcode-protocol.md "Requests the backend sends"). */
export type PermissionReply = { decision: 'allow' } | { decision: 'deny'; reason: string };
export type UserInputReply =
  | { action: 'accept'; content: { answer_0: 'approve' } }
  | { action: 'accept'; content: { answers: Record<string, string> } }
  | { action: 'decline'; reason: string };
export type InteractionReply = PermissionReply | UserInputReply;

// ---------------------------------------------------------------------------------------------
// Raw message classification (framing level)
// ---------------------------------------------------------------------------------------------

/** Any message on the wire. Classification: id+method request, id only response, method only notification. */
export const RawMessage = z
  .object({
    id: WireId.optional(),
    method: z.string().optional(),
    params: z.unknown().optional(),
    result: z.unknown().optional(),
    error: WireError.optional(),
  })
  .passthrough();
export type RawMessage = z.infer<typeof RawMessage>;
