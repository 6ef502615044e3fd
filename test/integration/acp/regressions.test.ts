/**
 * Black-box cases taken from the reference bridge's regression tests, in-process
 * and over stdio: an unknown id in zcode's current wording is ACP's -32002 naming the id, and a
 * load while zcode is still loading the history replays all of it. (`/compact <text>` and
 * `/goal <text>` are in test/integration/extensionMethods/slash.test.ts.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { buildCli, MODES } from './harness.ts';
import { errorOf, newSession, prompt, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-regressions');

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`reference-bridge regressions (${mode})`, () => {
    test('load / resume of an id zcode does not know ("Session ID 不存在") answers -32002 naming the id', T, async () => {
      await withHarness(mode, { sim: { quirks: ['zh-errors'] } }, async (h) => {
        for (const method of ['session/load', 'session/resume'] as const) {
          const error = await errorOf(h.agent.request(method, { sessionId: 'sess_gone', cwd: CWD, mcpServers: [] }));
          assert.equal(error.code, -32002, method);
          assert.match(JSON.stringify(error.data), /sess_gone/, method);
        }
        assert.ok(h.simRecord().received.some((m) => m.method === 'session/resume'), 'zcode was asked');
      });
    });

    test('a load while zcode is still loading the history (3 messages, then 8) replays all 8', T, async () => {
      const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
      try {
        const sim = { stateDir, quirks: ['hydrating-history'] };
        const sessionId = await withHarness(mode, { storeDir, sim }, async (h) => {
          const id = await newSession(h, CWD);
          for (const n of [1, 2, 3, 4]) assert.equal((await prompt(h, id, `[scenario:text] turn ${n}`)).stopReason, 'end_turn');
          return id;
        });
        // A new bridge and a new zcode process: the load resumes the session, whose history is hydrating.
        await withHarness(mode, { storeDir, sim }, async (h) => {
          await h.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] });
          const users = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'user_message_chunk');
          const texts = users.map((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? u.content.text : ''));
          assert.deepEqual(texts.map((t) => /turn (\d)/.exec(t)?.[1]), ['1', '2', '3', '4'], 'every user message replayed');
          const reads = h.simRecord().received.filter((m) => m.method === 'session/messages');
          assert.ok(reads.length >= 2, 'the history was read again until it settled');
        });
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
        rmSync(storeDir, { recursive: true, force: true });
      }
    });
  });
}
