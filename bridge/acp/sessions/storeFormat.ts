/**
 * The on-disk format of the lazy-session store (lazySessionStore.ts), as pure functions: reading a snapshot
 * with whatever can be recovered from a damaged one, journal lines, and the caps on unused
 * placeholders.
 *
 * Snapshot `acp-lazy-sessions.json`: `{"version":1,"sessions":{"<acp id>":{cwd,createdAt,…}}}`.
 * Journal `acp-lazy-sessions.journal`: a header line `{"journal":"<16 hex>"}` naming this journal
 * (a compaction starts a new one with a new name), then one JSON line per change since the
 * snapshot, `{"id":…,"entry":{…}}` or `{"id":…,"deleted":true}`; the last line for an id wins.
 * Readers recognise a replaced journal by its header, not its inode: a deleted journal's inode
 * number is soon given to the next file.
 *
 * What must stay true (a damaged store file costs as little as possible):
 * - A byte-order mark or data after the JSON value does not cost a single entry.
 * - A truncated or partly overwritten snapshot still yields every entry object that is intact.
 * - Fields this version does not know are kept (entries are loose objects), so a compaction never
 *   strips what a newer bridge wrote.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';

export const FILE_VERSION = 1;
export const UNUSED_PLACEHOLDER_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Never-prompted placeholders kept at most (the newest); session/list shows them. */
export const MAX_UNUSED_PLACEHOLDERS = 1000;

export const StoredEntry = z.looseObject({
  cwd: z.string(),
  createdAt: z.number(),
  /** The real zcode session, once materialized. */
  zcodeSessionId: z.string().optional(),
  lastUsedAt: z.number().optional(),
  /** Set by `session/delete`: the conversation is gone for ACP clients (a tombstone: SessionManager.delete in sessionTable.ts). */
  deletedAt: z.number().optional(),
});
export type LazyEntry = z.infer<typeof StoredEntry>;

/**
 * Validated in place: the object JSON.parse made is kept rather than zod's copy, so reading a
 * 200,000-entry snapshot does not hold two copies of every entry at its peak (memory).
 */
function isStoredEntry(raw: unknown): raw is LazyEntry {
  return StoredEntry.safeParse(raw).success;
}

export interface SnapshotRead {
  entries: Map<string, LazyEntry>;
  /** What was wrong with the file, when it was not clean JSON of a known shape (the file deserves a backup). */
  damage?: string;
  /** The file's `version` when it is newer than FILE_VERSION: use read-only. */
  newerVersion?: number;
  /** Entries present but not of a readable shape (dropped). */
  dropped: number;
}

/** Parse a snapshot's text, recovering what can be recovered. Never throws. */
export function parseSnapshot(text: string): SnapshotRead {
  const problems: string[] = [];
  let body = text;
  if (body.startsWith('\uFEFF')) {
    body = body.slice(1);
    problems.push('a byte-order mark');
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const end = endOfFirstValue(body);
    if (end !== undefined) {
      try {
        json = JSON.parse(body.slice(0, end));
        problems.push(`${body.length - end} byte(s) after the JSON`);
      } catch {
        json = undefined;
      }
    }
  }
  if (json === undefined) return salvage(body, [...problems, 'not valid JSON']);
  const sessions = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as { sessions?: unknown }).sessions : undefined;
  if (typeof sessions !== 'object' || sessions === null || Array.isArray(sessions)) {
    return { entries: new Map(), damage: [...problems, 'an unknown shape'].join(', '), dropped: 0 };
  }
  const version = (json as { version?: unknown }).version;
  const entries = new Map<string, LazyEntry>();
  let dropped = 0;
  for (const [id, raw] of Object.entries(sessions)) {
    if (isStoredEntry(raw)) entries.set(id, raw);
    else dropped++;
  }
  return {
    entries,
    damage: problems.length ? problems.join(', ') : undefined,
    newerVersion: typeof version === 'number' && version > FILE_VERSION ? version : undefined,
    dropped,
  };
}

