/**
 * Reading zcode's conversation rows (bridge/zcode/v4/v4Rows.ts): which rows are the user's prompts
 * (not steers folded into a turn, not background results), what a retry targets, a turn's file
 * count, and the rows parsed leniently (unknown kinds kept as "other", never failing the page).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileCountOf, previousTurnOf, retryTargetOf, userPrompts } from '../../../../../bridge/zcode/v4/v4Rows.ts';
import { V4RowsRange } from '../../../../../bridge/zcode/v4/v4Shapes.ts';

const page = V4RowsRange.parse({
  atRevision: 9,
  atLogEpoch: 'ep_1',
  hasMore: false,
  rows: [
    { rowId: 0, turnId: 't1', entityId: 'turn:t1', kind: 'turnHeader', createdAt: 1, createdAtSeq: 0, state: 'completedSuccess', fileChanges: { files: 2, additions: 3, deletions: 1 } },
    { rowId: 1, turnId: 't1', entityId: 'm1', kind: 'userInput', createdAt: 1, createdAtSeq: 0, text: 'first', origin: 'realUser' },
    { rowId: 2, turnId: 't1', entityId: 'a1:0', kind: 'assistantText', createdAt: 1, createdAtSeq: 0, text: 'answer one', state: 'complete', actions: { canFork: true } },
    { rowId: 3, turnId: 't1', entityId: 'tool:1', kind: 'toolCall', createdAt: 1, createdAtSeq: 0, toolCallId: '1', toolName: 'Read', status: 'success', inputText: '{}' },
    { rowId: 4, turnId: 't2', entityId: 'turn:t2', kind: 'turnHeader', createdAt: 2, createdAtSeq: 0, state: 'completedSuccess' },
    { rowId: 5, turnId: 't2', entityId: 'm2', kind: 'userInput', createdAt: 2, createdAtSeq: 0, text: 'second', origin: 'realUser', actions: { canEdit: true } },
    { rowId: 6, turnId: 't2', entityId: 'm3', kind: 'userInput', createdAt: 2, createdAtSeq: 0, text: 'a steer', origin: 'realUser', guided: true },
    { rowId: 7, turnId: 't2', entityId: 'a2:0', kind: 'assistantText', createdAt: 2, createdAtSeq: 0, text: 'answer two', state: 'complete', actions: { canFork: true, canRetry: true } },
    { rowId: 8, turnId: 't3', entityId: 'bg', kind: 'userInput', createdAt: 3, createdAtSeq: 0, text: 'background result', origin: 'backgroundResult' },
    { rowId: 9, turnId: 't3', kind: 'someFutureKind', createdAt: 3 },
  ],
});

describe('v4 rows', () => {
  test('a page parses with unknown kinds kept as "other"; the CAS values come with it', () => {
    assert.equal(page.rows.length, 10);
    assert.deepEqual(page.rows[9], { kind: 'other', rowId: 9, turnId: 't3' });
    assert.deepEqual([page.atRevision, page.atLogEpoch], [9, 'ep_1']);
  });

  test('the user prompts are real users\' messages only (no steer, no background result)', () => {
    assert.deepEqual(userPrompts(page.rows).map((r) => r.text), ['first', 'second']);
  });

  test('a turn\'s file count comes from its header; the turn before a prompt', () => {
    assert.equal(fileCountOf(page.rows, 't1'), 2);
    assert.equal(fileCountOf(page.rows, 't2'), undefined);
    assert.equal(previousTurnOf(page.rows, 5), 't1');
    assert.equal(previousTurnOf(page.rows, 1), undefined);
  });

  test('retry targets the reply zcode marks retryable', () => {
    assert.deepEqual(retryTargetOf(page.rows), { rowId: 7, entityId: 'a2:0' });
  });
});
