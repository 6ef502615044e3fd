/**
 * A turn's change set: every file it changed with the content before the turn and the content it
 * left, what the changes card shows of it, what Undo may do, and which stored sets to drop when
 * the storage cap is reached. Pure functions, no I/O.
 */
import type { ChangedFileView, ChangesItem } from '../../webview-ui/viewModel.ts';
import { diffLines, splitLines } from '../chat/lineDiff.ts';
import { contentBefore, type FileObservation } from './turnChanges.ts';

/** One changed file. `null` content = the file does not exist. */
export interface FileChange {
  path: string;
  /** Absent: unknown (Undo is refused for this file). */
  before?: string | null;
  /** What the turn left on disk. */
  after: string | null;
  undone?: boolean;
}

/** What is stored per turn (one JSON file each, changeStore.ts). */
export interface ChangeSet {
  id: string;
  sessionId: string;
  /** The turn's prompt (first line, shortened). */
  prompt: string;
  createdAt: number;
  /** Set once the turn ended and the content it left was read. */
  files: FileChange[];
  /** While the turn runs: what the tracker observed (so a reload mid-turn loses nothing). */
  observing?: FileObservation[];
}

/** The changed files, from the turn's observations and the disk at the end of the turn. */
export function finishFiles(observed: readonly FileObservation[], after: ReadonlyMap<string, string | null>): FileChange[] {
  const out: FileChange[] = [];
  for (const file of observed) {
    const now = after.get(file.path);
    if (now === undefined) continue;
    const before = contentBefore(file);
    if (before === now) continue; // touched, but left as it was (a failed or reverted edit)
    out.push(before === undefined ? { path: file.path, after: now } : { path: file.path, before, after: now });
  }
  return out;
}

/** Lines added and removed between two contents. */
export function lineCounts(before: string | null | undefined, after: string | null): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const e of diffLines(splitLines(before ?? ''), splitLines(after ?? ''))) {
    if (e.t === '+') added++;
    else if (e.t === '-') removed++;
  }
  return { added, removed };
}

export function fileView(file: FileChange): ChangedFileView {
  const status = file.before === null ? 'created' : file.after === null ? 'deleted' : 'modified';
  const view: ChangedFileView = { path: file.path, status, ...lineCounts(file.before, file.after), undone: file.undone === true };
  if (file.before === undefined) view.beforeUnknown = true;
  return view;
}

export function changesItemId(changeSetId: string): string {
  return `changes:${changeSetId}`;
}

export function changesItem(set: ChangeSet): ChangesItem {
  return { type: 'changes', id: changesItemId(set.id), changeSetId: set.id, prompt: set.prompt, files: set.files.map(fileView) };
}

/** Why a file cannot be undone now, or undefined when it can (`current`: the disk now). */
export function undoRefusal(file: FileChange, current: string | null): 'undone' | 'unknown' | 'changedSince' | undefined {
  if (file.undone) return 'undone';
  if (file.before === undefined) return 'unknown';
  if (current !== file.after) return 'changedSince';
  return undefined;
}

/** The prompt as a card caption: its first line, at most 80 characters. */
export function promptCaption(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export interface StoreCaps {
  /** Total bytes of all stored sets. */
  maxBytes: number;
  maxSets: number;
}

export const DEFAULT_STORE_CAPS: StoreCaps = { maxBytes: 32 * 1024 * 1024, maxSets: 200 };

/** Ids to drop, oldest first, so that the rest fit the caps (the newest set always stays). */
export function setsToDrop(sets: readonly { id: string; createdAt: number; bytes: number }[], caps: StoreCaps = DEFAULT_STORE_CAPS): string[] {
  const newestFirst = [...sets].sort((a, b) => b.createdAt - a.createdAt);
  const drop: string[] = [];
  let bytes = 0;
  newestFirst.forEach((s, i) => {
    bytes += s.bytes;
    if (i > 0 && (i >= caps.maxSets || bytes > caps.maxBytes)) drop.push(s.id);
  });
  return drop.reverse();
}
