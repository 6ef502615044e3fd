/**
 * Session lifecycle (issue 3 "session/new is lazy", list/resume/load/close, available commands):
 * lazy placeholders, the persisted store across bridge restarts, real ids passing through.
 * Run in-process and over stdio.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { storedSessions } from '../../helpers/lazyStore.ts';
import type { StoredSession } from '../../helpers/lazyStore.ts';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { agentText, errorOf, newSession, prompt, sessionCreates, withHarness, WORKSPACE } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = WORKSPACE;

before(async () => {
  await buildCli();
});

/** The persisted store (snapshot + journal, test/helpers/lazyStore.ts). */
function storeFile(dir: string): { sessions: Record<string, StoredSession> } {
  return { sessions: storedSessions(dir) };
}

function commandsSent(h: AcpHarness, sessionId: string): string[][] {
  return h
    .updatesOf(sessionId)
    .filter((u) => u.sessionUpdate === 'available_commands_update')
    .map((u) => (u.sessionUpdate === 'available_commands_update' ? u.availableCommands.map((c) => c.name) : []));
}

function temp(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

for (const mode of MODES) {
  describe(`sessions (${mode})`, () => {
    test('session/new is lazy: a placeholder, persisted, and no zcode session until first use', T, async () => {
      const storeDir = temp('zcode-acp-store-');
      try {
        await withHarness(mode, { storeDir }, async (h) => {
          const sessionId = await newSession(h);
          assert.match(sessionId, /^lazy_/);
          await h.waitFor('the store to be written', () => {
            try {
              return sessionId in storeFile(storeDir).sessions;
            } catch {
              return false;
            }
          });
          assert.equal(storeFile(storeDir).sessions[sessionId].cwd, CWD);
          assert.ok(sessionCreates(h).length === 0, 'nothing created in zcode yet');
          await h.waitFor('the commands', () => commandsSent(h, sessionId).length === 1);
          assert.deepEqual(commandsSent(h, sessionId)[0], ['compact', 'goal', 'fork', 'rewind', 'steer', 'mode', 'thought', 'model', 'mcp', 'init', 'resume', 'quota']);
          await prompt(h, sessionId, '[scenario:text]');
          const created = sessionCreates(h);
          assert.equal(created.length, 1);
          assert.equal((created[0].params as { workspace: { workspacePath: string } }).workspace.workspacePath, CWD);
          assert.equal((created[0].params as { mode: string }).mode, 'build');
          await h.waitFor('the mapping to be stored', () => typeof storeFile(storeDir).sessions[sessionId]?.zcodeSessionId === 'string');
        });
        // Once the bridge has flushed and ended: a write holds the lock only while it appends.
        assert.deepEqual(readdirSync(storeDir).filter((f) => /\.(tmp|lock|stale)$/.test(f)), [], 'no temp or lock files left behind');
      } finally {
        rmSync(storeDir, { recursive: true, force: true });
      }
    });

    test('a lazy session announces the full config options (mode, model, thought_level) with config_option_update once materialized', T, async () => {
      // 0.15.2: create returns the settings; 0.14.8: they come from session/read.
      for (const profile of ['0.15.2', '0.14.8']) {
        await withHarness(mode, { sim: { profile } }, async (h) => {
          const { sessionId, configOptions } = await h.agent.request('session/new', { cwd: CWD, mcpServers: [] });
          assert.deepEqual(configOptions?.map((o) => o.id), ['mode', 'thought_level'], 'no model is known before zcode has the session');
          assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
          const announced = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'config_option_update');
          assert.equal(announced.length, 1, `${profile}: announced once`);
          const options = announced[0].sessionUpdate === 'config_option_update' ? announced[0].configOptions : [];
          assert.deepEqual(options.map((o) => o.id), ['mode', 'model', 'thought_level'], profile);
          const model = options.find((o) => o.id === 'model');
          assert.ok(model && model.type === 'select' && typeof model.currentValue === 'string' && model.options.length > 1, `${profile}: the model picker has zcode's models`);
          assert.equal(options.find((o) => o.id === 'mode')?.currentValue, 'build');
          // It goes out before the turn's first update, and only on materialization (not per prompt).
          const first = h.updatesOf(sessionId).findIndex((u) => u.sessionUpdate === 'agent_message_chunk');
          assert.ok(h.updatesOf(sessionId).findIndex((u) => u.sessionUpdate === 'config_option_update') < first);
          await prompt(h, sessionId, '[scenario:text] again');
          assert.equal(h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'config_option_update').length, 1);
        });
      }
    });

    test('after a restart a used placeholder loads its history; an unused one stays lazy and works', T, async () => {
      const storeDir = temp('zcode-acp-store-');
      const stateDir = temp('zcode-sim-state-');
      try {
        let used = '';
        let unused = '';
        await withHarness(mode, { storeDir, sim: { stateDir } }, async (h) => {
          used = await newSession(h);
          unused = await newSession(h);
          await prompt(h, used, '[scenario:text] remember me');
        });
        await withHarness(mode, { storeDir, sim: { stateDir } }, async (h) => {
          await h.agent.request('session/load', { sessionId: used, cwd: CWD, mcpServers: [] });
          const replay = h.updatesOf(used);
          assert.ok(replay.some((u) => u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' && u.content.text.includes('remember me')));
          assert.match(agentText(replay), /greet/);
          assert.equal(sessionCreates(h).length, 0, 'the mapping was followed');
          await h.agent.request('session/resume', { sessionId: unused, cwd: CWD });
          assert.equal(sessionCreates(h).length, 0, 'still lazy');
          assert.equal((await prompt(h, unused, '[scenario:text]')).stopReason, 'end_turn');
          assert.equal(sessionCreates(h).length, 1);
          await h.waitFor('commands after load and resume', () => commandsSent(h, used).length === 1 && commandsSent(h, unused).length === 1);
        });
      } finally {
        rmSync(storeDir, { recursive: true, force: true });
        rmSync(stateDir, { recursive: true, force: true });
      }
    });

    test('a corrupt store file is tolerated and replaced', T, async () => {
      const storeDir = temp('zcode-acp-store-');
      try {
        mkdirSync(storeDir, { recursive: true });
        writeFileSync(path.join(storeDir, 'acp-lazy-sessions.json'), '{"version":1,"sessions":{"lazy_x": {"cwd": 42}, ');
        await withHarness(mode, { storeDir }, async (h) => {
          const sessionId = await newSession(h);
          assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
          await h.waitFor('a valid store', () => {
            try {
              return typeof storeFile(storeDir).sessions[sessionId]?.zcodeSessionId === 'string';
            } catch {
              return false;
            }
          });
          assert.equal(storeFile(storeDir).sessions['lazy_x'], undefined);
          assert.equal(readdirSync(storeDir).filter((f) => f.endsWith('.bak')).length, 1, 'the unreadable file was kept as a backup');
        });
      } finally {
        rmSync(storeDir, { recursive: true, force: true });
      }
    });

    test('session/list: zcode sessions of the cwd with ISO updatedAt and titles, under the id the client was given; real ids pass through', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const a = await newSession(h);
        await prompt(h, a, '[scenario:title]');
        const other = await newSession(h, testWorkspace('acp-other'));
        await prompt(h, other, '[scenario:text]');
        const { sessions } = await h.agent.request('session/list', { cwd: CWD });
        assert.equal(sessions.length, 1);
        const [info] = sessions;
        assert.equal(info.sessionId, a, 'the id session/new gave, not a second entry for the same conversation');
        const realId = (info._meta as { zcode?: { sessionId?: string } } | undefined)?.zcode?.sessionId ?? '';
        assert.match(realId, /^sess_/, "zcode's own id under _meta");
        assert.equal(info.cwd, CWD);
        assert.equal(info.title, 'Refactor the greeting module');
        assert.ok(info.updatedAt && !Number.isNaN(Date.parse(info.updatedAt)) && info.updatedAt.endsWith('Z'));
        assert.equal((await h.agent.request('session/list', {})).sessions.length, 2);
        // The real id works as an ACP session id too: load it, prompt it.
        await h.agent.request('session/load', { sessionId: realId, cwd: CWD, mcpServers: [] });
        assert.equal((await prompt(h, realId, '[scenario:text]')).stopReason, 'end_turn');
        assert.ok(h.updatesOf(a).some((u) => u.sessionUpdate === 'session_info_update' && u.title === 'Refactor the greeting module'));
      });
    });

    test('the title zcode gave the session is announced (session_info_update) before the first prompt answers, once', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        const infoUpdates = (): Array<{ index: number; update: { title?: string | null; updatedAt?: string | null } }> =>
          h.traffic.entries.flatMap((e, index) => {
            if (e.dir !== 'out' || !('method' in e.msg) || e.msg.method !== 'session/update') return [];
            const params = e.msg.params as { sessionId: string; update: { sessionUpdate: string; title?: string | null; updatedAt?: string | null } };
            return params.sessionId === sessionId && params.update.sessionUpdate === 'session_info_update' ? [{ index, update: params.update }] : [];
          });
        const responseIndex = (): number => {
          const requests = h.traffic.entries.filter((e) => e.dir === 'in' && 'method' in e.msg && e.msg.method === 'session/prompt' && 'id' in e.msg);
          const id = (requests.at(-1)!.msg as { id: unknown }).id;
          return h.traffic.entries.findIndex((e) => e.dir === 'out' && !('method' in e.msg) && 'id' in e.msg && e.msg.id === id);
        };
        assert.equal((await prompt(h, sessionId, '[scenario:text] Fix the login redirect')).stopReason, 'end_turn');
        const first = responseIndex();
        const announced = infoUpdates();
        assert.equal(announced.length, 1, 'announced once');
        assert.equal(announced[0].update.title, 'Fix the login redirect');
        assert.ok(announced[0].update.updatedAt && !Number.isNaN(Date.parse(announced[0].update.updatedAt)));
        assert.ok(first !== -1 && announced[0].index < first, 'before the prompt response');
        assert.equal((await prompt(h, sessionId, '[scenario:text] Something else')).stopReason, 'end_turn');
        assert.equal(infoUpdates().length, 1, 'not repeated after the second prompt');
        // At most one read, started with the first send (seed builds need it; current ones announce the title
        // with session.titleUpdated before turn.started, which ends the reading for good).
        assert.equal(h.simRecord().received.filter((m) => m.method === 'session/read').length, 1, 'read once');
        assert.equal((await h.agent.request('session/list', { cwd: CWD })).sessions[0].title, 'Fix the login redirect');
      });
    });

    test('session/close forgets the session: later use is -32002', T, async () => {
      await withHarness(mode, { storeDir: undefined }, async (h) => {
        const sessionId = await newSession(h);
        await prompt(h, sessionId, '[scenario:text]');
        assert.deepEqual(await h.agent.request('session/close', { sessionId }), {});
        // A closed placeholder can still be re-opened from the store (the editor may resume it)…
        await h.agent.request('session/resume', { sessionId, cwd: CWD });
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
        // …but a closed real id is gone until it is loaded again.
        const { sessions } = await h.agent.request('session/list', { cwd: CWD });
        const real = (sessions[0]._meta as { zcode: { sessionId: string } }).zcode.sessionId;
        await h.agent.request('session/resume', { sessionId: real, cwd: CWD });
        await h.agent.request('session/close', { sessionId: real });
        assert.equal((await errorOf(prompt(h, real, 'hello'))).code, -32002);
      });
    });
  });
}
