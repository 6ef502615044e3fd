/**
 * The lazy-session store: `<storageDir>/acp-lazy-sessions.json`.
 *
 * ACP `session/new` answers at once with a placeholder id and creates the zcode session only on
 * first real use (seed, PROTOCOL.md `session/create`), so an editor that opens and never types
 * leaves no zcode session behind. Editors persist the placeholder and `session/load` /
 * `session/resume` it after a restart, so the placeholder (and, once used, its mapping to the real
 * zcode session) must survive the bridge: it is written here.
 *
 * What must stay true:
 * - Writes are atomic (temp file + rename): a crash mid-write never leaves half a file.
 * - A corrupt or foreign-shaped file is tolerated: it reads as empty (entries that do not parse
 *   are dropped one by one) and the next write replaces it.
 * - Placeholders that were never used are pruned 30 days after creation. Used ones (with a
 *   mapping) are kept: dropping a mapping would turn "reopen my conversation" into an empty
 *   session.
 * - Several bridges (the VS Code window and a `zcode-acp` for Zed) may share the file, so every
 *   write re-reads it and merges: our entries win for the ids we touched, the others are kept.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import type { Logger } from '../zcode/backend.ts';

export const LAZY_STORE_FILE = 'acp-lazy-sessions.json';
export const UNUSED_PLACEHOLDER_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const StoredEntry = z.object({
  cwd: z.string(),
  createdAt: z.number(),
  /** The real zcode session, once materialized. */
  zcodeSessionId: z.string().optional(),
  lastUsedAt: z.number().optional(),
});
export type LazyEntry = z.infer<typeof StoredEntry>;

const FILE_VERSION = 1;

export interface LazySessionStoreOptions {
  storageDir: string;
  logger: Logger;
  /** Injected clock for the pruning tests. */
  now?: () => number;
}

export class LazySessionStore {
  readonly file: string;
  private readonly entries = new Map<string, LazyEntry>();
  /** Ids changed (set or deleted) since the last write, so a merge keeps other writers' entries. */
  private readonly dirty = new Set<string>();
  private loaded: Promise<void> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: LazySessionStoreOptions) {
    this.file = join(options.storageDir, LAZY_STORE_FILE);
    this.now = options.now ?? Date.now;
  }

  /** Read the file once (later calls reuse the first read). Never rejects. */
  load(): Promise<void> {
    this.loaded ??= this.readFile().then((fromDisk) => {
      for (const [id, entry] of fromDisk) if (!this.entries.has(id)) this.entries.set(id, entry);
      if (this.pruneExpired(this.entries)) this.scheduleWrite();
    });
    return this.loaded;
  }

  async get(placeholderId: string): Promise<LazyEntry | undefined> {
    await this.load();
    return this.entries.get(placeholderId);
  }

  /** Every stored placeholder with its entry (session/list shows them under the id the client was given). */
  async all(): Promise<Array<[string, LazyEntry]>> {
    await this.load();
    return [...this.entries];
  }

  /** Record a new placeholder (or its mapping) and persist it in the background. */
  set(placeholderId: string, entry: LazyEntry): void {
    this.entries.set(placeholderId, entry);
    this.dirty.add(placeholderId);
    this.scheduleWrite();
  }

  delete(placeholderId: string): void {
    if (!this.entries.delete(placeholderId)) return;
    this.dirty.add(placeholderId);
    this.scheduleWrite();
  }

  /** Wait until every change so far is on disk. */
  flush(): Promise<void> {
    return this.writing;
  }

  private scheduleWrite(): void {
    this.writing = this.writing.then(() => this.write()).catch((error: unknown) => {
      this.options.logger.warn(`could not write ${this.file}: ${message(error)}`);
    });
  }

  private async write(): Promise<void> {
    if (this.dirty.size === 0) return;
    const touched = [...this.dirty];
    this.dirty.clear();
    // Merge with what other bridges wrote meanwhile; our touched ids win.
    const merged = await this.readFile();
    for (const id of touched) {
      const mine = this.entries.get(id);
      if (mine) merged.set(id, mine);
      else merged.delete(id);
    }
    this.pruneExpired(merged);
    const body = { version: FILE_VERSION, sessions: Object.fromEntries(merged) };
    await mkdir(this.options.storageDir, { recursive: true });
    const temp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, JSON.stringify(body, null, 2) + '\n', { mode: 0o600 });
      await rename(temp, this.file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
  }

  /** Read and parse the file; anything unreadable becomes an empty map (logged). */
  private async readFile(): Promise<Map<string, LazyEntry>> {
    const result = new Map<string, LazyEntry>();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.options.logger.warn(`could not read ${this.file}: ${message(error)}`);
      return result;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.options.logger.warn(`${this.file} is not valid JSON; starting with an empty lazy-session store`);
      return result;
    }
    const sessions = typeof json === 'object' && json !== null ? (json as { sessions?: unknown }).sessions : undefined;
    if (typeof sessions !== 'object' || sessions === null) {
      this.options.logger.warn(`${this.file} has an unknown shape; starting with an empty lazy-session store`);
      return result;
    }
    for (const [id, raw] of Object.entries(sessions)) {
      const parsed = StoredEntry.safeParse(raw);
      if (parsed.success) result.set(id, parsed.data);
      else this.options.logger.debug(`dropping unreadable lazy-session entry ${id}`);
    }
    return result;
  }

  /** Drop never-used placeholders older than the TTL. Returns whether anything was dropped. */
  private pruneExpired(map: Map<string, LazyEntry>): boolean {
    const cutoff = this.now() - UNUSED_PLACEHOLDER_TTL_MS;
    let pruned = false;
    for (const [id, entry] of map) {
      if (entry.zcodeSessionId === undefined && entry.createdAt < cutoff) {
        map.delete(id);
        if (map === this.entries) this.dirty.add(id);
        pruned = true;
      }
    }
    return pruned;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
