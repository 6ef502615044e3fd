/**
 * The `_zcode/*` contract between the bridge and its clients — every extension method and
 * notification, each declared ONCE as a typed descriptor (name, params, result), the way
 * vscode-languageserver-protocol declares `RequestType`s that client and server both import:
 * - the bridge registers its handlers from the request descriptors (extensionMethods.ts) and sends
 *   its notifications through the notification descriptors (signals.ts, `ctx.notifySession`);
 * - the extension calls through them (`ZcodeClientHost.call`, `readNotification`): params typed,
 *   results and notifications checked with the same schemas.
 * No `'_zcode/'` string literal exists outside this module (eslint.config.mjs).
 *
 * Params: zod, run by the SDK before a handler (`paramsParser`: -32602 with a readable message);
 * every method takes the ACP `sessionId` (a lazy placeholder or a real zcode id); `_meta` is
 * accepted and ignored, other unknown keys are dropped. Results: zod too, so a client checks the
 * answer it gets instead of trusting a generic.
 */
import * as z from 'zod';
import { backgroundTaskKindOf } from '../../shared/backgroundTasks.ts';
import type { BackgroundTask } from '../../shared/backgroundTasks.ts';
import type { QuotaWindow as QuotaWindowShape } from '../translate/quota.ts';

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

/** ACP reserves the `_` prefix for extensions (acp-notes.md); the bridge's are `_zcode/…`. */
export type ExtensionMethodName = `_zcode/${string}`;

/** A `_zcode/*` request: what the client sends (`params`) and what the bridge answers (`result`). */
export interface ExtensionRequest<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly kind: 'request';
  readonly method: ExtensionMethodName;
  readonly params: P;
  readonly result: R;
}

/** A `_zcode/*` notification, bridge → every client; `params` always carries the ACP `sessionId`. */
export interface ExtensionNotification<P extends z.ZodType = z.ZodType> {
  readonly kind: 'notification';
  readonly method: ExtensionMethodName;
  readonly params: P;
}

/** What a caller passes (before the schema's trimming and defaults). */
export type ParamsOf<D extends ExtensionRequest | ExtensionNotification> = z.input<D['params']>;
/** What a handler receives, after the schema ran. */
export type ParsedParamsOf<D extends ExtensionRequest | ExtensionNotification> = z.output<D['params']>;
/** A session notification's params as the sender gives them (what a client reads after parsing); `sessionId` is set per alias (signals.ts `notifyAliases`). */
export type SessionNotificationParams<D extends ExtensionNotification> = Omit<z.output<D['params']>, 'sessionId'>;
/** What the bridge answers (and a client gets back, checked). */
export type ResultOf<D extends ExtensionRequest> = z.output<D['result']>;

function request<P extends z.ZodType, R extends z.ZodType>(method: ExtensionMethodName, params: P, result: R): ExtensionRequest<P, R> {
  return { kind: 'request', method, params, result };
}

function notification<P extends z.ZodType>(method: ExtensionMethodName, params: P): ExtensionNotification<P> {
  return { kind: 'notification', method, params };
}

// ---------------------------------------------------------------------------------------------
// Params
// ---------------------------------------------------------------------------------------------

