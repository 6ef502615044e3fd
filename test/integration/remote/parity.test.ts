/**
 * Remote parity over real WebSockets: a prompt sent by one client appears in
 * the other clients' transcripts with who sent it; a replay is shaped for the client that loads it;
 * the slash menu, `/quota` and `_zcode/account/usage` work for a remote client. Every message the
 * bridge sends is schema-validated (strict) by the clients' taps (harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { useZcodeAccount } from '../../helpers/zcodeHome.ts';
import { agentText, promptText, startHarness } from './bridgeHarness.ts';

const T = { timeout: 60_000 };
const TERMINAL = { _meta: { terminal_output: true } };
const account = useZcodeAccount();
const { zhome } = account;

function userChunks(updates: readonly SessionNotification[], sessionId: string): SessionNotification[] {
  return updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'user_message_chunk');
}

describe('remote parity (WebSocket)', () => {
  test("a prompt from the phone shows in the editor's transcript with who sent it; not echoed back to the phone", T, async () => {
    const h = await startHarness();
    try {
      const editor = await h.local('vscode', TERMINAL);
      const phone = await h.remote('phone');
      const sessionId = await h.newSession(editor);
      await editor.agent.request('session/prompt', { sessionId, prompt: promptText('first from the editor [scenario:text]') });
      await phone.agent.request('session/load', { sessionId, cwd: h.cwd, mcpServers: [] });
      const loaded = userChunks(phone.updates, sessionId).length;
      await phone.agent.request('session/prompt', { sessionId, prompt: promptText('from the phone [scenario:text]') });
      const echoed = userChunks(editor.updates, sessionId);
      assert.equal(echoed.length, 1, 'the editor sees the phone prompt once');
      const update = echoed[0].update;
      assert.ok(update.sessionUpdate === 'user_message_chunk' && update.content.type === 'text');
      assert.equal(update.content.text, 'from the phone [scenario:text]');
      assert.deepEqual((update._meta as { zcode: { sentBy: { kind: string } } }).zcode.sentBy.kind, 'remote');
      assert.equal(userChunks(phone.updates, sessionId).length, loaded, 'the sender is not sent its own prompt');
      assert.ok(agentText(editor, sessionId).length > 0 && agentText(phone, sessionId).length > 0);
    } finally {
      await h.close();
    }
  });

  test('a replay is shaped for the loading client: no terminal cards for a client that never declared them', T, async () => {
    const h = await startHarness();
    try {
      const editor = await h.local('vscode', TERMINAL);
      const sessionId = await h.newSession(editor);
      await editor.agent.request('session/prompt', { sessionId, prompt: promptText('[scenario:bash]') });
      const zed = await h.remote('zed');
      await zed.agent.request('session/load', { sessionId, cwd: h.cwd, mcpServers: [] });
      const cards = zed.updates.filter((n) => n.sessionId === sessionId && (n.update.sessionUpdate === 'tool_call' || n.update.sessionUpdate === 'tool_call_update'));
      assert.ok(cards.length > 0);
      assert.ok(cards.every((n) => !JSON.stringify(n.update._meta ?? {}).match(/terminal_(info|output|exit)/)), 'no terminal meta for zed');
      const editorLoadStart = editor.updates.length;
      await editor.agent.request('session/load', { sessionId, cwd: h.cwd, mcpServers: [] });
      assert.ok(editor.updates.slice(editorLoadStart).some((n) => JSON.stringify(n.update._meta ?? {}).includes('terminal_info')), 'the terminal client still gets them');
    } finally {
      await h.close();
    }
  });

  test("a remote client gets zcode's commands in the menu, /quota and _zcode/account/usage", T, async () => {
    const h = await startHarness();
    try {
      const phone = await h.remote('phone');
      const { sessionId } = await phone.agent.request('session/new', { cwd: zhome.home, mcpServers: [] });
      const menu = await phone.waitForUpdate((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'available_commands_update');
      const names = menu.update.sessionUpdate === 'available_commands_update' ? menu.update.availableCommands.map((c) => c.name) : [];
      for (const name of ['quota', 'init', 'resume', 'deploy', 'review']) assert.ok(names.includes(name), `${name} in ${names.join(',')}`);
      await phone.agent.request('session/prompt', { sessionId, prompt: promptText('/quota') });
      assert.match(agentText(phone, sessionId), /^GLM Coding Plan \(pro\):\n- 75% left of the 5-hour window/);
      const usage = (await phone.agent.request('_zcode/account/usage', {})) as { quota: { windows: unknown[]; stale: boolean } };
      assert.equal(usage.quota.windows.length, 2);
      account.quota.fail();
      const stale = (await phone.agent.request('_zcode/account/usage', { refresh: true })) as { quota: { stale: boolean; staleReason: string }; unavailable: { reason: string } };
      assert.equal(stale.quota.stale, true, 'the last figures, marked stale');
      assert.equal(stale.unavailable.reason, 'unexpected');
      assert.match(stale.quota.staleReason, /service unavailable/);
    } finally {
      await h.close();
    }
  });
});
