/**
 * What `session/load` replays: zcode's history once it has settled.
 *
 * zcode loads a resumed session's history from disk in the background: `session/messages` right
 * after `session/resume` may answer the first few messages and, a moment later, all of them (the
 * reference bridge's regression case: 3, then 8). A replay of the first answer would show the user a
 * truncated conversation. So the history is read until two reads in a row agree, with a short pause
 * between reads, bounded: after `maxReads` the last answer is used (and logged).
 */
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import type { MessagesResult } from '../../zcode/protocol.ts';

export interface SettleTuning {
  /** Pause between two reads of the history (ms). */
  pauseMs: number;
  /** Reads at most; the last one is used when the history is still growing. */
  maxReads: number;
}

const DEFAULT_SETTLE_TUNING: SettleTuning = { pauseMs: 60, maxReads: 12 };

/** The session's messages once two consecutive `session/messages` answers have the same length. */
export async function settledMessages(backend: ZcodeBackend, sessionId: string, logger: Logger, tuning: SettleTuning = DEFAULT_SETTLE_TUNING): Promise<MessagesResult['messages']> {
  let previous = (await backend.messages({ sessionId })).messages;
  for (let read = 2; read <= tuning.maxReads; read++) {
    await new Promise((resolve) => setTimeout(resolve, tuning.pauseMs));
    const next = (await backend.messages({ sessionId })).messages;
    if (next.length === previous.length) return next;
    logger.debug(`history of ${sessionId} still loading in zcode (${previous.length} → ${next.length} messages); reading again`);
    previous = next;
  }
  logger.warn(`history of ${sessionId} kept growing over ${tuning.maxReads} reads; replaying the ${previous.length} messages seen last`);
  return previous;
}