const nonEmpty = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`) })
    .trim()
    .min(1, `${what} must not be empty`);

const base = {
  sessionId: nonEmpty('sessionId'),
  _meta: z.record(z.string(), z.unknown()).nullish(),
};

/** A checkpoint id; absent or "latest" (any case) means zcode's latest checkpoint. */
const checkpointId = nonEmpty('checkpointId').optional();

export const SessionParams = z.object(base);
export type SessionParams = z.infer<typeof SessionParams>;

export const ForkParams = z.object({ ...base, checkpointId });
export type ForkParams = z.infer<typeof ForkParams>;

export const RewindParams = z.object({ ...base, checkpointId, cascade: z.boolean({ error: 'cascade must be true or false' }).optional() });
export type RewindParams = z.infer<typeof RewindParams>;

export const GOAL_ACTIONS = ['show', 'set', 'replace', 'clear', 'pause', 'resume'] as const;

export const GoalParams = z
  .object({
    ...base,
    action: z.enum(GOAL_ACTIONS, { error: `action must be one of: ${GOAL_ACTIONS.join(', ')}` }),
    objective: z.string({ error: 'objective must be a string' }).trim().optional(),
  })
  .superRefine((p, ctx) => {
    if ((p.action === 'set' || p.action === 'replace') && !p.objective) {
      ctx.addIssue({ code: 'custom', path: ['objective'], message: `action '${p.action}' needs a non-empty objective` });
    }
  });
export type GoalParams = z.infer<typeof GoalParams>;

/** `instructions`: what the summary should keep (passed to zcode's `session/compact`). */
export const CompactParams = z.object({ ...base, instructions: z.string().optional() });
export type CompactParams = z.infer<typeof CompactParams>;

export const SteerParams = z.object({ ...base, content: nonEmpty('content') });
export type SteerParams = z.infer<typeof SteerParams>;

export const SetModeParams = z.object({ ...base, mode: nonEmpty('mode') });
export type SetModeParams = z.infer<typeof SetModeParams>;

export const SetThoughtLevelParams = z.object({ ...base, thoughtLevel: nonEmpty('thoughtLevel') });
export type SetThoughtLevelParams = z.infer<typeof SetThoughtLevelParams>;

export const CancelBackgroundTaskParams = z.object({ ...base, taskId: nonEmpty('taskId') });
export type CancelBackgroundTaskParams = z.infer<typeof CancelBackgroundTaskParams>;

export const CheckpointsParams = SessionParams;
export type CheckpointsParams = SessionParams;

/**
 * `_zcode/account/usage`: the plan quota for any client (acp/quota.ts); with `sessionId`, zcode's own
 * token counts for that session too (`session/usage`). `refresh` skips the one-minute cache.
 */
export const AccountUsageParams = z.object({
  sessionId: nonEmpty('sessionId').optional(),
  refresh: z.boolean({ error: 'refresh must be true or false' }).optional(),
  _meta: base._meta,
});
export type AccountUsageParams = z.infer<typeof AccountUsageParams>;

/**
 * `_zcode/session/loadEarlier`: the page of the session's history before `cursor` (the
 * `_meta.zcode.replay.cursor` of `session/load`'s answer, or of the previous page), replayed as
 * `session/update`s before the answer, like a load. `limit`: messages per page (default 200, at most 1000).
 */
export const LoadEarlierParams = z.object({
  ...base,
  cursor: nonEmpty('cursor'),
  limit: z.number({ error: 'limit must be a number' }).int('limit must be an integer').min(1, 'limit must be at least 1').max(1000, 'limit must be at most 1000').optional(),
});
export type LoadEarlierParams = z.infer<typeof LoadEarlierParams>;

// ---------------------------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------------------------

/** `_zcode/session/fork`: the new session, loadable at once with `session/load {sessionId, cwd}`. */
export const ForkResponse = z.object({
  sessionId: z.string().min(1),
  /** The source session's working directory (what `session/load` needs). */
  cwd: z.string(),
});
export type ForkResponse = z.infer<typeof ForkResponse>;

export const RewindResponse = z.object({
  rewound: z.literal(true),
  /** The checkpoint zcode rewound to, when it says. */
  checkpointId: z.string().optional(),
  removedMessages: z.number().int().nonnegative().optional(),
  /** With `cascade`: the forks zcode deleted with the removed checkpoints. */
  removedSessions: z.array(z.string()).optional(),
});
export type RewindResponse = z.infer<typeof RewindResponse>;

export const GoalResponse = z.object({
  /** null when no goal is set. */
  goal: z.object({ objective: z.string().nullish(), status: z.string().optional() }).passthrough().nullable(),
});
export type GoalResponse = z.infer<typeof GoalResponse>;

export const COMPACT_OUTCOMES = ['compacted', 'cancelled', 'failed'] as const;
export type CompactOutcome = (typeof COMPACT_OUTCOMES)[number];

export const CompactResponse = z.object({
  outcome: z.enum(COMPACT_OUTCOMES),
  message: z.string().optional(),
  tokensBefore: z.number().optional(),
  tokensAfter: z.number().optional(),
});
export type CompactResponse = z.infer<typeof CompactResponse>;

export const SteerResponse = z.object({ accepted: z.literal(true) });
export type SteerResponse = z.infer<typeof SteerResponse>;

export const SetModeResponse = z.object({ mode: z.string() });
export type SetModeResponse = z.infer<typeof SetModeResponse>;

export const SetThoughtLevelResponse = z.object({ thoughtLevel: z.string() });
export type SetThoughtLevelResponse = z.infer<typeof SetThoughtLevelResponse>;

export const CancelBackgroundTaskResponse = z.object({ cancelled: z.boolean() });
export type CancelBackgroundTaskResponse = z.infer<typeof CancelBackgroundTaskResponse>;

export const CheckpointInfo = z.object({
  checkpointId: z.string(),
  /** ISO 8601. */
  createdAt: z.string().optional(),
  label: z.string().optional(),
  turnId: z.string().optional(),
});
export type CheckpointInfo = z.infer<typeof CheckpointInfo>;

export const CheckpointsResponse = z.object({
  checkpoints: z.array(CheckpointInfo),
  /** zcode cannot list checkpoints (no `session/checkpoints`): only "latest" works for fork/rewind. */
  latestOnly: z.literal(true).optional(),
});
export type CheckpointsResponse = z.infer<typeof CheckpointsResponse>;

/** One plan window (its type is translate/quota.ts's, which reads them off the provider's answer). */
export const QuotaWindow: z.ZodType<QuotaWindowShape> = z.object({
  /** Stable id: `tokens_5h`, `tokens_week`, `tokens_<n>`, `mcp`, or the raw type in lower case. */
  key: z.string(),
  label: z.string(),
  usedPercent: z.number(),
  remainingPercent: z.number(),
  /** ISO 8601, when the provider says. */
  resetsAt: z.string().optional(),
  used: z.number().optional(),
  total: z.number().optional(),
});
export type QuotaWindow = QuotaWindowShape;

export const AccountQuota = z.object({
  /** zcode's provider id whose key was used (`builtin:zai-coding-plan` …). */
  provider: z.string(),
  /** The plan level the provider names (`lite`, `pro` …), when it does. */
  plan: z.string().optional(),
  windows: z.array(QuotaWindow),
  /** ISO 8601: when these figures were read. */
  fetchedAt: z.string(),
  /** True when the last refresh failed and these are the figures of `fetchedAt`. */
  stale: z.boolean(),
  staleReason: z.string().optional(),
});
export type AccountQuota = z.infer<typeof AccountQuota>;

export const QuotaUnavailable = z.object({
  reason: z.enum(['no_key', 'auth', 'rate_limited', 'network', 'unexpected']),
  message: z.string(),
});
export type QuotaUnavailable = z.infer<typeof QuotaUnavailable>;

export const AccountUsageResponse = z.object({
  /** null when no figures were ever read (see `unavailable`). */
  quota: AccountQuota.nullable(),
  /** Why there are no fresh figures. */
  unavailable: QuotaUnavailable.optional(),
  /** zcode's token counts for the session (`session/usage`), when asked for one and the build has it. */
  session: z.record(z.string(), z.unknown()).optional(),
});
export type AccountUsageResponse = z.infer<typeof AccountUsageResponse>;

/** `_zcode/session/loadEarlier`: the page was replayed; `cursor` pages further back (absent at the start). */
export const LoadEarlierResponse = z.object({
  /** Messages replayed by this call. */
  messages: z.number().int().nonnegative(),
  cursor: z.string().optional(),
});
export type LoadEarlierResponse = z.infer<typeof LoadEarlierResponse>;

/**
 * `session/load`'s answer `_meta.zcode.replay`: how much of the history was replayed; `cursor`
 * (absent when all of it was) is what `_zcode/session/loadEarlier` pages back from.
 */
export const ReplayMeta = z.object({
  total: z.number().int().nonnegative(),
  replayed: z.number().int().nonnegative(),
  cursor: z.string().optional(),
});
export type ReplayMeta = z.infer<typeof ReplayMeta>;

/** The replay summary of a `session/load` answer; undefined when it has none (an older bridge) or a malformed one. */
export function replayOf(loadResponse: { _meta?: Record<string, unknown> | null } | null | undefined): ReplayMeta | undefined {
  const zcode = loadResponse?._meta?.zcode as { replay?: unknown } | undefined;
  const parsed = ReplayMeta.safeParse(zcode?.replay);
  return parsed.success ? parsed.data : undefined;
}

/** The cursor an update of a `_zcode/session/loadEarlier` page is marked with (`_meta.zcode.earlierPage`). */
export function earlierPageOf(update: { _meta?: Record<string, unknown> | null }): string | undefined {
  const page = (update._meta?.zcode as { earlierPage?: unknown } | undefined)?.earlierPage;
  return typeof page === 'string' ? page : undefined;
}

// ---------------------------------------------------------------------------------------------
// Notification params (bridge → client)
// ---------------------------------------------------------------------------------------------

const sessionIdParam = z.string().min(1);

/** `turn.steerQueued` / `turn.steerDrained`: a "queued" chip in UIs. */
export const SteerStateParams = z.object({ sessionId: sessionIdParam, state: z.enum(['queued', 'drained']) });
export type SteerStateParams = z.infer<typeof SteerStateParams>;

/**
 * One background task off the wire: `id` (or zcode's `taskId`) is required; a missing `kind` is
 * read from the id (`backgroundTaskKindOf`), a missing description is the id, a missing status
 * `running`; a numeric `startedAt` (epoch ms) becomes ISO.
 */
const BackgroundTaskEntry = z
  .object({
    id: z.string().min(1).optional(),
    taskId: z.string().min(1).optional(),
    kind: z.enum(['agent', 'bash']).optional().catch(undefined),
    description: z.string().optional().catch(undefined),
    status: z.string().optional().catch(undefined),
    startedAt: z.union([z.string(), z.number()]).optional().catch(undefined),
    outputPath: z.string().optional().catch(undefined),
    toolCallId: z.string().optional().catch(undefined),
    cardId: z.string().optional().catch(undefined),
  })
  .transform((raw): BackgroundTask | undefined => {
    const id = raw.id ?? raw.taskId;
    if (!id) return undefined;
    const task: BackgroundTask = { id, kind: raw.kind ?? backgroundTaskKindOf(id), description: raw.description || id, status: raw.status || 'running' };
    const startedAt = isoTime(raw.startedAt);
    if (startedAt) task.startedAt = startedAt;
    if (raw.outputPath) task.outputPath = raw.outputPath;
    if (raw.toolCallId) task.toolCallId = raw.toolCallId;
    if (raw.cardId) task.cardId = raw.cardId;
    return task;
  });

/** The task list, malformed entries dropped (one bad entry must not hide the others). */
const BackgroundTaskList = z.array(z.unknown()).transform((entries) =>
  entries.flatMap((entry) => {
    const parsed = BackgroundTaskEntry.safeParse(entry);
    return parsed.success && parsed.data ? [parsed.data] : [];
  }),
);

/** The session's full background-task list, on every change (so no client need parse cards). */
export const BackgroundTasksParams = z.object({ sessionId: sessionIdParam, tasks: BackgroundTaskList });
export type BackgroundTasksParams = z.infer<typeof BackgroundTasksParams>;

/** zcode made a checkpoint (`checkpoint.created`, current builds): refresh the fork / rewind pickers. */
export const CheckpointsChangedParams = z.object({ sessionId: sessionIdParam, checkpointId: z.string().optional() });
export type CheckpointsChangedParams = z.infer<typeof CheckpointsChangedParams>;

function isoTime(value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const date = new Date(typeof value === 'number' ? value : Number.isFinite(Number(value)) ? Number(value) : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

export const ForkRequest = request('_zcode/session/fork', ForkParams, ForkResponse);
export const RewindRequest = request('_zcode/session/rewind', RewindParams, RewindResponse);
export const GoalRequest = request('_zcode/session/goal', GoalParams, GoalResponse);
/** Answers only when zcode reports the outcome (it may take minutes: no client-side timeout). */
export const CompactRequest = request('_zcode/session/compact', CompactParams, CompactResponse);
export const SteerRequest = request('_zcode/session/steer', SteerParams, SteerResponse);
export const SetModeRequest = request('_zcode/session/setMode', SetModeParams, SetModeResponse);
export const SetThoughtLevelRequest = request('_zcode/session/setThoughtLevel', SetThoughtLevelParams, SetThoughtLevelResponse);
export const CancelBackgroundTaskRequest = request('_zcode/session/cancelBackgroundTask', CancelBackgroundTaskParams, CancelBackgroundTaskResponse);
export const CheckpointsRequest = request('_zcode/session/checkpoints', CheckpointsParams, CheckpointsResponse);
/** The GLM plan quota (read from the provider: zcode exposes none) and the session's token counts. */
export const AccountUsageRequest = request('_zcode/account/usage', AccountUsageParams, AccountUsageResponse);
/** Replays the page of history before `cursor` as `session/update`s, then answers. */
export const LoadEarlierRequest = request('_zcode/session/loadEarlier', LoadEarlierParams, LoadEarlierResponse);

/** Every request the bridge serves (extensionMethods.ts registers each; a test checks it). */
export const EXTENSION_REQUESTS = [
  ForkRequest,
  RewindRequest,
  GoalRequest,
  CompactRequest,
  SteerRequest,
  SetModeRequest,
  SetThoughtLevelRequest,
  CancelBackgroundTaskRequest,
  CheckpointsRequest,
  AccountUsageRequest,
  LoadEarlierRequest,
] as const;

export const SteerStateNotification = notification('_zcode/session/steerState', SteerStateParams);
export const BackgroundTasksNotification = notification('_zcode/session/backgroundTasks', BackgroundTasksParams);
export const CheckpointsChangedNotification = notification('_zcode/session/checkpointsChanged', CheckpointsChangedParams);

/** Every notification the bridge sends. */
export const EXTENSION_NOTIFICATIONS = [SteerStateNotification, BackgroundTasksNotification, CheckpointsChangedNotification] as const;

/** The request method names by operation (tests and logs; code passes the descriptors). */
export const EXTENSION_METHOD = {
  fork: ForkRequest.method,
  rewind: RewindRequest.method,
  goal: GoalRequest.method,
  compact: CompactRequest.method,
  steer: SteerRequest.method,
  setMode: SetModeRequest.method,
  setThoughtLevel: SetThoughtLevelRequest.method,
  cancelBackgroundTask: CancelBackgroundTaskRequest.method,
  checkpoints: CheckpointsRequest.method,
  accountUsage: AccountUsageRequest.method,
  loadEarlier: LoadEarlierRequest.method,
} as const;

// ---------------------------------------------------------------------------------------------
// Using the descriptors
// ---------------------------------------------------------------------------------------------

/** The bridge answered with something its own contract does not allow. */
export class ContractViolation extends Error {
  constructor(
    readonly method: string,
    readonly issues: string,
  ) {
    super(`the bridge answered ${method} with an unexpected shape: ${issues}`);
    this.name = 'ContractViolation';
  }
}

/**
 * A client's call of a request: `send` is its ACP connection's request function; the answer is
 * checked against the descriptor's result schema (a mismatch is a `ContractViolation`).
 */
export async function callExtension<D extends ExtensionRequest>(
  send: (method: string, params: unknown) => Promise<unknown>,
  descriptor: D,
  params: ParamsOf<D>,
): Promise<ResultOf<D>> {
  const answer = await send(descriptor.method, params);
  const parsed = descriptor.result.safeParse(answer);
  if (!parsed.success) throw new ContractViolation(descriptor.method, describeIssues(parsed.error));
  return parsed.data as ResultOf<D>;
}

/** A received notification's params if it is `descriptor`'s (checked), else undefined. */
export function readNotification<D extends ExtensionNotification>(descriptor: D, message: { method: string; params: unknown }): ParsedParamsOf<D> | undefined {
  if (message.method !== descriptor.method) return undefined;
  const parsed = descriptor.params.safeParse(message.params);
  return parsed.success ? (parsed.data as ParsedParamsOf<D>) : undefined;
}

/** "sessionId is required; objective: action …": one line, each problem prefixed with its path unless the message names it already (zod's `prettifyError` spans lines). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.map(String).join('.');
      return where && !issue.message.startsWith(where) ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
