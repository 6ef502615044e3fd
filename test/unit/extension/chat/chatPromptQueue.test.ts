/**
 * The chat's prompts in the bridge's queue (extension/chat/chatTurns.ts): every prompt is sent when
 * the user sends it and waits as a chip until the bridge starts it; the turn boundary is the order
 * of the bridge's events (answer, promptStarted, updates), not promise continuations; Remove
 * cancels one waiting request, Stop cancels the session only; a prompt refused before its turn
 * gives its text back.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { DidRestoreDraftNotification, ReadyCommand, RemoveQueuedCommand, SendPromptCommand, CancelTurnCommand } from '../../../../webview-ui/contract.ts';
import { AnswerError } from '../../../../extension/bridgeInbox.ts';
import { deferred, setup, tick } from './chatHarness.ts';

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const d of disposers.splice(0)) d();
});

function started(extraEnv: Parameters<typeof setup>[1] = {}) {
  const t = setup(undefined, extraEnv);
  disposers.push(() => t.controller.dispose());
  t.send(ReadyCommand, {});
  return t;
}

/** Sends each prompt as the user would, one after the other. */
async function sendEach(t: ReturnType<typeof setup>, ...texts: string[]): Promise<void> {
  for (const text of texts) {
    t.send(SendPromptCommand, { text, attachments: [] });
    await tick();
  }
}

