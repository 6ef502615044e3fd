/**
 * Session-level results of zcode (`session/create` / `resume` / `read` / `list` / `messages` /
 * `subscribe` / `fork` / `goal` / `compact`), parsed at the boundary in BOTH eras:
 *
 * - seed era (0.14.8–0.16.0, docs/zcode-protocol.md "Build families"): `settings.model.available[]` are `{modelId, name}`,
 *   thought levels and modes are strings, `session/read` is `{projection:{…, title}, settings, todos}`,
 *   messages' `info` has `id`, goal answers `{goal}`;
 * - current builds (0.16.5 / desktop 3.12+, docs/zcode-protocol.md "Sessions"; zcode's own zod schemas): every
 *   create/resume/read result is the snapshot `{protocol, session, settings, projection, runtime,
 *   messages, …}` whose `projection.sessionId` is the literal "unknown" (the id is
 *   `session.sessionId`); each model is `{ref:{providerId, modelId}, label, reasoning?:{levels,
 *   defaultLevel}, …}`; thought levels are `{value, label}`; messages' `info` has `messageId`; fork /
 *   compact / goal answer `{response, snapshot}` and the goal is `snapshot.projection.target`.
 *
 * Schemas normalise both into ONE shape the rest of the bridge reads (model ids at the top, level ids
 * as strings, `info.id`), so no translator branches on the era. Unknown fields pass through and are
 * logged once by `UnknownFields` (unknownFields.ts); they are never fatal.
 */
import * as z from 'zod';
import { SnapshotSlashCommands } from './catalogShapes.ts';

// ---------------------------------------------------------------------------------------------
// Models, thought levels, modes
// ---------------------------------------------------------------------------------------------

/** A value of a select in either era: a bare id (seed) or `{value, label, description?}` (current). */
const Choice = z.union([
  z.string(),
  z.object({ value: z.string(), label: z.string().optional(), description: z.string().optional() }).passthrough(),
]);
type Choice = z.infer<typeof Choice>;
const choiceId = (choice: Choice): string => (typeof choice === 'string' ? choice : choice.value);

/**
 * One model, as the bridge reads it. `providerId` is set by current builds (`account:zai-coding-plan`
 * and the like) and must be sent back in `session/setModel`; `reasoningLevels` / `defaultReasoningLevel`
 * come from the option's `reasoning` and `reasoningLevel` from a selection's `options`.
 */
export interface ModelInfo {
  modelId: string;
  name?: string;
  displayName?: string;
  providerId?: string;
  reasoningLevels?: string[];
  defaultReasoningLevel?: string;
  reasoningLevel?: string;
  contextWindow?: number;
  disabledReason?: string;
}

/** Current `ModelOption`: the ids are under `ref`. */
const CurrentModelOption = z
  .object({
    ref: z.object({ providerId: z.string(), modelId: z.string() }).passthrough(),
    label: z.string().optional(),
    providerLabel: z.string().optional(),
    contextWindow: z.number().optional(),
    reasoning: z.object({ levels: z.array(Choice).default([]), defaultLevel: z.string().optional() }).passthrough().optional(),
    disabledReason: z.string().optional(),
  })
  .passthrough()
  .transform((m): ModelInfo => {
    const out: ModelInfo = { modelId: m.ref.modelId, providerId: m.ref.providerId };
    if (m.label !== undefined) out.name = m.label;
    if (m.contextWindow !== undefined) out.contextWindow = m.contextWindow;
    if (m.reasoning) {
      out.reasoningLevels = m.reasoning.levels.map(choiceId);
      if (m.reasoning.defaultLevel !== undefined) out.defaultReasoningLevel = m.reasoning.defaultLevel;
    }
    if (m.disabledReason !== undefined) out.disabledReason = m.disabledReason;
    return out;
  });

/** Seed `{modelId, name}` or a current `ModelSelection` `{providerId, modelId, options?:{reasoningLevel}}`. */
const FlatModel = z
  .object({
    modelId: z.string(),
    providerId: z.string().optional(),
    name: z.string().optional(),
    displayName: z.string().optional(),
    contextWindow: z.number().optional(),
    options: z.object({ reasoningLevel: z.string().optional() }).passthrough().optional(),
  })
  .passthrough()
  .transform((m): ModelInfo => {
    const out: ModelInfo = { modelId: m.modelId };
    for (const key of ['providerId', 'name', 'displayName', 'contextWindow'] as const) if (m[key] !== undefined) Object.assign(out, { [key]: m[key] });
    if (m.options?.reasoningLevel !== undefined) out.reasoningLevel = m.options.reasoningLevel;
    return out;
  });

export const ModelInfo = z.union([CurrentModelOption, FlatModel]);

