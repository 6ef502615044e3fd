/**
 * The composer's queue chips and "someone else's turn runs" (extension/chat/queueChips.ts), from the
 * bridge's `_zcode/session/queue` and the chat's own waiting prompts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PromptSender, QueuedPromptEntry, SessionQueueParams } from '../../../../bridge/acp/extensions/notificationSchemas.ts';
import { othersTurn, queueChips, senderName } from '../../../../extension/chat/queueChips.ts';

const toad: PromptSender = { clientId: 2, kind: 'remote', label: 'toad' };
const local: PromptSender = { clientId: 1, kind: 'local', name: 'zcode-vscode' };
const entry = (text: string, promptId?: string, sentBy: PromptSender = toad): QueuedPromptEntry => ({ text, sentBy, ...(promptId ? { promptId } : {}) });
const queue = (waiting: QueuedPromptEntry[], running?: QueuedPromptEntry): SessionQueueParams => ({ sessionId: 's1', waiting, ...(running ? { running } : {}) });
const own = (id: string, text = id) => ({ id, text, summary: [] });

describe('queue chips', () => {
  test("the bridge's order; own chips removable (no sender), others' named; own ones not listed yet come last", () => {
    const chips = queueChips([own('a'), own('c')], new Set(['a', 'c']), queue([entry('theirs'), entry('a', 'a', local)]));
    assert.deepEqual(
      chips.map((c) => [c.text, c.from]),
      [
        ['theirs', 'toad'],
        ['a', undefined],
        ['c', undefined],
      ],
    );
  });

  test('an own prompt the bridge still lists after it started or was removed shows no chip (the list is a step late)', () => {
    assert.deepEqual(queueChips([], new Set(['a']), queue([entry('a', 'a', local)])), []);
  });

  test('without word from the bridge: the own waiting prompts', () => {
    assert.deepEqual(queueChips([own('a', 'first')], new Set(['a']), undefined), [{ id: 'a', text: 'first', attachments: [] }]);
  });

  test("another client's turn: a running prompt that is not this chat's (named by another, or not named)", () => {
    const ownIds = new Set(['a']);
    assert.equal(othersTurn(queue([], entry('x', 'b')), ownIds), true);
    assert.equal(othersTurn(queue([], entry('x')), ownIds), true);
    assert.equal(othersTurn(queue([], entry('a', 'a', local)), ownIds), false);
    assert.equal(othersTurn(queue([entry('y')]), ownIds), false, 'nothing runs');
    assert.equal(othersTurn(undefined, ownIds), false);
  });

  test("a sender's name: its client name, else its connection's label, else its kind", () => {
    assert.equal(senderName(toad), 'toad');
    assert.equal(senderName(local), 'zcode-vscode');
    assert.equal(senderName({ clientId: null, kind: 'stdio' }), 'stdio');
  });

  test('a remote client that named itself is called by its name, not by the address the bridge labels it with', () => {
    // The bridge labels a remote connection `<address>:<port>` (bridge/remote/server.ts).
    assert.equal(senderName({ clientId: 3, kind: 'remote', label: '127.0.0.1:53412', name: 'toad-like' }), 'toad-like');
    assert.equal(senderName({ clientId: 3, kind: 'remote', label: '127.0.0.1:53412' }), '127.0.0.1:53412', 'an unnamed remote client: its address');
  });
});
