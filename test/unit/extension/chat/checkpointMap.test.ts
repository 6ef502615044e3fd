import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapCheckpoints } from '../../../../extension/chat/checkpointMap.ts';

const msgs = (...texts: string[]) => texts.map((text, i) => ({ id: `user:${i}`, text }));

test('checkpoints pair with their messages by label, in order; failed turns and steers are skipped', () => {
  const messages = msgs('[scenario:text] first question', 'this one failed', 'steer: also do X', 'second   question\nwith details');
  const map = mapCheckpoints(messages, [
    { checkpointId: 'c1', label: 'first question' },
    { checkpointId: 'c2', label: 'second question' },
  ]);
  assert.deepEqual([...map], [['user:0', 'c1'], ['user:3', 'c2']]);
});

test('a shortened label (…) matches; a checkpoint without label takes the next message; unknown labels map nothing', () => {
  const long = `${'x'.repeat(70)} end`;
  assert.deepEqual([...mapCheckpoints(msgs(long, 'b'), [{ checkpointId: 'c1', label: `${'x'.repeat(59)}…` }, { checkpointId: 'c2' }])], [['user:0', 'c1'], ['user:1', 'c2']]);
  assert.deepEqual([...mapCheckpoints(msgs('a', 'b', 'c'), [{ checkpointId: 'c1', label: 'zzz' }])], []);
});

test('labels that name no message but as many checkpoints as messages pair by position', () => {
  assert.deepEqual([...mapCheckpoints(msgs('a', 'b'), [{ checkpointId: 'c1', label: 'Turn 1' }, { checkpointId: 'c2', label: 'Turn 2' }])], [['user:0', 'c1'], ['user:1', 'c2']]);
  assert.deepEqual([...mapCheckpoints([], [])], []);
});
