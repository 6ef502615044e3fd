/**
 * ACP v1's 2026 stable surface: `session/delete` (the conversation is gone from list, load, resume
 * and prompt for every client, under every id it had) and `logout` (zcode has no sign-out the bridge
 * can call: the answer says what to do and is never -32000, which would start a login flow). Also
 * what a client gets for a conversation zcode itself no longer has: -32002 with the reason.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { buildCli, MODES } from './harness.ts';
import { agentText, errorOf, newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 90_000 };

interface ErrorData {
  sessionId?: string;
  reason?: string;
  credentials?: string;
}

const dataOf = (error: { data?: unknown }): ErrorData => (error.data ?? {}) as ErrorData;

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`session/delete and logout (${mode})`, () => {
    test('initialize advertises session/delete and logout', T, async () => {
      await withHarness(mode, { initialize: false }, async (h) => {
        const init = (await h.initialize()) as { agentCapabilities: { sessionCapabilities?: Record<string, unknown>; auth?: Record<string, unknown> } };
        assert.deepEqual(init.agentCapabilities.sessionCapabilities?.delete, {});
        assert.deepEqual(init.agentCapabilities.auth?.logout, {});
      });
    });

    test('a deleted conversation is gone from list, load, resume and prompt; deleting again is done', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const kept = await newSession(h);
        const doomed = await newSession(h);
        await prompt(h, kept, 'keep me [scenario:text]');
        await prompt(h, doomed, 'delete me [scenario:text]');
        const listed = async (): Promise<string[]> => (await h.agent.request('session/list', { cwd: WORKSPACE })).sessions.map((s) => s.sessionId);
        assert.ok((await listed()).includes(doomed));

        await h.agent.request('session/delete', { sessionId: doomed });

        assert.ok(!(await listed()).includes(doomed), 'not listed after delete');
        assert.ok((await listed()).includes(kept), 'the other conversation stays');
        const load = await errorOf(h.agent.request('session/load', { sessionId: doomed, cwd: WORKSPACE, mcpServers: [] }));
        const resume = await errorOf(h.agent.request('session/resume', { sessionId: doomed, cwd: WORKSPACE }));
        const sent = await errorOf(prompt(h, doomed, 'still there?'));
        for (const error of [load, resume, sent]) {
          assert.equal(error.code, -32002);
          assert.equal(dataOf(error).sessionId, doomed);
        }
        assert.equal(dataOf(load).reason, 'deleted');
        // Deleting again leaves the same end state: the bridge answers -32002, which ACP clients take as done.
        await h.agent.request('session/delete', { sessionId: doomed });
        assert.ok(!(await listed()).includes(doomed));
        // The other conversation still works.
        assert.equal((await prompt(h, kept, 'again [scenario:text]')).stopReason, 'end_turn');
      });
    });

    test('deleting a session with a running turn cancels the turn first', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const running = prompt(h, sessionId, '[scenario:slow-end]');
        await h.waitFor('the turn to stream', () => agentText(h.updatesOf(sessionId)).length > 0);
        await h.agent.request('session/delete', { sessionId });
        assert.equal((await running).stopReason, 'cancelled');
        const load = await errorOf(h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] }));
        assert.equal(load.code, -32002);
      });
    });

    test('deleting an id nobody knows answers -32002 on the wire (ACP clients take it as done)', T, async () => {
      await withHarness(mode, {}, async (h) => {
        await h.agent.request('session/delete', { sessionId: 'sess_0123456789ab' });
        const answer = h.traffic.sent.find((m) => 'error' in m && (m as { error?: { data?: { sessionId?: string } } }).error?.data?.sessionId === 'sess_0123456789ab') as { error: { code: number } } | undefined;
        assert.equal(answer?.error.code, -32002);
      });
    });

    test('logout says what to do instead of pretending, and is not -32000', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const error = await errorOf(h.agent.request('logout', {}));
        assert.notEqual(error.code, -32000);
        assert.equal(error.code, -32603);
        assert.equal(dataOf(error).reason, 'logoutNotSupportedByZcode');
        assert.match(error.message, /still signed in/);
        assert.match(error.message, /config\.json/);
      });
    });

    test('session/load of a conversation zcode no longer has is -32002 with the reason', T, async () => {
      const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
      const firstZcode = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      const freshZcode = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      try {
        let sessionId = '';
        await withHarness(mode, { sim: { stateDir: firstZcode }, storeDir }, async (h) => {
          sessionId = await newSession(h);
          await prompt(h, sessionId, 'remember me [scenario:text]');
        });
        for (const quirks of [[], ['unknown-not-active'], ['zh-errors']]) {
          // The bridge's store still maps the id; this zcode has never heard of the conversation.
          await withHarness(mode, { sim: { stateDir: freshZcode, quirks }, storeDir }, async (h) => {
            const load = await errorOf(h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] }));
            assert.equal(load.code, -32002, `quirks ${quirks.join(',') || 'none'}: ${load.message}`);
            assert.equal(dataOf(load).reason, 'goneInZcode');
            assert.match(load.message, /no longer has/);
          });
        }
      } finally {
        for (const dir of [storeDir, firstZcode, freshZcode]) rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
