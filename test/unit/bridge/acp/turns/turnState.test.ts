/**
 * turnState.ts: how one running turn reads the translator's signals — above all a `turn.terminal`
 * that arrives after `turn.completed` (held for a bounded time, the turn still ends once).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RequestError } from '@agentclientprotocol/sdk';
import { PromptJob, RunningTurn } from '../../../../../bridge/acp/turns/turnState.ts';
import type { Outcome, Terminal } from '../../../../../bridge/acp/turns/turnState.ts';
import type { TurnSignal } from '../../../../../bridge/acp/translation.ts';
import { testLogger } from '../../../../helpers/sim.ts';

const logger = testLogger('turn');
/** How the test's prompt shows in a queue (not looked at here). */
const ENTRY = { text: 'go', sentBy: { clientId: null, kind: null } };
const started = (turnId?: string): TurnSignal => ({ type: 'turn_started', background: false, ...(turnId ? { turnId } : {}) });
const completed = (turnId?: string): TurnSignal => ({ type: 'turn_completed', resultType: 'success', stopReason: 'end_turn', background: false, ...(turnId ? { turnId } : {}) });
const terminal = (totalTokens: number, turnId?: string, background = false): TurnSignal => ({ type: 'turn_terminal', status: 'success', totalTokens, background, ...(turnId ? { turnId } : {}) });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Settles within `ms`, or 'pending'. */
function within(promise: Promise<Outcome>, ms: number): Promise<Outcome | 'pending'> {
  return Promise.race([promise, sleep(ms).then(() => 'pending' as const)]);
}

/** The figures as recorded now (a function, so that an earlier assertion does not narrow the type). */
function figuresOf(turn: RunningTurn): Terminal | undefined {
  return turn.terminal;
}

function runningTurn(waitMs: number): RunningTurn {
  const turn = new RunningTurn(new PromptJob('lazy_1', ENTRY), () => waitMs);
  turn.sent = true;
  return turn;
}

describe('RunningTurn: turn.terminal after turn.completed', () => {
  test('terminal before completed: settles at once with the figures', async () => {
    const turn = runningTurn(1000);
    turn.onSignal(started('t1'), logger);
    turn.onSignal(terminal(42, 't1'), logger);
    turn.onSignal(completed('t1'), logger);
    assert.deepEqual(await within(turn.outcome, 20), { kind: 'completed', stopReason: 'end_turn', usage: undefined });
    assert.deepEqual(turn.terminal, { status: 'success', totalTokens: 42 });
  });

  test('terminal after completed: the completion is held until the figures come, then settles once', async () => {
    const turn = runningTurn(1000);
    turn.onSignal(started('t1'), logger);
    turn.onSignal(completed('t1'), logger);
    assert.equal(turn.awaitingTerminal, true);
    assert.equal(await within(turn.outcome, 20), 'pending');
    turn.onSignal(completed('t1'), logger); // a duplicate end changes nothing
    turn.onSignal(terminal(42, 't1'), logger);
    assert.deepEqual(await within(turn.outcome, 20), { kind: 'completed', stopReason: 'end_turn', usage: undefined });
    assert.deepEqual(turn.terminal, { status: 'success', totalTokens: 42 }, 'figures only (no turnId)');
    assert.equal(turn.awaitingTerminal, false);
  });

  test('the wait is bounded: no terminal → completed without figures after the wait', async () => {
    const turn = runningTurn(30);
    turn.onSignal(started(), logger);
    turn.onSignal(completed(), logger);
    assert.equal(await within(turn.outcome, 5), 'pending');
    assert.deepEqual(await within(turn.outcome, 200), { kind: 'completed', stopReason: 'end_turn', usage: undefined });
    assert.equal(turn.terminal, undefined);
  });

  test('no wait when zcode is not known to send turn.terminal (wait 0)', async () => {
    const turn = runningTurn(0);
    turn.onSignal(started(), logger);
    turn.onSignal(completed(), logger);
    assert.deepEqual(await within(turn.outcome, 5), { kind: 'completed', stopReason: 'end_turn', usage: undefined });
  });

  test('a backend exit or the cancel grace while waiting: the completion stands', async () => {
    const turn = runningTurn(1000);
    turn.onSignal(started(), logger);
    turn.onSignal(completed(), logger);
    turn.settle({ kind: 'exited', error: new RequestError(-33002, 'gone') });
    assert.deepEqual(await within(turn.outcome, 5), { kind: 'completed', stopReason: 'end_turn', usage: undefined });
  });

  test("not ours: another turn's terminal (turnId), a background turn's, or one before this turn was sent", async () => {
    const early = new RunningTurn(new PromptJob('lazy_1', ENTRY), () => 1000);
    early.onSignal(terminal(1), logger);
    assert.equal(early.terminal, undefined, 'before send/start: an earlier turn\'s');
    const turn = runningTurn(1000);
    turn.onSignal(started('t2'), logger);
    turn.onSignal(terminal(1, 't1'), logger);
    turn.onSignal(terminal(2, 't2', true), logger);
    assert.equal(figuresOf(turn), undefined);
    turn.onSignal(completed('t2'), logger);
    assert.equal(await within(turn.outcome, 20), 'pending');
    turn.onSignal(terminal(3, 't2'), logger);
    await turn.outcome;
    assert.equal(figuresOf(turn)?.totalTokens, 3);
  });

  test('a transient retry (reset) forgets a held completion and its timer', async () => {
    const turn = runningTurn(30);
    turn.onSignal(started(), logger);
    turn.onSignal(completed(), logger);
    turn.reset();
    assert.equal(turn.awaitingTerminal, false);
    assert.equal(await within(turn.outcome, 80), 'pending', 'the old timer does not settle the new attempt');
    turn.settle({ kind: 'cancel_timeout' });
    assert.deepEqual(await turn.outcome, { kind: 'cancel_timeout' });
  });
});
