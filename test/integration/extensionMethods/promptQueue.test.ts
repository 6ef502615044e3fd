/**
 * The session's prompt queue (docs/acp.md "Prompt queue"): every prompt but `/steer` takes its place
 * in the FIFO when it arrives, slash commands included, so a `/compact` or `/mode` sent while a turn
 * runs acts after that turn and before the prompts sent after it; the next prompt starts once the
 * previous one's response is written, and a prompt the client named hears
 * `_zcode/session/promptStarted` then, before anything of its own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { caughtUp, newSession, prompt, sessionText, startPrompt, withBridge, zcodeCalls } from './support.ts';
import type { AcpHarness } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-slash-order');

/** What zcode was asked to do for the session, in order: each send's text, or the method's name. */
function zcodeActions(h: AcpHarness, methods: readonly string[]): string[] {
  return h
    .simRecord()
    .received.filter((m) => typeof m.method === 'string' && 'id' in m && (m.method === 'session/send' || methods.includes(m.method)))
    .map((m) => (m.method === 'session/send' ? String((m.params as { content?: unknown }).content) : String(m.method)));
}

describe('the prompt queue', () => {
  test('a /compact sent while a turn runs is answered after that turn ends, before the prompt sent after it', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      await prompt(h, sessionId, '[scenario:text] some history');
      const answered: string[] = [];
      const long = startPrompt(h, sessionId, '[scenario:long:2] go');
      void long.response.then(() => answered.push('long'));
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 100);
      const compact = startPrompt(h, sessionId, '/compact');
      void compact.response.then(() => answered.push('compact'));
      const after = startPrompt(h, sessionId, '[scenario:text] after');
      void after.response.then(() => answered.push('after'));
      await caughtUp(h, CWD);
      assert.equal(compact.done, false, 'the /compact waits behind the running turn');
      assert.deepEqual(zcodeCalls(h, 'session/compact'), [], 'zcode is not asked to compact while the turn runs');
      assert.equal((await long.response).stopReason, 'end_turn');
      assert.equal((await compact.response).stopReason, 'end_turn');
      assert.equal((await after.response).stopReason, 'end_turn');
      assert.deepEqual(answered, ['long', 'compact', 'after']);
      assert.deepEqual(zcodeActions(h, ['session/compact']), ['[scenario:text] some history', '[scenario:long:2] go', 'session/compact', '[scenario:text] after']);
      assert.match(sessionText(h, sessionId), /The conversation was compacted/);
    }));

  test('a /mode sent while a turn runs switches the mode only once that turn has ended', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const long = startPrompt(h, sessionId, '[scenario:long:2] go');
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 100);
      const mode = startPrompt(h, sessionId, '/mode plan');
      await caughtUp(h, CWD);
      assert.equal(mode.done, false, 'the /mode waits behind the running turn');
      assert.deepEqual(zcodeCalls(h, 'session/setMode'), [], 'the mode does not change under the running turn');
      assert.equal((await long.response).stopReason, 'end_turn');
      assert.equal((await mode.response).stopReason, 'end_turn');
      assert.deepEqual(zcodeActions(h, ['session/setMode']), ['[scenario:long:2] go', 'session/setMode']);
    }));

  test('$/cancel_request of a waiting /compact answers it cancelled; the running turn goes on and zcode never compacts', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const long = startPrompt(h, sessionId, '[scenario:long:2] go');
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 100);
      const aborter = new AbortController();
      const compact = h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/compact' }] }, { cancellationSignal: aborter.signal });
      await caughtUp(h, CWD);
      aborter.abort();
      const outcome = await compact.then(
        (response: { stopReason?: string }) => response.stopReason,
        (error: { code?: number }) => error.code,
      );
      assert.ok(outcome === 'cancelled' || outcome === -32800, `cancelled or -32800, got ${String(outcome)}`);
      assert.equal(long.done, false, 'only the /compact was cancelled');
      assert.equal((await long.response).stopReason, 'end_turn', 'the running turn was not cancelled');
      await caughtUp(h, CWD);
      assert.deepEqual(zcodeCalls(h, 'session/compact'), []);
    }));

  test('a named prompt hears _zcode/session/promptStarted after the previous response and before its own updates', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const first = h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '[scenario:long:2] go' }], _meta: { zcode: { promptId: 'p1' } } });
      await h.waitFor('the long turn to stream', () => sessionText(h, sessionId).length > 100);
      const second = h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/quota' }], _meta: { zcode: { promptId: 'p2' } } });
      await caughtUp(h, CWD);
      assert.deepEqual(startedIds(h), ['p1'], 'the waiting prompt has not started');
      await first;
      await second;
      assert.deepEqual(startedIds(h), ['p1', 'p2']);
      const sent = h.traffic.sent;
      const firstAnswer = sent.findIndex((m) => 'result' in m && (m.result as { stopReason?: string }).stopReason === 'end_turn');
      const started = sent.findIndex((m) => 'method' in m && m.method === '_zcode/session/promptStarted' && (m.params as { promptId?: string }).promptId === 'p2');
      const quotaText = sent.findIndex((m, i) => i > firstAnswer && 'method' in m && m.method === 'session/update');
      assert.ok(firstAnswer !== -1 && firstAnswer < started, 'promptStarted follows the previous response');
      assert.ok(started < quotaText, "promptStarted precedes the prompt's own reply");
    }));
});

/** The promptIds of `_zcode/session/promptStarted` the bridge sent, in order. */
function startedIds(h: AcpHarness): string[] {
  return h.traffic.sent.flatMap((m) => ('method' in m && m.method === '_zcode/session/promptStarted' ? [String((m.params as { promptId?: unknown }).promptId)] : []));
}
