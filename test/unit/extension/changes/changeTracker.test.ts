import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';
import { ChangeStore } from '../../../../extension/changes/changeStore.ts';
import { ChangeTracker, type ChangesUi, type UndoConflict } from '../../../../extension/changes/changeTracker.ts';
import type { ChangeSet } from '../../../../extension/changes/changeSet.ts';
import { nodeFiles } from '../../../helpers/nodeFiles.ts';

/** Records what the tracker asked the UI for. */
class RecordingUi implements ChangesUi {
  reviews: { set: ChangeSet; path?: string }[] = [];
  refusals: { conflicts: UndoConflict[]; all: boolean }[] = [];
  async review(set: ChangeSet, path?: string) {
    this.reviews.push({ set, path });
  }
  async refused(conflicts: UndoConflict[], all: boolean) {
    this.refusals.push({ conflicts, all });
  }
}

/** Resolves once a stored set holds a snapshot containing `text` (the tracker's read reached the disk). */
async function snapshotStored(storage: string, text: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const names = existsSync(storage) ? readdirSync(storage).filter((n) => n.endsWith('.json')) : [];
    if (names.some((n) => readFileSync(join(storage, n), 'utf8').includes(`"snapshot":"${text}`))) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no stored snapshot with ${text}`);
}

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'zcode-changes-'));
  const work = join(root, 'work');
  mkdirSync(work);
  const storage = join(root, 'storage');
  const ui = new RecordingUi();
  const make = () => new ChangeTracker(nodeFiles, new ChangeStore(nodeFiles, storage), ui);
  return { work, storage, ui, make, tracker: make() };
}

const diff = (toolCallId: string, path: string, oldText: string | null, newText: string, status?: ToolCallUpdate['status']): ToolCallUpdate => ({
  toolCallId,
  kind: 'edit',
  ...(status ? { status } : {}),
  content: [{ type: 'diff', path, oldText, newText }],
});

/** One turn like zcode runs it: each tool call appears, zcode writes the file, the call completes. */
async function editTurn(tracker: ChangeTracker, work: string) {
  const math = join(work, 'math.js');
  const created = join(work, 'math.test.js');
  const turn = tracker.beginTurn('S1', 'fix multiply\nplease');
  turn.note(diff('e1', math, 'return a * b;', 'return safe(a * b);', 'pending'));
  writeFileSync(math, 'export const m = (a, b) => {\n  return safe(a * b);\n};\n'); // zcode edits (maybe before our read)
  turn.note(diff('w1', created, null, 'test();\n', 'pending'));
  writeFileSync(created, 'test();\n');
  turn.note({ toolCallId: 'w1', status: 'completed' });
  return { math, created, card: await turn.finish() };
}

test('a turn: the card lists each changed file; Review asks for the set; Undo all restores the disk', async () => {
  const { work, ui, tracker } = setup();
  const math = join(work, 'math.js');
  writeFileSync(math, 'export const m = (a, b) => {\n  return a * b;\n};\n');
  const { created, card } = await editTurn(tracker, work);
  assert.ok(card);
  assert.equal(card.prompt, 'fix multiply');
  assert.deepEqual(card.files.map((f) => [f.path, f.status, f.added, f.removed, f.undone]), [
    [math, 'modified', 1, 1, false],
    [created, 'created', 1, 0, false],
  ]);
  await tracker.review(card.changeSetId);
  assert.equal(ui.reviews[0].set.files.length, 2);
  assert.equal(await tracker.content(card.changeSetId, math, 'before'), 'export const m = (a, b) => {\n  return a * b;\n};\n');

  const undone = await tracker.undo(card.changeSetId);
  assert.ok(undone?.files.every((f) => f.undone));
  assert.equal(readFileSync(math, 'utf8'), 'export const m = (a, b) => {\n  return a * b;\n};\n');
  assert.equal(existsSync(created), false, 'undo of a created file deletes it');
});

test('Undo refuses a file changed since the turn, and Undo all then changes nothing', async () => {
  const { work, ui, tracker } = setup();
  const math = join(work, 'math.js');
  writeFileSync(math, 'export const m = (a, b) => {\n  return a * b;\n};\n');
  const { created, card } = await editTurn(tracker, work);
  assert.ok(card);
  writeFileSync(math, 'the user typed here\n');
  assert.equal(await tracker.undo(card.changeSetId), undefined);
  assert.equal(ui.refusals.length, 1);
  assert.deepEqual(ui.refusals[0].conflicts.map((c) => [c.file.path, c.current]), [[math, 'the user typed here\n']]);
  assert.equal(ui.refusals[0].all, true);
  assert.equal(existsSync(created), true, 'the other file was not touched either');
  assert.equal(readFileSync(math, 'utf8'), 'the user typed here\n');
  // One file alone still undoes.
  const one = await tracker.undo(card.changeSetId, created);
  assert.deepEqual(one?.files.map((f) => f.undone), [false, true]);
  assert.equal(existsSync(created), false);
});

test('undo of a deleted file recreates it', async () => {
  const { work, storage, tracker } = setup();
  const gone = join(work, 'gone.txt');
  writeFileSync(gone, 'keep me\n');
  const turn = tracker.beginTurn('S1', 'clean up');
  turn.note({ toolCallId: 'd1', kind: 'delete', title: 'rm gone.txt', locations: [{ path: gone }] });
  // zcode deletes the file only after the call appeared and the tracker stored what it read.
  await snapshotStored(storage, 'keep me');
  await nodeFiles.delete(gone);
  const card0 = await turn.finish();
  assert.deepEqual(card0?.files.map((f) => f.status), ['deleted']);
  await tracker.undo(card0!.changeSetId, gone);
  assert.equal(readFileSync(gone, 'utf8'), 'keep me\n');
});

test('a reload mid-turn loses nothing: the next start finishes the stored set from the disk', async () => {
  const { work, storage, make, tracker } = setup();
  const math = join(work, 'math.js');
  writeFileSync(math, 'one\ntwo\n');
  const turn = tracker.beginTurn('S1', 'edit');
  turn.note(diff('e1', math, 'two', 'TWO', 'pending'));
  // Once the read is stored, "reload": the recorder is dropped, zcode wrote meanwhile.
  await snapshotStored(storage, 'one');
  writeFileSync(math, 'one\nTWO\n');
  const again = make();
  const cards = await again.restored('S1');
  assert.equal(cards.length, 1);
  assert.deepEqual(cards[0].files.map((f) => [f.status, f.added, f.removed]), [['modified', 1, 1]]);
  await again.undo(cards[0].changeSetId);
  assert.equal(readFileSync(math, 'utf8'), 'one\ntwo\n');
  assert.deepEqual(await make().restored('other session'), []);
});

test('a turn that changed nothing gives no card, and a damaged stored file is skipped', async () => {
  const { work, storage, make, tracker } = setup();
  const turn = tracker.beginTurn('S1', 'just talk');
  turn.note({ toolCallId: 'r1', kind: 'read', locations: [{ path: join(work, 'x') }] });
  assert.equal(await turn.finish(), undefined);
  mkdirSync(storage, { recursive: true });
  writeFileSync(join(storage, 'broken.json'), '{"id": 3');
  assert.deepEqual(await make().restored('S1'), []);
});
