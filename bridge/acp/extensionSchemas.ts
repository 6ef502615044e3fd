/**
 * Params (zod) and results of the bridge's `_zcode/session/*` extension methods (issue 4,
 * "Extension methods"), and how zcode's own results are read. The schemas are the single source of
 * the param shapes: the SDK runs them before a handler (see `paramsParser`), and the slash commands
 * build the same params.
 *
 * Every method takes the ACP `sessionId` (a lazy placeholder or a real zcode id); `_meta` is
 * accepted and ignored, other unknown keys are dropped.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { ParamsParser } from '@agentclientprotocol/sdk';
import * as z from 'zod';

/** The extension method names (ACP reserves the `_` prefix for extensions: acp-notes.md). */
export const EXTENSION_METHOD = {
  fork: '_zcode/session/fork',
  rewind: '_zcode/session/rewind',
  goal: '_zcode/session/goal',
  compact: '_zcode/session/compact',
  steer: '_zcode/session/steer',
  setMode: '_zcode/session/setMode',
  setThoughtLevel: '_zcode/session/setThoughtLevel',
  cancelBackgroundTask: '_zcode/session/cancelBackgroundTask',
  checkpoints: '_zcode/session/checkpoints',
  accountUsage: '_zcode/account/usage',
  loadEarlier: '_zcode/session/loadEarlier',
} as const;
export type ExtensionMethod = (typeof EXTENSION_METHOD)[keyof typeof EXTENSION_METHOD];

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
export interface ForkResponse {
  sessionId: string;
  /** The source session's working directory (what `session/load` needs). */
  cwd: string;
}

export interface RewindResponse {
  rewound: true;
  /** The checkpoint zcode rewound to, when it says. */
  checkpointId?: string;
  removedMessages?: number;
  /** With `cascade`: the forks zcode deleted with the removed checkpoints. */
  removedSessions?: string[];
}

export interface GoalResponse {
  /** null when no goal is set. */
  goal: { objective?: string | null; status?: string; [key: string]: unknown } | null;
}

export type CompactOutcome = 'compacted' | 'cancelled' | 'failed';

