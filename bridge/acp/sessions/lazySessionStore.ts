/**
 * The lazy-session store: `<storageDir>/acp-lazy-sessions.json` plus its journal.
 *
 * ACP `session/new` answers at once with a placeholder id and creates the zcode session only on
 * first real use (as the reference bridge `william0wang/zcode-acp` does), so an editor that opens
 * and never types leaves no zcode session behind. Editors persist the placeholder and `session/load` /
 * `session/resume` it after a restart, so the placeholder (and, once used, its mapping to the real
 * zcode session) must survive the bridge: it is written here.
 *
 * Design: a snapshot (storeFormat.ts) and an append-only journal of changes
 * since it. A change appends one line under a lock file shared by every process (storeLock.ts):
 * its cost does not depend on the store's size. Each process reads only the journal bytes it has
 * not seen yet (before a write, and when an id is not known), so what another process added is
 * found and nothing is overwritten: the last line for an id wins. When the journal has more lines
 * than the snapshot has entries (at least COMPACT_MIN_LINES), the writer holding the lock rewrites
 * the snapshot (temp file + rename) and starts an empty journal (also renamed into place, with a
 * new header line, so a reader notices): a whole-file write once per N changes, O(1) per change amortized.
 *
 * What must stay true:
 * - Several bridges (the VS Code window and a `zcode-acp` for Zed) may share the files: no change
 *   of one is lost by another (a lock around every append and every compaction; full reads under it).
 * - A damaged snapshot is recovered as far as possible (storeFormat.ts) and copied to a dated
 *   backup, logged, before anything replaces it. A snapshot of a newer format version is used
 *   read-only: never rewritten, never stripped (logged once, with the reason).
 * - Never-prompted placeholders are capped by age and count (storeFormat.ts capUnused); prompted
 *   ones (with a mapping) are kept.
 * - Nothing here throws at the caller: I/O failures are logged, the change stays in memory and is
 *   retried with the next write.
 * - A change made while an append is on its way is never dropped: each change of an id bumps that
 *   id's version, and an append clears an id only if its version is still the one it wrote (a
 *   mapping recorded right after `session/new`, during the placeholder's own append, is written by
 *   the next append instead of being forgotten).
 */
