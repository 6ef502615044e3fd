/**
 * zcode's answers to the session operations (bridge/zcode/operationShapes.ts) as the `_zcode/*`
 * results the contract declares (contractDescriptors.ts): a compaction state as its outcome, a
 * checkpoint with an ISO time, a rewind's figures.
 */
import type { CheckpointItem, RewindResult } from '../../zcode/operationShapes.ts';
import { CompactionState } from '../../zcode/operationShapes.ts';
import type { CheckpointInfo, CompactOutcome, CompactResponse, RewindResponse } from './contractDescriptors.ts';
import { bt } from '../../l10n/messages.ts';
import type { BridgeLocale } from '../../l10n/messages.ts';

/** A rewind's answer: the figures zcode gave (current builds give none). */
export function rewindResponseOf(result: RewindResult): RewindResponse {
  const out: RewindResponse = { rewound: true };
  if (result.checkpointId) out.checkpointId = result.checkpointId;
  if (result.removedMessages !== undefined) out.removedMessages = result.removedMessages;
  if (result.removedSessions) out.removedSessions = result.removedSessions;
  return out;
}

/**
 * A final compaction state (`{status, error?, tokensBefore?, tokensAfter?}`) as the response, its
 * message in `locale` (zcode's error text inside it stays as zcode wrote it); undefined while in
 * progress or unknown.
 */
export function compactionOf(value: unknown, locale: BridgeLocale = 'en'): CompactResponse | undefined {
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
          ? bt(locale, 'The conversation was compacted ({0} → {1} tokens of context).', tokensBefore, tokensAfter)
          : bt(locale, 'The conversation was compacted.');
      break;
    case 'failed':
      response.message = error ? bt(locale, 'The compaction failed: {0}', error) : bt(locale, 'The compaction failed.');
      break;
    case 'cancelled':
      response.message = bt(locale, 'The compaction was cancelled.');
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
export function toCheckpointInfo(c: CheckpointItem): CheckpointInfo[] {
  const checkpointId = c.checkpointId ?? c.id;
  if (!checkpointId) return [];
  const info: CheckpointInfo = { checkpointId };
  const createdAt = typeof c.createdAt === 'number' ? new Date(c.createdAt) : typeof c.createdAt === 'string' ? new Date(c.createdAt) : undefined;
  if (createdAt && !Number.isNaN(createdAt.getTime())) info.createdAt = createdAt.toISOString();
  if (c.label) info.label = c.label;
  if (c.turnId) info.turnId = c.turnId;
  return [info];
}
