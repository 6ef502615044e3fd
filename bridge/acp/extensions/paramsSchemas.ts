/**
 * The params of the `_zcode/*` requests (contractDescriptors.ts names the methods; contractSchemas.ts
 * pairs each with its schemas). zod, run by the SDK before a handler (paramsParser.ts: -32602 with a
 * readable message); every method takes the ACP `sessionId` (a lazy placeholder or a real zcode
 * id); `_meta` is accepted and ignored, other unknown keys are dropped.
 */
import * as z from 'zod';

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

/**
 * `checkpoint` (the default): conversation and workspace at a checkpoint (`checkpointId`);
 * `assistant`: the conversation only, up to an assistant reply (`targetId` from
 * `_zcode/session/rewindTargets`: that turn's reply; absent: the latest reply) — works while the
 * session runs and leaves the files alone.
 */
export const FORK_KINDS = ['checkpoint', 'assistant'] as const;
export type ForkKind = (typeof FORK_KINDS)[number];

export const ForkParams = z.object({
  ...base,
  checkpointId,
  kind: z.enum(FORK_KINDS, { error: `kind must be one of: ${FORK_KINDS.join(', ')}` }).optional(),
  targetId: nonEmpty('targetId').optional(),
});
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

/** A steer that zcode queued (`SteerResponse.queueItemId`, `SteerStateParams.queueItemId`). */
const queueItemId = nonEmpty('queueItemId');

/** `_zcode/session/removeQueued`: drop a deferred steer (or queued prompt) before it starts. */
export const RemoveQueuedParams = z.object({ ...base, queueItemId });
export type RemoveQueuedParams = z.infer<typeof RemoveQueuedParams>;

/** `_zcode/session/editQueued`: replace the text of a deferred steer (or queued prompt) before it starts. */
export const EditQueuedParams = z.object({ ...base, queueItemId, text: nonEmpty('text') });
export type EditQueuedParams = z.infer<typeof EditQueuedParams>;

/** `_zcode/session/rewindTargets`: the points of the conversation the user can go back to. */
export const RewindTargetsParams = SessionParams;
export type RewindTargetsParams = SessionParams;

/**
 * What going back to a user message does:
 * - `askAgain`: the latest prompt only — cut the conversation there and ask again (optionally
 *   edited, `text`), the files stay as they are;
 * - `askAgainRestoreFiles`: the same, and restore the files that turn changed (refused when a file
 *   cannot be restored safely: nothing is changed then);
 * - `forkHere`: an earlier message — a NEW session forked at that turn's checkpoint (the original
 *   session is kept as it is);
 * - `filesOnly`: restore the files that turn changed, keep the conversation.
 */
export const REWIND_ACTIONS = ['askAgain', 'askAgainRestoreFiles', 'forkHere', 'filesOnly'] as const;
export type RewindAction = (typeof REWIND_ACTIONS)[number];

export const RewindToParams = z.object({
  ...base,
  /** A `RewindTarget.targetId` from `_zcode/session/rewindTargets` (opaque). */
  targetId: nonEmpty('targetId'),
  action: z.enum(REWIND_ACTIONS, { error: `action must be one of: ${REWIND_ACTIONS.join(', ')}` }),
  /** `askAgain*`: the new text of the prompt (absent: the same text). */
  text: z.string({ error: 'text must be a string' }).trim().min(1, 'text must not be empty').optional(),
});
export type RewindToParams = z.infer<typeof RewindToParams>;

/** `_zcode/session/retryTurn`: run the failed (or latest) turn again, without repeating the user's message. */
export const RetryTurnParams = SessionParams;
export type RetryTurnParams = SessionParams;

/** `_zcode/session/rename`: the session's title, in zcode itself where the build can (every client sees it). */
export const RenameParams = z.object({ ...base, title: nonEmpty('title').max(200, 'title must be at most 200 characters') });
export type RenameParams = z.infer<typeof RenameParams>;

export const SetModeParams = z.object({ ...base, mode: nonEmpty('mode') });
export type SetModeParams = z.infer<typeof SetModeParams>;

export const SetThoughtLevelParams = z.object({ ...base, thoughtLevel: nonEmpty('thoughtLevel') });
export type SetThoughtLevelParams = z.infer<typeof SetThoughtLevelParams>;

export const CancelBackgroundTaskParams = z.object({ ...base, taskId: nonEmpty('taskId') });
export type CancelBackgroundTaskParams = z.infer<typeof CancelBackgroundTaskParams>;

export const CheckpointsParams = SessionParams;
export type CheckpointsParams = SessionParams;

/**
 * `_zcode/account/usage`: the plan quota for any client (acp/extensions/quota.ts); with `sessionId`, zcode's own
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
