/**
 * Builds without `automation/*` (issue 12 item 9): the Cron tools are kept from the model through
 * zcode's `toolDenylist` on `session/create`, and the log says why; a build that has automation
 * gets no denylist.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CRON_TOOLS } from '../../../bridge/zcode/automation.ts';
import { newSession, prompt, sessionCreates, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

function createParams(h: { simRecord(): { received: Record<string, unknown>[] } }): Array<{ toolDenylist?: string[] }> {
  return sessionCreates(h).map((m) => m.params as { toolDenylist?: string[] });
}

describe('automation (inproc)', () => {
  test('no automation/* in this build: Cron tools denied on every session/create, logged once', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      for (let i = 0; i < 2; i++) assert.equal((await prompt(h, await newSession(h), '[scenario:text]')).stopReason, 'end_turn');
      assert.deepEqual(createParams(h).map((p) => p.toolDenylist), [CRON_TOOLS, CRON_TOOLS]);
      assert.equal(h.simRecord().received.filter((m) => m.method === 'automation/list').length, 1, 'asked once');
      assert.equal(h.logger.find('info', 'Cron tools').length, 1);
    });
  });

  test('a build that still has automation/*: nothing denied', T, async () => {
    await withHarness('inproc', { sim: { env: { ZCODE_SIM_AUTOMATION: '1' } } }, async (h) => {
      assert.equal((await prompt(h, await newSession(h), '[scenario:text]')).stopReason, 'end_turn');
      assert.deepEqual(createParams(h).map((p) => p.toolDenylist), [undefined]);
    });
  });
});
