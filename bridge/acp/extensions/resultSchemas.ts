/**
 * What the bridge answers to each `_zcode/*` request, as zod schemas: a client checks the answer it
 * gets (contractSchemas.ts `parseResult`) instead of trusting a generic.
 */
import * as z from 'zod';
import type { QuotaWindow as QuotaWindowShape } from '../../translate/quotaWindows.ts';
import { REWIND_ACTIONS } from './paramsSchemas.ts';

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

export const SteerResponse = z.object({
  accepted: z.literal(true),
  /**
   * The id zcode gave the steer while it waits (current builds): what `_zcode/session/steerState`
   * names and `removeQueued` / `editQueued` take. Absent on builds that steer differently.
   */
  queueItemId: z.string().optional(),
});
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

/** One plan window (its type is translate/quotaWindows.ts's, which reads them off the provider's answer). */
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

/** `_zcode/session/removeQueued`: `removed:false` when it was gone already (started, or removed by another client). */
export const RemoveQueuedResponse = z.object({ removed: z.boolean() });
export type RemoveQueuedResponse = z.infer<typeof RemoveQueuedResponse>;

export const EditQueuedResponse = z.object({ edited: z.literal(true) });
export type EditQueuedResponse = z.infer<typeof EditQueuedResponse>;

/** One point the user can go back to: a user message of the session. */
export const RewindTarget = z.object({
  /** Opaque: pass it back to `rewindTo` (or `fork {kind:"assistant"}`) as it is. */
  targetId: z.string().min(1),
  /** `latestPrompt`: the last user message (can be asked again in place); `earlier`: any before it. */
  kind: z.enum(['latestPrompt', 'earlier']),
  /** The user message's text (a client shortens it for display). */
  text: z.string(),
  /** ISO 8601, when zcode says. */
  createdAt: z.string().optional(),
  /** How many files that turn changed, when zcode says. */
  fileCount: z.number().int().nonnegative().optional(),
  /** What this point allows now (`rewindTo`'s actions; `forkAssistant`: `fork {kind:"assistant", targetId}`). */
  actions: z.array(z.enum([...REWIND_ACTIONS, 'forkAssistant'])),
});
export type RewindTarget = z.infer<typeof RewindTarget>;

export const RewindTargetsResponse = z.object({
  /** Oldest first. */
  targets: z.array(RewindTarget),
  /** Older messages exist than these (zcode answers the latest ones). */
  hasMore: z.boolean(),
});
export type RewindTargetsResponse = z.infer<typeof RewindTargetsResponse>;

/** A file that could not be (or was not) restored, and why in zcode's words. */
export const RewindFile = z.object({ path: z.string(), reason: z.string().optional() });
export type RewindFile = z.infer<typeof RewindFile>;

export const RewindToResponse = z.object({
  /**
   * `done`: it happened; `blocked`: zcode refused and changed nothing (`message` says why,
   * `unsafeFiles` / `ignoredFiles` which files); `staleGaveUp`: the session kept changing under the
   * request (a turn running) and it gave up after a few tries — try again.
   */
  outcome: z.enum(['done', 'blocked', 'staleGaveUp']),
  /** The session to show now: the same one, or the fork's new id (`forkHere`), loadable at once. */
  sessionId: z.string().min(1),
  /** The session's working directory (what `session/load` of a fork needs). */
  cwd: z.string(),
  /** True when `sessionId` is a new session (the original is kept unchanged). */
  forked: z.boolean(),
  /**
   * True when the conversation was cut: every client showing it should load it again
   * (`_zcode/session/historyChanged` is sent to them too).
   */
  historyChanged: z.boolean(),
  /** For the user: what happened or why not. */
  message: z.string(),
  restoredFiles: z.array(z.string()).optional(),
  unsafeFiles: z.array(RewindFile).optional(),
  ignoredFiles: z.array(RewindFile).optional(),
});
export type RewindToResponse = z.infer<typeof RewindToResponse>;

export const RetryTurnResponse = z.object({
  /** `retryTurn`: zcode re-ran the turn in place (no duplicated message); `resend`: the prompt was sent again. */
  via: z.enum(['retryTurn', 'resend']),
});
export type RetryTurnResponse = z.infer<typeof RetryTurnResponse>;

export const RenameResponse = z.object({
  title: z.string(),
  /** True when zcode itself holds the title (every client and the desktop app see it); false: this bridge only. */
  inZcode: z.boolean(),
});
export type RenameResponse = z.infer<typeof RenameResponse>;
