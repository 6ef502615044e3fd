/**
 * The extension's inbox on the in-process link (extension/bridgeInbox.ts): an SDK client app on one
 * side, the test writing the bridge's messages on the other. The inbox hands notifications and
 * named prompts' answers on in the order they were written, the answer before the request's
 * promise settles; it skips protocol notifications, reports what it cannot read, and a throwing
 * listener does not stop the link.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { client, type AnyMessage } from '@agentclientprotocol/sdk';
import { linkedStreams } from '../../../bridge/acp/transport/streams.ts';
import { AnswerError, BridgeInbox, type InboxSink, type PromptAnswer } from '../../../extension/bridgeInbox.ts';

function link(sink: Partial<InboxSink> = {}) {
  const events: string[] = [];
  const failures: string[] = [];
  const answers: PromptAnswer[] = [];
  const inbox = new BridgeInbox({
    sessionUpdate: (n) => {
      events.push(`update:${n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? n.update.content.text : n.update.sessionUpdate}`);
    },
    notification: (method) => void events.push(method),
    promptAnswered: (answer) => {
      answers.push(answer);
      events.push(`answer:${answer.promptId}`);
    },
    failed: (what, error) => void failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
    ...sink,
  });
  const { agentSide, clientSide } = linkedStreams({ kind: 'local' }, [inbox.observe]);
  const connection = client({ name: 'inbox-test' }).connect(clientSide);
  const requests: AnyMessage[] = [];
  const reader = agentSide.readable.getReader();
  const writer = agentSide.writable.getWriter();
  /** The next request the client sent. */
  const nextRequest = async (): Promise<AnyMessage & { id: number | string }> => {
    const { value } = await reader.read();
    assert.ok(value && 'id' in value && value.id !== null);
    requests.push(value);
    return value as AnyMessage & { id: number | string };
  };
  const write = (message: object) => writer.write({ jsonrpc: '2.0', ...message } as AnyMessage);
  const chunk = (text: string) => ({ method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
  return { events, failures, answers, connection, nextRequest, write, chunk };
}

describe('bridge inbox', () => {
  test('notifications and a named prompt’s answer reach the host in the order the bridge wrote them, the answer before the promise settles', async () => {
    const l = link();
    let settledAfter = -1;
    const answer = l.connection.agent
      .request('session/prompt', { sessionId: 's1', prompt: [{ type: 'text', text: 'hi' }], _meta: { zcode: { promptId: 'p1' } } })
      .then((response) => {
        settledAfter = l.events.length;
        return response;
      });
    const request = await l.nextRequest();
    await l.write(l.chunk('one'));
    await l.write({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'queued' } });
    await l.write(l.chunk('two'));
    await l.write({ id: request.id, result: { stopReason: 'end_turn' } });
    await l.write({ method: '_zcode/session/promptStarted', params: { sessionId: 's1', promptId: 'p2' } });
    await l.write(l.chunk('three'));
    assert.deepEqual(await answer, { stopReason: 'end_turn' });
    assert.deepEqual(l.events, ['update:one', '_zcode/session/steerState', 'update:two', 'answer:p1', '_zcode/session/promptStarted', 'update:three']);
    assert.ok(l.events.indexOf('answer:p1') !== -1 && l.events.indexOf('answer:p1') < settledAfter, 'the answer event comes before the promise settles');
    assert.deepEqual(l.answers, [{ sessionId: 's1', promptId: 'p1', outcome: { stopReason: 'end_turn' } }]);
  });

  test('an error answer carries its code, message and data; a prompt without a promptId is not reported', async () => {
    const l = link();
    const failed = l.connection.agent.request('session/prompt', { sessionId: 's1', prompt: [], _meta: { zcode: { promptId: 'p1' } } }).catch((e: unknown) => e);
    const named = await l.nextRequest();
    const plain = l.connection.agent.request('session/prompt', { sessionId: 's1', prompt: [] });
    const unnamed = await l.nextRequest();
    await l.write({ id: named.id, error: { code: -32603, message: 'overloaded', data: { zcode: { retryable: true } } } });
    await l.write({ id: unnamed.id, result: { stopReason: 'end_turn' } });
    await failed;
    await plain;
    assert.equal(l.answers.length, 1);
    const outcome = l.answers[0].outcome;
    assert.ok('error' in outcome && outcome.error instanceof AnswerError);
    assert.deepEqual([outcome.error.code, outcome.error.message, outcome.error.data], [-32603, 'overloaded', { zcode: { retryable: true } }]);
  });

  test('protocol notifications are not passed on; an unreadable session/update is reported; a throwing listener does not stop the link', async () => {
    let thrown = false;
    const l = link({
      notification: (method) => {
        if (!thrown) {
          thrown = true;
          throw new Error(`listener of ${method} broke`);
        }
      },
    });
    await l.write({ method: '$/cancel_request', params: { requestId: 7 } });
    await l.write({ method: 'session/update', params: { sessionId: 's1' } });
    await l.write({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'queued' } });
    await l.write(l.chunk('after'));
    // A round trip proves the link still carries messages after the listener threw.
    const pong = l.connection.agent.request('session/prompt', { sessionId: 's1', prompt: [], _meta: { zcode: { promptId: 'p9' } } });
    const request = await l.nextRequest();
    await l.write({ id: request.id, result: { stopReason: 'cancelled' } });
    await pong;
    assert.deepEqual(l.events, ['update:after', 'answer:p9']);
    assert.deepEqual(l.failures, ['session/update: a session/update without a sessionId and an update kind', '_zcode/session/steerState: listener of _zcode/session/steerState broke']);
  });

  test('a session/update it delivered is marked delivered (the link keeps it from the SDK); other messages and an unreadable update are not', () => {
    const inbox = new BridgeInbox({ sessionUpdate: () => {}, notification: () => {}, promptAnswered: () => {}, failed: () => {} });
    const message = (m: object) => ({ jsonrpc: '2.0', ...m }) as AnyMessage;
    const chunk = message({ method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } } } });
    assert.equal(inbox.observe('out', chunk), 'delivered');
    assert.equal(inbox.observe('out', message({ method: 'session/update', params: { sessionId: 's1' } })), undefined);
    assert.equal(inbox.observe('out', message({ method: '_zcode/session/steerState', params: { sessionId: 's1', state: 'queued' } })), undefined);
    assert.equal(inbox.observe('out', message({ id: 4, result: {} })), undefined);
    assert.equal(inbox.observe('in', chunk), undefined);
  });
});
