/**
 * The chat on the real bridge and the simulator, wired like the extension (test/helpers/chatOnLink.ts):
 * there is one prompt queue, the bridge's. Prompts sent while a turn runs reach the bridge at once
 * and wait there as chips; each becomes the user's message when the bridge starts it, with its own
 * answer under it; a removed one never reaches zcode; Stop leaves nothing waiting.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReadyCommand, RemoveQueuedCommand, SendPromptCommand, CancelTurnCommand } from '../../../webview-ui/contract.ts';
import type { TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { chatOnLink, type ChatOnLink } from '../../helpers/chatOnLink.ts';
import { testWorkspace } from '../../helpers/workspace.ts';
import { withBridge, type AcpHarness } from './support.ts';

const CWD = testWorkspace('ext-chat-queue');

async function chatOn(h: AcpHarness): Promise<ChatOnLink> {
  assert.ok(h.bridge, 'the in-process bridge');
  const chat = await chatOnLink(h.bridge, async (host) => (await host.request('session/new', { cwd: CWD, mcpServers: [] })).sessionId);
  chat.controller.attach(() => {});
  chat.controller.receive({ id: 'r', method: ReadyCommand.method, params: {} });
  return chat;
}

let n = 0;
const send = (chat: ChatOnLink, text: string) => chat.controller.receive({ id: `p${++n}`, method: SendPromptCommand.method, params: { text, attachments: [] } });
const promptsSent = (chat: ChatOnLink) => chat.sent.filter((m) => 'method' in m && m.method === 'session/prompt').length;
/** The texts zcode was asked to answer, in order. */
const zcodeSends = (h: AcpHarness) =>
  h
    .simRecord()
    .received.filter((m) => m.method === 'session/send' && 'id' in m)
    .map((m) => String((m.params as { content?: unknown }).content));
const userTexts = (items: readonly TranscriptItem[]) => items.flatMap((i) => (i.type === 'user' ? [i.text] : []));

describe('the chat on the bridge: one prompt queue', () => {
  test('prompts sent during a turn wait in the bridge; each answer sits under its own prompt; a removed one never reaches zcode', () =>
    withBridge({}, async (h) => {
      const chat = await chatOn(h);
      try {
        send(chat, '[scenario:long:6] go');
        await h.waitFor('the long turn to stream', () => chat.controller.items.some((i) => i.type === 'agent' && i.text.length > 50));
        for (const text of ['alpha', 'beta', 'gamma']) send(chat, text);
        await h.waitFor('all four prompts at the bridge', () => promptsSent(chat) === 4);
        assert.equal(chat.controller.session.running, true, 'the long turn still runs');
        assert.deepEqual(chat.controller.session.queue.map((q) => q.text), ['alpha', 'beta', 'gamma']);
        assert.deepEqual(zcodeSends(h), ['[scenario:long:6] go'], 'the waiting prompts are in the bridge, not at zcode');

        const beta = chat.controller.session.queue[1];
        chat.controller.receive({ id: 'rm', method: RemoveQueuedCommand.method, params: { id: beta.id } });
        assert.deepEqual(chat.controller.session.queue.map((q) => q.text), ['alpha', 'gamma']);

        await h.waitFor('every prompt answered', () => !chat.controller.session.running && chat.controller.session.queue.length === 0 && userTexts(chat.controller.items).length === 3, 30_000);
        assert.deepEqual(zcodeSends(h), ['[scenario:long:6] go', 'alpha', 'gamma']);
        const items = chat.controller.items;
        assert.deepEqual(userTexts(items), ['[scenario:long:6] go', 'alpha', 'gamma']);
        // Each prompt's answer is the agent text between it and the next prompt.
        for (const text of ['alpha', 'gamma']) {
          const at = items.findIndex((i) => i.type === 'user' && i.text === text);
          const next = items.findIndex((i, k) => k > at && i.type === 'user');
          const answer = items.slice(at + 1, next === -1 ? undefined : next).flatMap((i) => (i.type === 'agent' ? [i.text] : [])).join('');
          assert.match(answer, new RegExp(`You said: \\*\\*${text}\\*\\*`), `${text}'s answer is under ${text}`);
        }
        assert.deepEqual(chat.failures, []);
        h.assertClean();
      } finally {
        chat.dispose();
      }
    }));

  test('Stop during a turn with prompts waiting: the turn stops and none of them reaches zcode', () =>
    withBridge({}, async (h) => {
      const chat = await chatOn(h);
      try {
        send(chat, '[scenario:long:12] go');
        await h.waitFor('the long turn to stream', () => chat.controller.items.some((i) => i.type === 'agent' && i.text.length > 50));
        for (const text of ['alpha', 'beta']) send(chat, text);
        await h.waitFor('both waiting prompts at the bridge', () => promptsSent(chat) === 3);
        chat.controller.receive({ id: 'stop', method: CancelTurnCommand.method, params: {} });
        await h.waitFor('the turn to stop', () => !chat.controller.session.running && chat.controller.items.some((i) => i.type === 'notice' && i.title === 'Stopped.'), 30_000);
        assert.deepEqual(chat.controller.session.queue, []);
        const cancels = chat.sent.filter((m) => 'method' in m && (m.method === 'session/cancel' || m.method === '$/cancel_request')).map((m) => ('method' in m ? m.method : ''));
        assert.deepEqual(cancels, ['session/cancel'], 'Stop is one session/cancel');
        assert.deepEqual(zcodeSends(h), ['[scenario:long:12] go']);
        assert.deepEqual(userTexts(chat.controller.items), ['[scenario:long:12] go']);
        assert.deepEqual(chat.failures, []);
      } finally {
        chat.dispose();
      }
    }));
});
