/**
 * What the bridge reads and sends differently for current zcode builds (docs/zcode-protocol.md), through the official
 * ACP client against the desktop-3.12 and 0.16.5 profiles: model switching in the current shape, compaction
 * outcomes given only by a reason, the goal at snapshot.projection.target, checkpoints from `checkpoint.created`,
 * the session id from `session.sessionId` (never projection's "unknown").
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ext, newSession, notificationsOf, prompt, withBridge, zcodeCalls, zcodeIdOfLastSend } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-current');

for (const profile of ['desktop-3.12', '0.16.5']) {
  describe(`current builds (${profile})`, () => {
    test('the zcode session id comes from session.sessionId; the list shows the client its own id, zcode\'s under _meta', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        await prompt(h, sessionId, '[scenario:text] hi');
        const zid = zcodeIdOfLastSend(h);
        assert.match(zid, /^sess_/);
        assert.notEqual(zid, 'unknown');
        const { sessions } = await h.agent.request('session/list', { cwd: CWD });
        // One id per conversation: the id session/new gave, with zcode's real id alongside.
        assert.deepEqual(sessions.map((s) => [s.sessionId, (s._meta?.zcode as { sessionId?: string } | undefined)?.sessionId]), [[sessionId, zid]]);
      }));

    test('set_config_option model: session/setModel {model:{providerId, modelId, options:{reasoningLevel}}} with the default level', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        await prompt(h, sessionId, '[scenario:text] hi');
        const { configOptions } = await h.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'GLM-5.1-Air' });
        const model = configOptions.find((o) => o.id === 'model') as unknown as { currentValue: string; options: Array<{ value: string; _meta?: unknown }> };
        assert.equal(model.currentValue, 'GLM-5.1-Air');
        assert.deepEqual(model.options.find((o) => o.value === 'GLM-5.1-Air')?._meta, { zcode: { providerId: 'account:zai-coding-plan' } });
        assert.deepEqual(zcodeCalls(h, 'session/setModel'), [
          { sessionId: zcodeIdOfLastSend(h), model: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.1-Air', options: { reasoningLevel: 'high' } }, persistAsWorkspaceLastUsed: false },
        ]);
        // The model has a level now: the next turn runs (without one, this build fails it).
        assert.equal((await prompt(h, sessionId, '[scenario:text] again')).stopReason, 'end_turn');
      }));

    test('set_mode / thought level: zcode answers with a top-level state.updated {current}, nothing is announced twice', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        await prompt(h, sessionId, '[scenario:text] hi');
        await h.agent.request('session/set_mode', { sessionId, modeId: 'plan' });
        await h.agent.request('session/set_config_option', { sessionId, configId: 'thought_level', value: 'low' });
        // The plan scenario's approval switches back to build through a top-level state.updated {mode:{current}}.
        h.onForm = async () => ({ action: 'accept', content: { feedback: '' } });
        h.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
        await prompt(h, sessionId, '[scenario:plan]');
        await h.waitFor('the mode zcode switched to', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'build'));
        const modes = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'current_mode_update').map((u) => (u as { currentModeId: string }).currentModeId);
        assert.deepEqual(modes, ['plan', 'build']);
      }));

    test('compact: a failure reported only as reason "session_compact_failed" settles at once; a success carries its figures', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        const failed = await ext<{ outcome: string }>(h, '_zcode/session/compact', { sessionId });
        assert.equal(failed.outcome, 'failed');
        await prompt(h, sessionId, '[scenario:text] something to compact');
        const done = await ext<{ outcome: string; tokensBefore?: number; tokensAfter?: number }>(h, '_zcode/session/compact', { sessionId });
        assert.equal(done.outcome, 'compacted');
        assert.ok(typeof done.tokensBefore === 'number' && typeof done.tokensAfter === 'number' && done.tokensAfter < done.tokensBefore);
      }));

    test('goal: read from snapshot.projection.target, the same {objective, status} clients got from seed builds', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'show' }), { goal: null });
        assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'set', objective: 'ship it' }), { goal: { objective: 'ship it', status: 'active' } });
        assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'pause' }), { goal: { objective: 'ship it', status: 'paused' } });
      }));

    test('checkpoints: no session/checkpoints on this build, so the list is what checkpoint.created announced; fork from one', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        await prompt(h, sessionId, '[scenario:text] first');
        await prompt(h, sessionId, '[scenario:text] second');
        const changed = notificationsOf<{ checkpointId: string }>(h, '_zcode/session/checkpointsChanged', sessionId);
        assert.equal(changed.length, 2);
        const { checkpoints, latestOnly } = await ext<{ checkpoints: Array<{ checkpointId: string; createdAt?: string }>; latestOnly?: boolean }>(h, '_zcode/session/checkpoints', { sessionId });
        assert.equal(latestOnly, undefined);
        assert.deepEqual(checkpoints.map((c) => c.checkpointId), changed.map((c) => c.checkpointId));
        assert.ok(checkpoints.every((c) => c.createdAt && !Number.isNaN(Date.parse(c.createdAt))));
        const fork = await ext<{ sessionId: string }>(h, '_zcode/session/fork', { sessionId, checkpointId: checkpoints[0].checkpointId });
        assert.match(fork.sessionId, /^sess_/);
        assert.deepEqual(zcodeCalls(h, 'session/fork').at(-1)?.target, { kind: 'checkpoint', checkpointId: checkpoints[0].checkpointId });
      }));

    test('cancel: session/stop goes as a request and the turn ends cancelled', () =>
      withBridge({ sim: { profile } }, async (h) => {
        const sessionId = await newSession(h, CWD);
        const running = prompt(h, sessionId, '[scenario:long] go');
        await h.waitFor('the turn to stream', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'));
        await h.agent.notify('session/cancel', { sessionId });
        assert.equal((await running).stopReason, 'cancelled');
        const stops = h.simRecord().received.filter((m) => m.method === 'session/stop');
        assert.equal(stops.length, 1);
        assert.equal(typeof stops[0].id, 'number');
      }));
  });
}