import { copyFile, mkdir, open, readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '../../logger.ts';
import { withFileLock } from './storeLock.ts';
import { appendJournal, readJournal, replaceFile } from './storeFiles.ts';
import type { FileLockOptions } from './storeLock.ts';
import { applyRecord, capUnused, FILE_VERSION, JOURNAL_HEADER_BYTES, journalHeader, journalLine, MAX_UNUSED_PLACEHOLDERS, parseJournal, parseSnapshot, snapshotText } from './storeFormat.ts';
import type { JournalRecord, LazyEntry } from './storeFormat.ts';

export type { LazyEntry } from './storeFormat.ts';
export { MAX_UNUSED_PLACEHOLDERS, UNUSED_PLACEHOLDER_TTL_MS } from './storeFormat.ts';

export const LAZY_STORE_FILE = 'acp-lazy-sessions.json';
export const LAZY_STORE_JOURNAL = 'acp-lazy-sessions.journal';
export const LAZY_STORE_LOCK = 'acp-lazy-sessions.lock';
/** The journal is compacted once it has more lines than this and than the snapshot has entries. */
const COMPACT_MIN_LINES = 1000;

export interface LazySessionStoreOptions {
  storageDir: string;
  logger: Logger;
  /** Injected clock for the pruning tests. */
  now?: () => number;
  /** Never-prompted placeholders kept at most (default MAX_UNUSED_PLACEHOLDERS). */
  maxUnused?: number;
  /** Journal lines before a compaction is considered (default 1000; tests lower it). */
  compactMinLines?: number;
  lock?: FileLockOptions;
  /**
   * Appends `text` to the journal and resolves with its size afterwards. Tests wrap the default
   * (storeFiles.ts `appendJournal`) to make a change while an append is under way.
   */
  append?: (file: string, text: string) => Promise<number>;
}

export class LazySessionStore {
  readonly file: string;
  private readonly journal: string;
  private readonly lockFile: string;
  private entries = new Map<string, LazyEntry>();
  /** Never-prompted placeholders, oldest first (the cap evicts from the front). */
  private unused = new Map<string, number>();
  /**
   * Ids changed (set or deleted) and not yet appended, each with the version of its last change.
   * An append removes an id only when the version it wrote is still the current one.
   */
  private readonly dirty = new Map<string, number>();
  private changes = 0;
  private loaded: Promise<void> | undefined;
  /** Every disk operation runs in this chain, one at a time. */
  private io: Promise<void> = Promise.resolve();
  /** The journal this process has read: its header (storeFormat.ts) and how many bytes (complete lines) of it. */
  private journalId: string | undefined;
  private journalOffset = 0;
  private journalLines = 0;
  /** The journal ends in a line without its newline (a writer crashed mid-append). */
  private journalTorn = false;
  private snapshotEntries = 0;
  /** Set when the files must not be written (newer format, unreadable): the reason, logged once. */
  private readOnly: string | undefined;
  private readonly now: () => number;
  private readonly maxUnused: number;
  private readonly compactMinLines: number;

  constructor(private readonly options: LazySessionStoreOptions) {
    this.file = join(options.storageDir, LAZY_STORE_FILE);
    this.journal = join(options.storageDir, LAZY_STORE_JOURNAL);
    this.lockFile = join(options.storageDir, LAZY_STORE_LOCK);
    this.now = options.now ?? Date.now;
    this.maxUnused = options.maxUnused ?? MAX_UNUSED_PLACEHOLDERS;
    this.compactMinLines = options.compactMinLines ?? COMPACT_MIN_LINES;
  }

  /** Read the files once (later calls reuse the first read). Never rejects. */
  load(): Promise<void> {
    this.loaded ??= this.queue(() => this.readAll());
    return this.loaded;
  }

  /** The entry of `placeholderId`; an id not known yet is looked for in what other processes appended. */
  async get(placeholderId: string): Promise<LazyEntry | undefined> {
    await this.load();
    if (!this.entries.has(placeholderId)) await this.queue(() => this.catchUp());
    return this.entries.get(placeholderId);
  }

  /** Every stored placeholder with its entry (session/list shows them under the id the client was given). */
  async all(): Promise<Array<[string, LazyEntry]>> {
    await this.load();
    await this.queue(() => this.catchUp());
    return [...this.entries];
  }

  /** Record a new placeholder (or its mapping) and persist it in the background. */
  set(placeholderId: string, entry: LazyEntry): void {
    this.remember(placeholderId, entry);
    this.dirty.set(placeholderId, ++this.changes);
    this.scheduleWrite();
  }

  delete(placeholderId: string): void {
    if (!this.entries.has(placeholderId)) return;
    this.remember(placeholderId, undefined);
    this.dirty.set(placeholderId, ++this.changes);
    this.scheduleWrite();
  }

  /** Wait until every change so far — and any made while waiting — is on disk (or its failure logged). */
  async flush(): Promise<void> {
    await this.load();
    let io: Promise<void>;
    do {
      io = this.io;
      await io;
    } while (io !== this.io);
  }

  // ── memory ──────────────────────────────────────────────────────────────────────────────────

  private remember(id: string, entry: LazyEntry | undefined): void {
    if (entry) this.entries.set(id, entry);
    else this.entries.delete(id);
    if (entry && entry.zcodeSessionId === undefined) {
      if (!this.unused.has(id)) this.unused.set(id, entry.createdAt);
    } else this.unused.delete(id);
    // The count cap, in memory at O(1) per change; compaction applies it (and the age cap) on disk.
    while (this.unused.size > this.maxUnused) {
      const oldest = this.unused.keys().next().value as string;
      this.unused.delete(oldest);
      this.entries.delete(oldest);
    }
  }

  /** Adopt `entries` (read from disk) as the state, keeping our changes not yet appended (ours win). */
  private replaceAll(entries: Map<string, LazyEntry>): void {
    const pending = [...this.dirty.keys()].map((id) => [id, this.entries.get(id)] as const);
    this.entries = entries;
    const unused = [...entries].filter(([, entry]) => entry.zcodeSessionId === undefined).sort((a, b) => a[1].createdAt - b[1].createdAt);
    this.unused = new Map(unused.map(([id, entry]) => [id, entry.createdAt]));
    for (const [id, entry] of pending) this.remember(id, entry);
  }

  // ── disk ────────────────────────────────────────────────────────────────────────────────────

  private queue(task: () => Promise<void>): Promise<void> {
    const run = this.io.then(task).catch((error: unknown) => {
      this.options.logger.warn(`lazy-session store ${this.file}: ${message(error)}`);
    });
    this.io = run;
    return run;
  }

  /**
   * The first read, under the lock. A directory that does not exist yet holds nothing to read; one
   * where no lock can be made (read-only, not a directory) is read without it, and writing there
   * will fail and say so.
   */
  private async readAll(): Promise<void> {
    try {
      await this.locked(() => this.reload());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw error;
      await this.reload();
    }
  }

  private locked(task: () => Promise<void>): Promise<void> {
    return withFileLock(this.lockFile, task, this.options.lock);
  }

  private scheduleWrite(): void {
    void this.load().then(() => this.queue(() => this.write()));
  }

  private async write(): Promise<void> {
    if (this.dirty.size === 0) return;
    if (this.readOnly) {
      this.dirty.clear();
      return;
    }
    let touched = this.dirty.size;
    try {
      await mkdir(this.options.storageDir, { recursive: true });
      await this.locked(async () => {
        await this.catchUp({ holdingLock: true });
        if (this.journalId === undefined) await this.startJournal();
        // What is written is read now, with the version of each id: a change after this point
        // bumps the version and keeps its id dirty for the next append.
        const written = [...this.dirty];
        touched = written.length;
        const records: JournalRecord[] = written.map(([id]) => {
          const entry = this.entries.get(id);
          return entry ? { id, entry } : { id, deleted: true };
        });
        // A line torn by a crash would swallow our first line: start on a fresh one.
        const text = (this.journalTorn ? '\n' : '') + records.map(journalLine).join('');
        this.journalOffset = await (this.options.append ?? appendJournal)(this.journal, text);
        this.journalTorn = false;
        for (const [id, version] of written) if (this.dirty.get(id) === version) this.dirty.delete(id);
        this.journalLines += records.length;
        if (this.journalLines > Math.max(this.compactMinLines, this.snapshotEntries)) await this.compact(new Map(this.entries));
      });
    } catch (error) {
      this.options.logger.warn(`could not write ${this.journal}: ${message(error)} (${touched} change(s) kept in memory, retried with the next one)`);
    }
  }

  /**
   * Apply what was appended to the journal since we last read it. A journal replaced by a
   * compaction (another header, or shorter) means a full reload.
   */
  private async catchUp(options: { holdingLock?: boolean } = {}): Promise<void> {
    let handle;
    try {
      handle = await open(this.journal, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (this.journalId !== undefined) await this.fullReload(options);
      return;
    }
    let replaced: boolean;
    try {
      const info = await handle.stat();
      const header = Buffer.alloc(Math.min(info.size, JOURNAL_HEADER_BYTES));
      await handle.read(header, 0, header.length, 0);
      replaced = header.toString('latin1') !== this.journalId || info.size < this.journalOffset;
      if (!replaced && info.size > this.journalOffset) {
        const buffer = Buffer.alloc(info.size - this.journalOffset);
        await handle.read(buffer, 0, buffer.length, this.journalOffset);
        const complete = buffer.lastIndexOf(0x0a) + 1;
        this.applyLines(buffer.subarray(0, complete).toString('utf8').split('\n'));
        this.journalOffset += complete;
        this.journalTorn = complete < buffer.length;
      }
    } finally {
      await handle.close();
    }
    if (replaced) await this.fullReload(options);
  }

  private fullReload(options: { holdingLock?: boolean }): Promise<void> {
    return options.holdingLock ? this.reload() : this.locked(() => this.reload());
  }

  /** Replay journal lines into memory, except ids we changed and have not appended yet (ours win). */
  private applyLines(lines: string[]): void {
    const { records, unreadable } = parseJournal(lines);
    if (unreadable) this.options.logger.warn(`${this.journal}: skipped ${unreadable} unreadable line(s)`);
    this.journalLines += records.length + unreadable;
    for (const record of records) {
      if (!this.dirty.has(record.id)) this.remember(record.id, 'entry' in record ? record.entry : undefined);
    }
  }

  /** Read snapshot + journal from scratch (the lock is held). */
  private async reload(): Promise<void> {
    let text: string | undefined;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        this.enterReadOnly(`it cannot be read (${message(error)})`);
        return;
      }
    }
    const snapshot = parseSnapshot(text ?? '{"version":1,"sessions":{}}');
    if (snapshot.newerVersion !== undefined) {
      this.enterReadOnly(`it was written by a newer zcode-acp (store version ${snapshot.newerVersion}; this one writes ${FILE_VERSION})`);
    }
    const entries = snapshot.entries;
    const journal = await readJournal(this.journal);
    const { records, unreadable } = parseJournal(journal.lines);
    if (unreadable) this.options.logger.warn(`${this.journal}: skipped ${unreadable} unreadable line(s)`);
    for (const record of records) applyRecord(entries, record);
    this.journalId = journal.id;
    this.journalOffset = journal.complete;
    this.journalTorn = journal.torn;
    this.journalLines = records.length + unreadable;
    this.snapshotEntries = snapshot.entries.size;
    const damage = snapshot.damage ?? (snapshot.dropped ? `${snapshot.dropped} entr${snapshot.dropped === 1 ? 'y' : 'ies'} of an unknown shape` : undefined);
    let rewrite = false;
    if (damage && text !== undefined && !this.readOnly) {
      const backup = await this.backUp();
      this.options.logger.warn(`${this.file} was damaged (${damage}); recovered ${entries.size} entr${entries.size === 1 ? 'y' : 'ies'}, the original is kept as ${backup}`);
      rewrite = true;
    }
    const capped = capUnused(entries, this.now(), this.maxUnused);
    if (capped.length) this.options.logger.info(`lazy-session store: dropped ${capped.length} never-prompted placeholder(s) (older than 30 days or beyond the newest ${this.maxUnused})`);
    this.replaceAll(entries);
    if ((rewrite || capped.length > 0) && !this.readOnly) await this.compact(new Map(this.entries));
  }

  /** Rewrite the snapshot from `entries` and start an empty journal (the lock is held). */
  private async compact(entries: Map<string, LazyEntry>): Promise<void> {
    capUnused(entries, this.now(), this.maxUnused);
    await mkdir(this.options.storageDir, { recursive: true });
    await replaceFile(this.file, snapshotText(entries));
    await this.startJournal();
    this.snapshotEntries = entries.size;
  }

  /** Replace the journal by an empty one with a new header (the lock is held). */
  private async startJournal(): Promise<void> {
    const header = journalHeader();
    await replaceFile(this.journal, header);
    this.journalId = header;
    this.journalOffset = header.length;
    this.journalLines = 0;
    this.journalTorn = false;
  }

  /** Copy the snapshot to `<file>.<ISO time>.bak` (a second in the same second gets a suffix). */
  private async backUp(): Promise<string> {
    const stamp = new Date(this.now()).toISOString().replace(/[:.]/g, '-');
    const backup = `${this.file}.${stamp}.${randomBytes(2).toString('hex')}.bak`;
    await copyFile(this.file, backup);
    return backup;
  }

  private enterReadOnly(reason: string): void {
    if (this.readOnly) return;
    this.readOnly = reason;
    this.options.logger.warn(`${this.file}: using the lazy-session store read-only because ${reason}; new sessions are kept in memory until the bridge exits`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
