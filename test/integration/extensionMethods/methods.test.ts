/**
 * `_zcode/session/*` extension methods against the simulator (pinned to profile 0.15.2, which has them all —
 * current builds removed rewind, steer and session/checkpoints; current.test.ts covers those builds):
 * results, the exact params zcode receives, param validation and unknown sessions.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorOf, ext, newSession, prompt, sessionText, startPrompt, withBridge, zcodeCalls, zcodeIdOfLastSend, zcodeMethods } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

/** The seed-era build that has every extension method (rewind, steer, session/checkpoints). */
const SEED_ERA = { profile: '0.15.2' };

const CWD = testWorkspace('ext-ws');

/** A new session with the given prompts run in order (each completed turn makes a checkpoint), and its zcode id. */
async function sessionWithTurns(h: Parameters<Parameters<typeof withBridge>[1]>[0], prompts: string[]): Promise<{ sessionId: string; zid: string }> {
  const sessionId = await newSession(h, CWD);
  for (const text of prompts) await prompt(h, sessionId, text);
  return { sessionId, zid: zcodeIdOfLastSend(h) };
}

interface Checkpoint {
  checkpointId: string;
  createdAt?: string;
  label?: string;
}

describe('_zcode/session/checkpoints and fork', () => {
  test('checkpoints lists one checkpoint per user turn (ISO times, labels)', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const { sessionId, zid } = await sessionWithTurns(h, ['[scenario:text] first', '[scenario:text] second']);
      const { checkpoints, latestOnly } = await ext<{ checkpoints: Checkpoint[]; latestOnly?: boolean }>(h, '_zcode/session/checkpoints', { sessionId });
      assert.equal(latestOnly, undefined);
      assert.equal(checkpoints.length, 2);
      for (const c of checkpoints) {
        assert.match(c.checkpointId, /\S/);
        assert.ok(c.createdAt && !Number.isNaN(Date.parse(c.createdAt)) && c.createdAt === new Date(c.createdAt).toISOString(), `ISO createdAt: ${c.createdAt}`);
      }
      assert.deepEqual(zcodeCalls(h, 'session/checkpoints'), [{ sessionId: zid }]);
    }));

  test('fork (latest) returns a new session id that session/load opens at once with its history', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] remember the greeting module');
      const zid = zcodeIdOfLastSend(h);
      const forked = await ext<{ sessionId: string; cwd: string }>(h, '_zcode/session/fork', { sessionId });
      assert.equal(forked.cwd, CWD);
      assert.notEqual(forked.sessionId, zid);
      assert.notEqual(forked.sessionId, sessionId);
      assert.deepEqual(zcodeCalls(h, 'session/fork'), [{ sessionId: zid, target: { kind: 'latestCheckpoint' } }]);

      await h.agent.request('session/load', { sessionId: forked.sessionId, cwd: forked.cwd, mcpServers: [] });
      const history = h.updatesOf(forked.sessionId);
      const userText = history
        .filter((u) => u.sessionUpdate === 'user_message_chunk')
        .map((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
        .join('');
      assert.match(userText, /remember the greeting module/);
      const response = await prompt(h, forked.sessionId, 'hello fork');
      assert.equal(response.stopReason, 'end_turn');
      assert.equal(zcodeIdOfLastSend(h), forked.sessionId, 'the fork is a zcode session of its own');
    }));

  test('fork from a given checkpoint sends {kind:"checkpoint", checkpointId}; "latest" means the latest', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const { sessionId, zid } = await sessionWithTurns(h, ['[scenario:text] one', '[scenario:text] two']);
      const { checkpoints } = await ext<{ checkpoints: Checkpoint[] }>(h, '_zcode/session/checkpoints', { sessionId });
      const first = checkpoints[0].checkpointId;
      const a = await ext<{ sessionId: string }>(h, '_zcode/session/fork', { sessionId, checkpointId: first });
      const b = await ext<{ sessionId: string }>(h, '_zcode/session/fork', { sessionId, checkpointId: 'latest' });
      assert.notEqual(a.sessionId, b.sessionId);
      assert.deepEqual(zcodeCalls(h, 'session/fork'), [
        { sessionId: zid, target: { kind: 'checkpoint', checkpointId: first } },
        { sessionId: zid, target: { kind: 'latestCheckpoint' } },
      ]);
    }));

  test('fork without any checkpoint and from an unknown checkpoint: zcode errors pass through', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const none = await errorOf(ext(h, '_zcode/session/fork', { sessionId }));
      assert.equal(none.code, -32603, 'zcode\'s -32000 is not ACP\'s "authentication required"');
      assert.equal((none.data as { zcode?: { code?: number } }).zcode?.code, -32000);
      assert.match(none.message, /no checkpoints/);
      await prompt(h, sessionId, 'hi');
      const unknown = await errorOf(ext(h, '_zcode/session/fork', { sessionId, checkpointId: 'cp_nope' }));
      assert.match(unknown.message, /cp_nope/);
    }));
});

