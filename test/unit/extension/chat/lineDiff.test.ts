import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactDiff, diffLines, splitLines } from '../../../../extension/chat/lineDiff.ts';

test('minimal edit scripts', () => {
  assert.deepEqual(diffLines(['a', 'b', 'c'], ['a', 'x', 'c']), [
    { t: ' ', text: 'a' },
    { t: '-', text: 'b' },
    { t: '+', text: 'x' },
    { t: ' ', text: 'c' },
  ]);
  assert.deepEqual(
    diffLines(['a', 'b', 'c', 'd'], ['b', 'c', 'e', 'd']).map((e) => e.t + e.text),
    ['-a', ' b', ' c', '+e', ' d'],
  );
});

test('new files, deletions, trailing newlines', () => {
  assert.deepEqual(compactDiff(null, 'x\ny\n'), { added: 2, removed: 0, truncated: false, lines: [{ t: '+', text: 'x' }, { t: '+', text: 'y' }] });
  assert.deepEqual(splitLines('a\r\nb\n'), ['a', 'b']);
  assert.equal(compactDiff('a\nb\n', '').removed, 2);
});

test('hunks are separated with the number of unchanged lines, and cut at maxLines', () => {
  const old = Array.from({ length: 40 }, (_, i) => `l${i}`);
  const next = old.map((l, i) => (i === 5 || i === 30 ? `${l}!` : l));
  const d = compactDiff(old.join('\n'), next.join('\n'), 1);
  assert.deepEqual(d.lines.map((l) => l.t + l.text), [' l4', '-l5', '+l5!', ' l6', '@22 unchanged lines', ' l29', '-l30', '+l30!', ' l31']);
  const big = compactDiff(null, Array.from({ length: 500 }, (_, i) => `n${i}`).join('\n'), 2, 80);
  assert.deepEqual([big.added, big.lines.length, big.truncated], [500, 80, true]);
});

test('a pathological input degrades to replace-all instead of hanging', () => {
  const a = Array.from({ length: 3000 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 3000 }, (_, i) => `b${i}`);
  // It returns at all (a hang would hit the runner's timeout) and with the replace-all script.
  const edits = diffLines(a, b, 100);
  assert.equal(edits.length, 6000);
});