export interface CompactResponse {
  outcome: CompactOutcome;
  message?: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface SteerResponse {
  accepted: true;
}

export interface SetModeResponse {
  mode: string;
}

export interface SetThoughtLevelResponse {
  thoughtLevel: string;
}

export interface CancelBackgroundTaskResponse {
  cancelled: boolean;
}

export interface CheckpointInfo {
  checkpointId: string;
  /** ISO 8601. */
  createdAt?: string;
  label?: string;
  turnId?: string;
}

export interface CheckpointsResponse {
  checkpoints: CheckpointInfo[];
  /** zcode cannot list checkpoints (no `session/checkpoints`): only "latest" works for fork/rewind. */
  latestOnly?: true;
}

/** One plan window (translate/quota.ts). */
export type { QuotaWindow } from '../translate/quota.ts';
import type { QuotaWindow } from '../translate/quota.ts';

export interface AccountQuota {
  /** zcode's provider id whose key was used (`builtin:zai-coding-plan` …). */
  provider: string;
  /** The plan level the provider names (`lite`, `pro` …), when it does. */
  plan?: string;
  windows: QuotaWindow[];
  /** ISO 8601: when these figures were read. */
  fetchedAt: string;
  /** True when the last refresh failed and these are the figures of `fetchedAt`. */
  stale: boolean;
  staleReason?: string;
}

export interface QuotaUnavailable {
  reason: 'no_key' | 'auth' | 'rate_limited' | 'network' | 'unexpected';
  message: string;
}

export interface AccountUsageResponse {
  /** null when no figures were ever read (see `unavailable`). */
  quota: AccountQuota | null;
  /** Why there are no fresh figures. */
  unavailable?: QuotaUnavailable;
  /** zcode's token counts for the session (`session/usage`), when asked for one and the build has it. */
  session?: Record<string, unknown>;
}

/** `_zcode/session/loadEarlier`: the page was replayed; `cursor` pages further back (absent at the start). */
export interface LoadEarlierResponse {
  /** Messages replayed by this call. */
  messages: number;
  cursor?: string;
}

/**
 * The SDK params parser for a method: a rejection becomes -32602 with a readable message naming
 * the method and each problem (the SDK's own zod handling would say only "Invalid params").
 */
export function paramsParser<S extends z.ZodType>(method: string, schema: S): ParamsParser<z.infer<S>> {
  return (params: unknown) => {
    const parsed = schema.safeParse(params ?? {});
    if (parsed.success) return parsed.data;
    // The SDK prefixes the message with "Invalid params: ".
    throw RequestError.invalidParams(z.treeifyError(parsed.error), `${method}: ${describeIssues(parsed.error)}`);
  };
}

/** "sessionId is required; objective: action …": one line, each problem prefixed with its path unless the message names it already (zod's `prettifyError` spans lines). */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.map(String).join('.');
      return where && !issue.message.startsWith(where) ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

// ---------------------------------------------------------------------------------------------
// Reading zcode's results (builds differ: read defensively, keep unknown keys, ignore them)
// ---------------------------------------------------------------------------------------------

export const RewindResult = z
  .object({
    checkpointId: z.string().optional(),
    removedMessages: z.number().int().nonnegative().optional(),
    removedSessions: z.array(z.string()).optional(),
  })
  .passthrough();

export const CompactionState = z
  .object({
    status: z.string(),
    error: z.unknown().optional(),
    tokensBefore: z.number().int().nonnegative().optional(),
    tokensAfter: z.number().int().nonnegative().optional(),
  })
  .passthrough();

const CheckpointItem = z
  .object({
    checkpointId: z.string().optional(),
    id: z.string().optional(),
    createdAt: z.union([z.string(), z.number()]).nullish(),
    label: z.string().nullish(),
    turnId: z.string().nullish(),
  })
  .passthrough();

export const CheckpointsResult = z.object({ checkpoints: z.array(CheckpointItem) }).passthrough();

/** A final compaction state (`{status, error?, tokensBefore?, tokensAfter?}`) as the response; undefined while in progress or unknown. */
export function compactionOf(value: unknown): CompactResponse | undefined {
  const parsed = CompactionState.safeParse(value);
  if (!parsed.success) return undefined;
  const outcome = compactOutcome(parsed.data.status);
  if (!outcome) return undefined;
  const { tokensBefore, tokensAfter } = parsed.data;
  const response: CompactResponse = { outcome };
  const error = errorMessage(parsed.data.error);
  switch (outcome) {
    case 'compacted':
      response.message =
        tokensBefore !== undefined && tokensAfter !== undefined
          ? `The conversation was compacted (${tokensBefore} → ${tokensAfter} tokens of context).`
          : 'The conversation was compacted.';
      break;
    case 'failed':
      response.message = error ? `The compaction failed: ${error}` : 'The compaction failed.';
      break;
    case 'cancelled':
      response.message = 'The compaction was cancelled.';
      break;
  }
  if (tokensBefore !== undefined) response.tokensBefore = tokensBefore;
  if (tokensAfter !== undefined) response.tokensAfter = tokensAfter;
  return response;
}

function compactOutcome(status: string): CompactOutcome | undefined {
  switch (status.toLowerCase()) {
    case 'compacted':
    case 'completed':
    case 'success':
    case 'succeeded':
    case 'done':
      return 'compacted';
    case 'cancelled':
    case 'canceled':
    case 'aborted':
    case 'stopped':
      return 'cancelled';
    case 'failed':
    case 'error':
      return 'failed';
    default:
      return undefined; // started / running / in_progress …
  }
}

function errorMessage(error: unknown): string | undefined {
  if (typeof error === 'string' && error.trim() !== '') return error.trim();
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  return undefined;
}

/** One checkpoint as the method returns it (ISO time); entries without an id are dropped. */
export function toCheckpointInfo(c: z.infer<typeof CheckpointItem>): CheckpointInfo[] {
  const checkpointId = c.checkpointId ?? c.id;
  if (!checkpointId) return [];
  const info: CheckpointInfo = { checkpointId };
  const createdAt = typeof c.createdAt === 'number' ? new Date(c.createdAt) : typeof c.createdAt === 'string' ? new Date(c.createdAt) : undefined;
  if (createdAt && !Number.isNaN(createdAt.getTime())) info.createdAt = createdAt.toISOString();
  if (c.label) info.label = c.label;
  if (c.turnId) info.turnId = c.turnId;
  return [info];
}