describe('_zcode/session/rewind', () => {
  test('rewind to a checkpoint cuts the later history (session/rewind {sessionId, target})', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const { sessionId, zid } = await sessionWithTurns(h, ['[scenario:text] one', '[scenario:text] two']);
      const { checkpoints } = await ext<{ checkpoints: Checkpoint[] }>(h, '_zcode/session/checkpoints', { sessionId });
      const result = await ext<{ rewound: boolean; checkpointId?: string; removedMessages?: number }>(h, '_zcode/session/rewind', {
        sessionId,
        checkpointId: checkpoints[0].checkpointId,
      });
      assert.equal(result.rewound, true);
      assert.equal(result.checkpointId, checkpoints[0].checkpointId);
      assert.ok((result.removedMessages ?? 0) > 0);
      assert.deepEqual(zcodeCalls(h, 'session/rewind'), [{ sessionId: zid, target: { kind: 'checkpoint', checkpointId: checkpoints[0].checkpointId } }]);
      const after = await ext<{ checkpoints: Checkpoint[] }>(h, '_zcode/session/checkpoints', { sessionId });
      assert.deepEqual(
        after.checkpoints.map((c) => c.checkpointId),
        [checkpoints[0].checkpointId],
      );
    }));

  test('cascade uses session/rewindCascade and reports the forks deleted with the removed checkpoints', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const { sessionId, zid } = await sessionWithTurns(h, ['[scenario:text] one', '[scenario:text] two']);
      const { checkpoints } = await ext<{ checkpoints: Checkpoint[] }>(h, '_zcode/session/checkpoints', { sessionId });
      const fork = await ext<{ sessionId: string }>(h, '_zcode/session/fork', { sessionId, checkpointId: checkpoints[1].checkpointId });
      const result = await ext<{ rewound: boolean; removedSessions?: string[] }>(h, '_zcode/session/rewind', {
        sessionId,
        checkpointId: checkpoints[0].checkpointId,
        cascade: true,
      });
      assert.deepEqual(result.removedSessions, [fork.sessionId]);
      assert.deepEqual(zcodeCalls(h, 'session/rewindCascade'), [{ sessionId: zid, target: { kind: 'checkpoint', checkpointId: checkpoints[0].checkpointId } }]);
      assert.deepEqual(zcodeCalls(h, 'session/rewind'), []);
    }));

  test('a rewind sent while a prompt runs waits for it instead of failing busy', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] one');
      const running = startPrompt(h, sessionId, '[scenario:long] go');
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 200);
      const result = await ext<{ rewound: boolean }>(h, '_zcode/session/rewind', { sessionId });
      assert.equal(running.done, true, 'the rewind answered after the running prompt ended');
      assert.equal(result.rewound, true);
      assert.equal((await running.response).stopReason, 'end_turn');
      const methods = zcodeMethods(h);
      assert.ok(methods.lastIndexOf('session/send') < methods.indexOf('session/rewind'));
    }));
});

describe('_zcode/session/goal', () => {
  test('show / set / pause / resume / replace / clear, with exactly the params zcode takes', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'show' }), { goal: null });
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'set', objective: '  ship the release  ' }), {
        goal: { objective: 'ship the release', status: 'active' },
      });
      const again = await errorOf(ext(h, '_zcode/session/goal', { sessionId, action: 'set', objective: 'other' }));
      assert.equal(again.code, -32603);
      assert.equal((again.data as { zcode?: { code?: number } }).zcode?.code, -32000);
      assert.match(again.message, /already set/);
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'pause', objective: 'ignored' }), { goal: { objective: 'ship the release', status: 'paused' } });
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'resume' }), { goal: { objective: 'ship the release', status: 'active' } });
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'replace', objective: 'fix the tests' }), { goal: { objective: 'fix the tests', status: 'active' } });
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'clear' }), { goal: null });
      const zid = zcodeCalls(h, 'session/goal')[0].sessionId;
      assert.deepEqual(zcodeCalls(h, 'session/goal'), [
        { sessionId: zid, action: 'show' },
        { sessionId: zid, action: 'set', objective: 'ship the release' },
        { sessionId: zid, action: 'set', objective: 'other' },
        { sessionId: zid, action: 'pause' },
        { sessionId: zid, action: 'resume' },
        { sessionId: zid, action: 'replace', objective: 'fix the tests' },
        { sessionId: zid, action: 'clear' },
      ]);
    }));
});

