/**
 * One id per conversation, in-process and over stdio: the id `session/new` gave
 * is the id the client sees in list / load / updates, also after a bridge restart; a session that
 * was never prompted is listed; zcode's own id (under `_meta.zcode.sessionId`) keeps loading too.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { storedSessions } from '../../helpers/lazyStore.ts';
import { buildCli, MODES } from './harness.ts';
import { newSession, prompt, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-one-id');

before(async () => {
  await buildCli();
});

function temp(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

for (const mode of MODES) {
  describe(`one id per conversation (${mode})`, () => {
    test('an unprompted session is listed under its id; a prompted one too, once, with zcode’s id in _meta', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const fresh = await newSession(h, CWD);
        const used = await newSession(h, CWD);
        await newSession(h, testWorkspace('acp-elsewhere'));
        assert.deepEqual((await h.agent.request('session/list', { cwd: CWD })).sessions.map((s) => s.sessionId).sort(), [fresh, used].sort());
        assert.equal((await prompt(h, used, '[scenario:text] hello')).stopReason, 'end_turn');
        const { sessions } = await h.agent.request('session/list', { cwd: CWD });
        assert.deepEqual(sessions.map((s) => s.sessionId).sort(), [fresh, used].sort(), 'still two entries, no sess_ duplicate');
        const usedInfo = sessions.find((s) => s.sessionId === used)!;
        assert.match((usedInfo._meta as { zcode: { sessionId: string } }).zcode.sessionId, /^sess_/);
        assert.equal((sessions.find((s) => s.sessionId === fresh)!._meta as { zcode: { unprompted?: boolean } }).zcode.unprompted, true);
        assert.equal((await h.agent.request('session/list', {})).sessions.length, 3, 'no cwd: every workspace');
      });
    });

    test('after a bridge restart: listed, loaded and updated under the same id; zcode’s id loads the same conversation', T, async () => {
      const storeDir = temp('zcode-acp-store-');
      const stateDir = temp('zcode-sim-state-');
      try {
        const sessionId = await withHarness(mode, { storeDir, sim: { stateDir } }, async (h) => {
          const id = await newSession(h, CWD);
          assert.equal((await prompt(h, id, '[scenario:text] before the restart')).stopReason, 'end_turn');
          await h.waitFor('the mapping to be stored', () => {
            try {
              return typeof storedSessions(storeDir)[id]?.zcodeSessionId === 'string';
            } catch {
              return false;
            }
          });
          return id;
        });
        await withHarness(mode, { storeDir, sim: { stateDir } }, async (h) => {
          const { sessions } = await h.agent.request('session/list', { cwd: CWD });
          assert.deepEqual(sessions.map((s) => s.sessionId), [sessionId]);
          const realId = (sessions[0]._meta as { zcode: { sessionId: string } }).zcode.sessionId;
          await h.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] });
          assert.ok(h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'user_message_chunk'), 'history replayed under the id');
          assert.equal((await prompt(h, sessionId, '[scenario:text] after the restart')).stopReason, 'end_turn');
          assert.ok(h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'));
          assert.ok(!h.updates.some((u) => u.sessionId === realId), 'nothing under an id this client never used');
          // A client that stored zcode's id loads the same conversation.
          await h.agent.request('session/load', { sessionId: realId, cwd: CWD, mcpServers: [] });
          const replayed = h.updatesOf(realId).filter((u) => u.sessionUpdate === 'user_message_chunk');
          assert.equal(replayed.length, 2, 'both prompts, under zcode’s id');
          assert.deepEqual((await h.agent.request('session/list', { cwd: CWD })).sessions.map((s) => s.sessionId), [sessionId]);
        });
      } finally {
        rmSync(storeDir, { recursive: true, force: true });
        rmSync(stateDir, { recursive: true, force: true });
      }
    });
  });
}
