/**
 * The multi-client rules of docs/acp.md "Several clients", end to end: the real bridge with the
 * zcode simulator behind the real WebSocket endpoint, several official SDK `client()` apps over
 * real sockets plus one in-process client. Every message the bridge sends to any client is
 * validated against the ACP schema (bridgeHarness `close()` fails the test otherwise).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { PromptResponse, RequestPermissionRequest, SessionNotification } from '@agentclientprotocol/sdk';
import { WebSocket } from 'ws';
import { agentText, promptText, startHarness } from './bridgeHarness.ts';
import type { Harness } from './bridgeHarness.ts';
import type { TestClient } from './harness.ts';
import { closed, opened, waitFor } from './harness.ts';

const FORMS = { elicitation: { form: {} } };

async function withHarness(body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness();
  try {
    await body(h);
  } finally {
    await h.close();
  }
}

function prompt(c: TestClient, sessionId: string, text: string): Promise<PromptResponse> {
  return c.agent.request('session/prompt', { sessionId, prompt: promptText(text) });
}

/** The session's updates as one client saw them, without the per-client command list. */
function broadcastUpdates(c: TestClient, sessionId: string): SessionNotification[] {
  return c.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate !== 'available_commands_update');
}

function allowOption(params: RequestPermissionRequest): string {
  const option = params.options.find((o) => o.kind === 'allow_once');
  assert.ok(option, 'the permission request offers allow_once');
  return option.optionId;
}

/** The JSON-RPC ids under which `c` received requests of `method`, in order. */
function requestIds(c: TestClient, method: string): unknown[] {
  return c.tap.received.flatMap((m) => ('method' in m && m.method === method && 'id' in m ? [m.id] : []));
}

function cancelledIds(c: TestClient): unknown[] {
  return c.cancelRequests().map((m) => ('params' in m ? (m.params as { requestId?: unknown }).requestId : undefined));
}

/** Replies zcode received for its interaction requests (responses to `server-N` ids). */
function interactionReplies(h: Harness): Record<string, unknown>[] {
  return h.simRecord().received.filter((m) => typeof m.id === 'string' && m.id.startsWith('server-') && 'result' in m && !('method' in m)).map((m) => m.result as Record<string, unknown>)
    .filter((r) => 'decision' in r || 'action' in r || 'answers' in r);
}

test('session/update is broadcast to every connected client, remote and in-process', async () => {
  await withHarness(async (h) => {
    const [r1, r2, r3] = await Promise.all([h.remote('r1'), h.remote('r2'), h.remote('r3')]);
    const local = await h.local('local');
    const sid = await h.newSession(r1);
    const response = await prompt(r1, sid, '[scenario:text] hello');
    assert.equal(response.stopReason, 'end_turn');
    const reference = broadcastUpdates(r1, sid);
    assert.ok(reference.some((n) => n.update.sessionUpdate === 'agent_message_chunk'), 'the turn streamed text');
    // Clients that never saw the session (r2, r3, local) got the same updates, in the same order,
    // after r1's prompt as the user's message (r1 has it already: not echoed to the sender).
    for (const c of [r2, r3, local]) {
      await c.waitForUpdate(() => broadcastUpdates(c, sid).length >= reference.length + 1);
      const [echo, ...rest] = broadcastUpdates(c, sid);
      assert.equal(echo.update.sessionUpdate, 'user_message_chunk', `${c.name} saw r1's prompt first`);
      assert.deepEqual(rest, reference, `${c.name} saw the same stream`);
    }
    assert.ok(agentText(r3, sid).length > 0);
  });
});

test('permission requests go to every client; the first answer wins and the losers get $/cancel_request', async () => {
  await withHarness(async (h) => {
    const [r1, r2, r3] = await Promise.all([h.remote('r1'), h.remote('r2'), h.remote('r3')]);
    const local = await h.local('local');
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:permission]');
    const asked = await Promise.all([r1, r2, r3, local].map((c) => c.permissions.next(10_000, `${c.name}'s permission request`)));
    const toolCallIds = new Set(asked.map((p) => p.params.toolCall.toolCallId));
    assert.equal(toolCallIds.size, 1, 'every client is asked about the same tool call');

    const [p1, p2, p3, pLocal] = asked;
    p2.answer({ outcome: { outcome: 'selected', optionId: allowOption(p2.params) } });
    assert.equal((await turn).stopReason, 'end_turn');
    assert.match(agentText(r1, sid), /Permission granted/);

    // Losers: their dialogs are withdrawn with $/cancel_request naming the request they got.
    await Promise.all([p1.withdrawn, p3.withdrawn, pLocal.withdrawn]);
    for (const c of [r1, r3, local]) {
      assert.deepEqual(cancelledIds(c), requestIds(c, 'session/request_permission'), `${c.name} got $/cancel_request for its request`);
    }
    assert.equal(p2.signal.aborted, false);
    assert.deepEqual(cancelledIds(r2), [], 'the winner is not cancelled');

    // zcode got exactly one answer: the winner's.
    assert.deepEqual(interactionReplies(h), [{ decision: 'allow' }]);
  });
});

