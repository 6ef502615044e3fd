/**
 * Results of zcode's session operations the `_zcode/*` methods wrap (rewind, compact, checkpoints)
 * and of `mcp/list`, parsed at the boundary like every other zcode answer.
 * Builds differ: read defensively, keep unknown keys, ignore them.
 */
import * as z from 'zod';

/**
 * `session/rewind` / `session/rewindCascade`. Every field optional (seed builds answer `{}`); an
 * answer that is not an object at all still means "rewound" (the request succeeded).
 */
export const RewindResult = z
  .object({
    checkpointId: z.string().optional().catch(undefined),
    removedMessages: z.number().int().nonnegative().optional().catch(undefined),
    removedSessions: z.array(z.string()).optional().catch(undefined),
  })
  .passthrough()
  .catch({});
export type RewindResult = z.infer<typeof RewindResult>;

/** A compaction's state (`state.updated {patch:{compaction}}`, or a build's compact answer itself). */
export const CompactionState = z
  .object({
    status: z.string(),
    error: z.unknown().optional(),
    tokensBefore: z.number().int().nonnegative().optional(),
    tokensAfter: z.number().int().nonnegative().optional(),
  })
  .passthrough();
export type CompactionState = z.infer<typeof CompactionState>;

/**
 * `session/compact`: current builds `{response, snapshot, compact?:{state}}` (docs/zcode-protocol.md "Sessions"),
 * the outcome arrives as an event; some builds answer with the outcome itself, at the top level or
 * under `compaction` (read with `compactionOf`, acp/extensions/operationResults.ts).
 */
export const CompactResult = z.object({ compaction: z.unknown().optional() }).passthrough().nullish().catch(undefined);
export type CompactResult = z.infer<typeof CompactResult>;

export const CheckpointItem = z
  .object({
    checkpointId: z.string().optional(),
    id: z.string().optional(),
    createdAt: z.union([z.string(), z.number()]).nullish(),
    label: z.string().nullish(),
    turnId: z.string().nullish(),
  })
  .passthrough();
export type CheckpointItem = z.infer<typeof CheckpointItem>;

/** `session/checkpoints` (0.15 builds; current builds answer -32601 and announce `checkpoint.created`). */
export const CheckpointsResult = z.object({ checkpoints: z.array(CheckpointItem) }).passthrough();
export type CheckpointsResult = z.infer<typeof CheckpointsResult>;

/** One MCP server as `mcp/list {mode:"status"}` reports it (docs/zcode-protocol.md "Listings, usage and quota"). */
const McpServerStatus = z
  .object({
    status: z.string().optional().catch(undefined),
    transport: z.string().optional().catch(undefined),
    toolCount: z.number().optional().catch(undefined),
    error: z.string().optional().catch(undefined),
  })
  .passthrough();
export type McpServerStatus = z.infer<typeof McpServerStatus>;

export const McpListResult = z.object({ statuses: z.record(z.string(), McpServerStatus).optional() }).passthrough();
export type McpListResult = z.infer<typeof McpListResult>;

/** `session/usage`: zcode's token counts for one session (docs/zcode-protocol.md "Listings, usage and quota"); passed on as it is. */
export const SessionUsageResult = z.record(z.string(), z.unknown());
