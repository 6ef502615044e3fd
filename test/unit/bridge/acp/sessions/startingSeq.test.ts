/** sessionCalls.ts `startingSeq`: a subscription's de-duplication start, decided by comparing seqs, never by arrival order. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startingSeq } from '../../../../../bridge/acp/sessions/sessionCalls.ts';

test('first subscribe: after what already happened, keeping a newer event already handled (whichever came first)', () => {
  assert.equal(startingSeq(undefined, undefined, 7), 7, 'nothing handled yet');
  assert.equal(startingSeq(undefined, 9, 7), 9, 'an event after the subscription was handled before the answer: kept');
  assert.equal(startingSeq(undefined, 5, 7), 7);
});

test('re-subscribe: the stream resumes after the seq asked for; a lower zcode seq means the numbering restarted', () => {
  assert.equal(startingSeq(10, 10, 12), 10, 'replayed events 11 and 12 are still to come');
  assert.equal(startingSeq(10, 12, 12), 12, 'already handled');
  assert.equal(startingSeq(10, 10, 3), 3, 'restarted: follow zcode, or every new event is a duplicate');
});

test('no eventSeq in the answer: nothing changes', () => {
  assert.equal(startingSeq(undefined, undefined, undefined), undefined);
  assert.equal(startingSeq(4, 6, undefined), 6);
});