test('a dismissal does not win while another client can still answer', async () => {
  await withHarness(async (h) => {
    const [r1, r2] = await Promise.all([h.remote('r1'), h.remote('r2')]);
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:permission]');
    const [p1, p2] = await Promise.all([r1.permissions.next(10_000, 'r1'), r2.permissions.next(10_000, 'r2')]);
    p1.answer({ outcome: { outcome: 'cancelled' } });
    await new Promise((r) => setTimeout(r, 100));
    p2.answer({ outcome: { outcome: 'selected', optionId: allowOption(p2.params) } });
    assert.equal((await turn).stopReason, 'end_turn');
    // r2's updates come over its own socket: the response to r1 says nothing about when they land.
    await waitFor(() => /Permission granted/.test(agentText(r2, sid)));
    assert.deepEqual(interactionReplies(h), [{ decision: 'allow' }]);
  });
});

test('capability merge drives routing: a form-capable client joining turns questions into elicitation/create', async () => {
  await withHarness(async (h) => {
    const r1 = await h.remote('r1');
    const local = await h.local('local');
    const sid = await h.newSession(r1);

    // No client declares forms: one permission dialog per question, to everyone.
    let turn = prompt(r1, sid, '[scenario:questions]');
    for (let q = 0; q < 2; q++) {
      const [a, b] = await Promise.all([r1.permissions.next(10_000, `r1 question ${q}`), local.permissions.next(10_000, `local question ${q}`)]);
      assert.equal(a.params.toolCall.toolCallId, b.params.toolCall.toolCallId);
      const pick = a.params.options.find((o) => o.kind === 'allow_once') ?? a.params.options[0];
      a.answer({ outcome: { outcome: 'selected', optionId: pick.optionId } });
      await b.withdrawn;
    }
    assert.equal((await turn).stopReason, 'end_turn');
    assert.match(agentText(r1, sid), /You chose: /);
    assert.equal(r1.elicitations.size + local.elicitations.size, 0);

    // A form-capable remote client joins: the merged capabilities now route questions to a form,
    // asked only of clients that can render it.
    const forms = await h.remote('forms', FORMS);
    turn = prompt(r1, sid, '[scenario:questions]');
    const form = await forms.elicitations.next(10_000, 'the question form');
    assert.equal(form.params.mode, 'form');
    assert.equal(r1.elicitations.size + local.elicitations.size, 0, 'clients without forms are not asked for a form');
    assert.equal(r1.permissions.size + local.permissions.size + forms.permissions.size, 0, 'no permission fallback while a form client is connected');
    form.answer({ action: 'accept', content: { q_0: 'Go', q_1: ['Lint'] } });
    assert.equal((await turn).stopReason, 'end_turn');
    assert.match(agentText(r1, sid), /You chose: .*Go/);

    // It leaves: the merge is recomputed and questions fall back to permission dialogs.
    await forms.close();
    await waitFor(() => h.bridge.clients.length === 2);
    turn = prompt(r1, sid, '[scenario:questions]');
    const again = await r1.permissions.next(10_000, 'the permission fallback after the form client left');
    assert.ok(again.params.toolCall.toolCallId);
    r1.agent.notify('session/cancel', { sessionId: sid }).catch(() => undefined);
    assert.equal((await turn).stopReason, 'cancelled');
  });
});

test('elicitation/create races too: every form-capable client gets the form, the first answer wins, the other is withdrawn', async () => {
  await withHarness(async (h) => {
    const [formA, formB] = await Promise.all([h.remote('formA', FORMS), h.remote('formB', FORMS)]);
    const plain = await h.local('plain');
    const sid = await h.newSession(plain);
    const turn = prompt(plain, sid, '[scenario:questions]');
    const [a, b] = await Promise.all([formA.elicitations.next(10_000, 'formA'), formB.elicitations.next(10_000, 'formB')]);
    assert.deepEqual(a.params, b.params, 'both get the same form');
    b.answer({ action: 'accept', content: { q_0: 'Rust', q_1: ['Unit tests', 'Type check'] } });
    assert.equal((await turn).stopReason, 'end_turn');
    assert.match(agentText(plain, sid), /You chose: .*Rust/);
    await a.withdrawn;
    assert.deepEqual(cancelledIds(formA), requestIds(formA, 'elicitation/create'));
    assert.deepEqual(cancelledIds(formB), []);
    assert.equal(plain.elicitations.size + plain.permissions.size, 0, 'the client without forms was not asked');
    assert.equal(interactionReplies(h).length, 1, 'zcode got one answer');
  });
});

