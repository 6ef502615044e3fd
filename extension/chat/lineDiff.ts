/**
 * A small line diff for the edit cards' compact preview (the full diff opens in VS Code's own diff
 * editor). Common prefix/suffix are trimmed first, since agent edits usually touch a few lines of a
 * large file; the middle is diffed with Myers' O(ND) algorithm, bounded so a pathological input
 * degrades to "all removed, all added" instead of burning the extension host.
 */
import type { DiffLine } from '../../webview-ui/viewModel.ts';

export interface CompactDiff {
  added: number;
  removed: number;
  lines: DiffLine[];
  /** More hunk lines existed than `maxLines`. */
  truncated: boolean;
}

type Edit = { t: ' ' | '+' | '-'; text: string };

/** Splits text into lines; a trailing newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The edit script turning `a` into `b`, line by line. */
export function diffLines(a: readonly string[], b: readonly string[], maxCost = 4000): Edit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Edit[] = a.slice(0, start).map((text) => ({ t: ' ', text }));
  const tail: Edit[] = a.slice(endA).map((text) => ({ t: ' ', text }));
  const middle = myers(a.slice(start, endA), b.slice(start, endB), maxCost);
  return [...head, ...middle, ...tail];
}

function myers(a: readonly string[], b: readonly string[], maxCost: number): Edit[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((text) => ({ t: '+', text }));
  if (m === 0) return a.map((text) => ({ t: '-', text }));
  const max = Math.min(n + m, maxCost);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset, d);
    }
  }
  // Too different to be worth a minimal script: show it as a replacement.
  return [...a.map((text) => ({ t: '-' as const, text })), ...b.map((text) => ({ t: '+' as const, text }))];
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[], offset: number, dEnd: number): Edit[] {
  const edits: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ t: ' ', text: a[--x] });
      y--;
    }
    if (x === prevX) edits.push({ t: '+', text: b[--y] });
    else edits.push({ t: '-', text: a[--x] });
  }
  while (x > 0 && y > 0) {
    edits.push({ t: ' ', text: a[--x] });
    y--;
  }
  return edits.reverse();
}

/**
 * Hunks of `context` lines around each change, separated by `@` lines ("⋯ N unchanged lines"),
 * cut at `maxLines`.
 */
export function compactDiff(oldText: string | null | undefined, newText: string, context = 2, maxLines = 80): CompactDiff {
  const edits = diffLines(splitLines(oldText ?? ''), splitLines(newText));
  let added = 0;
  let removed = 0;
  const keep = new Uint8Array(edits.length);
  edits.forEach((e, i) => {
    if (e.t === ' ') return;
    if (e.t === '+') added++;
    else removed++;
    for (let j = Math.max(0, i - context); j <= Math.min(edits.length - 1, i + context); j++) keep[j] = 1;
  });
  const lines: DiffLine[] = [];
  let truncated = false;
  let skipped = 0;
  for (let i = 0; i < edits.length; i++) {
    if (!keep[i]) {
      skipped++;
      continue;
    }
    if (skipped > 0 && lines.length > 0) lines.push({ t: '@', text: `${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
    skipped = 0;
    if (lines.length >= maxLines) {
      truncated = true;
      break;
    }
    lines.push({ t: edits[i].t, text: edits[i].text });
  }
  return { added, removed, lines, truncated };
}
