/**
 * What the lazy-session store holds on disk, read independently of bridge/acp/sessions/lazySessionStore.ts: the
 * snapshot `acp-lazy-sessions.json` with the journal `acp-lazy-sessions.journal` replayed over it
 * (after a header line `{"journal":…}`, one JSON line per change, `{id, entry}` or `{id, deleted: true}`; the last line for an id wins).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface StoredSession {
  cwd: string;
  createdAt: number;
  zcodeSessionId?: string;
  lastUsedAt?: number;
}

export function storedSessions(storeDir: string): Record<string, StoredSession> {
  const snapshotFile = path.join(storeDir, 'acp-lazy-sessions.json');
  const journalFile = path.join(storeDir, 'acp-lazy-sessions.journal');
  const sessions: Record<string, StoredSession> = existsSync(snapshotFile)
    ? (JSON.parse(readFileSync(snapshotFile, 'utf8')) as { sessions: Record<string, StoredSession> }).sessions
    : {};
  if (existsSync(journalFile)) {
    for (const line of readFileSync(journalFile, 'utf8').split('\n')) {
      if (!line.trim() || line.startsWith('{"journal":')) continue; // blank, or the journal's header
      let record: { id: string; entry?: StoredSession; deleted?: true };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        continue; // a line torn by a crash; the store skips it too
      }
      if (record.entry) sessions[record.id] = record.entry;
      else delete sessions[record.id];
    }
  }
  return sessions;
}
