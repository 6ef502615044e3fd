/**
 * The zod schemas of the `_zcode/*` contract (bridge/acp/extensions/contractDescriptors.ts names the methods and
 * pairs each with its schemas here). Apart from the names because zod and ~40 schemas cost the
 * extension about a third of its activation (npm run bench -- vscode): the extension's activation
 * path imports only contractDescriptors.ts, and this module is loaded with the bridge (whose
 * paramsParser.ts imports it) or by `loadExtensionSchemas()`.
 *
 * Params: zod, run by the SDK before a handler (`paramsParser`: -32602 with a readable message);
 * every method takes the ACP `sessionId` (a lazy placeholder or a real zcode id); `_meta` is
 * accepted and ignored, other unknown keys are dropped. Results: zod too, so a client checks the
 * answer it gets instead of trusting a generic.
 */
import * as z from 'zod';
import { backgroundTaskKindOf } from '../../../shared/backgroundTasks.ts';
import type { BackgroundTask } from '../../../shared/backgroundTasks.ts';
import type { QuotaWindow as QuotaWindowShape } from '../../translate/quotaWindows.ts';
import { bindExtensionSchemas } from './contractDescriptors.ts';
// This module's own namespace: what the descriptors' `params` / `result` read (see the end).
import * as self from './contractSchemas.ts';

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

// ---------------------------------------------------------------------------------------------
// Notification params (bridge → client)
// ---------------------------------------------------------------------------------------------

const sessionIdParam = z.string().min(1);

/**
 * A steer's life (a "queued" chip in UIs):
 * - `queued`: zcode holds it for the running turn;
 * - `drained`: the running turn took it in;
 * - `deferred`: the turn ended before taking it in — it will be the NEXT turn's input (zcode starts
 *   that turn by itself); `removeQueued` / `editQueued` still apply until it starts;
 * - `removed`: dropped before it started (`removeQueued`, by any client).
 */
export const STEER_STATES = ['queued', 'drained', 'deferred', 'removed'] as const;
export type SteerState = (typeof STEER_STATES)[number];
export const SteerStateParams = z.object({
  sessionId: sessionIdParam,
  state: z.enum(STEER_STATES),
  /** Which steer (current builds); absent on builds that do not name it. */
  queueItemId: z.string().optional(),
  /** The steer's text as zcode echoes it (a preview), when it does. */
  text: z.string().optional(),
});
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

// --- What this zcode build can do ----------------------------------------------------------------

/**
 * One feature's availability on the zcode the bridge runs. `reason` says, in the user's words, why
 * it is unavailable (shown before the click: a disabled action's tooltip, a palette message).
 */
export const FeatureAvailability = z.object({ available: z.boolean(), reason: z.string().optional() });
export type FeatureAvailability = z.infer<typeof FeatureAvailability>;

/**
 * What the running zcode supports, learned by probing it once per spawned process (its `v4/*`
 * command surface answers or is missing) plus what the legacy methods told. Before zcode has been
 * started `probed` is false and every feature is reported with the reason "not known yet".
 */
export const ZcodeCapabilities = z.object({
  probed: z.boolean(),
  /** zcode's `--version` as printed, when known (informational only: behaviour is probed). */
  zcodeVersion: z.string().optional(),
  /** The `v4/command` surface answers. */
  v4: z.boolean(),
  /** Add instructions to the running turn. */
  steer: FeatureAvailability,
  /**
   * Ask the latest prompt again in place, optionally edited, keeping the files as they are
   * (`rewindTo`; the checkpoint rewind of seed builds is `_zcode/session/rewind`, not described here).
   */
  rewindLatestPrompt: FeatureAvailability,
  /** Same, and restore the files that turn changed. */
  rewindWithFiles: FeatureAvailability,
  /** Go back to an earlier message: a new session forked at its checkpoint (the original is kept). */
  rewindEarlier: FeatureAvailability,
  /** Undo one turn's file changes, keeping the conversation. */
  fileRewind: FeatureAvailability,
  /** Retry a failed turn without repeating the user's message in zcode's history. */
  retryTurn: FeatureAvailability,
  /** Rename a session in zcode itself (every client and the desktop app see the title). */
  rename: FeatureAvailability,
  /** Fork at a checkpoint (conversation and workspace). */
  forkCheckpoint: FeatureAvailability,
  /** Fork from an assistant reply (conversation only, works while the parent runs). */
  forkAssistant: FeatureAvailability,
  /** Edit or remove a prompt queued behind the running turn. */
  queueEdit: FeatureAvailability,
  /** The collaboration modes this build accepts, in zcode's own ids. */
  modes: z.array(z.string()),
});
export type ZcodeCapabilities = z.infer<typeof ZcodeCapabilities>;

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

/** The conversation of a session was cut (a rewind): reload it (`session/load`) to drop the removed messages. */
export const HistoryChangedParams = z.object({ sessionId: sessionIdParam, reason: z.enum(['rewound', 'retried']) });
export type HistoryChangedParams = z.infer<typeof HistoryChangedParams>;

export const CapabilitiesParams = z.object({});
export type CapabilitiesParams = z.infer<typeof CapabilitiesParams>;


/** zcode made a checkpoint (`checkpoint.created`, current builds): refresh the fork / rewind pickers. */
export const CheckpointsChangedParams = z.object({ sessionId: sessionIdParam, checkpointId: z.string().optional() });
export type CheckpointsChangedParams = z.infer<typeof CheckpointsChangedParams>;

function isoTime(value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const date = new Date(typeof value === 'number' ? value : Number.isFinite(Number(value)) ? Number(value) : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
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

// Evaluated once every schema above exists: from now on the descriptors' `params` and `result`
// (contractDescriptors.ts) are these schemas. Module evaluation, not timing: whoever imports this
// module (the bridge, `loadExtensionSchemas()`, a test) has bound them before its own code runs.
bindExtensionSchemas(self);
