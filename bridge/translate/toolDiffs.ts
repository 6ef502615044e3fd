/**
 * The diff content of a file-changing zcode tool call (Write, Edit, MultiEdit) on an ACP card: from
 * the tool's input, or from the patch zcode attached to the result's metadata when there is one.
 * Pure, like toolInfo.ts (whose input readers it uses): the live event translator, the permission
 * dialog and the `session/load` replay all show the same diff.
 */
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { absolutePath, asRecord, canonicalToolName, stringField, toolFilePath } from './toolInfo.ts';

type DiffContent = Extract<ToolCallContent, { type: 'diff' }>;

function diff(path: string, oldText: string | null, newText: string): DiffContent {
  return { type: 'diff', path, oldText, newText };
}

/** One hunk of a structured patch (`{oldStart, oldLines, newStart, newLines, lines}`, lines prefixed ' ', '-', '+'). */
function hunkTexts(lines: readonly unknown[]): { oldText: string; newText: string } | undefined {
  const oldLines: string[] = [];
  const newLines: string[] = [];
  for (const raw of lines) {
    if (typeof raw !== 'string') return undefined;
    const marker = raw[0];
    const body = raw.slice(1);
    if (marker === ' ' || raw === '') {
      oldLines.push(body);
      newLines.push(body);
    } else if (marker === '-') oldLines.push(body);
    else if (marker === '+') newLines.push(body);
    else if (marker === '\\') continue; // "\ No newline at end of file"
    else return undefined;
  }
  return { oldText: oldLines.join('\n'), newText: newLines.join('\n') };
}

/** Hunks of a unified diff string (`@@ -a,b +c,d @@` sections). */
function unifiedDiffHunks(text: string): string[][] {
  const hunks: string[][] = [];
  let current: string[] | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('@@')) {
      current = [];
      hunks.push(current);
    } else if (current && !line.startsWith('--- ') && !line.startsWith('+++ ')) {
      current.push(line);
    }
  }
  // A trailing empty string from the final newline is not a context line.
  for (const hunk of hunks) while (hunk.length > 0 && hunk[hunk.length - 1] === '') hunk.pop();
  return hunks;
}

/**
 * Diffs from an edit's result metadata, when zcode attached one. Accepted shapes, first match wins:
 * `filediff: {file?, before, after}` (whole file), `structuredPatch`/`structured_patch`/`patch`:
 * an array of hunks `{lines: string[]}`, or `diff`: a unified diff string (one diff per hunk).
 */
function diffsFromMetadata(metadata: unknown, path: string, cwd: string): DiffContent[] | undefined {
  const meta = asRecord(metadata);
  const filediff = asRecord(meta.filediff ?? meta.fileDiff);
  if (typeof filediff.after === 'string') {
    const file = stringField(filediff, 'file', 'path');
    const before = typeof filediff.before === 'string' ? filediff.before : null;
    return [diff(file ? absolutePath(file, cwd) : path, before, filediff.after)];
  }
  const patch = meta.structuredPatch ?? meta.structured_patch ?? meta.patch;
  if (Array.isArray(patch) && patch.length > 0) {
    const out: DiffContent[] = [];
    for (const hunk of patch) {
      const lines = asRecord(hunk).lines;
      const texts = Array.isArray(lines) ? hunkTexts(lines) : undefined;
      if (!texts) return undefined;
      out.push(diff(path, texts.oldText, texts.newText));
    }
    return out;
  }
  if (typeof meta.diff === 'string') {
    const hunks = unifiedDiffHunks(meta.diff);
    const out: DiffContent[] = [];
    for (const hunk of hunks) {
      const texts = hunkTexts(hunk);
      if (!texts) return undefined;
      out.push(diff(path, texts.oldText, texts.newText));
    }
    return out.length > 0 ? out : undefined;
  }
  return undefined;
}

/** The file's content before a Write, when the metadata carries it (empty means "did not exist"). */
function previousContent(metadata: unknown): string | null {
  const meta = asRecord(metadata);
  const filediff = asRecord(meta.filediff ?? meta.fileDiff);
  for (const value of [meta.originalFile, meta.original_file, meta.oldContent, meta.previousContent, filediff.before]) {
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/**
 * `diff` content for file-changing tools, `[]` for every other tool or unusable input.
 * - Write: `content` with `oldText` null (a new file), unless the metadata carries the previous
 *   (non-empty) content;
 * - Edit: `old_string` → `new_string` (an empty `old_string`, i.e. creating the file, gives null),
 *   or, when present, the structured patch in `metadata` (see `diffsFromMetadata`);
 * - MultiEdit: one diff per entry of `edits` (or the metadata patch).
 */
export function toolDiffContent(toolName: string | undefined, input: unknown, cwd: string, metadata?: unknown): ToolCallContent[] {
  const args = asRecord(input);
  const known = canonicalToolName(toolName);
  if (known !== 'Write' && known !== 'Edit' && known !== 'MultiEdit') return [];
  const file = toolFilePath(args);
  if (!file) return [];
  const path = absolutePath(file, cwd);
  if (known === 'Write') {
    const content = typeof args.content === 'string' ? args.content : undefined;
    if (content !== undefined) return [diff(path, previousContent(metadata), content)];
    const fromMeta = metadata !== undefined ? diffsFromMetadata(metadata, path, cwd) : undefined;
    return fromMeta ?? [];
  }
  if (metadata !== undefined) {
    const fromMeta = diffsFromMetadata(metadata, path, cwd);
    if (fromMeta && fromMeta.length > 0) return fromMeta;
  }
  const edits = known === 'MultiEdit' && Array.isArray(args.edits) ? args.edits.map(asRecord) : [args];
  const out: DiffContent[] = [];
  for (const edit of edits) {
    const oldText = typeof edit.old_string === 'string' ? edit.old_string : typeof edit.oldString === 'string' ? edit.oldString : undefined;
    const newText = typeof edit.new_string === 'string' ? edit.new_string : typeof edit.newString === 'string' ? edit.newString : undefined;
    if (newText === undefined) continue;
    out.push(diff(path, oldText === undefined || oldText === '' ? null : oldText, newText));
  }
  return out;
}
