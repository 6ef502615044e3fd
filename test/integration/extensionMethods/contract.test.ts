/**
 * The bridge serves exactly the `_zcode/*` contract (bridge/acp/extensions/contractDescriptors.ts): every request
 * descriptor is registered (its params schema answers, not "method not found"), and what the
 * bridge answers and announces passes the descriptors' own schemas — through the official SDK
 * client, the real bridge and the zcode simulator.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BackgroundTasksNotification,
  CapabilitiesRequest,
  CheckpointsChangedNotification,
  CheckpointsRequest,
  EXTENSION_NOTIFICATIONS,
  EXTENSION_REQUESTS,
  ForkRequest,
  GoalRequest,
} from '../../../bridge/acp/extensions/contractDescriptors.ts';
import { callExtension, paramsSchema, readNotification } from '../../../bridge/acp/extensions/contractSchemas.ts';
import { errorOf, newSession, prompt, sessionText, TERMINAL_CAPS, withBridge } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-contract');

describe('the _zcode/* contract, served', () => {
  test('every request descriptor is registered: empty params get -32602 naming the method', () =>
    withBridge({}, async (h) => {
      for (const descriptor of EXTENSION_REQUESTS) {
        // `_zcode/agent/capabilities` takes no parameters at all: there is nothing to get wrong.
        if (descriptor === CapabilitiesRequest) {
          assert.equal(typeof (await callExtension((m, p) => h.agent.request(m, p), CapabilitiesRequest, {})).probed, 'boolean');
          continue;
        }
        // `_zcode/account/usage` takes no session: a wrong type is its bad input.
        const bad = paramsSchema(descriptor).safeParse({}).success ? { sessionId: 7 } : {};
        const error = await errorOf(h.agent.request(descriptor.method, bad));
        assert.equal(error.code, -32602, `${descriptor.method}: ${error.message}`);
        assert.match(error.message, new RegExp(`${descriptor.method}: sessionId (is required|must be a string)`));
      }
    }));

  test('answers and notifications pass the descriptors\' schemas', () =>
    withBridge({ caps: TERMINAL_CAPS }, async (h) => {
      const send = (method: string, params: unknown) => h.agent.request(method, params);
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] first');
      assert.deepEqual(await callExtension(send, GoalRequest, { sessionId, action: 'show' }), { goal: null });
      const { checkpoints } = await callExtension(send, CheckpointsRequest, { sessionId });
      const fork = await callExtension(send, ForkRequest, { sessionId, ...(checkpoints[0] ? { checkpointId: checkpoints[0].checkpointId } : {}) });
      assert.equal(fork.cwd, CWD);
      await prompt(h, sessionId, '[scenario:bash-bg] build');
      await h.waitFor('the background turn', () => sessionText(h, sessionId).includes('The background build finished successfully'), 15_000);
      const ours = h.notifications.filter((n) => (n.params as { sessionId?: string }).sessionId === sessionId);
      const lists = ours.flatMap((n) => readNotification(BackgroundTasksNotification, n)?.tasks ?? []);
      assert.ok(lists.length >= 2, 'the task list was announced');
      assert.ok(lists.every((t) => t.kind === 'bash' && t.cardId));
      // Every `_zcode/*` notification the bridge sent passes its own descriptor.
      const declared = h.notifications.flatMap((n) => EXTENSION_NOTIFICATIONS.filter((d) => d.method === n.method).map((d) => ({ n, d })));
      assert.ok(declared.some(({ d }) => d === CheckpointsChangedNotification), 'a checkpoint was announced');
      assert.deepEqual(declared.filter(({ n, d }) => readNotification(d, n) === undefined).map(({ n }) => n), []);
    }));
});
