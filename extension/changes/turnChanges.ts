/**
 * What one turn changed on disk, reduced from the ACP tool calls the turn streamed. Pure: no I/O,
 * no vscode. The tracker (changeTracker.ts) reads the disk when `note` reports a new path and
 * hands the content back with `setSnapshot`.
 *
 * Where the content before the turn comes from (zcode's tool calls carry fragments, not files):
 *   - ACP diff content `{type:'diff', path, oldText, newText}` of the FIRST tool call that touched
 *     the file (its latest version: a `tool_call_update` list replaces the old one in ACP).
 *     Edit gives `old_string → new_string` (or the result's structured-patch hunks, with context),
 *     Write gives the whole file (`oldText` null for a new file, the previous content when zcode's
 *     result metadata carries it);
 *   - the disk when that tool call first appeared. zcode may already have written the file by
 *     then (its tools run in another process), so the snapshot is turned back into the content
 *     before the edit by undoing the call's own diffs in it (`contentBefore`).
 *   - delete/move tool calls name their files only in `locations`: the snapshot is all there is.
 */
import type { ToolCall, ToolCallUpdate } from '@agentclientprotocol/sdk';

/** One diff content block of an edit tool call. */
export interface EditDiff {
  path: string;
  oldText: string | null;
  newText: string;
}

/** What is known about one file during the turn (persisted as is: see changeStore.ts). */
export interface FileObservation {
  path: string;
  /** The tool call that touched the file first. */
  toolCallId: string;
  /** That call's diffs for this path (the latest version the bridge sent). */
  diffs: EditDiff[];
  /** Disk content when that call first appeared: null = no such file; absent = not read (yet). */
  snapshot?: string | null;
}

/** The state of a running turn: files in the order the turn touched them. */
export interface TurnObservations {
  files: FileObservation[];
}

const FILE_KINDS: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);

type ToolUpdate = ToolCall | ToolCallUpdate;

/** The diff blocks of an update (undefined when it carries no content list: the old one stands). */
export function diffsOf(update: ToolUpdate): EditDiff[] | undefined {
  if (!update.content) return undefined;
  return update.content.flatMap((c) => (c.type === 'diff' ? [{ path: c.path, oldText: c.oldText ?? null, newText: c.newText }] : []));
}

/** Files a file-changing tool call names: its diffs' paths, plus its locations for delete/move. */
export function pathsOf(update: ToolUpdate, kind: string | undefined): string[] {
  const paths = new Set((diffsOf(update) ?? []).map((d) => d.path));
  if (kind && FILE_KINDS.has(kind)) for (const l of update.locations ?? []) if (l.path) paths.add(l.path);
  return [...paths];
}

/**
 * Folds one `tool_call` / `tool_call_update` in. `kind` is the call's kind so far (updates may omit
 * it). Returns the paths seen for the first time: read them from disk now and `setSnapshot`.
 */
export function noteToolCall(turn: TurnObservations, update: ToolUpdate, kind: string | undefined): string[] {
  const fresh: string[] = [];
  const diffs = diffsOf(update);
  for (const path of pathsOf(update, kind)) {
    const mine = (diffs ?? []).filter((d) => d.path === path);
    const known = turn.files.find((f) => f.path === path);
    if (!known) {
      turn.files.push({ path, toolCallId: update.toolCallId, diffs: mine });
      fresh.push(path);
    } else if (known.toolCallId === update.toolCallId && diffs) {
      known.diffs = mine;
    }
  }
  return fresh;
}

export function setSnapshot(turn: TurnObservations, path: string, content: string | null): void {
  const file = turn.files.find((f) => f.path === path);
  if (file && file.snapshot === undefined) file.snapshot = content;
}

/** `text` with the first `find` replaced by `replacement` (no `$` patterns). */
function replaceFirst(text: string, find: string, replacement: string): string {
  const at = text.indexOf(find);
  return at < 0 ? text : text.slice(0, at) + replacement + text.slice(at + find.length);
}

/**
 * The file's content before the turn: `null` = it did not exist, `undefined` = cannot be known
 * (not read, or the snapshot matches neither side of the call's diffs: then Undo is refused
 * rather than writing a guess).
 */
export function contentBefore(file: FileObservation): string | null | undefined {
  if (file.snapshot === undefined) return undefined;
  let text: string | null = file.snapshot;
  // Undo the call's diffs that are already on disk, last first.
  for (const d of [...file.diffs].reverse()) {
    if (text === null) {
      // Gone when we looked: only a call that creates the file explains that.
      return d.oldText === null ? null : undefined;
    }
    if (d.oldText === null) {
      // A new file (Write without a previous content): written already, or not yet.
      if (text === d.newText) text = null;
      continue;
    }
    if (d.newText !== '' && text.includes(d.newText)) text = replaceFirst(text, d.newText, d.oldText);
    else if (!text.includes(d.oldText)) return undefined;
  }
  return text;
}
