/**
 * The params of the `_zcode/*` notifications the bridge sends to every client (steer state,
 * background tasks, checkpoints, a cut history), as zod schemas: a client reads them through
 * contractSchemas.ts once, at its boundary.
 */
import * as z from 'zod';
import { backgroundTaskKindOf } from '../../../shared/backgroundTasks.ts';
import type { BackgroundTask } from '../../../shared/backgroundTasks.ts';

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

/** `_zcode/session/promptStarted`: the client's own id of the prompt that now holds the session. */
export const PromptStartedParams = z.object({
  sessionId: sessionIdParam,
  promptId: z.string().min(1),
});
export type PromptStartedParams = z.infer<typeof PromptStartedParams>;

/** Who sent a prompt, as the bridge knows its clients (the same as a prompt echo's `_meta.zcode.sentBy`). */
export const PromptSender = z.object({
  /** The bridge's number for the client's connection; null when it no longer knows it. */
  clientId: z.number().int().nullable(),
  /** `local` (the editor's own, in-process), `stdio`, `remote`; null when unknown. */
  kind: z.string().nullable(),
  /** The bridge's label for the connection (a remote one: its address and port), when it has one. */
  label: z.string().optional(),
  /** The client's `clientInfo.name` from `initialize`, when it sent one. */
  name: z.string().optional(),
});
export type PromptSender = z.infer<typeof PromptSender>;

/** One prompt in a session's queue. */
export const QueuedPromptEntry = z.object({
  /** The prompt as a line of text: its text blocks, other blocks by their names. */
  text: z.string(),
  /** The sending client's own id of it (`_meta.zcode.promptId`), when it named it. */
  promptId: z.string().min(1).optional(),
  sentBy: PromptSender,
});
export type QueuedPromptEntry = z.infer<typeof QueuedPromptEntry>;

/**
 * `_zcode/session/queue`: the session's prompt queue, to every client, whenever it changes (a prompt
 * arrives and waits, takes the session, is answered, or leaves the queue cancelled), and to a client
 * that loads or resumes the session.
 */
export const SessionQueueParams = z.object({
  sessionId: sessionIdParam,
  /** The prompt that holds the session (a turn or a slash command runs for it); absent: idle. */
  running: QueuedPromptEntry.optional(),
  /** The prompts waiting behind it, oldest first. */
  waiting: z.array(QueuedPromptEntry),
});
export type SessionQueueParams = z.infer<typeof SessionQueueParams>;

/** A `session/prompt`'s `_meta.zcode.promptId`: the client's name for it in `PromptStartedParams`. */
export const PromptIdMeta = z.object({ zcode: z.object({ promptId: z.string().min(1) }) });

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

/** The conversation of a session was cut (a rewind): reload it (`session/load`) to drop the removed messages. */
export const HistoryChangedParams = z.object({ sessionId: sessionIdParam, reason: z.enum(['rewound', 'retried']) });
export type HistoryChangedParams = z.infer<typeof HistoryChangedParams>;

/** zcode made a checkpoint (`checkpoint.created`, current builds): refresh the fork / rewind pickers. */
export const CheckpointsChangedParams = z.object({ sessionId: sessionIdParam, checkpointId: z.string().optional() });
export type CheckpointsChangedParams = z.infer<typeof CheckpointsChangedParams>;

function isoTime(value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const date = new Date(typeof value === 'number' ? value : Number.isFinite(Number(value)) ? Number(value) : value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