const say = (t: ReturnType<typeof setup>, text: string) => t.host.update('s1', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const shape = (t: ReturnType<typeof setup>) =>
  t.view.list.items.map((i) => `${i.type}${'text' in i ? `:${i.text}` : 'title' in i ? `:${i.title}` : 'message' in i ? `:${i.message}` : ''}`);
const prompts = (t: ReturnType<typeof setup>) => t.host.requests.filter((r) => r.method === 'session/prompt').length;

describe('chat: one prompt queue, the bridge’s', () => {
  test("the next prompt's updates land in its own turn even when they come before the previous request's promise settles", async () => {
    const t = started();
    await sendEach(t, 'first', 'second');
    say(t, 'one');
    // All in one synchronous run, as the bridge wrote them: the first's answer, the second's start,
    // its first words. No promise continuation runs in between.
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    say(t, 'two');
    t.sync();
    assert.deepEqual(shape(t), ['user:first', 'agent:one', 'user:second', 'agent:two']);
    assert.deepEqual(t.view.session?.queue, []);
    assert.equal(t.view.session?.running, true);
  });

  test('a failed turn puts its error line before the next prompt, in order', async () => {
    const t = started();
    await sendEach(t, 'first', 'second');
    t.host.prompts[0].reject(new AnswerError(-32603, 'the model is overloaded', { zcode: { retryable: true } }));
    say(t, 'two');
    t.sync();
    assert.deepEqual(shape(t), ['user:first', 'error:the model is overloaded', 'user:second', 'agent:two']);
  });

  test('Remove cancels that one waiting request; it never starts and the next one runs after the turn', async () => {
    const t = started();
    await sendEach(t, 'first', 'second', 'third');
    t.sync();
    assert.deepEqual(t.view.session?.queue.map((q) => q.text), ['second', 'third']);
    t.send(RemoveQueuedCommand, { id: t.view.session!.queue[0].id });
    t.sync();
    assert.deepEqual(t.view.session?.queue.map((q) => q.text), ['third']);
    assert.equal(t.host.prompts[1].settled, true, "the bridge answered the removed prompt's cancellation");
    assert.equal(t.host.prompts[1].started, false);
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    t.sync();
    assert.deepEqual(shape(t), ['user:first', 'user:third']);
    assert.equal(t.host.cancelled.length, 0, 'Remove does not cancel the session');
    assert.equal(t.replies.filter((m) => DidRestoreDraftNotification.is(m)).length, 0, 'a removed prompt is not a failure');
  });

  test('Stop cancels the session in the bridge only: the running turn stops, the waiting chips go, nothing else is sent', async () => {
    const t = started();
    await sendEach(t, 'first', 'second', 'third');
    const sentBefore = t.host.requests.length;
    t.send(CancelTurnCommand, {});
    await tick();
    t.sync();
    assert.deepEqual(t.host.cancelled, ['s1']);
    assert.deepEqual(t.view.session?.queue, []);
    assert.equal(t.host.requests.length, sentBefore, 'no request per prompt: the session/cancel covers them');
    assert.deepEqual([t.host.prompts[1].settled, t.host.prompts[2].settled], [true, true]);
    t.host.prompts[0].resolve({ stopReason: 'cancelled' });
    t.sync();
    assert.deepEqual(shape(t), ['user:first', 'notice:Stopped.']);
    assert.equal(t.view.session?.running, false);
  });

  test('a prompt the bridge refuses before its turn: an error line, the text back in the composer, the queue goes on', async () => {
    const t = started();
    await sendEach(t, 'first', 'second', 'third');
    t.host.prompts[1].reject(new AnswerError(-32602, 'the prompt is too large'));
    t.sync();
    assert.deepEqual(t.view.session?.queue.map((q) => q.text), ['third']);
    assert.deepEqual(shape(t), ['user:first', 'error:the prompt is too large']);
    assert.deepEqual(t.replies.filter((m) => DidRestoreDraftNotification.is(m)).map((m) => (m.params as { text: string }).text), ['second']);
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    t.sync();
    assert.equal(shape(t).at(-1), 'user:third');
  });

  test('prompts leave in the order they were sent, also when the first waits for its attachment to be read', async () => {
    const file = deferred<{ text: string } | undefined>();
    const t = started({ fileContent: () => file.promise });
    t.host.initializeResult.agentCapabilities.promptCapabilities.embeddedContext = true;
    t.send(SendPromptCommand, { text: 'with a file', attachments: [{ kind: 'file', id: 'f', name: 'a.ts', uri: 'file:///w/a.ts' }] });
    t.send(SendPromptCommand, { text: 'plain', attachments: [] });
    await tick();
    assert.equal(prompts(t), 0, 'the second waits for the first to leave');
    file.resolve({ text: 'export {}' });
    await tick();
    await tick();
    assert.deepEqual(
      t.host.prompts.map((p) => p.params.prompt[0]),
      [{ type: 'text', text: 'with a file' }, { type: 'text', text: 'plain' }],
    );
  });

  test("another client's turn shows as running, with Stop, until the bridge's queue says it is over; its waiting prompts are named chips", async () => {
    const t = started();
    await tick();
    t.sync();
    assert.equal(t.view.session?.sessionId, 's1');
    const toad = { clientId: 2, kind: 'remote', label: 'toad' };
    const theirs = t.host.othersPrompt('s1');
    t.host.ext.fire({ method: '_zcode/session/queue', params: { sessionId: 's1', running: { text: 'theirs', sentBy: toad }, waiting: [{ text: 'next', sentBy: toad }] } });
    t.send(SendPromptCommand, { text: 'mine', attachments: [] });
    await tick();
    t.sync();
    assert.equal(t.view.session?.running, true);
    assert.deepEqual(t.view.session?.queue.map((q) => [q.text, q.from]), [
      ['next', 'toad'],
      ['mine', undefined],
    ]);
    t.send(CancelTurnCommand, {});
    await tick();
    assert.deepEqual(t.host.cancelled, ['s1'], "Stop cancels the session's turn, whoever sent it");
    assert.equal(t.host.prompts[0].settled, true, 'the waiting own prompt was answered cancelled');
    theirs.resolve({ stopReason: 'cancelled' });
    t.host.ext.fire({ method: '_zcode/session/queue', params: { sessionId: 's1', waiting: [] } });
    t.sync();
    assert.equal(t.view.session?.running, false);
    assert.deepEqual(t.view.session?.queue, []);
    assert.deepEqual(t.view.list.items, [], "nothing of this chat's ran");
  });

  test("the chat's own turn is ended by its answer, not by the bridge's queue", async () => {
    const t = started();
    t.send(SendPromptCommand, { text: 'mine', attachments: [] });
    await tick();
    const local = { clientId: 1, kind: 'local' };
    const promptId = t.host.prompts[0].promptId;
    t.host.ext.fire({ method: '_zcode/session/queue', params: { sessionId: 's1', running: { text: 'mine', promptId, sentBy: local }, waiting: [] } });
    t.host.ext.fire({ method: '_zcode/session/queue', params: { sessionId: 's1', waiting: [] } });
    t.sync();
    assert.equal(t.view.session?.running, true, 'still running: its answer has not come');
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    t.sync();
    assert.equal(t.view.session?.running, false);
  });

  test('another session shown: the chat stops following its prompts, which still run in the bridge', async () => {
    const t = started();
    await sendEach(t, 'first', 'second');
    await t.sessions.newSession();
    t.sync();
    assert.equal(t.view.session?.sessionId, 's2');
    assert.deepEqual(t.view.session?.queue, []);
    assert.equal(t.host.prompts[1].settled, false, 'not cancelled');
    t.host.prompts[0].resolve({ stopReason: 'end_turn' });
    t.sync();
    assert.deepEqual(shape(t), [], "s1's turns do not show in s2");
  });
});
