import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCarriageReturns, parseAnsi, stripAnsi } from '../../../webview-ui/ansi.ts';

test('SGR colours become styles, other escapes are dropped', () => {
  const segments = parseAnsi('\x1b[1;31merror\x1b[0m: \x1b[38;5;82mok\x1b[39m \x1b]0;title\x07\x1b[2Kdone\x1b[38;2;1;2;3m!');
  assert.deepEqual(
    segments.map((s) => [s.text, s.style]),
    [
      ['error', { bold: true, fg: 1 }],
      [': ', {}],
      ['ok', { fg: 'rgb(95, 255, 0)' }],
      [' done', {}],
      ['!', { fg: 'rgb(1, 2, 3)' }],
    ].map(([t, s]) => [t, s]),
  );
});

test('bright colours and backgrounds', () => {
  const [a, b] = parseAnsi('\x1b[92;44mA\x1b[49;39;103mB');
  assert.deepEqual(a.style, { fg: 10, bg: 4 });
  assert.deepEqual(b.style, { bg: 11 });
});

test('carriage returns overwrite the line (progress bars), CRLF stays a newline', () => {
  assert.equal(applyCarriageReturns('10%\r50%\r100%\nnext\r\nline'), '100%\nnext\nline');
  assert.equal(stripAnsi('\x1b[32m 10%\r\x1b[32m100%\x1b[0m'), '100%');
});