test('concurrent prompts on one session from different clients are serialized (FIFO)', async () => {
  await withHarness(async (h) => {
    const [r1, r2] = await Promise.all([h.remote('r1'), h.remote('r2')]);
    const watcher = await h.local('watcher');
    const sid = await h.newSession(r1);
    const order: string[] = [];
    const first = prompt(r1, sid, '[scenario:long]').then((r) => (order.push('r1'), r));
    await watcher.waitForUpdate((n) => n.sessionId === sid && n.update.sessionUpdate === 'agent_message_chunk');
    const second = prompt(r2, sid, '[scenario:text] second').then((r) => (order.push('r2'), r));
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.stopReason, 'end_turn');
    assert.equal(b.stopReason, 'end_turn');
    assert.deepEqual(order, ['r1', 'r2']);
    // The second turn's output starts only after the first turn's last words.
    const text = agentText(watcher, sid);
    const endOfFirst = text.indexOf('All six modules are done');
    const startOfSecond = text.indexOf('A tiny greeting helper');
    assert.ok(endOfFirst > 0 && startOfSecond > endOfFirst, 'turns did not interleave');
    // zcode got the second send only after the first turn finished (one send per prompt, in order).
    const sends = h.simRecord().received.filter((m) => m.method === 'session/send').map((m) => (m.params as { content: string }).content);
    assert.deepEqual(sends, ['[scenario:long]', '[scenario:text] second']);
  });
});

test('session/cancel from any client cancels the shared turn', async () => {
  await withHarness(async (h) => {
    const [r1, r2] = await Promise.all([h.remote('r1'), h.remote('r2')]);
    const local = await h.local('local');
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:long]');
    await r2.waitForUpdate((n) => n.sessionId === sid && n.update.sessionUpdate === 'agent_message_chunk');
    await r2.agent.notify('session/cancel', { sessionId: sid });
    assert.equal((await turn).stopReason, 'cancelled');
    assert.ok(h.simRecord().received.some((m) => m.method === 'session/stop'), 'zcode was told to stop');
    // The session keeps working for everyone; the next prompt gets exactly one stop reason.
    const next = await prompt(local, sid, '[scenario:text] after cancel');
    assert.equal(next.stopReason, 'end_turn');
  });
});

test('cancel while a permission dialog is open withdraws it from every client', async () => {
  await withHarness(async (h) => {
    const [r1, r2] = await Promise.all([h.remote('r1'), h.remote('r2')]);
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:permission]');
    const [p1, p2] = await Promise.all([r1.permissions.next(10_000, 'r1'), r2.permissions.next(10_000, 'r2')]);
    await r2.agent.notify('session/cancel', { sessionId: sid });
    assert.equal((await turn).stopReason, 'cancelled');
    await Promise.all([p1.withdrawn, p2.withdrawn]);
    assert.equal(cancelledIds(r1).length, 1);
    assert.equal(cancelledIds(r2).length, 1);
  });
});

test('reconnect: a client that completes session/load or session/resume receives the open permission request after the replay and can win', async () => {
  await withHarness(async (h) => {
    const [r1, r2] = await Promise.all([h.remote('r1'), h.remote('r2')]);
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:permission]');
    const [p1] = await Promise.all([r1.permissions.next(10_000, 'r1'), r2.permissions.next(10_000, 'r2')]);
    // r2 drops (phone lost its connection) before answering.
    await r2.close();

    // It comes back with a new connection and loads the session it had saved.
    const back = await h.remote('r2-again');
    await back.agent.request('session/load', { sessionId: sid, cwd: h.cwd, mcpServers: [] });
    const resent = await back.permissions.next(10_000, 'the re-sent permission request');
    assert.equal(resent.params.toolCall.toolCallId, p1.params.toolCall.toolCallId);
    assert.equal(resent.params.sessionId, sid);
    // Re-sent after the replay: every replayed update precedes the request.
    const received = back.tap.received;
    const requestAt = received.findIndex((m) => 'method' in m && m.method === 'session/request_permission');
    const loadResponseAt = received.findIndex((m) => !('method' in m) && 'result' in m && m.result !== null && typeof m.result === 'object' && 'configOptions' in m.result);
    assert.ok(loadResponseAt >= 0 && requestAt > loadResponseAt, 'the request follows the load response');
    const replayed = received.slice(0, loadResponseAt).filter((m) => 'method' in m && m.method === 'session/update');
    assert.ok(replayed.length > 0, 'the load replayed the history first');

    // Another client resumes (no replay) and joins the same race.
    const resumer = await h.remote('resumer');
    await resumer.agent.request('session/resume', { sessionId: sid, cwd: h.cwd });
    const resumed = await resumer.permissions.next(10_000, 'the permission request after resume');
    assert.equal(resumed.params.toolCall.toolCallId, p1.params.toolCall.toolCallId);

    // The reconnected client answers first and wins; the others are withdrawn.
    resent.answer({ outcome: { outcome: 'selected', optionId: allowOption(resent.params) } });
    assert.equal((await turn).stopReason, 'end_turn');
    await Promise.all([p1.withdrawn, resumed.withdrawn]);
    // `back`'s updates come over its own socket: the response to r1 says nothing about when they land.
    await waitFor(() => /Permission granted/.test(agentText(back, sid)));
    assert.deepEqual(interactionReplies(h), [{ decision: 'allow' }]);
  });
});

