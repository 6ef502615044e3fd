/**
 * The extension operations against a scriptable backend: what the simulator cannot produce
 * (odd result shapes, timeouts, a backend exit, long busy spells) and the error mapping.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RequestError } from '@agentclientprotocol/sdk';
import { DEFAULT_EXTENSION_TUNING, operationError, SessionOperations, targetOf } from '../../../../../bridge/acp/extensions/sessionOperations.ts';
import { compactionOf } from '../../../../../bridge/acp/extensions/operationResults.ts';
import type { ExtensionTuning } from '../../../../../bridge/acp/extensions/sessionOperations.ts';
import { translateEvent } from '../../../../../bridge/translate/sessionTranslator.ts';
import { BackendErrorCode, ZcodeError } from '../../../../../bridge/zcode/backend.ts';
import { ZcodeEvent } from '../../../../../bridge/zcode/protocol.ts';
import { assertValidSessionUpdates } from '../../../../helpers/acpSchema.ts';
import { ACP_ID, fail, fakeContext, ZCODE_ID } from './fakeContext.ts';

const FAST: ExtensionTuning = { ...DEFAULT_EXTENSION_TUNING, compactTimeoutMs: 200, compactCancelGraceMs: 50, busyRetries: 2, busyBackoffMs: 1, maxBackoffMs: 2 };
const never = new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RequestError, `a RequestError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

function event(type: string, payload: unknown, sessionId = ZCODE_ID): ZcodeEvent {
  return ZcodeEvent.parse({ sessionId, seq: 1, type, payload });
}

describe('targetOf', () => {
  test('absent / "latest" (any case) → latestCheckpoint; anything else → that checkpoint', () => {
    assert.deepEqual(targetOf(undefined), { kind: 'latestCheckpoint' });
    assert.deepEqual(targetOf('Latest'), { kind: 'latestCheckpoint' });
    assert.deepEqual(targetOf('cp_1'), { kind: 'checkpoint', checkpointId: 'cp_1' });
  });
});

describe('operationError', () => {
  test('-32601 names the zcode method and the versions that have it', () => {
    const cases: Array<[string, string]> = [
      ['session/steer', 'session/steer is not supported by this zcode version (removed in zcode 0.16; use zcode 0.14.8–0.15.x)'],
      ['session/rewind', 'session/rewind is not supported by this zcode version (removed in zcode 0.16; use zcode 0.14.8–0.15.x)'],
      ['session/rewindCascade', 'session/rewindCascade is not supported by this zcode version (needs zcode 0.15.x: 0.14.8 does not have it and 0.16 removed it)'],
      ['session/goal', 'session/goal is not supported by this zcode version (needs zcode 0.14.8 or newer)'],
    ];
    for (const [method, message] of cases) {
      const error = operationError(new ZcodeError('method not found', -32601, method));
      assert.equal(error.code, -32601);
      assert.equal(error.message, message);
      assert.deepEqual(error.data, { reason: 'unsupportedByZcode', zcode: { code: -32601, method, message: 'method not found' } });
    }
  });

  test('other zcode errors keep their message; their code goes under data.zcode (zcode\'s -32000 is not ACP\'s "authentication required")', () => {
    const error = operationError(new ZcodeError('a goal is already set; use replace', -32000, 'session/goal'));
    assert.equal(error.code, -32603);
    assert.equal(error.message, 'a goal is already set; use replace');
    assert.deepEqual((error.data as { zcode?: unknown }).zcode, { code: -32000, method: 'session/goal' });
  });
});

describe('compactionOf', () => {
  test('final states map to outcomes with a message; in-progress states are not an outcome', () => {
    assert.deepEqual(compactionOf({ status: 'compacted', tokensBefore: 1000, tokensAfter: 150 }), {
      outcome: 'compacted',
      message: 'The conversation was compacted (1000 → 150 tokens of context).',
      tokensBefore: 1000,
      tokensAfter: 150,
    });
    assert.deepEqual(compactionOf({ status: 'failed', error: 'nothing to compact' }), { outcome: 'failed', message: 'The compaction failed: nothing to compact' });
    assert.deepEqual(compactionOf({ status: 'failed', error: { message: 'model overloaded' } }), { outcome: 'failed', message: 'The compaction failed: model overloaded' });
    assert.deepEqual(compactionOf({ status: 'Canceled' }), { outcome: 'cancelled', message: 'The compaction was cancelled.' });
    assert.equal(compactionOf({ status: 'running' }), undefined);
    assert.equal(compactionOf({ accepted: true }), undefined);
    assert.equal(compactionOf(undefined), undefined);
  });
});

describe('SessionOperations', () => {
  test('fork reads the new id defensively and never returns the source id', async () => {
    const f = fakeContext();
    const ops = new SessionOperations(f.ctx, FAST);
    for (const [answer, expected] of [
      [{ forkedSessionId: 'sess_a' }, 'sess_a'],
      [{ sessionId: 'sess_b' }, 'sess_b'],
      [{ session: { sessionId: 'sess_c' } }, 'sess_c'],
      [{ sessionId: ZCODE_ID, forkedSessionId: 'sess_d' }, 'sess_d'],
    ] as const) {
      f.answers.set('fork', answer);
      assert.deepEqual(await ops.fork({ sessionId: ACP_ID }), { sessionId: expected, cwd: '/work/proj' });
    }
    f.answers.set('fork', { sessionId: ZCODE_ID });
    const error = await rejection(ops.fork({ sessionId: ACP_ID }));
    assert.equal(error.code, -32603);
    assert.match(error.message, /without the new session id/);
    assert.deepEqual(f.calls[0], ['fork', { sessionId: ZCODE_ID, target: { kind: 'latestCheckpoint' } }]);
  });

  test('compact answers with zcode\'s outcome event (only that session\'s), not with the request\'s reply', async () => {
    const f = fakeContext();
    f.answers.set('compact', () => {
      setTimeout(() => {
        f.emitEvent(event('state.updated', { patch: { compaction: { status: 'compacted' } } }, 'sess_other'));
        f.emitEvent(event('state.updated', { patch: { compaction: { status: 'running' } } }));
        f.emitEvent(event('state.updated', { patch: { compaction: { status: 'compacted', tokensBefore: 10, tokensAfter: 2 } }, reason: 'compaction' }));
      }, 5);
      return { accepted: true };
    });
    const result = await new SessionOperations(f.ctx, FAST).compact({ sessionId: ACP_ID }, never);
    assert.deepEqual(result, { outcome: 'compacted', message: 'The conversation was compacted (10 → 2 tokens of context).', tokensBefore: 10, tokensAfter: 2 });
  });

  test('compact: a build that answers with the outcome itself needs no event', async () => {
    const f = fakeContext();
    f.answers.set('compact', { compaction: { status: 'failed', error: 'too short' } });
    assert.deepEqual(await new SessionOperations(f.ctx, FAST).compact({ sessionId: ACP_ID }, never), { outcome: 'failed', message: 'The compaction failed: too short' });
  });

  test('compact: no outcome within the timeout → failed, saying so', async () => {
    const f = fakeContext();
    f.answers.set('compact', { accepted: true });
    const result = await new SessionOperations(f.ctx, FAST).compact({ sessionId: ACP_ID }, never);
    assert.equal(result.outcome, 'failed');
    assert.match(result.message ?? '', /did not report the outcome of the compaction within 0 s/);
  });

  test('compact: the backend exiting meanwhile → failed at once', async () => {
    const f = fakeContext();
    f.answers.set('compact', () => {
      setTimeout(() => f.emitExit(), 5);
      return { accepted: true };
    });
    const result = await new SessionOperations(f.ctx, { ...FAST, compactTimeoutMs: 60_000 }).compact({ sessionId: ACP_ID }, never);
    assert.deepEqual(result, { outcome: 'failed', message: 'zcode exited before the compaction finished' });
  });

  test('compact: a cancelled request sends session/stop and answers cancelled when zcode stays silent', async () => {
    const f = fakeContext();
    const abort = new AbortController();
    f.answers.set('compact', () => {
      setTimeout(() => abort.abort(), 5);
      return { accepted: true };
    });
    const result = await new SessionOperations(f.ctx, { ...FAST, compactTimeoutMs: 60_000 }).compact({ sessionId: ACP_ID }, abort.signal);
    assert.equal(result.outcome, 'cancelled');
    assert.deepEqual(f.calls.at(-1), ['stop', { sessionId: ZCODE_ID }]);
  });

  test('busy answers are retried, then a clear error keeping zcode\'s code', async () => {
    const f = fakeContext();
    let attempts = 0;
    f.answers.set('rewind', () => {
      attempts++;
      if (attempts < 3) throw new ZcodeError('prompt is running', 1308, 'session/rewind');
      return { rewound: true, checkpointId: 'cp_1', removedMessages: 4 };
    });
    const ops = new SessionOperations(f.ctx, FAST);
    assert.deepEqual(await ops.rewind({ sessionId: ACP_ID, checkpointId: 'cp_1' }, never), { rewound: true, checkpointId: 'cp_1', removedMessages: 4 });
    assert.equal(attempts, 3);
    f.answers.set('compact', fail(new ZcodeError('a prompt is already running', -32010, 'session/compact')));
    const error = await rejection(ops.compact({ sessionId: ACP_ID }, never));
    assert.equal(error.code, -32603);
    assert.equal((error.data as { zcode?: { code?: number } }).zcode?.code, -32010);
    assert.match(error.message, /zcode is busy with this session .*tried 3 times/);
  });

  test('rewind with cascade asks for cascade; an odd result still reads as rewound', async () => {
    const f = fakeContext();
    f.answers.set('rewind', 'ok');
    assert.deepEqual(await new SessionOperations(f.ctx, FAST).rewind({ sessionId: ACP_ID, cascade: true }, never), { rewound: true });
    assert.deepEqual(f.calls[0], ['rewind', { sessionId: ZCODE_ID, target: { kind: 'latestCheckpoint' }, cascade: true }]);
  });

  test('goal passes the objective only for set/replace and reads a missing goal as null', async () => {
    const f = fakeContext();
    f.answers.set('goal', {});
    const ops = new SessionOperations(f.ctx, FAST);
    assert.deepEqual(await ops.goal({ sessionId: ACP_ID, action: 'pause', objective: 'x' }), { goal: null });
    await ops.goal({ sessionId: ACP_ID, action: 'set', objective: 'ship' });
    assert.deepEqual(
      f.calls.map(([, p]) => p),
      [
        { sessionId: ZCODE_ID, action: 'pause' },
        { sessionId: ZCODE_ID, action: 'set', objective: 'ship' },
      ],
    );
  });

  test('steer needs a running prompt', async () => {
    const f = fakeContext();
    f.answers.set('steer', { accepted: true });
    const ops = new SessionOperations(f.ctx, FAST);
    const error = await rejection(ops.steer({ sessionId: ACP_ID, content: 'x' }));
    // Invalid for the session's state: never -32000, which ACP reserves for "authentication required".
    assert.equal(error.code, -32602);
    assert.equal(f.calls.length, 0);
    f.handle.running = true;
    assert.deepEqual(await ops.steer({ sessionId: ACP_ID, content: 'x' }), { accepted: true });
    assert.deepEqual(f.calls, [['steer', { sessionId: ZCODE_ID, content: 'x' }]]);
  });

  test('setMode / setThoughtLevel check the offered values (zcode\'s list when it has one) and go through applyConfig', async () => {
    const f = fakeContext();
    const ops = new SessionOperations(f.ctx, FAST);
    f.handle.settings = { mode: { current: 'build', available: ['build', 'guarded'] } };
    assert.deepEqual(await ops.setMode({ sessionId: ACP_ID, mode: 'guarded' }), { mode: 'guarded' });
    const error = await rejection(ops.setMode({ sessionId: ACP_ID, mode: 'plan' }));
    assert.equal(error.code, -32602);
    assert.match(error.message, /Expected one of: build, guarded/);
    assert.deepEqual(await ops.setThoughtLevel({ sessionId: ACP_ID, thoughtLevel: 'low' }), { thoughtLevel: 'low' });
    assert.deepEqual(f.configPatches, [
      { sessionId: ACP_ID, patch: { mode: 'guarded' } },
      { sessionId: ACP_ID, patch: { thoughtLevel: 'low' } },
    ]);
  });

  test('cancelBackgroundTask closes a running task\'s card (schema-valid) and re-announces the list', async () => {
    const f = fakeContext({ terminalOutput: true });
    translateEvent(f.translator, event('session.updated', { taskId: 'agent_1', toolCallId: 'call_1', toolName: 'Agent', status: 'running', description: 'Collect TODOs' }));
    f.answers.set('cancelBackgroundTask', { cancelled: true });
    const ops = new SessionOperations(f.ctx, FAST);
    assert.deepEqual(await ops.cancelBackgroundTask({ sessionId: ACP_ID, taskId: 'agent_1' }), { cancelled: true });
    assert.equal(f.updates.length, 1);
    assertValidSessionUpdates(f.updates[0].updates, ACP_ID);
    const [card] = f.updates[0].updates;
    assert.equal(card.sessionUpdate === 'tool_call_update' && card.status, 'failed');
    assert.deepEqual(card.sessionUpdate === 'tool_call_update' && card._meta?.backgroundTask, { cancelled: true });
    assert.equal(f.notifications.length, 1);
    assert.equal(f.notifications[0].method, '_zcode/session/backgroundTasks');
    const params = f.notifications[0].params as { sessionId: string; tasks: Array<{ id: string; status: string }> };
    assert.equal(params.sessionId, ACP_ID);
    assert.deepEqual(
      params.tasks.map((t) => [t.id, t.status]),
      [['agent_1', 'cancelled']],
    );
    // zcode's own cancelled event after that changes nothing, and a second cancel sends nothing.
    assert.deepEqual(translateEvent(f.translator, event('session.updated', { taskId: 'agent_1', toolName: 'Agent', status: 'cancelled' })), { updates: [], signals: [] });
    await ops.cancelBackgroundTask({ sessionId: ACP_ID, taskId: 'agent_1' });
    assert.equal(f.updates.length, 1);
    assert.equal(f.notifications.length, 1);
  });

  test('cancelBackgroundTask: zcode says not cancelled → nothing is sent', async () => {
    const f = fakeContext();
    translateEvent(f.translator, event('session.updated', { taskId: 'exec_1', toolName: 'Bash', status: 'running' }));
    f.answers.set('cancelBackgroundTask', { cancelled: false });
    assert.deepEqual(await new SessionOperations(f.ctx, FAST).cancelBackgroundTask({ sessionId: ACP_ID, taskId: 'exec_1' }), { cancelled: false });
    assert.equal(f.updates.length + f.notifications.length, 0);
  });

  test('checkpoints: ISO times from numbers or strings, `id` accepted, junk entries dropped; -32601 → latestOnly', async () => {
    const f = fakeContext();
    const ops = new SessionOperations(f.ctx, FAST);
    f.answers.set('session/checkpoints', {
      checkpoints: [{ checkpointId: 'cp_1', createdAt: 1_700_000_000_000, label: 'first', turnId: 'turn_1' }, { id: 'cp_2', createdAt: '2026-01-02T03:04:05Z', label: null }, { label: 'no id' }],
    });
    assert.deepEqual(await ops.checkpoints({ sessionId: ACP_ID }), {
      checkpoints: [
        { checkpointId: 'cp_1', createdAt: '2023-11-14T22:13:20.000Z', label: 'first', turnId: 'turn_1' },
        { checkpointId: 'cp_2', createdAt: '2026-01-02T03:04:05.000Z' },
      ],
    });
    f.answers.set('session/checkpoints', fail(new ZcodeError('method not found', -32601, 'session/checkpoints')));
    assert.deepEqual(await ops.checkpoints({ sessionId: ACP_ID }), { checkpoints: [], latestOnly: true });
    // Junk is refused where zcode's answers are parsed (bridge/zcode): InvalidResponse, zcode's method named.
    f.answers.set('session/checkpoints', { nope: true });
    const junk = await rejection(ops.checkpoints({ sessionId: ACP_ID }));
    assert.equal(junk.code, -32603);
    assert.equal((junk.data as { zcode?: { code?: number } }).zcode?.code, BackendErrorCode.InvalidResponse);
    f.answers.set('session/checkpoints', fail(new ZcodeError('zcode exited', BackendErrorCode.ProcessExited, 'session/checkpoints')));
    const exited = await rejection(ops.checkpoints({ sessionId: ACP_ID }));
    assert.equal(exited.code, -32603);
    assert.equal((exited.data as { zcode?: { code?: number } }).zcode?.code, BackendErrorCode.ProcessExited);
  });

  test('an unknown session is -32002 before zcode is asked', async () => {
    const f = fakeContext();
    const error = await rejection(new SessionOperations(f.ctx, FAST).goal({ sessionId: 'lazy_other', action: 'show' }));
    assert.equal(error.code, -32002);
    assert.equal(f.calls.length, 0);
  });
});
