/**
 * Long sessions: `session/load` replays the tail of the history, `_zcode/session/loadEarlier`
 * pages back. Pure: which messages a page holds, and the cursor that continues before it.
 *
 * - Default: the last `DEFAULT_REPLAY_MESSAGES` messages. `session/load` `_meta.zcode.replay.limit`
 *   (a positive integer) changes it; `"all"` replays everything.
 * - A page starts at a user message when one is near (at most `ALIGN_SLACK` more messages), so a
 *   turn is not cut between the question and its answer.
 * - The cursor names the first message of the page (base64url JSON `{v:1, before:<message id>}`): it
 *   still points at the same place when zcode appends messages after the load. A cursor whose message
 *   is gone (rewound, compacted away) is refused with a clear error.
 */
import type { HistoryMessage } from '../zcode/protocol.ts';

export const DEFAULT_REPLAY_MESSAGES = 200;
const ALIGN_SLACK = 20;

export interface ReplayPage {
  messages: HistoryMessage[];
  /** Continues before this page; absent when the page reaches the start. */
  cursor?: string;
  /** Messages in the whole history. */
  total: number;
}

/** The load's `_meta.zcode.replay.limit`: a positive integer, "all" (→ Infinity), or undefined for the default. Throws on anything else. */
export function replayLimitOf(meta: unknown): number | undefined {
  const replay = (meta as { zcode?: { replay?: { limit?: unknown } } } | null | undefined)?.zcode?.replay;
  if (replay === undefined || replay.limit === undefined) return undefined;
  if (replay.limit === 'all') return Infinity;
  if (typeof replay.limit === 'number' && Number.isInteger(replay.limit) && replay.limit > 0) return replay.limit;
  throw new Error(`_meta.zcode.replay.limit must be a positive integer or "all" (got ${JSON.stringify(replay.limit)})`);
}

export function encodeCursor(messageId: string): string {
  return Buffer.from(JSON.stringify({ v: 1, before: messageId })).toString('base64url');
}

/** The message id a cursor names, or undefined for a malformed one. */
export function decodeCursor(cursor: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const before = (parsed as { v?: unknown; before?: unknown }).before;
    return (parsed as { v?: unknown }).v === 1 && typeof before === 'string' && before !== '' ? before : undefined;
  } catch {
    return undefined;
  }
}

/** The page of at most `limit` messages that ends just before index `end` (exclusive). */
export function pageEndingAt(messages: readonly HistoryMessage[], end: number, limit: number): ReplayPage {
  let start = Number.isFinite(limit) ? Math.max(0, end - limit) : 0;
  if (start > 0 && messages[start].info.role !== 'user') {
    for (let i = start - 1; i >= Math.max(0, start - ALIGN_SLACK); i--) {
      if (messages[i].info.role !== 'user') continue;
      start = i;
      break;
    }
  }
  const page: ReplayPage = { messages: messages.slice(start, end), total: messages.length };
  if (start > 0) page.cursor = encodeCursor(messages[start].info.id);
  return page;
}

/** The page before a cursor; an Error (to become -32602) when the cursor is malformed or its message is gone. */
export function pageBefore(messages: readonly HistoryMessage[], cursor: string, limit: number): ReplayPage | Error {
  const id = decodeCursor(cursor);
  if (id === undefined) return new Error('cursor is not one this bridge gave out');
  const end = messages.findIndex((m) => m.info.id === id);
  if (end === -1) return new Error(`the message the cursor points at (${id}) is no longer in the history; load the session again`);
  return pageEndingAt(messages, end, limit);
}