describe('_zcode/session/compact', () => {
  test('answers only when zcode reports the outcome: compacted, with the token figures', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] some history');
      const zid = zcodeIdOfLastSend(h);
      const result = await ext<{ outcome: string; message?: string; tokensBefore?: number; tokensAfter?: number }>(h, '_zcode/session/compact', { sessionId });
      assert.equal(result.outcome, 'compacted');
      assert.match(result.message ?? '', /compacted/);
      assert.ok(typeof result.tokensBefore === 'number' && typeof result.tokensAfter === 'number' && result.tokensAfter < result.tokensBefore);
      assert.deepEqual(zcodeCalls(h, 'session/compact'), [{ sessionId: zid }]);
    }));

  test('an empty session: outcome failed with zcode\'s reason', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const result = await ext<{ outcome: string; message?: string }>(h, '_zcode/session/compact', { sessionId });
      assert.equal(result.outcome, 'failed');
      assert.match(result.message ?? '', /nothing to compact/);
    }));

  test('cancelling the request stops the compaction: session/stop sent, outcome cancelled', () =>
    withBridge({ sim: { ...SEED_ERA, speed: 1 } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hi');
      const zid = zcodeIdOfLastSend(h);
      const abort = new AbortController();
      const pending = ext<{ outcome: string }>(h, '_zcode/session/compact', { sessionId }, abort.signal);
      await h.waitFor('session/compact to reach zcode', () => zcodeCalls(h, 'session/compact').length === 1);
      abort.abort();
      const outcome = await pending.then(
        (r) => r.outcome,
        (e: { code?: number }) => e.code,
      );
      // zcode confirms the stop with `compaction {status:"cancelled"}`: the answer is that outcome.
      assert.equal(outcome, 'cancelled');
      await h.waitFor('session/stop', () => h.simRecord().received.some((m) => m.method === 'session/stop' && (m.params as { sessionId?: string }).sessionId === zid));
    }));

  test('a compact sent while a prompt runs waits for the prompt, then compacts', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:long] go');
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 200);
      const result = await ext<{ outcome: string }>(h, '_zcode/session/compact', { sessionId });
      assert.equal(running.done, true);
      assert.equal(result.outcome, 'compacted');
      assert.equal((await running.response).stopReason, 'end_turn');
    }));
});

describe('_zcode/session/setMode and setThoughtLevel', () => {
  test('setMode goes to zcode and is announced as config_option_update + current_mode_update', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      assert.deepEqual(await ext(h, '_zcode/session/setMode', { sessionId, mode: 'plan' }), { mode: 'plan' });
      const zid = zcodeCalls(h, 'session/setMode')[0]?.sessionId;
      assert.deepEqual(zcodeCalls(h, 'session/setMode'), [{ sessionId: zid, mode: 'plan' }]);
      await h.waitFor('current_mode_update', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'plan'));
      const configUpdates = h.updatesOf(sessionId).filter((u) => u.sessionUpdate === 'config_option_update');
      assert.ok(configUpdates.length >= 1);
      const last = configUpdates[configUpdates.length - 1];
      assert.equal(last.sessionUpdate === 'config_option_update' && last.configOptions.find((o) => o.id === 'mode')?.currentValue, 'plan');
    }));

  test('setThoughtLevel goes to zcode and is announced; an unknown value is -32602 and never reaches zcode', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      assert.deepEqual(await ext(h, '_zcode/session/setThoughtLevel', { sessionId, thoughtLevel: 'max' }), { thoughtLevel: 'max' });
      const zid = zcodeCalls(h, 'session/setThoughtLevel')[0]?.sessionId;
      assert.deepEqual(zcodeCalls(h, 'session/setThoughtLevel'), [{ sessionId: zid, thoughtLevel: 'max' }]);
      await h.waitFor('config_option_update', () =>
        h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'config_option_update' && u.configOptions.find((o) => o.id === 'thought_level')?.currentValue === 'max'),
      );
      const bad = await errorOf(ext(h, '_zcode/session/setThoughtLevel', { sessionId, thoughtLevel: 'extreme' }));
      assert.equal(bad.code, -32602);
      assert.match(bad.message, /extreme/);
      assert.match(bad.message, /low, medium, high, max/);
      const badMode = await errorOf(ext(h, '_zcode/session/setMode', { sessionId, mode: 'turbo' }));
      assert.equal(badMode.code, -32602);
      assert.equal(zcodeCalls(h, 'session/setThoughtLevel').length, 1);
      assert.equal(zcodeCalls(h, 'session/setMode').length, 0);
    }));
});

