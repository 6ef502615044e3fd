// When the chat notifies (zcode.notifications), what the notification says of a turn, and what the
// chat still owes once it hides (an event kept quiet because the chat looked visible).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttentionMemory, shouldNotify, summaryLine, type AttentionContext } from '../../../../extension/chat/attentionRules.ts';

test('whenHidden notifies only while the chat is hidden or the window unfocused; off never; always always', () => {
  assert.equal(shouldNotify('whenHidden', true, true), false);
  assert.equal(shouldNotify('whenHidden', false, true), true);
  assert.equal(shouldNotify('whenHidden', true, false), true);
  assert.equal(shouldNotify('off', false, false), false);
  assert.equal(shouldNotify('always', true, true), true);
});

test('a summary is the first non-empty line without markdown marks, shortened', () => {
  assert.equal(summaryLine('\n## All **tests** pass\nmore'), 'All tests pass');
  assert.equal(summaryLine('x'.repeat(200), 10), `${'x'.repeat(9)}…`);
  assert.equal(summaryLine(''), '');
});

/** The extension believes the chat is on screen in a focused window (it may be wrong: it learns late). */
const looksVisible: AttentionContext = { setting: 'whenHidden', chatVisible: true, windowFocused: true };
const hidden: AttentionContext = { setting: 'whenHidden', chatVisible: false, windowFocused: true };
const question = { kind: 'needsInput', title: 'Which license?' } as const;
const finished = { kind: 'turnEnded', summary: 'Done.' } as const;

/** A request arrives as the chat reports it: the pending count first, then the event. */
function ask(memory: AttentionMemory, pending: number, context = looksVisible, event: { kind: 'needsInput'; title: string } = question): boolean {
  memory.pendingChanged(pending);
  return memory.arrived(event, context);
}

test('a question that arrives while the chat still looks visible is told once, when the chat is seen to hide', () => {
  const memory = new AttentionMemory();
  assert.equal(ask(memory, 1), false, 'kept quiet: the chat looked visible');
  assert.deepEqual(memory.chatHidden('whenHidden'), question, 'the user had left: told now');
  assert.equal(memory.chatHidden('whenHidden'), undefined, 'once');
});

test('a question answered or withdrawn before the chat hides is not told late', () => {
  const answered = new AttentionMemory();
  ask(answered, 1);
  answered.pendingChanged(0);
  assert.equal(answered.chatHidden('whenHidden'), undefined, 'answered: nothing owed');

  // Two wait and one goes: the count cannot say which, and the user was at the chat: nothing owed.
  const oneOfTwo = new AttentionMemory();
  ask(oneOfTwo, 1);
  ask(oneOfTwo, 2, looksVisible, { kind: 'needsInput', title: 'Run npm test?' });
  oneOfTwo.pendingChanged(1);
  assert.equal(oneOfTwo.chatHidden('whenHidden'), undefined);

  // A request told at once is not told again.
  const told = new AttentionMemory();
  assert.equal(ask(told, 1, hidden), true);
  assert.equal(told.chatHidden('whenHidden'), undefined);
});

test('the newest waiting request is the one named; a turn end after it, told or not, does not replace it', () => {
  const memory = new AttentionMemory();
  ask(memory, 1);
  const second = { kind: 'needsInput', title: 'Run npm test?' } as const;
  ask(memory, 2, looksVisible, second);
  assert.equal(memory.arrived(finished, looksVisible), false);
  assert.equal(memory.arrived({ kind: 'turnFailed', message: 'rate limited' }, hidden), true);
  assert.deepEqual(memory.chatHidden('whenHidden'), second);
});

test('a turn end kept quiet is not told when the chat hides later (it waits for nothing)', () => {
  const memory = new AttentionMemory();
  assert.equal(memory.arrived(finished, looksVisible), false);
  assert.equal(memory.chatHidden('whenHidden'), undefined);
});

test('the user in the chat (its keyboard focus) settles what is held', () => {
  const memory = new AttentionMemory();
  ask(memory, 1);
  memory.chatSeen();
  assert.equal(memory.chatHidden('whenHidden'), undefined);
});

test('notifications off: nothing is held, nothing is told late; always: told at once, nothing owed', () => {
  const off = new AttentionMemory();
  assert.equal(ask(off, 1, { ...looksVisible, setting: 'off' }), false);
  assert.equal(off.chatHidden('whenHidden'), undefined);

  const turnedOff = new AttentionMemory();
  ask(turnedOff, 1);
  assert.equal(turnedOff.chatHidden('off'), undefined, 'switched off before the chat hid');

  const always = new AttentionMemory();
  assert.equal(ask(always, 1, { ...looksVisible, setting: 'always' }), true);
  assert.equal(always.chatHidden('always'), undefined);
});

test('a question while the window is unfocused is told at once and not again', () => {
  const memory = new AttentionMemory();
  assert.equal(ask(memory, 1, { ...looksVisible, windowFocused: false }), true);
  assert.equal(memory.chatHidden('whenHidden'), undefined);
});
