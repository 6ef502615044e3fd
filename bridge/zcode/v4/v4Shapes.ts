/**
 * The shapes of zcode's v4 command surface the bridge uses (docs/zcode-protocol.md "v4"): the
 * `v4/command` envelope and its ACK, `v4/commands/query`, `v4/conversation/rowsRange` and
 * `v4/conversation/fileRewindPreview`. Written from zcode's published schemas
 * (jimpablo/ZCode packages/shared/src/zcode-protocol-v4/command.ts, rows.ts, transport.ts), in our
 * own terms. Answers are read leniently where zcode's builds may add fields (rows of kinds the
 * bridge does not use pass through as "other"); what the bridge decides on (ACK status, CAS values,
 * row targets) is checked strictly.
 */
import * as z from 'zod';

/** The command types the bridge sends (zcode has ~35; these are the ones only v4 can do). */
export const V4_COMMAND_TYPES = ['sendText', 'deleteQueueItem', 'editQueueItem', 'editUserQuery', 'applyFileRewind', 'retryTurn', 'forkAssistant', 'renameSession', 'stop'] as const;
export type V4CommandType = (typeof V4_COMMAND_TYPES)[number];

/** Which commands zcode checks against the session's revision (CAS), and which also against its log epoch (row targets). */
export const V4_NEEDS_REVISION: ReadonlySet<V4CommandType> = new Set(['deleteQueueItem', 'editQueueItem', 'editUserQuery', 'applyFileRewind', 'retryTurn', 'forkAssistant']);
export const V4_NEEDS_LOG_EPOCH: ReadonlySet<V4CommandType> = new Set(['editUserQuery', 'applyFileRewind', 'retryTurn', 'forkAssistant']);

/** A row of the conversation projection, as commands name it. */
export const V4RowTarget = z.object({ rowId: z.number().int().nonnegative(), entityId: z.string().min(1) });
export type V4RowTarget = z.infer<typeof V4RowTarget>;

/** The params of `v4/command`. `baseRevision` / `baseLogEpoch` only for the commands that need them. */
export interface V4Envelope {
  commandId: string;
  clientId: string;
  sessionId: string | null;
  baseRevision?: number;
  baseLogEpoch?: string;
  type: V4CommandType;
  payload: Record<string, unknown>;
  issuedAt: number;
}

export const V4_ACK_STATUSES = ['accepted', 'rejected', 'stale', 'duplicate', 'noop', 'failed'] as const;
export type V4AckStatus = (typeof V4_ACK_STATUSES)[number];

/** The file lists of a file-rewind preview (the query's answer, and carried by some ACK results). */
const PreviewFile = z.object({ path: z.string(), reason: z.string().optional(), action: z.string().optional() }).passthrough();
export const V4FileRewindPreview = z
  .object({
    canApply: z.boolean(),
    safeFiles: z.array(PreviewFile).default([]),
    unsafeFiles: z.array(PreviewFile).default([]),
    ignoredFiles: z.array(PreviewFile).default([]),
  })
  .passthrough();
export type V4FileRewindPreview = z.infer<typeof V4FileRewindPreview>;

/** An ACK's typed result, kept as zcode sent it; the readers below pick the members the bridge acts on. */
export const V4AckResult = z.object({ type: z.string() }).passthrough();
export type V4AckResult = z.infer<typeof V4AckResult>;

const EditResult = z.object({ type: z.literal('editUserQuery'), disposition: z.enum(['rewind', 'fork', 'blocked']), sessionId: z.string(), reasonCode: z.string().optional(), preview: V4FileRewindPreview.optional() });
const FileRewindResult = z.object({ type: z.literal('applyFileRewind'), applied: z.boolean(), preview: V4FileRewindPreview, response: z.string().optional() });
const NewSessionResult = z.object({ type: z.enum(['createSession', 'createSelectionSideSession', 'forkAssistant']), sessionId: z.string().min(1) });

/** `editUserQuery`'s result (`disposition: "blocked"` is an accepted refusal). */
export function editResultOf(ack: V4Ack): z.infer<typeof EditResult> | undefined {
  const parsed = EditResult.safeParse(ack.result);
  return parsed.success ? parsed.data : undefined;
}

