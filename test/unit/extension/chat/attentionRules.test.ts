// When the chat notifies (zcode.notifications) and what the notification says of a turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shouldNotify, summaryLine } from '../../../../extension/chat/attentionRules.ts';

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