/** `settings` of either era, normalised: `available` lists are ids; every part optional. */
export const SessionSettings = z
  .object({
    mode: z
      .object({
        current: z.string().optional(),
        available: z.array(Choice).transform((a) => a.map(choiceId)).optional(),
      })
      .passthrough()
      .optional(),
    model: z
      .object({ current: ModelInfo.optional(), available: z.array(ModelInfo).optional(), lastUsed: ModelInfo.optional() })
      .passthrough()
      .optional(),
    thoughtLevel: z
      .object({
        enabled: z.boolean().optional(),
        current: z.string().optional(),
        defaultLevel: z.string().optional(),
        available: z.array(Choice).transform((a) => a.map(choiceId)).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type SessionSettings = z.infer<typeof SessionSettings>;

// ---------------------------------------------------------------------------------------------
// Snapshots (create / resume / read) and their parts
// ---------------------------------------------------------------------------------------------

export const Todo = z
  .object({ content: z.string(), status: z.string(), priority: z.string().optional(), id: z.string().optional() })
  .passthrough();
export type Todo = z.infer<typeof Todo>;

/** A goal in either era: seed `{objective, status}`, current `ZCodeSessionGoal` (more fields). */
export const Goal = z.object({ objective: z.string().nullish(), status: z.string().optional() }).passthrough();
export type Goal = z.infer<typeof Goal>;

/** `session` of a snapshot / a create result. Never read `projection.sessionId`: it is "unknown". */
const SessionInfo = z.object({ sessionId: z.string(), title: z.string().optional(), traceId: z.string().optional() }).passthrough();

const Projection = z
  .object({
    status: z.string().optional(),
    contextUsed: z.number().optional(),
    contextWindow: z.number().optional(),
    totalTokenCount: z.number().optional(),
    turnCount: z.number().optional(),
    title: z.string().optional(),
    target: Goal.nullish(),
  })
  .passthrough();

/** `runtime` of a current snapshot: the counters a watchdog or a resubscribe needs. */
const Runtime = z.object({ eventSeq: z.number().optional(), stateRevision: z.number().optional(), activeTurnId: z.string().optional() }).passthrough();

/** The fields create / resume / read share across eras (current: the full snapshot). */
const snapshotShape = {
  protocol: z.object({ name: z.string().optional(), version: z.number().optional() }).passthrough().optional(),
  settings: SessionSettings.optional(),
  projection: Projection.optional(),
  runtime: Runtime.optional(),
  todos: z.array(Todo).optional(),
  /** Current builds: the commands zcode itself offers in this session (catalogShapes.ts). */
  slashCommands: SnapshotSlashCommands.optional(),
};

export const CreateSessionResult = z.object({ session: SessionInfo, ...snapshotShape }).passthrough();
export type CreateSessionResult = z.infer<typeof CreateSessionResult>;

export const ReadSessionResult = z.object({ session: SessionInfo.optional(), ...snapshotShape }).passthrough();
export type ReadSessionResult = z.infer<typeof ReadSessionResult>;

/** The session title of a read / snapshot: seed builds put it in `projection`, current ones in `session`. */
export function sessionTitleOf(read: ReadSessionResult): string | undefined {
  return read.projection?.title ?? read.session?.title;
}

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

// ---------------------------------------------------------------------------------------------
// History (`session/messages`)
// ---------------------------------------------------------------------------------------------

/** One part of a historical message. */
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

/** `info` with its id at `id`: seed builds call it `id`, current ones `messageId`. */
const MessageInfo = z
  .object({ id: z.string().optional(), messageId: z.string().optional(), role: z.string() })
  .passthrough()
  .refine((info) => typeof (info.id ?? info.messageId) === 'string', { message: 'a message needs an id or a messageId' })
  .transform((info) => ({ ...info, id: (info.id ?? info.messageId) as string }));

export const HistoryMessage = z
  .object({
    info: MessageInfo,
    // Unknown part types are kept as raw records; readers skip what they do not know.
    parts: z.array(z.union([MessagePart, z.object({ type: z.string() }).passthrough()])),
  })
  .passthrough();
export type HistoryMessage = z.infer<typeof HistoryMessage>;

export const MessagesResult = z.object({ messages: z.array(HistoryMessage) }).passthrough();
export type MessagesResult = z.infer<typeof MessagesResult>;

// ---------------------------------------------------------------------------------------------
// subscribe, fork, goal, compact
// ---------------------------------------------------------------------------------------------

/** Current builds add `sessionId` and the buffered `events` (replayed by afterSeq); seed only `eventSeq`. */
export const SubscribeResult = z
  .object({ eventSeq: z.number().optional(), events: z.array(z.unknown()).optional(), snapshot: z.unknown().optional() })
  .passthrough();
export type SubscribeResult = z.infer<typeof SubscribeResult>;

/** Fork results are read defensively: `forkedSessionId` (current), `session.sessionId` or `sessionId`. */
export const ForkResult = z
  .object({
    sessionId: z.string().optional(),
    forkedSessionId: z.string().optional(),
    session: z.object({ sessionId: z.string() }).passthrough().optional(),
  })
  .passthrough();
export type ForkResult = z.infer<typeof ForkResult>;

/** The part of a current `{response, snapshot}` answer the bridge reads. */
const SnapshotRef = z.object({ projection: Projection.optional() }).passthrough();

/**
 * `session/goal`: seed `{goal}`; current `{response, snapshot, startedTurn?}` with the goal at
 * `snapshot.projection.target`. Normalised so `goal` is always where the bridge reads it
 * (`null` = no goal; undefined only when the build said nothing about it).
 */
export const GoalResult = z
  .object({ goal: Goal.nullish(), response: z.string().optional(), snapshot: SnapshotRef.optional() })
  .passthrough()
  .transform((r) => {
    if (r.goal !== undefined || !r.snapshot) return r;
    // The client contract stays `{objective, status}` in both eras (the target's budget and ids are zcode's business).
    const target = r.snapshot.projection?.target;
    return { ...r, goal: target ? { objective: target.objective, ...(target.status === undefined ? {} : { status: target.status }) } : null };
  });
export type GoalResult = z.infer<typeof GoalResult>;

/** `session/compact`: seed `{accepted}`; current `{response, snapshot, compact?:{state, operationId?}}`. */
export const CompactResult = z
  .object({ compact: z.object({ state: z.string(), operationId: z.string().optional() }).passthrough().optional() })
  .passthrough();
export type CompactResult = z.infer<typeof CompactResult>;
