/**
 * A fresh install, through the official SDK client: an empty lazy-session store and model cache, a
 * simulator with no sessions. `session/new` must offer mode, model and thought-level pickers before
 * any prompt (from a deferred draft, modelDraft.ts), the first prompt must run on the model picked
 * there, and the draft must leave nothing behind in zcode's session list. Builds without drafts fall
 * back to no model picker, without leaving a session behind either.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { agentText, draftCreates, prompt, say, sessionCreates, withHarness, WORKSPACE } from './helpers.ts';
import type { Mode } from './harness.ts';

const T = { timeout: 60_000 };

function option(options: SessionConfigOption[] | null | undefined, id: string): SessionConfigOption | undefined {
  return options?.find((o) => o.id === id);
}

function values(o: SessionConfigOption | undefined): string[] {
  if (!o || o.type !== 'select') return [];
  return o.options.flatMap((v) => ('group' in v ? v.options : [v])).map((v) => v.value);
}

for (const mode of ['inproc', 'stdio'] as Mode[]) {
  describe(`fresh install, desktop-3.15 (${mode})`, () => {
    test('session/new offers mode (with guarded), model and thought level; the first prompt runs on the picked model; zcode lists nothing but that session', T, async () => {
      await withHarness(mode, { sim: { profile: 'desktop-3.15' } }, async (h) => {
        const created = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
        const model = option(created.configOptions, 'model');
        assert.ok(model, 'a model picker before any prompt');
        assert.deepEqual(values(model), ['GLM-5.2', 'GLM-5.1-Air', 'GLM-4.6', 'GLM-5.2-Start'], "zcode's own list, nothing invented");
        assert.ok(values(option(created.configOptions, 'thought_level')).includes('max'));
        const modes = values(option(created.configOptions, 'mode'));
        assert.ok(modes.includes('guarded'), `guarded is offered on a build that has it (${modes.join(', ')})`);
        assert.ok(created.modes?.availableModes.some((m) => m.id === 'guarded' && m.name === 'Guarded'));
        // The draft was made, closed as a draft, and nothing of it is listed.
        assert.equal(draftCreates(h).length, 1);
        const closes = h.simRecord().received.filter((m) => m.method === 'session/close');
        assert.deepEqual(closes.map((m) => (m.params as { expectedPersistence?: string }).expectedPersistence), ['deferred']);
        assert.deepEqual((await h.agent.request('session/list', { cwd: WORKSPACE })).sessions.map((s) => s.sessionId), [created.sessionId], 'only the placeholder, never the draft');

        const picked = 'GLM-4.6';
        assert.notEqual(model.currentValue, picked, 'the pick is a change');
        const set = await h.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: picked });
        assert.equal(option(set.configOptions, 'model')?.currentValue, picked);
        await h.agent.request('session/set_mode', { sessionId: created.sessionId, modeId: 'guarded' });
        assert.equal(sessionCreates(h).length, 0, 'choices alone create nothing in zcode');

        assert.equal((await prompt(h, created.sessionId, '[scenario:model]')).stopReason, 'end_turn');
        assert.match(agentText(h.updatesOf(created.sessionId)), /ran on model GLM-4\.6\b/, 'the first prompt ran on the picked model');
        const creates = sessionCreates(h);
        assert.equal(creates.length, 1);
        assert.equal((creates[0].params as { mode?: string }).mode, 'guarded', 'the mode chosen before went with the create');
        const list = (await h.agent.request('session/list', { cwd: WORKSPACE })).sessions;
        assert.deepEqual(list.map((s) => s.sessionId), [created.sessionId], 'one conversation: the one the client made');
      });
    });
  });
}

describe('guarded through the slash command (desktop-3.15)', () => {
  test('/mode guarded switches a session whose build has it; desktop-3.12 refuses it with the modes it has', T, async () => {
    await withHarness('inproc', { sim: { profile: 'desktop-3.15' } }, async (h) => {
      const sessionId = (await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] })).sessionId;
      assert.match(await say(h, sessionId, '/mode guarded'), /Mode set to `guarded`/);
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/setMode').map((m) => (m.params as { mode: string }).mode).at(-1), 'guarded');
    });
    await withHarness('inproc', { sim: { profile: 'desktop-3.12' } }, async (h) => {
      const sessionId = (await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] })).sessionId;
      assert.match(await say(h, sessionId, '/mode guarded'), /Unknown mode `guarded`/);
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/setMode').length, 0);
    });
  });
});

describe('fresh install, builds without drafts', () => {
  test('desktop-3.12 (no persistence key, no guarded): no model picker, one refused draft, nothing created', T, async () => {
    await withHarness('inproc', { sim: { profile: 'desktop-3.12' } }, async (h) => {
      const created = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
      assert.equal(option(created.configOptions, 'model'), undefined, 'no picker rather than an invented one');
      assert.ok(option(created.configOptions, 'mode'));
      assert.ok(!values(option(created.configOptions, 'mode')).includes('guarded'));
      assert.equal(draftCreates(h).length, 1, 'asked once');
      await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
      assert.equal(draftCreates(h).length, 1, 'not asked again by the same process');
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/close').length, 0, 'nothing to close');
      assert.equal((await prompt(h, created.sessionId, '[scenario:text]')).stopReason, 'end_turn');
      // After the first prompt the real list arrives (config_option_update) as before.
      assert.ok(h.updatesOf(created.sessionId).some((u) => u.sessionUpdate === 'config_option_update' && option(u.configOptions, 'model')));
    });
  });

  test('seed 0.15.2: no draft at all (runtime/capabilities is missing), no model picker', T, async () => {
    await withHarness('inproc', { sim: { profile: '0.15.2' } }, async (h) => {
      const created = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
      assert.equal(option(created.configOptions, 'model'), undefined);
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/create').length, 0, 'a seed build would keep a draft as a real session');
      assert.equal(h.simRecord().received.filter((m) => m.method === 'runtime/capabilities').length, 1);
    });
  });
});
