/** an answer is replayed only to copies inside the grace period; a later request with the same id is asked again. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANSWER_REPLAY_GRACE_MS, InteractionBroker, PERMISSION_METHOD } from '../../../../bridge/zcode/interactionBroker.ts';
import type { InteractionHandler } from '../../../../bridge/zcode/backend.ts';
import { testLogger } from '../../../helpers/sim.ts';

test('a permission re-sent within the grace period gets the answer; one arriving after it asks the user again', async () => {
  let now = 1_000_000;
  const asked: string[] = [];
  const answers = ['allow', 'deny'];
  const handler: InteractionHandler = async (interaction) => {
    asked.push(interaction.params.requestId);
    const decision = answers.shift();
    return decision === 'allow' ? { decision: 'allow' } : { decision: 'deny', reason: 'no' };
  };
  const broker = new InteractionBroker(() => handler, testLogger(), () => now);
  const params = { requestId: 'perm-1', sessionId: 's1', toolName: 'Bash', options: [] };
  assert.deepEqual(await broker.handle(PERMISSION_METHOD, params), { decision: 'allow' });
  now += ANSWER_REPLAY_GRACE_MS - 1;
  assert.deepEqual(await broker.handle(PERMISSION_METHOD, params), { decision: 'allow' }, 'a re-sent copy inside the grace period is answered at once');
  assert.deepEqual(asked, ['perm-1']);
  now += 1;
  // The same id after the grace period (a reused or late id): a new question, never the stale "allow".
  assert.deepEqual(await broker.handle(PERMISSION_METHOD, params), { decision: 'deny', reason: 'no' });
  assert.deepEqual(asked, ['perm-1', 'perm-1']);
});
