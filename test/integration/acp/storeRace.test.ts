/**
 * No conversation is lost from the lazy-session store when many sessions are created and prompted
 * at once: the placeholder → zcode session mapping is recorded while the placeholder's own journal
 * append may still be under way (lazySessionStore.ts keeps a version per id for that). After a restart every
 * conversation is found under the id the client was given, with its history, and `session/list`
 * shows it once. The deterministic interleaving is in test/unit/bridge/acp/sessions/lazySessionStore.test.ts; this is the
 * whole path, as a client drives it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { newSession, prompt, withHarness, WORKSPACE } from './helpers.ts';

const SESSIONS = 40;
const CHAINS = 4;

describe('lazy-session store under concurrent sessions', () => {
  test(`${SESSIONS} sessions created and prompted back to back by several clients at once all survive a restart, each once in session/list with its history`, { timeout: 120_000 }, async () => {
    const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
    const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
    try {
      // Several clients' worth of sessions, each created and prompted back to back: the mapping of
      // one is recorded while the appends of the others (and its own) are on their way.
      const ids: string[] = [];
      await withHarness('inproc', { storeDir, sim: { stateDir } }, (h) =>
        Promise.all(
          Array.from({ length: CHAINS }, async (_, chain) => {
            for (let i = chain; i < SESSIONS; i += CHAINS) {
              const sessionId = await newSession(h);
              ids[i] = sessionId;
              assert.equal((await prompt(h, sessionId, `[scenario:text] conversation ${i}`)).stopReason, 'end_turn');
            }
          }),
        ),
      );
      await withHarness('inproc', { storeDir, sim: { stateDir } }, async (h) => {
        const { sessions } = await h.agent.request('session/list', { cwd: WORKSPACE });
        const listed = sessions.map((s) => s.sessionId);
        for (const id of ids) assert.equal(listed.filter((l) => l === id).length, 1, `${id} is listed once`);
        const extra = listed.filter((l) => !ids.includes(l));
        assert.deepEqual(extra, [], 'one entry per conversation: no raw zcode id beside an untitled placeholder');
        const lost: string[] = [];
        for (const [i, sessionId] of ids.entries()) {
          await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
          const replayed = h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' && u.content.text.includes(`conversation ${i}`));
          if (!replayed) lost.push(sessionId);
        }
        assert.deepEqual(lost, [], 'every conversation replays its own history');
      });
    } finally {
      rmSync(storeDir, { recursive: true, force: true });
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