/**
 * A file that is not JSON at all (truncated, overwritten in part): every `"id": {flat object}`
 * that still parses as an entry is kept. Entries are flat objects, so a nested brace cannot hide one.
 */
function salvage(body: string, problems: string[]): SnapshotRead {
  const entries = new Map<string, LazyEntry>();
  for (const match of body.matchAll(/"((?:[^"\\]|\\.)+)"\s*:\s*(\{[^{}]*\})/g)) {
    try {
      const id = JSON.parse(`"${match[1]}"`) as string;
      const parsed = StoredEntry.safeParse(JSON.parse(match[2]));
      if (parsed.success) entries.set(id, parsed.data);
    } catch {
      // not an entry
    }
  }
  return { entries, damage: problems.join(', '), dropped: 0 };
}

/** Index just past the first complete JSON object or array in `text`, or undefined if there is none. */
export function endOfFirstValue(text: string): number | undefined {
  let i = 0;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== '{' && text[i] !== '[') return undefined;
  let depth = 0;
  let inString = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

export function snapshotText(entries: ReadonlyMap<string, LazyEntry>): string {
  return `${JSON.stringify({ version: FILE_VERSION, sessions: Object.fromEntries(entries) })}\n`;
}

export type JournalRecord = { id: string; entry: LazyEntry } | { id: string; deleted: true };

const JournalLine = z.union([z.object({ id: z.string(), entry: StoredEntry }), z.object({ id: z.string(), deleted: z.literal(true) })]);

const JOURNAL_HEADER_PREFIX = '{"journal":"';
/** Length of a journal header line in bytes (ASCII), newline included. */
export const JOURNAL_HEADER_BYTES = 31;

/** The first line of a new journal: a random name that tells readers this is not the journal they read. */
export function journalHeader(): string {
  return `${JOURNAL_HEADER_PREFIX}${randomBytes(8).toString('hex')}"}\n`;
}

export function journalLine(record: JournalRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** The records of complete journal lines, and how many lines could not be read (torn or foreign). */
export function parseJournal(lines: readonly string[]): { records: JournalRecord[]; unreadable: number } {
  const records: JournalRecord[] = [];
  let unreadable = 0;
  for (const line of lines) {
    if (!line.trim() || line.startsWith(JOURNAL_HEADER_PREFIX)) continue;
    let parsed;
    try {
      parsed = JournalLine.safeParse(JSON.parse(line));
    } catch {
      parsed = undefined;
    }
    if (parsed?.success) records.push(parsed.data);
    else unreadable++;
  }
  return { records, unreadable };
}

export function applyRecord(entries: Map<string, LazyEntry>, record: JournalRecord): void {
  if ('entry' in record) entries.set(record.id, record.entry);
  else entries.delete(record.id);
}

/**
 * Drop never-prompted placeholders older than the TTL, then all but the newest `maxUnused`
 * (so the store stays bounded). Prompted ones (with a mapping) are kept: dropping a mapping would turn "reopen my
 * conversation" into an empty session. Returns the dropped ids.
 */
export function capUnused(entries: Map<string, LazyEntry>, now: number, maxUnused = MAX_UNUSED_PLACEHOLDERS): string[] {
  const cutoff = now - UNUSED_PLACEHOLDER_TTL_MS;
  const dropped: string[] = [];
  const unused: Array<[string, number]> = [];
  for (const [id, entry] of entries) {
    if (entry.zcodeSessionId !== undefined) continue;
    if (entry.createdAt < cutoff) dropped.push(id);
    else unused.push([id, entry.createdAt]);
  }
  if (unused.length > maxUnused) {
    unused.sort((a, b) => a[1] - b[1]);
    for (const [id] of unused.slice(0, unused.length - maxUnused)) dropped.push(id);
  }
  for (const id of dropped) entries.delete(id);
  return dropped;
}
