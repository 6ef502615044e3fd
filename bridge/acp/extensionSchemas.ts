/**
 * Params (zod) and results of the bridge's `_zcode/session/*` extension methods (issue 4,
 * "Extension methods"). The schemas are the single source of the param shapes: the SDK runs them
 * before a handler (see `paramsParser`), and the slash commands build the same params.
 *
 * Every method takes the ACP `sessionId` (a lazy placeholder or a real zcode id); `_meta` is
 * accepted and ignored, other unknown keys are dropped.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { ParamsParser } from '@agentclientprotocol/sdk';
import { z } from 'zod';

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

export const CompactParams = SessionParams;
export type CompactParams = SessionParams;

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
