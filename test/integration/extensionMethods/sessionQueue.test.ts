/**
 * `_zcode/session/queue` (docs/acp.md "Prompt queue"): every client of a session hears who holds it
 * and who waits, with who sent each prompt, on every change — a prompt that arrives, the hand-over
 * once the previous prompt's response is written (never before it, and before the new holder's
 * `promptStarted`), a waiting prompt cancelled, `session/cancel` — and a client that loads or
 * resumes the session hears the current queue once, after the response, idle too.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { QueuedPromptEntry, SessionQueueParams } from '../../../bridge/acp/extensions/notificationSchemas.ts';
import type { TestClient } from '../acp/harness.ts';
import { caughtUp, newSession, prompt, withBridge } from './support.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const CWD = testWorkspace('ext-session-queue');
const QUEUE = '_zcode/session/queue';
const LONG = '[scenario:long:2] go';

/** The queue notifications a client received for one session id, in order. */
function queuesOf(c: TestClient, sessionId: string): SessionQueueParams[] {
  return c.notifications.filter((n) => n.method === QUEUE && (n.params as { sessionId?: unknown }).sessionId === sessionId).map((n) => n.params as SessionQueueParams);
}

/** A queue as the texts it shows: `running | waiting…` (`-` when idle). */
function shape(q: SessionQueueParams): string {
  return [q.running?.text ?? '-', ...q.waiting.map((e) => e.text)].join(' | ');
}

/** Send a prompt, named by the client when `promptId` is given. */
function send(c: TestClient, sessionId: string, text: string, promptId?: string, signal?: AbortSignal): Promise<{ stopReason?: string }> {
  const params = { sessionId, prompt: [{ type: 'text' as const, text }], ...(promptId ? { _meta: { zcode: { promptId } } } : {}) };
  return c.agent.request('session/prompt', params, signal ? { cancellationSignal: signal } : undefined);
}

/** The id of the `session/prompt` request `c` sent with `text`. */
function requestIdOf(c: TestClient, text: string): string | number {
  const sent = c.traffic.entries.find((e) => e.dir === 'in' && 'method' in e.msg && e.msg.method === 'session/prompt' && JSON.stringify(e.msg.params).includes(JSON.stringify(text)));
  assert.ok(sent && 'id' in sent.msg && sent.msg.id !== null, `the request of ${text}`);
  return sent.msg.id;
}

/** Where on `c`'s connection (what the bridge wrote to it, in order) a message is. */
function indexOut(c: TestClient, match: (m: AnyMessage) => boolean, what: string): number {
  const index = c.traffic.sent.findIndex(match);
  assert.ok(index !== -1, `${what} was sent`);
  return index;
}

const isResponseTo = (id: string | number) => (m: AnyMessage) => 'id' in m && m.id === id && !('method' in m);
const showsRunning = (sessionId: string, text: string) => (m: AnyMessage) =>
  'method' in m && m.method === QUEUE && (m.params as SessionQueueParams).sessionId === sessionId && (m.params as SessionQueueParams).running?.text === text;

/** A runs a long turn named `a1`; B sends `b1` (named) and `b2` (unnamed) behind it; all answered. */
async function twoClientsQueue(h: Parameters<Parameters<typeof withBridge>[1]>[0]) {
  const b = await h.addClient('phone');
  const sessionId = await newSession(h, CWD);
  const long = send(h, sessionId, LONG, 'a1');
  await h.waitFor('the long turn to hold the session', () => queuesOf(h, sessionId).length === 1);
  const b1 = send(b, sessionId, '[scenario:text] b one', 'b1');
  const b2 = send(b, sessionId, '[scenario:text]   b\ntwo');
  await h.waitFor('both of B’s prompts to wait', () => queuesOf(h, sessionId).length === 3 && queuesOf(b, sessionId).length === 3);
  await caughtUp(h, CWD);
  const whileRunning = { a: queuesOf(h, sessionId).at(-1), b: queuesOf(b, sessionId).at(-1) };
  assert.equal((await long).stopReason, 'end_turn');
  assert.equal((await b1).stopReason, 'end_turn');
  assert.equal((await b2).stopReason, 'end_turn');
  await caughtUp(h, CWD);
  await caughtUp(b, CWD);
  return { b, sessionId, whileRunning };
}

