/**
 * What the empty chat says about the install and workspace across sessions
 * (extension/chat/chatSetupFacts.ts): one patch per change, none for a repeat, '' to clear, and a
 * fresh transcript's seed with only what is known.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatSetupFacts } from '../../../../extension/chat/chatSetupFacts.ts';

test('a change is one patch, a repeat none; clearing sends an empty string', () => {
  const facts = new ChatSetupFacts();
  assert.deepEqual(facts.seed(), {});
  assert.deepEqual(facts.setNotFound('Tried: PATH: /usr/bin/zcode'), { notFound: 'Tried: PATH: /usr/bin/zcode' });
  assert.equal(facts.setNotFound('Tried: PATH: /usr/bin/zcode'), undefined);
  assert.deepEqual(facts.setZcodeVersion('0.16.9'), { zcodeVersion: '0.16.9' });
  assert.deepEqual(facts.setFirstPrompts(['Run npm test']), { firstPrompts: ['Run npm test'] });
  assert.equal(facts.setFirstPrompts(['Run npm test']), undefined);
  assert.deepEqual(facts.seed(), { notFound: 'Tried: PATH: /usr/bin/zcode', zcodeVersion: '0.16.9', firstPrompts: ['Run npm test'] });
  assert.deepEqual(facts.setNotFound(undefined), { notFound: '' });
  assert.deepEqual(facts.seed(), { zcodeVersion: '0.16.9', firstPrompts: ['Run npm test'] });
});
