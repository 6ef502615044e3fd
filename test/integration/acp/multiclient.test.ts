/**
 * Several ACP clients on one bridge (seed "Multi-client semantics"): broadcast, first answer wins
 * (losers get `$/cancel_request`), capability OR-merge driving the routing, catch-up of open dialogs
 * after `session/load`, shared cancel and serialized prompts, and the client registry itself.
 * In-process clients (the WebSocket transport is the remote engineer's; it uses the same registry).
 */
import { currentEra } from '../../helpers/sim.ts';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, RequestError } from '@agentclientprotocol/sdk';
import type { RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { AcpHarness } from './harness.ts';
import { agentText, newSession, prompt, sleep, withHarness, WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };
const FORMS = { elicitation: { form: {} } };

function waitUntilAborted(signal: AbortSignal): Promise<RequestPermissionResponse> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ outcome: { outcome: 'cancelled' } }), { once: true }));
}

function permissionReplies(h: AcpHarness): unknown[] {
  return h.simRecord().received.filter((m) => 'result' in m && typeof (m.result as { decision?: unknown })?.decision === 'string').map((m) => m.result);
}

describe('multi-client (inproc)', () => {
  test('session/update and _zcode notifications are broadcast to every client', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const other = await h.addClient('phone');
      const sessionId = await newSession(h);
      await prompt(h, sessionId, '[scenario:text]');
      assert.ok(other.updatesOf(sessionId).length > 0);
      assert.equal(agentText(other.updatesOf(sessionId)), agentText(h.updatesOf(sessionId)));
      await prompt(h, sessionId, '[scenario:bash-bg]');
      const tasks = (c: typeof h | typeof other) => c.notifications.filter((n) => n.method === '_zcode/session/backgroundTasks').length;
      await h.waitFor('background task notifications at both clients', () => tasks(h) >= 2 && tasks(other) === tasks(h));
    });
  });

  test('permission: first answer wins, the loser gets $/cancel_request, zcode gets one answer', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const other = await h.addClient('phone');
      const sessionId = await newSession(h);
      h.onPermission = (_params, signal) => waitUntilAborted(signal);
      other.onPermission = async (params) => {
        await sleep(50);
        return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === 'reject_once')!.optionId } };
      };
      assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
      await h.waitFor('the loser to be told', () => h.dialogs[0].signal.aborted);
      assert.equal(h.traffic.sent.filter((m) => 'method' in m && m.method === '$/cancel_request').length, 1);
      assert.equal(other.traffic.sent.filter((m) => 'method' in m && m.method === '$/cancel_request').length, 0);
      // Current builds: the deny option's own response; seed builds: the bridge's deny.
      assert.deepEqual(permissionReplies(h), [currentEra() ? { decision: 'deny', reason: 'The user denied this tool call' } : { decision: 'deny', reason: 'rejected (deny)' }]);
    });
  });

  test('a client that errors or dismisses does not win while another can still answer', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const other = await h.addClient('phone');
      const sessionId = await newSession(h);
      h.onPermission = async () => {
        throw RequestError.internalError(undefined, 'ui crashed');
      };
      other.onPermission = async (params) => {
        await sleep(30);
        return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
      };
      assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
      h.onPermission = async () => ({ outcome: { outcome: 'cancelled' } });
      assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
      assert.deepEqual(permissionReplies(h), [{ decision: 'allow' }, { decision: 'allow' }]);
    });
  });

  test('capabilities are OR-merged: forms go only to form-capable clients, and stop when they leave', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const formClient = await h.addClient('browser', FORMS);
      const sessionId = await newSession(h);
      formClient.onForm = async () => ({ action: 'accept', content: { q_0: 'Rust', q_1: ['Lint'] } });
      await prompt(h, sessionId, '[scenario:questions]');
      assert.equal(h.dialogs.length, 0, 'the client without forms got no form');
      assert.deepEqual(formClient.dialogs.map((d) => d.method), ['elicitation/create']);
      formClient.connection.close();
      await h.waitFor('the client to leave', () => h.bridge!.clients.length === 1);
      h.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
      await prompt(h, sessionId, '[scenario:questions]');
      assert.deepEqual(h.dialogs.map((d) => d.method), ['session/request_permission', 'session/request_permission']);
    });
  });

  test('a client that loads the session gets its open dialogs after the replay and can answer them', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const sessionId = await newSession(h);
      h.onPermission = (_params, signal) => waitUntilAborted(signal);
      const running = prompt(h, sessionId, '[scenario:permission]');
      await h.dialog(1);
      const late = await h.addClient('late');
      late.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
      await late.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
      assert.equal((await running).stopReason, 'end_turn');
      assert.equal(late.dialogs.length, 1);
      const sent = late.traffic.sent;
      const loadResponse = sent.findIndex((m) => !('method' in m) && 'result' in m && m.result !== null && typeof m.result === 'object' && 'configOptions' in m.result);
      const dialog = sent.findIndex((m) => 'method' in m && m.method === 'session/request_permission');
      assert.ok(loadResponse !== -1 && dialog > loadResponse, 'the dialog comes after the load response');
      assert.ok(h.dialogs[0].signal.aborted, "the first client's dialog was withdrawn");
      assert.deepEqual(permissionReplies(h), [{ decision: 'allow' }]);
    });
  });

  test('a client that loads the session under its real zcode id (from session/list) joins the open dialog under that id', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const sessionId = await newSession(h);
      h.onPermission = (_params, signal) => waitUntilAborted(signal);
      const running = prompt(h, sessionId, '[scenario:permission]');
      await h.dialog(1);
      const phone = await h.addClient('phone');
      phone.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
      const { sessions } = await phone.agent.request('session/list', { cwd: WORKSPACE });
      assert.equal(sessions[0].sessionId, sessionId, 'listed under the id session/new gave');
      const listed = (sessions[0]._meta as { zcode: { sessionId: string } }).zcode.sessionId;
      assert.notEqual(listed, sessionId);
      await phone.agent.request('session/load', { sessionId: listed, cwd: WORKSPACE, mcpServers: [] });
      assert.equal((await running).stopReason, 'end_turn');
      assert.equal((phone.dialogs[0].params as { sessionId: string }).sessionId, listed, 'the request names the id the phone knows');
      assert.deepEqual(permissionReplies(h), [{ decision: 'allow' }]);
    });
  });

  test('session/cancel from any client cancels the shared turn; prompts from two clients are serialized', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const other = await h.addClient('phone');
      const sessionId = await newSession(h);
      const running = prompt(h, sessionId, '[scenario:long]');
      await h.waitFor('the turn to stream', () => h.updatesOf(sessionId).length > 2);
      await other.agent.notify('session/cancel', { sessionId });
      assert.equal((await running).stopReason, 'cancelled');
      const [a, b] = await Promise.all([prompt(h, sessionId, '[scenario:text] one'), prompt(other, sessionId, '[scenario:text] two')]);
      assert.equal(a.stopReason, 'end_turn');
      assert.equal(b.stopReason, 'end_turn');
      assert.equal(h.simRecord().received.filter((m) => m.method === 'session/send').length, 3);
    });
  });

  test('terminal rendering follows the merged capabilities: a terminal_output client that connects later switches new shell cards (and back when it leaves)', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const sessionId = await newSession(h);
      /** The shell card the last prompt opened: terminal (content `terminal` + `_meta.terminal_info`) or text. */
      const lastShellCard = async (): Promise<'terminal' | 'text'> => {
        const from = h.updatesOf(sessionId).length;
        assert.equal((await prompt(h, sessionId, '[scenario:bash]')).stopReason, 'end_turn');
        const updates = h.updatesOf(sessionId).slice(from);
        const card = updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
        assert.ok(card && card.sessionUpdate === 'tool_call', 'a shell card');
        const terminal = card.content?.some((c) => c.type === 'terminal') === true && card._meta?.terminal_info !== undefined;
        const closing = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === card.toolCallId);
        // The card keeps the form it was announced with until it closes.
        assert.equal(closing.some((u) => u._meta?.terminal_exit !== undefined), terminal);
        return terminal ? 'terminal' : 'text';
      };
      // The session's translator is created while only a text client is connected.
      assert.equal(await lastShellCard(), 'text');
      const zed = await h.addClient('zed', { _meta: { terminal_output: true } });
      assert.equal(await lastShellCard(), 'terminal');
      zed.connection.close();
      await h.waitFor('the terminal client to go', () => h.bridge!.clients.length === 1);
      assert.equal(await lastShellCard(), 'text');
    });
  });

  test('a replay is shaped for the client that loads: no terminal cards for one that never declared them, while a terminal client is connected', T, async () => {
    await withHarness('inproc', { caps: { _meta: { terminal_output: true } } }, async (h) => {
      const sessionId = await newSession(h);
      assert.equal((await prompt(h, sessionId, '[scenario:bash]')).stopReason, 'end_turn');
      const shellCard = (updates: ReturnType<AcpHarness['updatesOf']>) => updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
      const plain = await h.addClient('zed');
      await plain.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
      const card = shellCard(plain.updatesOf(sessionId));
      assert.ok(card && card.sessionUpdate === 'tool_call', 'the shell card was replayed');
      assert.ok(!card.content?.some((c) => c.type === 'terminal'), 'no terminal content');
      assert.equal(card._meta?.terminal_info, undefined, 'no terminal meta');
      // The terminal client loading the same session still gets its terminal card.
      const from = h.updatesOf(sessionId).length;
      await h.agent.request('session/load', { sessionId, cwd: WORKSPACE, mcpServers: [] });
      const own = shellCard(h.updatesOf(sessionId).slice(from));
      assert.ok(own && own.sessionUpdate === 'tool_call' && own._meta?.terminal_info !== undefined, 'terminal card for the terminal client');
    });
  });

  test('the registry: clients listed and removed, onDidChangeClients fires, clientApp.connect(bridge.app) registers too', T, async () => {
    await withHarness('inproc', {}, async (h) => {
      const bridge = h.bridge!;
      let changes = 0;
      const sub = bridge.onDidChangeClients(() => changes++);
      const direct = client({ name: 'direct' }).connect(bridge.app);
      await direct.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
      assert.equal(bridge.clients.length, 2);
      assert.deepEqual(bridge.clients.map((c) => c.info.kind), ['local', 'local']);
      const { sessionId } = await direct.agent.request('session/new', { cwd: WORKSPACE, mcpServers: [] });
      const response = await direct.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '[scenario:text]' }] });
      assert.equal(response.stopReason, 'end_turn');
      assert.ok(bridge.sessionSummaries().some((s) => s.sessionId === sessionId && s.running === false));
      direct.close();
      await h.waitFor('the direct client to go', () => bridge.clients.length === 1);
      assert.ok(changes >= 3, `connect, initialize, close (${changes})`);
      sub.dispose();
    });
  });
});