describe('_zcode/session/queue', () => {
  test('both clients see who runs and who waits, with who sent each, and the client’s own ids only where it named them', () =>
    withBridge({}, async (h) => {
      const { b, sessionId, whileRunning } = await twoClientsQueue(h);
      const queue = whileRunning.a;
      assert.ok(queue);
      assert.deepEqual(whileRunning.b, queue, 'both clients see the same queue');
      assert.equal(queue.running?.text, LONG);
      assert.equal(queue.running?.promptId, 'a1');
      assert.deepEqual(
        queue.waiting.map((e) => ({ text: e.text, promptId: e.promptId })),
        [
          { text: '[scenario:text] b one', promptId: 'b1' },
          { text: '[scenario:text] b two', promptId: undefined },
        ],
      );
      assert.ok(!('promptId' in queue.waiting[1]), 'an unnamed prompt has no promptId');
      // Who sent each: the same record as the echo of the prompt to the other clients.
      const echoed = (c: TestClient, text: string): unknown =>
        c.updatesOf(sessionId).flatMap((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' && u.content.text === text ? [(u._meta as { zcode?: { sentBy?: unknown } }).zcode?.sentBy] : []))[0];
      const aSender: QueuedPromptEntry['sentBy'] | undefined = queue.running?.sentBy;
      const bSender = queue.waiting[0].sentBy;
      assert.deepEqual(aSender, echoed(b, LONG), 'A’s prompt: as B saw it echoed');
      assert.deepEqual(bSender, echoed(h, '[scenario:text] b one'), 'B’s prompt: as A saw it echoed');
      assert.deepEqual(queue.waiting[1].sentBy, bSender);
      assert.equal(aSender?.label, 'primary');
      assert.equal(bSender.label, 'phone');
      assert.notEqual(aSender?.clientId, bSender.clientId);
      // The whole story, at both clients: arrivals, two hand-overs, idle.
      const story = ['[scenario:long:2] go', '[scenario:long:2] go | [scenario:text] b one', '[scenario:long:2] go | [scenario:text] b one | [scenario:text] b two', '[scenario:text] b one | [scenario:text] b two', '[scenario:text] b two', '-'];
      assert.deepEqual(queuesOf(h, sessionId).map(shape), story);
      assert.deepEqual(queuesOf(b, sessionId).map(shape), story);
    }));

  test('a hand-over is announced after the previous prompt’s response on every connection, and before the new holder’s promptStarted', () =>
    withBridge({}, async (h) => {
      const { b, sessionId } = await twoClientsQueue(h);
      const longAnswer = indexOut(h, isResponseTo(requestIdOf(h, LONG)), 'A’s response');
      assert.ok(longAnswer < indexOut(h, showsRunning(sessionId, '[scenario:text] b one'), 'b1 running, to A'), 'A: its response, then b1 running');
      const b1Answer = indexOut(b, isResponseTo(requestIdOf(b, '[scenario:text] b one')), 'b1’s response');
      const b1Running = indexOut(b, showsRunning(sessionId, '[scenario:text] b one'), 'b1 running, to B');
      const b1Started = indexOut(b, (m) => 'method' in m && m.method === '_zcode/session/promptStarted' && (m.params as { promptId?: unknown }).promptId === 'b1', 'b1’s promptStarted');
      assert.ok(b1Running < b1Started, 'B: b1 running, then b1’s promptStarted');
      assert.ok(b1Answer < indexOut(b, showsRunning(sessionId, '[scenario:text] b two'), 'b2 running, to B'), 'B: b1’s response, then b2 running');
      const b2Answer = indexOut(b, isResponseTo(requestIdOf(b, '[scenario:text]   b\ntwo')), 'b2’s response');
      const idle = b.traffic.sent.findLastIndex((m) => 'method' in m && m.method === QUEUE && (m.params as SessionQueueParams).sessionId === sessionId);
      assert.ok(b2Answer < idle, 'B: b2’s response, then idle');
    }));

  test('a waiting prompt cancelled with $/cancel_request leaves the queue; session/cancel empties it, then the session is idle', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      const long = send(h, sessionId, LONG);
      await h.waitFor('the long turn to hold the session', () => queuesOf(h, sessionId).length === 1);
      const aborter = new AbortController();
      const w1 = send(h, sessionId, '[scenario:text] w1', undefined, aborter.signal);
      const w2 = send(h, sessionId, '[scenario:text] w2');
      const w3 = send(h, sessionId, '[scenario:text] w3');
      await h.waitFor('all three to wait', () => queuesOf(h, sessionId).length === 4);
      aborter.abort();
      const outcome = await w1.then(
        (r) => r.stopReason,
        (error: { code?: number }) => error.code,
      );
      assert.ok(outcome === 'cancelled' || outcome === -32800, `cancelled or -32800, got ${String(outcome)}`);
      await h.waitFor('w1 to leave the queue', () => queuesOf(h, sessionId).length === 5);
      assert.equal(shape(queuesOf(h, sessionId)[4]), `${LONG} | [scenario:text] w2 | [scenario:text] w3`);
      await h.agent.notify('session/cancel', { sessionId });
      assert.equal((await long).stopReason, 'cancelled');
      assert.equal((await w2).stopReason, 'cancelled');
      assert.equal((await w3).stopReason, 'cancelled');
      await caughtUp(h, CWD);
      // One announcement for everything session/cancel took out; the running prompt leaves with its response.
      assert.deepEqual(queuesOf(h, sessionId).slice(5).map(shape), [LONG, '-']);
      assert.deepEqual(queuesOf(h, sessionId).at(-1), { sessionId, waiting: [] });
    }));

  test('prompts sent together to a new session, before zcode has it, are announced like any others', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      // Both requests leave at once, so they normally meet the placeholder's queue (the zcode session is
      // still being created); the announcements must be the same either way.
      const first = send(h, sessionId, '[scenario:text] first');
      const second = send(h, sessionId, '[scenario:text] second');
      assert.equal((await first).stopReason, 'end_turn');
      assert.equal((await second).stopReason, 'end_turn');
      await caughtUp(h, CWD);
      assert.deepEqual(queuesOf(h, sessionId).map(shape), ['[scenario:text] first', '[scenario:text] first | [scenario:text] second', '[scenario:text] second', '-']);
    }));

  test('session/resume and session/load send the current queue once, after the response: idle, or the running turn', () =>
    withBridge({}, async (h) => {
      const sessionId = await newSession(h, CWD);
      assert.equal((await prompt(h, sessionId, '[scenario:text] hello')).stopReason, 'end_turn');
      const idleClient = await h.addClient('idle');
      await idleClient.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: [] });
      await caughtUp(idleClient, CWD);
      assert.deepEqual(queuesOf(idleClient, sessionId), [{ sessionId, waiting: [] }], 'load of an idle session: idle, once');
      const loadAnswer = indexOut(idleClient, (m) => 'result' in m && 'configOptions' in (m.result as object), 'the load response');
      assert.ok(loadAnswer < indexOut(idleClient, (m) => 'method' in m && m.method === QUEUE, 'the queue'), 'the queue follows the load response');

      const long = send(h, sessionId, LONG, 'a1');
      await h.waitFor('the long turn to hold the session', () => queuesOf(h, sessionId).at(-1)?.running?.text === LONG);
      const late = await h.addClient('late');
      await late.agent.request('session/resume', { sessionId, cwd: CWD, mcpServers: [] });
      await caughtUp(late, CWD);
      const seen = queuesOf(late, sessionId);
      assert.equal(seen.length, 1, 'resume during a turn: the queue once');
      assert.equal(seen[0].running?.text, LONG);
      assert.equal(seen[0].running?.promptId, 'a1');
      assert.deepEqual(seen[0].waiting, []);
      assert.equal((await long).stopReason, 'end_turn');
      await caughtUp(late, CWD);
      assert.deepEqual(queuesOf(late, sessionId).at(-1), { sessionId, waiting: [] }, 'and hears it go idle with everyone');
    }));
});
