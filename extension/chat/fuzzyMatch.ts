/**
 * Fuzzy matching for the composer's `@` picker (pure): the query's characters must appear in the
 * candidate in order (case-insensitive); consecutive runs, matches at word starts (after `/`, `.`,
 * `-`, `_`, a space or a lower→upper case change) and matches in the file name score higher than
 * scattered ones deep in a directory path. Like VS Code's Quick Open, roughly, not exactly.
 */

/** Higher is better; undefined when `query` is not a subsequence of `text`. */
export function fuzzyScore(query: string, text: string): number | undefined {
  if (query === '') return 0;
  const q = query.toLowerCase();
  const s = text.toLowerCase();
  // The file-name part (after the last `/`) is where a user's query usually points.
  const nameStart = text.lastIndexOf('/') + 1;
  let score = 0;
  let at = 0;
  let previous = -2;
  for (const c of q) {
    const found = s.indexOf(c, at);
    if (found < 0) return undefined;
    let points = 1;
    if (found === previous + 1) points += 5;
    if (found === 0 || /[/._\-\s]/.test(text[found - 1]) || (/[a-z]/.test(text[found - 1]) && /[A-Z]/.test(text[found]))) points += 3;
    if (found >= nameStart) points += 2;
    score += points;
    previous = found;
    at = found + 1;
  }
  // Among equal matches, the shorter candidate is the closer one.
  return score * 100 - Math.min(text.length, 99);
}

/** The items matching `query`, best first (stable for equal scores), at most `limit`. */
export function fuzzyFilter<T>(query: string, items: readonly T[], text: (item: T) => string, limit: number): T[] {
  const scored: { item: T; score: number; index: number }[] = [];
  items.forEach((item, index) => {
    const score = fuzzyScore(query, text(item));
    if (score !== undefined) scored.push({ item, score, index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, limit).map((s) => s.item);
}