export function fileRewindResultOf(ack: V4Ack): z.infer<typeof FileRewindResult> | undefined {
  const parsed = FileRewindResult.safeParse(ack.result);
  return parsed.success ? parsed.data : undefined;
}

/** The new session a forkAssistant (or createSession) made. */
export function newSessionOf(ack: V4Ack): string | undefined {
  const parsed = NewSessionResult.safeParse(ack.result);
  return parsed.success ? parsed.data.sessionId : undefined;
}

/** zcode's answer to `v4/command`: rejections are ACKs too, never JSON-RPC errors. */
export const V4Ack = z
  .object({
    commandId: z.string(),
    status: z.enum(V4_ACK_STATUSES),
    reasonCode: z.string().optional(),
    message: z.string().optional(),
    revisionAtDecision: z.number(),
    result: V4AckResult.optional(),
  })
  .passthrough();
export type V4Ack = z.infer<typeof V4Ack>;

/** One key of `v4/commands/query`: the session (null for the global bucket) and the command id. */
export interface V4CommandKey {
  sessionId: string | null;
  commandId: string;
}

/** `v4/commands/query`: per key, the settled ACK or "unknown" (not found — not "safe to resend under a new id"). */
export const V4CommandsQueryResult = z.object({
  results: z
    .array(
      z.object({
        key: z.object({ sessionId: z.string().nullable(), commandId: z.string() }),
        result: z.union([z.literal('unknown'), V4Ack]),
      }),
    )
    .min(1),
});
export type V4CommandsQueryResult = z.infer<typeof V4CommandsQueryResult>;

// --- Rows ----------------------------------------------------------------------------------------

/** What a row lets the user do now (zcode sends only the true keys). */
const RowActions = z
  .object({
    canFork: z.boolean().optional(),
    canEdit: z.boolean().optional(),
    canRetry: z.boolean().optional(),
    canRewindFiles: z.boolean().optional(),
    editDisposition: z.string().optional(),
  })
  .passthrough()
  .optional()
  .catch(undefined);

const rowBase = {
  rowId: z.number().int().nonnegative(),
  turnId: z.string(),
  /** Optional in zcode's schema for old frames: a row without it cannot be targeted. */
  entityId: z.string().min(1).optional(),
  createdAt: z.number().optional().catch(undefined),
  actions: RowActions,
};

export const V4Row = z.discriminatedUnion('kind', [
  z.object({
    ...rowBase,
    kind: z.literal('turnHeader'),
    state: z.string().optional(),
    sourceCommandId: z.string().optional(),
    fileChanges: z.object({ files: z.number().int().nonnegative(), additions: z.number().optional(), deletions: z.number().optional(), state: z.string().optional() }).passthrough().optional().catch(undefined),
  }).passthrough(),
  z.object({ ...rowBase, kind: z.literal('userInput'), text: z.string(), origin: z.string().optional(), guided: z.boolean().optional(), sourceCommandId: z.string().optional() }).passthrough(),
  z.object({ ...rowBase, kind: z.literal('assistantText'), text: z.string(), state: z.string().optional() }).passthrough(),
]);
export type V4Row = z.infer<typeof V4Row>;

/** A row the bridge has no use for (tool calls, reasoning, markers …): kept as its kind only. */
export interface V4OtherRow {
  kind: 'other';
  rowId: number;
  turnId: string;
}

/** Rows one by one: a row of a kind the bridge does not read, or one that does not parse, becomes `other` (logged by the caller). */
const RowEntry = z.unknown().transform((raw): V4Row | V4OtherRow | undefined => {
  const parsed = V4Row.safeParse(raw);
  if (parsed.success) return parsed.data;
  const base = z.object({ rowId: z.number(), turnId: z.string() }).passthrough().safeParse(raw);
  return base.success ? { kind: 'other', rowId: base.data.rowId, turnId: base.data.turnId } : undefined;
});

/** `v4/conversation/rowsRange`: rows ascending, and the CAS values they were read at. */
export const V4RowsRange = z.object({
  rows: z.array(RowEntry).transform((rows) => rows.filter((row): row is V4Row | V4OtherRow => row !== undefined)),
  atSeq: z.number().optional(),
  atRevision: z.number(),
  atLogEpoch: z.string().min(1),
  hasMore: z.boolean(),
});
export type V4RowsRange = z.infer<typeof V4RowsRange>;
