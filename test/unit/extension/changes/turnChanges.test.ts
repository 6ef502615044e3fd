import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';
import { contentBefore, noteToolCall, setSnapshot, type TurnObservations } from '../../../../extension/changes/turnChanges.ts';
import { changesItem, finishFiles, lineCounts, promptCaption, setsToDrop, undoRefusal } from '../../../../extension/changes/changeSet.ts';

const ORIGINAL = 'a\nb\nc\n';
const EDITED = 'a\nB1\nB2\nc\n';

const edit = (toolCallId: string, path: string, oldText: string | null, newText: string, extra: Partial<ToolCallUpdate> = {}): ToolCallUpdate => ({
  toolCallId,
  kind: 'edit',
  content: [{ type: 'diff', path, oldText, newText }],
  ...extra,
});

test('a file seen for the first time is reported once, by its first tool call', () => {
  const turn: TurnObservations = { files: [] };
  assert.deepEqual(noteToolCall(turn, edit('t1', '/w/a.ts', 'b', 'B'), 'edit'), ['/w/a.ts']);
  assert.deepEqual(noteToolCall(turn, edit('t2', '/w/a.ts', 'c', 'C'), 'edit'), []);
  assert.deepEqual(noteToolCall(turn, edit('t1', '/w/a.ts', 'b\n', 'B1\nB2\n'), 'edit'), [], 'a refined diff of the same call is no new file');
  assert.deepEqual(turn.files[0].diffs, [{ path: '/w/a.ts', oldText: 'b\n', newText: 'B1\nB2\n' }], 'the latest list of the first call replaces the old one');
  assert.equal(turn.files.length, 1);
});

test('an update without content keeps the diffs; delete/move calls name files by location', () => {
  const turn: TurnObservations = { files: [] };
  noteToolCall(turn, edit('t1', '/w/a.ts', 'b', 'B'), 'edit');
  noteToolCall(turn, { toolCallId: 't1', status: 'completed' }, 'edit');
  assert.equal(turn.files[0].diffs.length, 1);
  assert.deepEqual(noteToolCall(turn, { toolCallId: 't3', locations: [{ path: '/w/gone.ts' }] }, 'delete'), ['/w/gone.ts']);
  assert.deepEqual(noteToolCall(turn, { toolCallId: 't4', locations: [{ path: '/w/read.ts' }] }, 'read'), [], 'a read changes nothing');
});

test('before: the snapshot as is when the edit was not applied yet, its diff undone when it was', () => {
  const file = { path: '/w/a.ts', toolCallId: 't1', diffs: [{ path: '/w/a.ts', oldText: 'b\n', newText: 'B1\nB2\n' }] };
  assert.equal(contentBefore({ ...file, snapshot: ORIGINAL }), ORIGINAL);
  assert.equal(contentBefore({ ...file, snapshot: EDITED }), ORIGINAL);
  assert.equal(contentBefore({ ...file, snapshot: 'unrelated\n' }), undefined, 'neither side found: unknown, not a guess');
  assert.equal(contentBefore(file), undefined, 'not read');
});

test('before: a new file (oldText null) is null once written, the old file when the write was not applied yet', () => {
  const file = { path: '/w/n.ts', toolCallId: 't1', diffs: [{ path: '/w/n.ts', oldText: null, newText: 'new\n' }] };
  assert.equal(contentBefore({ ...file, snapshot: null }), null);
  assert.equal(contentBefore({ ...file, snapshot: 'new\n' }), null);
  assert.equal(contentBefore({ ...file, snapshot: 'old\n' }), 'old\n');
  assert.equal(contentBefore({ path: '/w/x', toolCallId: 't', diffs: [{ path: '/w/x', oldText: 'q', newText: 'r' }], snapshot: null }), undefined);
});

test('before: a Write whose metadata carried the whole previous file, and several edits of one call', () => {
  assert.equal(contentBefore({ path: '/w/a', toolCallId: 't', diffs: [{ path: '/w/a', oldText: ORIGINAL, newText: EDITED }], snapshot: EDITED }), ORIGINAL);
  const multi = { path: '/w/a', toolCallId: 't', diffs: [{ path: '/w/a', oldText: 'a', newText: 'A' }, { path: '/w/a', oldText: 'c', newText: 'C' }], snapshot: 'A\nb\nC\n' };
  assert.equal(contentBefore(multi), ORIGINAL);
});

test('finishing a turn: unchanged files are left out; created, modified and deleted files with line counts', () => {
  const turn: TurnObservations = { files: [] };
  noteToolCall(turn, edit('t1', '/w/a.ts', 'b\n', 'B1\nB2\n'), 'edit');
  noteToolCall(turn, edit('t2', '/w/new.ts', null, 'x\ny\n'), 'edit');
  noteToolCall(turn, edit('t3', '/w/failed.ts', 'q', 'r'), 'edit');
  noteToolCall(turn, { toolCallId: 't4', locations: [{ path: '/w/gone.ts' }] }, 'delete');
  setSnapshot(turn, '/w/a.ts', EDITED);
  setSnapshot(turn, '/w/new.ts', null);
  setSnapshot(turn, '/w/failed.ts', 'q\n');
  setSnapshot(turn, '/w/gone.ts', 'bye\n');
  const after = new Map<string, string | null>([['/w/a.ts', EDITED], ['/w/new.ts', 'x\ny\n'], ['/w/failed.ts', 'q\n'], ['/w/gone.ts', null]]);
  const files = finishFiles(turn.files, after);
  assert.deepEqual(files, [
    { path: '/w/a.ts', before: ORIGINAL, after: EDITED },
    { path: '/w/new.ts', before: null, after: 'x\ny\n' },
    { path: '/w/gone.ts', before: 'bye\n', after: null },
  ]);
  const item = changesItem({ id: 's1', sessionId: 'S', prompt: 'p', createdAt: 1, files });
  assert.deepEqual(item.files.map((f) => [f.status, f.added, f.removed]), [['modified', 2, 1], ['created', 2, 0], ['deleted', 0, 1]]);
  assert.equal(item.id, 'changes:s1');
});

test('line counts and undo refusals', () => {
  assert.deepEqual(lineCounts(null, 'a\nb\n'), { added: 2, removed: 0 });
  assert.deepEqual(lineCounts(ORIGINAL, EDITED), { added: 2, removed: 1 });
  const file = { path: '/w/a', before: ORIGINAL, after: EDITED };
  assert.equal(undoRefusal(file, EDITED), undefined);
  assert.equal(undoRefusal(file, `${EDITED}more\n`), 'changedSince');
  assert.equal(undoRefusal(file, null), 'changedSince');
  assert.equal(undoRefusal({ path: '/w/a', after: EDITED }, EDITED), 'unknown');
  assert.equal(undoRefusal({ ...file, undone: true }, ORIGINAL), 'undone');
});

test('the store keeps the newest sets within the caps', () => {
  const sets = [1, 2, 3, 4].map((n) => ({ id: `s${n}`, createdAt: n, bytes: 10 }));
  assert.deepEqual(setsToDrop(sets, { maxBytes: 25, maxSets: 10 }), ['s1', 's2']);
  assert.deepEqual(setsToDrop(sets, { maxBytes: 1000, maxSets: 3 }), ['s1']);
  assert.deepEqual(setsToDrop([{ id: 'big', createdAt: 1, bytes: 999 }], { maxBytes: 10, maxSets: 10 }), [], 'the newest always stays');
  assert.equal(promptCaption(`  first line\nsecond`), 'first line');
  assert.equal(promptCaption('x'.repeat(100)).length, 80);
});
