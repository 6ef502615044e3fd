/**
 * Change sets on disk: one JSON file per turn in the extension's storage (`<dir>/<id>.json`), so
 * that Undo and Review survive a window reload, also one in the middle of a turn. Bounded: after
 * each save the oldest sets beyond `StoreCaps` are deleted. A file that does not parse is skipped
 * (and logged), never fatal.
 */
import { setsToDrop, DEFAULT_STORE_CAPS, type ChangeSet, type StoreCaps } from './changeSet.ts';

/** The file operations the store and Undo need (workspace.fs in the extension, node:fs in tests). */
export interface FilePort {
  /** The file's text, or null when there is no such file. */
  read(path: string): Promise<string | null>;
  /** Writes the file, creating missing folders. */
  write(path: string, text: string): Promise<void>;
  delete(path: string): Promise<void>;
  /** Names of the files in a folder ([] when it does not exist). */
  list(dir: string): Promise<string[]>;
  /** The text of an editor with unsaved changes to the file (Undo counts it as a change since the turn). */
  unsaved?(path: string): string | undefined;
}

export class ChangeStore {
  private sets: Map<string, { set: ChangeSet; bytes: number }> | undefined;
  private loading: Promise<Map<string, { set: ChangeSet; bytes: number }>> | undefined;
  /** Saves run one after another: a later state never gets overwritten by an earlier one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly files: FilePort,
    private readonly dir: string,
    private readonly log: (message: string) => void = () => {},
    private readonly caps: StoreCaps = DEFAULT_STORE_CAPS,
  ) {}

  private fileOf(id: string): string {
    return `${this.dir}/${id}.json`;
  }

  private load(): Promise<Map<string, { set: ChangeSet; bytes: number }>> {
    if (this.sets) return Promise.resolve(this.sets);
    this.loading ??= (async () => {
      const sets = new Map<string, { set: ChangeSet; bytes: number }>();
      for (const name of await this.files.list(this.dir)) {
        if (!name.endsWith('.json')) continue;
        const text = await this.files.read(`${this.dir}/${name}`).catch(() => null);
        const set = text === null ? undefined : parseSet(text);
        if (set && text !== null) sets.set(set.id, { set, bytes: text.length });
        else this.log(`turn changes: skipped unreadable ${name}`);
      }
      this.sets = sets;
      return sets;
    })();
    return this.loading;
  }

  async get(id: string): Promise<ChangeSet | undefined> {
    return (await this.load()).get(id)?.set;
  }

  /** Every stored set of a session, oldest first. */
  async ofSession(sessionId: string): Promise<ChangeSet[]> {
    return [...(await this.load()).values()].map((e) => e.set).filter((s) => s.sessionId === sessionId).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Stores (or replaces) a set, then drops the oldest beyond the caps. */
  save(set: ChangeSet): Promise<void> {
    const run = this.queue.then(async () => {
      const sets = await this.load();
      const text = JSON.stringify(set);
      await this.files.write(this.fileOf(set.id), text);
      sets.set(set.id, { set, bytes: text.length });
      for (const id of setsToDrop([...sets.values()].map((e) => ({ id: e.set.id, createdAt: e.set.createdAt, bytes: e.bytes })), this.caps)) {
        sets.delete(id);
        await this.files.delete(this.fileOf(id)).catch((e: unknown) => this.log(`turn changes: could not delete ${id}: ${String(e)}`));
      }
    });
    this.queue = run.catch(() => {});
    return run;
  }
}

/** A stored set, checked field by field (the file may come from an older build or be damaged). */
export function parseSet(text: string): ChangeSet | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const v = value as Partial<ChangeSet> | null;
  if (!v || typeof v.id !== 'string' || typeof v.sessionId !== 'string' || typeof v.createdAt !== 'number' || !Array.isArray(v.files)) return undefined;
  const content = (c: unknown): c is string | null => c === null || typeof c === 'string';
  if (!v.files.every((f) => f && typeof f.path === 'string' && content(f.after) && (f.before === undefined || content(f.before)))) return undefined;
  if (v.observing !== undefined && (!Array.isArray(v.observing) || !v.observing.every((o) => o && typeof o.path === 'string' && Array.isArray(o.diffs)))) return undefined;
  return { id: v.id, sessionId: v.sessionId, prompt: typeof v.prompt === 'string' ? v.prompt : '', createdAt: v.createdAt, files: v.files, ...(v.observing ? { observing: v.observing } : {}) };
}
