/**
 * The zcode app-server wire protocol, parsed at the boundary, once.
 *
 * Everything that comes off zcode's stdout goes through one of these schemas before any logic
 * sees it. Schemas are deliberately lenient (`.passthrough()`, optional fields): zcode builds add
 * fields over time and the bridge must keep working; what the bridge *relies on* is required.
 * What each build sends: docs/zcode-protocol.md.
 */
import * as z from 'zod';

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

/** zcode ids may be numbers or strings (its own request ids look like "server-1"). */
const WireId = z.union([z.number(), z.string()]);
export type WireId = z.infer<typeof WireId>;

export const WireError = z
  .object({ code: z.number(), message: z.string(), data: z.unknown().optional() })
  .passthrough();
export type WireError = z.infer<typeof WireError>;

/** Known zcode error codes (docs/zcode-protocol.md "Errors zcode answers"). */
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

// Session-level results (both eras) live in sessionShapes.ts; re-exported here for the existing importers.
export {
  CreateSessionResult,
  ForkResult,
  GoalResult,
  HistoryMessage,
  ListSessionsResult,
  MessagePart,
  MessagesResult,
  ModelInfo,
  ReadSessionResult,
  SessionSettings,
  SessionSummary,
  SubscribeResult,
  Todo,
  sessionTitleOf,
} from './sessionShapes.ts';

export const CheckpointTarget = z.union([
  z.object({ kind: z.literal('latestCheckpoint') }),
  z.object({ kind: z.literal('checkpoint'), checkpointId: z.string() }),
]);
export type CheckpointTarget = z.infer<typeof CheckpointTarget>;

export const GoalAction = z.enum(['show', 'set', 'replace', 'clear', 'pause', 'resume']);
export type GoalAction = z.infer<typeof GoalAction>;

export const CancelBackgroundTaskResult = z.object({ cancelled: z.boolean() }).passthrough();
export type CancelBackgroundTaskResult = z.infer<typeof CancelBackgroundTaskResult>;

/** Results we only acknowledge (`{accepted:true}`, `{}` …). */
export const AnyResult = z.unknown();

// Event payloads (both eras) live in eventShapes.ts; re-exported here for the existing importers.
export {
  BackgroundTaskPayload,
  BackgroundTaskStatus,
  ModelStreamingPayload,
  SILENT_STREAMING_KINDS,
  StateUpdatedPayload,
  TitleUpdatedPayload,
  ToolResult,
  ToolUpdatedPayload,
  TurnCompletedPayload,
  TurnFailedPayload,
  TurnStartedPayload,
  TurnTerminalPayload,
  Usage,
  UsagePayload,
  ZcodeEvent,
  compactionOutcomeOf,
  isBackgroundTaskPayload,
} from './eventShapes.ts';
export type {
  EventOf,
  ZcodeEventType,
} from './eventShapes.ts';

// ---------------------------------------------------------------------------------------------
// Requests the backend sends (zcode -> bridge)
// ---------------------------------------------------------------------------------------------

// session/requestRuntimePreferences and the other host requests: hostRequests.ts.

/**
 * What zcode wants back for a permission option (current builds: each option carries it; the
 * "always" options differ from "once" only in `permissionUpdates`). Replied unchanged.
 */
export const PermissionResponse = z
  .object({
    decision: z.enum(['allow', 'deny', 'escalate', 'modify']),
    reason: z.string().optional(),
    modifiedInput: z.unknown().optional(),
    permissionUpdates: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .passthrough();
export type PermissionResponse = z.infer<typeof PermissionResponse>;

export const PermissionOption = z
  .object({
    optionId: z.string(),
    kind: z.string().optional(),
    name: z.string().optional(),
    description: z.string().optional(),
    // A malformed response is dropped (the seed-era reply is used), not the whole request.
    response: PermissionResponse.optional().catch(undefined),
  })
  .passthrough();
export type PermissionOption = z.infer<typeof PermissionOption>;

export const PermissionRequestParams = z
  .object({
    requestId: z.string(),
    sessionId: z.string(),
    toolCallId: z.string().optional(),
    toolName: z.string().optional(),
    reason: z.string().optional(),
    riskLevel: z.string().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    options: z.array(PermissionOption).default([]),
  })
  .passthrough();
export type PermissionRequestParams = z.infer<typeof PermissionRequestParams>;

const QuestionOption = z
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

/** Replies zcode accepts, by interaction kind (docs/zcode-protocol.md "Requests zcode sends"). */
/** Seed builds: a bare allow / deny. Current builds: the chosen option's own `response`, unchanged. */
export type PermissionReply = { decision: 'allow' } | { decision: 'deny'; reason: string } | PermissionResponse;
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