// A client that finds the session through session/list loads it under the real zcode id, not the
// creator's lazy placeholder: open races are keyed by zcode session, so it must still join them.
test('reconnect through session/list: loading the listed (zcode) id also re-sends the open request', async () => {
  await withHarness(async (h) => {
    const r1 = await h.remote('r1');
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:permission]');
    const p1 = await r1.permissions.next(10_000, 'r1');
    // A client that never had the placeholder id finds the session through session/list.
    const phone = await h.remote('phone');
    const { sessions } = await phone.agent.request('session/list', { cwd: h.cwd });
    assert.equal(sessions.length, 1);
    const listedId = sessions[0].sessionId;
    await phone.agent.request('session/load', { sessionId: listedId, cwd: h.cwd, mcpServers: [] });
    try {
      const resent = await phone.permissions.next(5_000, 'the permission request re-sent after loading the listed id');
      assert.equal(resent.params.toolCall.toolCallId, p1.params.toolCall.toolCallId);
      resent.answer({ outcome: { outcome: 'selected', optionId: allowOption(resent.params) } });
      assert.equal((await turn).stopReason, 'end_turn');
    } finally {
      // Unblock the turn if the request never reached the phone.
      p1.answer({ outcome: { outcome: 'selected', optionId: allowOption(p1.params) } });
      await turn;
    }
  });
});

test('a session created by a remote client shows in session/list for everyone and loads elsewhere', async () => {
  await withHarness(async (h) => {
    const remote = await h.remote('phone');
    const local = await h.local('editor');
    const sid = await h.newSession(remote);
    assert.equal((await prompt(remote, sid, '[scenario:text] from the phone')).stopReason, 'end_turn');
    const { sessions } = await local.agent.request('session/list', { cwd: h.cwd });
    assert.equal(sessions.length, 1, 'the remote session is listed for the in-process client');
    assert.equal(sessions[0].cwd, h.cwd);
    const other = await h.remote('tablet');
    const seen = await other.agent.request('session/list', { cwd: h.cwd });
    assert.deepEqual(seen.sessions.map((s) => s.sessionId), sessions.map((s) => s.sessionId));
    // The editor opens it and gets the phone's conversation replayed.
    const listedId = sessions[0].sessionId;
    await local.agent.request('session/load', { sessionId: listedId, cwd: h.cwd, mcpServers: [] });
    assert.match(agentText(local, listedId), /A tiny greeting helper/);
  });
});

test('shutdown: disposing the bridge closes every remote connection and the listener', async () => {
  const h = await startHarness();
  try {
    const [r1, r2] = await Promise.all([h.remote('r1'), h.remote('r2')]);
    const raw = new WebSocket(h.server.url, { headers: { Authorization: `Bearer ${h.token}` } });
    await opened(raw);
    const sid = await h.newSession(r1);
    const turn = prompt(r1, sid, '[scenario:long]').catch((error: unknown) => error);
    await r2.waitForUpdate((n) => n.sessionId === sid);
    const rawClosed = closed(raw);
    await h.bridge.dispose();
    // No server.close() from the test: the endpoint follows the bridge (onDidDispose).
    await Promise.all([r1.connection.closed, r2.connection.closed, rawClosed]);
    await turn;
    await waitFor(() => h.server.clientCount === 0);
    await waitForPortFree(h.server.port);
    assert.ok(h.logger.lines.some((l) => l.includes('remote access: closed')));
  } finally {
    await h.close();
  }
});

async function waitForPortFree(port: number, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return;
    if (Date.now() - start > timeoutMs) throw new Error(`port ${port} is still in use`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
