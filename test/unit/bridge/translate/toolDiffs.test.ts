/**
 * The diff content of file-changing tool calls (bridge/translate/toolDiffs.ts): from the input, or
 * from the patch zcode attached to the result's metadata; every diff is valid ACP.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { toolDiffContent } from '../../../../bridge/translate/toolDiffs.ts';
import { validateAcp } from '../../../helpers/acpSchema.ts';

const CWD = '/work/proj';

describe('toolDiffContent', () => {
  test('Write of a new file: oldText null', () => {
    const diffs = toolDiffContent('Write', { file_path: 'new.ts', content: 'export {};\n' }, CWD);
    assert.deepEqual(diffs, [{ type: 'diff', path: '/work/proj/new.ts', oldText: null, newText: 'export {};\n' }]);
    diffs.forEach((d) => validateAcp('ToolCallContent', d));
  });

  test('Write over a file whose previous content the metadata carries', () => {
    assert.deepEqual(toolDiffContent('Write', { file_path: 'a.ts', content: 'new' }, CWD, { originalFile: 'old' }), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'old', newText: 'new' },
    ]);
  });

  test('Edit: old_string → new_string (camelCase too); empty old_string is a new file', () => {
    assert.deepEqual(toolDiffContent('Edit', { file_path: '/work/proj/a.ts', old_string: 'let a = 1;', new_string: 'let a = 2;' }, CWD), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'let a = 1;', newText: 'let a = 2;' },
    ]);
    assert.deepEqual(toolDiffContent('Edit', { filePath: 'a.ts', oldString: 'x', newString: 'y' }, CWD), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'x', newText: 'y' },
    ]);
    assert.deepEqual(toolDiffContent('Edit', { file_path: 'a.ts', old_string: '', new_string: 'y' }, CWD), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: null, newText: 'y' },
    ]);
  });

  test('MultiEdit: one diff per edit', () => {
    const diffs = toolDiffContent(
      'MultiEdit',
      { file_path: 'a.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd' }, { bogus: true }] },
      CWD,
    );
    assert.deepEqual(diffs, [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'a', newText: 'b' },
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'c', newText: 'd' },
    ]);
  });

  test('a structured patch in the metadata wins over the input', () => {
    const metadata = {
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' import x;', '-let a = 1;', '+let a = 2;', ' export {};'] },
        { oldStart: 20, oldLines: 1, newStart: 20, newLines: 2, lines: ['-end', '+end', '+more', '\\ No newline at end of file'] },
      ],
    };
    const diffs = toolDiffContent('Edit', { file_path: 'a.ts', old_string: 'let a = 1;', new_string: 'let a = 2;' }, CWD, metadata);
    assert.deepEqual(diffs, [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'import x;\nlet a = 1;\nexport {};', newText: 'import x;\nlet a = 2;\nexport {};' },
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'end', newText: 'end\nmore' },
    ]);
  });

  test('a unified diff string or a whole-file filediff in the metadata', () => {
    const diff = '--- a/a.ts\n+++ b/a.ts\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n';
    assert.deepEqual(toolDiffContent('Edit', { file_path: 'a.ts', old_string: 'old', new_string: 'new' }, CWD, { diff }), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'keep\nold', newText: 'keep\nnew' },
    ]);
    assert.deepEqual(
      toolDiffContent('Edit', { file_path: 'a.ts', old_string: 'o', new_string: 'n' }, CWD, { filediff: { file: '/work/proj/a.ts', before: 'o\n', after: 'n\n' } }),
      [{ type: 'diff', path: '/work/proj/a.ts', oldText: 'o\n', newText: 'n\n' }],
    );
  });

  test('defensive: malformed metadata falls back to the input; other tools and bad input give nothing', () => {
    assert.deepEqual(toolDiffContent('Edit', { file_path: 'a.ts', old_string: 'o', new_string: 'n' }, CWD, { structuredPatch: [{ lines: [42] }] }), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'o', newText: 'n' },
    ]);
    assert.deepEqual(toolDiffContent('Edit', { file_path: 'a.ts', old_string: 'o', new_string: 'n' }, CWD, 'not an object'), [
      { type: 'diff', path: '/work/proj/a.ts', oldText: 'o', newText: 'n' },
    ]);
    assert.deepEqual(toolDiffContent('Read', { file_path: 'a.ts' }, CWD), []);
    assert.deepEqual(toolDiffContent('Edit', { old_string: 'o', new_string: 'n' }, CWD), []);
    assert.deepEqual(toolDiffContent('Edit', null, CWD), []);
    assert.deepEqual(toolDiffContent('Write', { file_path: 'a.ts' }, CWD), []);
  });
});
