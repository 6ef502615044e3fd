/**
 * `session/list` with one id per conversation.
 *
 * A client that called `session/new` was given a placeholder id (`lazy_…`, lazySessionStore.ts); zcode lists
 * the same conversation under its own id once the first prompt created it. A client that keeps its
 * own thread list would show both. So every zcode session that a placeholder maps to is listed
 * under the placeholder (zcode's id under `_meta.zcode.sessionId`), and placeholders that were never
 * prompted — in the store, but unknown to zcode — are listed too. Loading either id still works
 * (sessionTable.ts follows the mapping, and real zcode ids pass through).
 */
import path from 'node:path';
import type { SessionInfo } from '@agentclientprotocol/sdk';
import type { SessionSummary } from '../../zcode/protocol.ts';
import type { LazyEntry } from './lazySessionStore.ts';

/** The ACP id a zcode session is listed under: the earliest placeholder mapped to it, else its own id. */
function placeholderIndex(stored: ReadonlyArray<[string, LazyEntry]>): Map<string, string> {
  const byZcode = new Map<string, { id: string; createdAt: number }>();
  for (const [id, entry] of stored) {
    if (!entry.zcodeSessionId || entry.deletedAt !== undefined) continue;
    const known = byZcode.get(entry.zcodeSessionId);
    if (!known || entry.createdAt < known.createdAt) byZcode.set(entry.zcodeSessionId, { id, createdAt: entry.createdAt });
  }
  return new Map([...byZcode].map(([zcodeId, { id }]) => [zcodeId, id]));
}

/**
 * zcode's list and the stored placeholders as ACP session infos, newest first. `cwd` (the request's
 * filter) also fills in the directory of zcode entries that carry none; entries without one are left
 * out (ACP requires `cwd`).
 */
export function listSessionInfos(zcodeSessions: readonly SessionSummary[], stored: ReadonlyArray<[string, LazyEntry]>, cwd: string | undefined): SessionInfo[] {
  const index = placeholderIndex(stored);
  // `session/delete` leaves tombstones: their zcode sessions are not listed under any id.
  const deleted = new Set(stored.flatMap(([, entry]) => (entry.deletedAt !== undefined && entry.zcodeSessionId ? [entry.zcodeSessionId] : [])));
  const infos: SessionInfo[] = [];
  for (const s of zcodeSessions) {
    if (deleted.has(s.sessionId)) continue;
    const dir = s.workspace?.workspacePath ?? cwd;
    if (!dir) continue;
    const placeholder = index.get(s.sessionId);
    const info: SessionInfo = { sessionId: placeholder ?? s.sessionId, cwd: dir };
    if (s.title) info.title = s.title;
    if (typeof s.updatedAt === 'number' && Number.isFinite(s.updatedAt)) info.updatedAt = new Date(s.updatedAt).toISOString();
    if (placeholder) info._meta = { zcode: { sessionId: s.sessionId } };
    infos.push(info);
  }
  const wanted = cwd === undefined ? undefined : path.resolve(cwd);
  for (const [id, entry] of stored) {
    if (entry.zcodeSessionId || entry.deletedAt !== undefined) continue;
    if (wanted !== undefined && path.resolve(entry.cwd) !== wanted) continue;
    infos.push({ sessionId: id, cwd: entry.cwd, updatedAt: new Date(entry.lastUsedAt ?? entry.createdAt).toISOString(), _meta: { zcode: { unprompted: true } } });
  }
  // Newest first, like zcode's own list; entries without a time keep their place at the end.
  return infos
    .map((info, order) => ({ info, order }))
    .sort((a, b) => (b.info.updatedAt ?? '').localeCompare(a.info.updatedAt ?? '') || a.order - b.order)
    .map(({ info }) => info);
}
