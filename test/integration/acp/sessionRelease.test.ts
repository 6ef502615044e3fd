/**
 * Releasing sessions: the extension sends `session/close` for a session no chat shows
 * any more. The session must stay in the history and open again with `session/load` (its replay
 * shows the earlier turn, a new prompt runs), under its placeholder id as under its zcode id. With
 * several clients, a close releases only the closing client's hold: the session stays live for
 * the others (their running turn is not cancelled, their updates keep coming).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agentText, errorOf, newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };

function userText(updates: ReadonlyArray<{ sessionUpdate: string; content?: unknown }>): string {
  return updates
    .filter((u) => u.sessionUpdate === 'user_message_chunk')
    .map((u) => (u.content as { type: string; text?: string }).text ?? '')
    .join('');
}

describe('session release (inproc)', () => {
  test('leave → session/close → session/load again replays the history and runs a new turn', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const sessionId = await newSession(h);
      assert.equal((await prompt(h, sessionId, 'first turn [scenario:text]')).stopReason, 'end_turn');
      const real = ((await h.agent.request('session/list', { cwd: WORKSPACE })).sessions.find((s) => s.sessionId === sessionId)?._meta as { zcode: { sessionId: string } }).zcode.sessionId;
      assert.deepEqual(await h.agent.request('session/close', { sessionId }), {});
      // Still in the history after the close.
      assert.ok((await h.agent.request('session/list', { cwd: WORKSPACE })).sessions.some((s) => s.sessionId === sessionId));

      const before = h.updatesOf(sessionId).length;
      await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
      const replay = h.updatesOf(sessionId).slice(before);
      assert.match(userText(replay), /first turn/);
      assert.ok(agentText(replay).length > 0, 'the earlier answer is replayed');
      assert.equal((await prompt(h, sessionId, 'second turn [scenario:text]')).stopReason, 'end_turn');

      // The same under the zcode id: closed, it is unknown until loaded again, then it works.
      await h.agent.request('session/close', { sessionId });
      await h.agent.request('session/load', { sessionId: real, cwd: WORKSPACE, mcpServers: [] });
      await h.agent.request('session/close', { sessionId: real });
      assert.equal((await errorOf(prompt(h, real, 'hello'))).code, -32002);
      const again = h.updatesOf(real).length;
      await h.agent.request('session/load', { sessionId: real, cwd: WORKSPACE, mcpServers: [] });
      assert.match(userText(h.updatesOf(real).slice(again)), /first turn[\s\S]*second turn/);
      assert.equal((await prompt(h, real, 'third turn [scenario:text]')).stopReason, 'end_turn');
    });
  });

  test("a close releases only the closing client's hold: another client's running turn goes on", T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const other = await h.addClient('phone');
      const sessionId = await newSession(h);
      await prompt(h, sessionId, 'warm up [scenario:text]');
      await other.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
      // While the phone's turn waits for its permission answer, the first client leaves the session.
      h.onPermission = () => new Promise(() => {});
      other.onPermission = async (params) => {
        assert.deepEqual(await h.agent.request('session/close', { sessionId }), {});
        return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind.startsWith('allow'))!.optionId } };
      };
      const seen = other.updatesOf(sessionId).length;
      assert.equal((await prompt(other, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
      assert.ok(agentText(other.updatesOf(sessionId).slice(seen)).length > 0, 'the phone got the rest of its turn');
      // The last holder's close closes it for real (a placeholder still opens again from the store).
      await other.agent.request('session/close', { sessionId });
      await other.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
      assert.equal((await prompt(other, sessionId, 'after [scenario:text]')).stopReason, 'end_turn');
    });
  });
});
