/**
 * Models across the session lifecycle (issue 12 items 3 and 11), through the official SDK client:
 * - on a build without deferred drafts (desktop-3.12: its create schema lists no `persistence`),
 *   `session/new` announces the model option from the last list seen (modelCache.ts), so a client
 *   can pick a model before the first prompt (`acpx --model … exec`, Zed's picker on a new thread);
 *   builds with drafts get it from zcode at once (freshInstall.test.ts);
 * - after a zcode crash and restart the resumed session gets the user's model again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { agentText, errorOf, newSession, prompt, sessionCreates, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };

function modelOption(options: SessionConfigOption[] | null | undefined): SessionConfigOption | undefined {
  return options?.find((o) => o.id === 'model');
}

describe('models (inproc)', () => {
  test('no drafts: session/new announces the model option once a model list has been seen, also in a later bridge', T, async () => {
    const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
    const sim = { profile: 'desktop-3.12' };
    try {
      await withHarness('inproc', { storeDir, sim }, async (h) => {
        const first = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
        assert.equal(modelOption(first.configOptions), undefined, 'nothing invented before zcode named its models');
        assert.equal((await prompt(h, first.sessionId, '[scenario:text]')).stopReason, 'end_turn');
        const second = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
        assert.ok(modelOption(second.configOptions), 'the same bridge offers the list it saw');
      });
      // A fresh bridge (a new `zcode-acp` process, e.g. `acpx exec`) on the same store.
      await withHarness('inproc', { storeDir, sim }, async (h) => {
        const created = await h.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
        const model = modelOption(created.configOptions);
        assert.ok(model && model.type === 'select');
        const values = model.options.flatMap((o) => ('group' in o ? o.options : [o])).map((o) => o.value);
        assert.ok(values.length > 1, 'the whole list');
        const other = values.find((v) => v !== model.currentValue)!;
        const set = await h.agent.request('session/set_config_option', { sessionId: created.sessionId, configId: 'model', value: other });
        assert.equal(modelOption(set.configOptions)?.currentValue, other, 'a model picked at session/new is applied');
        assert.equal(sessionCreates(h).length, 0, 'a choice alone creates nothing in zcode');
        assert.equal((await prompt(h, created.sessionId, '[scenario:model]')).stopReason, 'end_turn');
        assert.match(agentText(h.updatesOf(created.sessionId)), new RegExp(`ran on model ${other}\\b`), 'the first prompt runs on the picked model');
        assert.equal(sessionCreates(h).length, 1);
      });
    } finally {
      rmSync(storeDir, { recursive: true, force: true });
    }
  });

  test('after a crash and restart the resumed session gets the user\'s model again', T, async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
    try {
      await withHarness('inproc', { sim: { stateDir } }, async (h) => {
        const sessionId = await newSession(h);
        assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
        const model = modelOption((await h.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'GLM-4.6' })).configOptions);
        assert.equal(model?.currentValue, 'GLM-4.6');
        await errorOf(prompt(h, sessionId, '[scenario:crash]'));
        assert.equal((await prompt(h, sessionId, '[scenario:text] after the crash')).stopReason, 'end_turn');
        const received = h.simRecord().received;
        const lastResume = received.map((m) => m.method).lastIndexOf('session/resume');
        assert.ok(lastResume > 0, 'the session was resumed on the fresh zcode');
        const reapplied = received.slice(lastResume).find((m) => m.method === 'session/setModel');
        assert.ok(reapplied, 'setModel follows the resume');
        // Either setModel shape (legacy `modelId`, current `model:{providerId, modelId}`).
        const params = reapplied.params as { modelId?: string; model?: { modelId?: string } };
        assert.equal(params.modelId ?? params.model?.modelId, 'GLM-4.6');
        const send = received.slice(lastResume).findIndex((m) => m.method === 'session/send');
        assert.ok(received.slice(lastResume).indexOf(reapplied) < send, 'before the prompt is sent');
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
