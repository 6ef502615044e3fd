/**
 * Per-turn change tracking, Review and Undo, without vscode (the file system, the store and the
 * dialogs come in as ports, so this runs in plain Node tests against a real folder).
 *
 * A turn: `beginTurn` → `note` for every tool call update (a file seen for the first time is read
 * at once: the disk before the edit, see turnChanges.ts) → `finish` reads what the turn left and
 * returns the card. Every step is saved, so a reload mid-turn loses nothing: `restored()`
 * finishes such a set from the disk on the next start.
 *
 * Undo restores the content from before the turn only when the file still holds what the turn
 * left; otherwise it refuses (the user or a later turn changed it) and shows that difference.
 * "Undo all" checks every file first and changes nothing when one of them is refused.
 */
import type { ToolCall, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ChangesItem } from '../../webview-ui/viewModel.ts';
import { changesItem, finishFiles, promptCaption, undoRefusal, type ChangeSet, type FileChange } from './changeSet.ts';
import type { ChangeStore, FilePort } from './changeStore.ts';
import { noteToolCall, setSnapshot, type TurnObservations } from './turnChanges.ts';

/** A file Undo refused because it changed since the turn. */
export interface UndoConflict {
  set: ChangeSet;
  file: FileChange;
  /** The disk now (null: deleted). */
  current: string | null;
}

/** The dialogs and editors (vscode in the extension). */
export interface ChangesUi {
  /** The multi-file diff editor, before the turn ⇄ now (one file when `path` is given). */
  review(set: ChangeSet, path?: string): Promise<void>;
  /** Undo refused (`all`: Undo all, which then changed nothing): say which files changed since the turn, and show how. */
  refused(conflicts: UndoConflict[], all: boolean): Promise<void>;
}

export class TurnRecorder {
  private readonly observations: TurnObservations = { files: [] };
  private readonly reads: Promise<void>[] = [];
  /** Kinds by tool call (a `tool_call_update` may omit it). */
  private readonly kinds = new Map<string, string>();
  private finished = false;

  constructor(
    private readonly tracker: ChangeTracker,
    readonly set: ChangeSet,
  ) {}

  /** Folds a tool call update in. Reads files seen for the first time at once. */
  note(update: ToolCall | ToolCallUpdate): void {
    if (this.finished) return;
    if (update.kind) this.kinds.set(update.toolCallId, update.kind);
    const fresh = noteToolCall(this.observations, update, this.kinds.get(update.toolCallId));
    for (const path of fresh) {
      this.reads.push(
        this.tracker.files.read(path).then(
          (text) => {
            setSnapshot(this.observations, path, text);
            return this.save();
          },
          () => {}, // unreadable: the before-state stays unknown, Undo is refused for it
        ),
      );
    }
    // Refined diffs (the result's patch) matter for the before-state too: keep them saved.
    if (fresh.length === 0 && update.content?.some((c) => c.type === 'diff') && this.observations.files.some((f) => f.toolCallId === update.toolCallId)) void this.save();
  }

  private save(): Promise<void> {
    return this.tracker.store.save({ ...this.set, observing: structuredClone(this.observations.files) }).catch((e: unknown) => this.tracker.log(`turn changes: saving failed: ${String(e)}`));
  }

  /** The turn ended: reads what it left; the card, or undefined when no file changed. */
  async finish(): Promise<ChangesItem | undefined> {
    this.finished = true;
    await Promise.all(this.reads);
    if (this.observations.files.length === 0) return undefined;
    await this.save();
    return this.tracker.complete(this.set.id, this.observations.files);
  }
}

export class ChangeTracker {
  private counter = 0;

  constructor(
    readonly files: FilePort,
    readonly store: ChangeStore,
    private readonly ui: ChangesUi,
    readonly log: (message: string) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  beginTurn(sessionId: string, prompt: string): TurnRecorder {
    const createdAt = this.now();
    const id = `${createdAt.toString(36)}-${(++this.counter).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    return new TurnRecorder(this, { id, sessionId, prompt: promptCaption(prompt), createdAt, files: [] });
  }

  /** Reads the disk for each observed file and stores the finished set; its card, if a file changed. */
  async complete(id: string, observed: ChangeSet['observing'] & object): Promise<ChangesItem | undefined> {
    const set = await this.store.get(id);
    if (!set) return undefined;
    const after = new Map<string, string | null>();
    for (const file of observed) {
      try {
        after.set(file.path, await this.files.read(file.path));
      } catch (e) {
        this.log(`turn changes: could not read ${file.path}: ${String(e)}`);
      }
    }
    const done: ChangeSet = { id: set.id, sessionId: set.sessionId, prompt: set.prompt, createdAt: set.createdAt, files: finishFiles(observed, after) };
    await this.store.save(done);
    return done.files.length ? changesItem(done) : undefined;
  }

  /** The cards of a session's stored sets (finishing those a reload interrupted), oldest first. */
  async restored(sessionId: string): Promise<ChangesItem[]> {
    const out: ChangesItem[] = [];
    for (const set of await this.store.ofSession(sessionId)) {
      const item = set.observing ? await this.complete(set.id, set.observing) : set.files.length ? changesItem(set) : undefined;
      if (item) out.push(item);
    }
    return out;
  }

  /** Content of a file of a set: `before` the turn or `after` it (what it left); '' when none. */
  async content(id: string, path: string, side: 'before' | 'after'): Promise<string> {
    const file = (await this.store.get(id))?.files.find((f) => f.path === path);
    return (side === 'before' ? file?.before : file?.after) ?? '';
  }

  async review(id: string, path?: string): Promise<void> {
    const set = await this.require(id);
    await this.ui.review(set, path);
  }

  /**
   * Undoes one file (`path`) or all files of a set. Returns the updated card, or undefined when
   * nothing was undone (refused: the UI said why).
   */
  async undo(id: string, path?: string): Promise<ChangesItem | undefined> {
    const set = await this.require(id);
    const targets = set.files.filter((f) => (path === undefined ? !f.undone : f.path === path));
    if (path !== undefined && targets.length === 0) throw new Error(`The turn did not change ${path}.`);
    const conflicts: UndoConflict[] = [];
    const plan: { file: FileChange; before: string | null }[] = [];
    for (const file of targets) {
      const current = this.files.unsaved?.(file.path) ?? (await this.files.read(file.path));
      const refusal = undoRefusal(file, current);
      if (refusal === 'changedSince') conflicts.push({ set, file, current });
      else if (refusal === 'unknown' && path !== undefined) throw new Error(`zcode did not say what ${file.path} held before the turn: it cannot be restored.`);
      else if (refusal === undefined) plan.push({ file, before: file.before ?? null });
    }
    if (conflicts.length) {
      await this.ui.refused(conflicts, path === undefined);
      return undefined;
    }
    for (const { file, before } of plan) {
      if (before === null) await this.files.delete(file.path);
      else await this.files.write(file.path, before);
      file.undone = true;
    }
    await this.store.save(set);
    return changesItem(set);
  }

  private async require(id: string): Promise<ChangeSet> {
    const set = await this.store.get(id);
    if (!set) throw new Error('These changes are no longer stored (the oldest are dropped to bound the storage).');
    return set;
  }
}
