/**
 * Automatic retries never duplicate the user's message in zcode's history (turns.ts): a failed
 * turn is retried only in place (`retryTurnInPlace`, zcode's v4 `retryTurn`), never by sending the
 * prompt again. Without an in-place retry the failure is answered at once, marked retryable. The
 * history is read back the way a client sees it: a `session/load` replay.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RetryTurnInPlace } from '../../../bridge/acp/turns/turnTuning.ts';
import type { AcpHarness } from './harness.ts';
import { errorOf, newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };

/** How often the replay of `sessionId` (a second client's `session/load`) shows the user message `text`. */
async function userMessagesInReplay(h: AcpHarness, sessionId: string, text: string): Promise<number> {
  const reader = await h.addClient(`reader-${sessionId}`);
  await reader.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
  return reader.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' && u.content.text.includes(text)).length;
}

function sends(h: AcpHarness): number {
  return h.simRecord().received.filter((m) => m.method === 'session/send').length;
}

describe('retries that do not duplicate the user message (inproc)', () => {
  test('a build without in-place retry (no v4): a rate-limited turn is answered at once (retryable) and the message is in the history once', T, async () => {
    await withHarness('inproc', { sim: { profile: '0.16.5' } }, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, '[scenario:fail-rate-limit] only once please'));
      assert.equal(await userMessagesInReplay(h, sessionId, 'only once please'), 1);
      assert.equal(sends(h), 1, 'the prompt was sent once');
      assert.equal(error.code, -32603);
      assert.deepEqual((error.data as { zcode?: { retryable?: boolean; retries?: number } }).zcode?.retryable, true);
      assert.deepEqual((error.data as { zcode?: { retries?: number } }).zcode?.retries, 0);
    });
  });

  test("a current build retries in place with zcode's retryTurn: every attempt ran, the message is in the history once", T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, '[scenario:fail-rate-limit] retried in place'));
      const retryCommands = h.simRecord().received.filter((m) => m.method === 'v4/command' && (m.params as { type?: string }).type === 'retryTurn');
      // The scenario fails every attempt: the two automatic retries went to zcode as retryTurn commands.
      assert.equal(retryCommands.length, 2);
      assert.equal((error.data as { zcode?: { retries?: number } }).zcode?.retries, 2);
      assert.equal(sends(h), 1, 'the prompt was sent once');
      assert.equal(await userMessagesInReplay(h, sessionId, 'retried in place'), 1);
    });
  });

  test('a zcode that cannot retry in place: asked once, after the failure; the prompt is not sent again', T, async () => {
    const asked: string[] = [];
    const retryTurnInPlace: RetryTurnInPlace = async ({ sessionId }) => {
      asked.push(sessionId);
      return false;
    };
    await withHarness('inproc', { retryTurnInPlace }, async (h) => {
      const sessionId = await newSession(h);
      const error = await errorOf(prompt(h, sessionId, '[scenario:fail-rate-limit] still once'));
      assert.match(error.message, /rate-limiting/, 'the failure that was being retried is the answer');
      const zid = h.simRecord().received.find((m) => m.method === 'session/send')?.params as { sessionId: string };
      assert.deepEqual(asked, [zid.sessionId]);
      assert.equal(sends(h), 1);
      assert.equal(await userMessagesInReplay(h, sessionId, 'still once'), 1);
    });
  });
});
