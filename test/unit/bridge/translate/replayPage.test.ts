import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeCursor, encodeCursor, pageBefore, pageEndingAt, replayLimitOf } from '../../../../bridge/translate/replayPage.ts';
import type { HistoryMessage } from '../../../../bridge/zcode/protocol.ts';

const msg = (id: string, role: string): HistoryMessage => ({ info: { id, role }, parts: [] }) as unknown as HistoryMessage;
/** u0 a0 t0 u1 a1 t1 …: a user message, its answer and a tool message per turn. */
const history = Array.from({ length: 10 }, (_, i) => [msg(`u${i}`, 'user'), msg(`a${i}`, 'assistant'), msg(`t${i}`, 'assistant')]).flat();

describe('replay pages', () => {
  test('a page starts at the nearest user message before its first message; the cursor continues there', () => {
    const tail = pageEndingAt(history, history.length, 4);
    assert.deepEqual(tail.messages.map((m) => m.info.id), ['u8', 'a8', 't8', 'u9', 'a9', 't9']);
    assert.equal(decodeCursor(tail.cursor ?? ''), 'u8');
    const earlier = pageBefore(history, tail.cursor ?? '', 3);
    assert.ok(!(earlier instanceof Error));
    assert.deepEqual(earlier.messages.map((m) => m.info.id), ['u7', 'a7', 't7']);
    const start = pageEndingAt(history, 3, 100);
    assert.equal(start.cursor, undefined, 'no cursor at the start');
  });

  test('bad cursors and limits are refused with a reason', () => {
    assert.match(String(pageBefore(history, 'garbage', 5)), /cursor is not one this bridge gave out/);
    assert.match(String(pageBefore(history, encodeCursor('gone'), 5)), /no longer in the history/);
    assert.equal(replayLimitOf(undefined), undefined);
    assert.equal(replayLimitOf({ zcode: { replay: { limit: 'all' } } }), Infinity);
    assert.equal(replayLimitOf({ zcode: { replay: { limit: 7 } } }), 7);
    assert.throws(() => replayLimitOf({ zcode: { replay: { limit: 0 } } }), /positive integer or "all"/);
  });
});
