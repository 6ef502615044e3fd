/**
 * zcode builds without some extension methods (docs/zcode-protocol.md "Build families"): the -32601
 * zcode answers becomes a clear error naming the zcode method and the versions that have it.
 * Simulator profiles: 0.16 (steer, rewind, rewindCascade removed) and 0.14.8 (no rewindCascade,
 * no session/checkpoints, no steer events, no turn.terminal).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorOf, ext, newSession, notificationsOf, prompt, sessionText, startPrompt, withBridge, zcodeCalls, zcodeIdOfLastSend } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-versions');

describe('zcode 0.16 (steer and rewind removed)', () => {
  test('_zcode/session/steer → unavailable, saying which builds can steer (never a -32601 leak)', () =>
    withBridge({ sim: { profile: '0.16' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:long] go');
      await h.waitFor('the turn to stream', () => sessionText(h, sessionId).length > 50);
      const error = await errorOf(ext(h, '_zcode/session/steer', { sessionId, content: 'faster' }));
      assert.equal(error.code, -32603);
      assert.match(error.message, /^Steer is not available: .*removed in 0\.16.*desktop 3\.12 \/ CLI 0\.16\.5/);
      assert.deepEqual((error.data as { reason?: string }).reason, 'unsupportedByZcode');
      // The running session was never steered (the capability probe asked about a session that cannot exist); the turn is unharmed.
      assert.deepEqual(zcodeCalls(h, 'session/steer').filter((c) => c.sessionId === zcodeIdOfLastSend(h)), []);
      assert.equal((await running.response).stopReason, 'end_turn');
    }));

  test('_zcode/session/rewind and rewind with cascade → -32601 naming the method', () =>
    withBridge({ sim: { profile: '0.16' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hello');
      const plain = await errorOf(ext(h, '_zcode/session/rewind', { sessionId }));
      assert.equal(plain.code, -32601);
      assert.equal(plain.message, 'session/rewind is not supported by this zcode version (removed in zcode 0.16; use zcode 0.14.8–0.15.x)');
      const cascade = await errorOf(ext(h, '_zcode/session/rewind', { sessionId, cascade: true }));
      assert.equal(cascade.code, -32601);
      assert.match(cascade.message, /^session\/rewindCascade is not supported by this zcode version \(needs zcode 0\.15\.x/);
    }));

  test('fork, goal, compact and checkpoints still work on 0.16', () =>
    withBridge({ sim: { profile: '0.16' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hello');
      const { checkpoints } = await ext<{ checkpoints: unknown[] }>(h, '_zcode/session/checkpoints', { sessionId });
      assert.equal(checkpoints.length, 1);
      assert.match((await ext<{ sessionId: string }>(h, '_zcode/session/fork', { sessionId })).sessionId, /\S/);
      assert.deepEqual(await ext(h, '_zcode/session/goal', { sessionId, action: 'show' }), { goal: null });
      assert.equal((await ext<{ outcome: string }>(h, '_zcode/session/compact', { sessionId })).outcome, 'compacted');
    }));

  test('/steer and /rewind as slash commands report the same message as agent text, not a protocol error', () =>
    withBridge({ sim: { profile: '0.16' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'hello');
      const response = await prompt(h, sessionId, '/rewind');
      assert.equal(response.stopReason, 'end_turn');
      assert.match(sessionText(h, sessionId), /⚠️ \/rewind failed: session\/rewind is not supported by this zcode version \(removed in zcode 0\.16/);
      assert.deepEqual((response._meta as { zcode?: { command?: unknown } }).zcode?.command, { name: 'rewind', ok: false });
    }));
});

describe('zcode 0.14.8 (no rewindCascade, no checkpoint list, no steer events, no turn.terminal)', () => {
  test('rewind with cascade → -32601 naming session/rewindCascade; plain rewind works', () =>
    withBridge({ sim: { profile: '0.14.8' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'one');
      await prompt(h, sessionId, 'two');
      const error = await errorOf(ext(h, '_zcode/session/rewind', { sessionId, cascade: true }));
      assert.equal(error.code, -32601);
      assert.equal(error.message, 'session/rewindCascade is not supported by this zcode version (needs zcode 0.15.x: 0.14.8 does not have it and 0.16 removed it)');
      const result = await ext<{ rewound: boolean }>(h, '_zcode/session/rewind', { sessionId });
      assert.equal(result.rewound, true);
      assert.deepEqual(zcodeCalls(h, 'session/rewind'), [{ sessionId: zcodeIdOfLastSend(h), target: { kind: 'latestCheckpoint' } }]);
    }));

  test('checkpoints → {checkpoints: [], latestOnly: true}; fork and rewind still take "latest"', () =>
    withBridge({ sim: { profile: '0.14.8' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, 'one');
      assert.deepEqual(await ext(h, '_zcode/session/checkpoints', { sessionId }), { checkpoints: [], latestOnly: true });
      const fork = await ext<{ sessionId: string }>(h, '_zcode/session/fork', { sessionId, checkpointId: 'latest' });
      assert.match(fork.sessionId, /\S/);
      assert.equal((await ext<{ rewound: boolean }>(h, '_zcode/session/rewind', { sessionId, checkpointId: 'LATEST' })).rewound, true);
      const zid = zcodeIdOfLastSend(h);
      assert.deepEqual(zcodeCalls(h, 'session/fork'), [{ sessionId: zid, target: { kind: 'latestCheckpoint' } }]);
    }));

  test('steer works but no steerState notification is sent (0.14.8 emits no steer events) and the response has no terminal figures', () =>
    withBridge({ sim: { profile: '0.14.8' } }, async (h) => {
      const sessionId = await newSession(h, CWD);
      const running = startPrompt(h, sessionId, '[scenario:steer] go');
      await h.waitFor('the steer turn to start', () => sessionText(h, sessionId).includes('Send a steer any time'));
      assert.deepEqual(await ext(h, '_zcode/session/steer', { sessionId, content: 'use tabs' }), { accepted: true });
      const response = await running.response;
      assert.equal(response.stopReason, 'end_turn');
      assert.match(sessionText(h, sessionId), /Steer received: "use tabs"/);
      assert.deepEqual(notificationsOf(h, '_zcode/session/steerState', sessionId), []);
      assert.equal((response._meta as { zcode?: { terminal?: unknown } } | undefined)?.zcode?.terminal, undefined);
    }));
});