describe('_zcode/session/steer', () => {
  test('steer reaches the running turn (session/steer {sessionId, content}) and zcode takes it into account', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:steer] refactor');
      await h.waitFor('the steer turn to start', () => sessionText(h, sessionId).includes('Send a steer any time'));
      assert.deepEqual(await ext(h, '_zcode/session/steer', { sessionId, content: 'focus on the tests' }), { accepted: true });
      const response = await running.response;
      assert.equal(response.stopReason, 'end_turn');
      assert.match(sessionText(h, sessionId), /Steer received: "focus on the tests"/);
      const zid = zcodeIdOfLastSend(h);
      assert.deepEqual(zcodeCalls(h, 'session/steer'), [{ sessionId: zid, content: 'focus on the tests' }]);
    }));

  test('steer without a running prompt is a clear error and never reaches zcode', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hi');
      const error = await errorOf(ext(h, '_zcode/session/steer', { sessionId, content: 'too late' }));
      // Invalid for the session's state: -32000 is ACP's "authentication required" and nothing else.
      assert.equal(error.code, -32602);
      assert.match(error.message, /No prompt is running/);
      assert.deepEqual((error.data as { reason?: string }).reason, 'noRunningTurn');
      assert.deepEqual(zcodeCalls(h, 'session/steer'), []);
    }));
});

describe('param validation and unknown sessions', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['_zcode/session/fork', {}, /sessionId is required/],
    ['_zcode/session/fork', { sessionId: 42 }, /sessionId must be a string/],
    ['_zcode/session/rewind', { sessionId: 's', cascade: 'yes' }, /cascade must be true or false/],
    ['_zcode/session/goal', { sessionId: 's', action: 'explode' }, /action must be one of: show, set, replace, clear, pause, resume/],
    ['_zcode/session/goal', { sessionId: 's', action: 'set' }, /action 'set' needs a non-empty objective/],
    ['_zcode/session/goal', { sessionId: 's', action: 'replace', objective: '   ' }, /needs a non-empty objective/],
    ['_zcode/session/steer', { sessionId: 's', content: '' }, /content must not be empty/],
    ['_zcode/session/setMode', { sessionId: 's' }, /mode is required/],
    ['_zcode/session/setThoughtLevel', { sessionId: 's', thoughtLevel: 3 }, /thoughtLevel must be a string/],
    ['_zcode/session/cancelBackgroundTask', { sessionId: 's' }, /taskId is required/],
    ['_zcode/session/compact', undefined, /sessionId is required/],
    ['_zcode/session/checkpoints', { sessionId: '' }, /sessionId must not be empty/],
  ];
  for (const [method, params, message] of cases) {
    test(`${method} ${JSON.stringify(params) ?? 'without params'} → -32602 ${message}`, () =>
      withBridge({ sim: SEED_ERA }, async (h) => {
        const error = await errorOf(ext(h, method, params));
        assert.equal(error.code, -32602);
        assert.match(error.message, message);
        assert.ok(error.message.startsWith(`Invalid params: ${method}: `), error.message);
      }));
  }

  test('an unknown session id is -32002 for every method, and zcode is never asked', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['_zcode/session/fork', {}],
        ['_zcode/session/rewind', {}],
        ['_zcode/session/goal', { action: 'show' }],
        ['_zcode/session/compact', {}],
        ['_zcode/session/steer', { content: 'x' }],
        ['_zcode/session/setMode', { mode: 'plan' }],
        ['_zcode/session/setThoughtLevel', { thoughtLevel: 'low' }],
        ['_zcode/session/cancelBackgroundTask', { taskId: 't' }],
        ['_zcode/session/checkpoints', {}],
      ];
      for (const [method, extra] of calls) {
        for (const sessionId of ['lazy_unknown', 'sess_not_known_here']) {
          const error = await errorOf(ext(h, method, { sessionId, ...extra }));
          assert.equal(error.code, -32002, `${method}: ${error.message}`);
          assert.deepEqual(error.data, { sessionId });
        }
      }
      assert.deepEqual(
        zcodeMethods(h).filter((m) => !['session/requestRuntimePreferences'].includes(m)),
        [],
      );
    }));

  test('an unknown extension method is -32601 from the SDK', () =>
    withBridge({ sim: SEED_ERA }, async (h) => {
      const error = await errorOf(ext(h, '_zcode/session/explode', { sessionId: 'x' }));
      assert.equal(error.code, -32601);
    }));
});

