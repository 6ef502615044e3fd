/**
 * The extension methods and slash commands over the standalone `zcode-acp` CLI (stdio, Zed's path):
 * the same registration serves every transport, and stdout stays pure ACP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withHarness } from '../acp/helpers.ts';
import { errorOf, ext, newSession, prompt, sessionText, zcodeCalls, zcodeIdOfLastSend } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

test('stdio: fork, goal, checkpoints, validation and /goal work through the zcode-acp CLI', () =>
  withHarness('stdio', {}, async (h) => {
    const cwd = testWorkspace('ext-stdio');
    const sessionId = await newSession(h, cwd);
    await prompt(h, sessionId, '[scenario:text] hello');
    const zid = zcodeIdOfLastSend(h);
    const { checkpoints } = await ext<{ checkpoints: unknown[] }>(h, '_zcode/session/checkpoints', { sessionId });
    assert.equal(checkpoints.length, 1);
    const fork = await ext<{ sessionId: string; cwd: string }>(h, '_zcode/session/fork', { sessionId });
    assert.equal(fork.cwd, cwd);
    assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'set', objective: 'ship' }), { goal: { objective: 'ship', status: 'active' } });
    assert.equal((await errorOf(ext(h, '_zcode/session/goal', { sessionId, action: 'set' }))).code, -32602);
    const response = await prompt(h, sessionId, '/goal show');
    assert.equal(response.stopReason, 'end_turn');
    await h.waitFor('the /goal reply', () => sessionText(h, sessionId).includes('Goal: **ship** (active)'));
    assert.deepEqual(zcodeCalls(h, 'session/fork'), [{ sessionId: zid, target: { kind: 'latestCheckpoint' } }]);
  }));
