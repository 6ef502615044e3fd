/**
 * `session/close` of a session that was never prompted: the placeholder is dropped from the
 * store, so `session/list` no longer shows an empty conversation and the id is unknown afterwards; a
 * prompted session stays listed after close (it is zcode's).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildCli, MODES } from './harness.ts';
import { errorOf, newSession, prompt, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-close');

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`session/close (${mode})`, () => {
    test('an unprompted placeholder is dropped; a prompted session stays listed', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const empty = await newSession(h, CWD);
        const used = await newSession(h, CWD);
        await prompt(h, used, 'keep me [scenario:text]');
        const listed = async (): Promise<string[]> => (await h.agent.request('session/list', { cwd: CWD })).sessions.map((s) => s.sessionId);
        assert.deepEqual((await listed()).sort(), [empty, used].sort());
        await h.agent.request('session/close', { sessionId: empty });
        await h.agent.request('session/close', { sessionId: used });
        assert.deepEqual(await listed(), [used]);
        const gone = await errorOf(h.agent.request('session/load', { sessionId: empty, cwd: CWD, mcpServers: [] }));
        assert.equal(gone.code, -32002);
      });
    });
  });
}
