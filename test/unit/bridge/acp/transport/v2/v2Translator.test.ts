/**
 * The v1 ⇄ v2 translation of one connection (v2Payloads.ts, v2Translator.ts), message by message:
 * what a v2 client sends becomes what the v1 handlers take, and what they answer becomes valid
 * draft-v2 traffic (every message checked against schema/v2/schema.json).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { V2Translator } from '../../../../../../bridge/acp/transport/v2/v2Translator.ts';
import { diffV2, initializeResultV2 } from '../../../../../../bridge/acp/transport/v2/v2Payloads.ts';
import { initializeResponse } from '../../../../../../bridge/acp/transport/initializeAnswer.ts';
import { validateOutgoing } from '../../../../../helpers/acpSchema.ts';

type Msg = Record<string, unknown>;

/** A translator with counting ids, and the v2 client's requests by id (to validate answers by method). */
function world() {
  let n = 0;
  const t = new V2Translator(() => `m${++n}`);
  const asked = new Map<unknown, string>();
  const send = (message: Msg): AnyMessage | undefined => {
    if ('id' in message && 'method' in message) asked.set(message.id, message.method as string);
    const { toAgent, toClient } = t.fromClient({ jsonrpc: '2.0', ...message } as AnyMessage);
    toClient.forEach(check);
    return toAgent;
  };
  const check = (message: AnyMessage): void => {
    const m = message as Msg;
    if (typeof m.method === 'string') validateOutgoing(m.method, m.params, 'id' in m ? 'request' : 'notification', 2);
    else if ('result' in m) validateOutgoing(asked.get(m.id) ?? 'unknown', m.result, 'response', 2);
  };
  const reply = (message: Msg): Msg[] => {
    const out = t.fromAgent({ jsonrpc: '2.0', ...message } as AnyMessage);
    out.forEach(check);
    return out as unknown as Msg[];
  };
  return { send, reply };
}

const update = (sessionId: string, u: Msg): Msg => ({ method: 'session/update', params: { sessionId, update: u } });
const kinds = (out: Msg[]): unknown[] => out.map((m) => ('method' in m ? ((m.params as Msg).update as Msg | undefined)?.sessionUpdate ?? m.method : `answer:${String(m.id)}`));

describe('ACP v2 translation', () => {
  test('initialize: v2 params become v1 ones; the answer carries info, one capabilities object and tagged auth methods', () => {
    const w = world();
    const toAgent = w.send({ id: 0, method: 'initialize', params: { protocolVersion: 2, info: { name: 'c', version: '1' }, capabilities: { elicitation: { form: {} }, _meta: { terminal_output: true, x: 1 } } } }) as Msg;
    const params = toAgent.params as Msg;
    assert.deepEqual(params.clientInfo, { name: 'c', version: '1' });
    const caps = params.clientCapabilities as Msg;
    assert.deepEqual(caps.elicitation, { form: {} });
    assert.deepEqual(caps._meta, { x: 1 }, 'no terminal cards for a v2 client');
    assert.equal((caps.fs as Msg).readTextFile, false);
    const [answer] = w.reply({ id: 0, result: initializeResponse() });
    const result = answer.result as Msg;
    assert.equal(result.protocolVersion, 2);
    assert.equal((result.info as Msg).name, 'zcode-acp');
    assert.deepEqual((result.authMethods as Msg[])[0].type, 'agent');
    assert.ok(!('agentCapabilities' in result));
    assert.deepEqual(initializeResultV2(initializeResponse()).capabilities?.session?.mcp, { stdio: {}, http: {} });
  });

  test('a prompt is acknowledged when it holds its session and ends with an idle state_update carrying the stop reason', () => {
    const w = world();
    const sent = w.send({ id: 5, method: 'session/prompt', params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] } }) as Msg;
    const promptId = (((sent.params as Msg)._meta as Msg).zcode as Msg).promptId;
    assert.equal(typeof promptId, 'string', 'an unnamed v2 prompt is named, so its start is told');
    // Another client's turn streaming first does not start it.
    assert.deepEqual(kinds(w.reply(update('s', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'other' } }))), ['agent_message_chunk']);
    const started = w.reply({ method: '_zcode/session/promptStarted', params: { sessionId: 's', promptId } });
    assert.deepEqual(kinds(started), ['answer:5', 'state_update'], 'the name given here is not passed on');
    assert.equal(((started[1].params as Msg).update as Msg).state, 'running');
    const first = w.reply(update('s', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } }));
    const chunkId = ((first[0].params as Msg).update as Msg).messageId;
    const second = w.reply(update('s', { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'b' } }));
    assert.equal(((second[0].params as Msg).update as Msg).messageId, chunkId, 'one message for a run of chunks');
    const thought = w.reply(update('s', { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'c' } }));
    assert.notEqual(((thought[0].params as Msg).update as Msg).messageId, chunkId, 'another kind is another message');
    const end = w.reply({ id: 5, result: { stopReason: 'end_turn', usage: { totalTokens: 3, inputTokens: 1, outputTokens: 2 } } });
    assert.deepEqual(kinds(end), ['state_update']);
    const state = (end[0].params as Msg).update as Msg;
    assert.equal(state.state, 'idle');
    assert.equal(state.stopReason, 'end_turn');
    assert.deepEqual((state._meta as Msg).usage, { totalTokens: 3, inputTokens: 1, outputTokens: 2 });
  });

  test('a prompt answered before any update gets its acknowledgement and its end at once; one refused keeps its error', () => {
    const w = world();
    w.send({ id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    assert.deepEqual(kinds(w.reply({ id: 1, result: { stopReason: 'cancelled' } })), ['answer:1', 'state_update', 'state_update']);
    w.send({ id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    const refused = w.reply({ id: 2, error: { code: -32002, message: 'Resource not found', data: { sessionId: 's' } } });
    assert.equal((refused[0].error as Msg).code, -32002);
    w.send({ id: 3, method: 'session/prompt', params: { sessionId: 's', prompt: [], _meta: { zcode: { promptId: 'mine' } } } });
    // The client's own name: its start notification reaches it too.
    assert.deepEqual(kinds(w.reply({ method: '_zcode/session/promptStarted', params: { sessionId: 's', promptId: 'mine' } })), ['answer:3', 'state_update', '_zcode/session/promptStarted']);
    const failed = w.reply({ id: 3, error: { code: -32603, message: 'Internal error' } });
    assert.equal(((failed[0].params as Msg).update as Msg).stopReason, 'error');
  });

  test('tool calls become upserts, a diff becomes changes plus a patch, a plan becomes plan_update, modes are dropped', () => {
    const w = world();
    const [open] = w.reply(update('s', { sessionUpdate: 'tool_call', toolCallId: 't', title: 'Edit a.ts', kind: 'edit', status: 'pending', content: [{ type: 'diff', path: '/w/a.ts', oldText: 'x\n', newText: 'y\n' }] }));
    const card = (open.params as Msg).update as Msg;
    assert.equal(card.sessionUpdate, 'tool_call_update');
    const diff = (card.content as Msg[])[0];
    assert.deepEqual(diff.changes, [{ operation: 'modify', path: '/w/a.ts' }]);
    assert.equal((diff.patch as Msg).text, '--- a/w/a.ts\n+++ b/w/a.ts\n@@ -1,1 +1,1 @@\n-x\n+y\n');
    assert.deepEqual((diffV2({ path: '/w/new.ts', newText: 'z' }) as Msg).changes, [{ operation: 'add', path: '/w/new.ts' }]);
    const [plan] = w.reply(update('s', { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status: 'pending' }] }));
    assert.equal(((plan.params as Msg).update as Msg).sessionUpdate, 'plan_update');
    assert.deepEqual(w.reply(update('s', { sessionUpdate: 'current_mode_update', currentModeId: 'plan' })), []);
    const [commands] = w.reply(update('s', { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'd', input: { hint: 'h' } }] }));
    assert.deepEqual(((commands.params as Msg).update as Msg).availableCommands, [{ type: 'command', name: 'compact', description: 'd', input: { type: 'text', hint: 'h' } }]);
  });

  test('a permission request names its tool call as the subject; config options use configId both ways', () => {
    const w = world();
    const [asked] = w.reply({ id: 'p1', method: 'session/request_permission', params: { sessionId: 's', toolCall: { toolCallId: 't', title: 'Run npm test' }, options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }] } });
    assert.equal((asked.params as Msg).title, 'Run npm test');
    assert.equal(((asked.params as Msg).subject as Msg).type, 'tool_call');
    const set = w.send({ id: 7, method: 'session/set_config_option', params: { sessionId: 's', configId: 'model', type: 'id', value: 'glm' } }) as Msg;
    assert.deepEqual(set.params, { sessionId: 's', configId: 'model', value: 'glm' });
    const [answer] = w.reply({ id: 7, result: { configOptions: [{ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'glm', options: [{ value: 'glm', name: 'GLM' }] }] } });
    assert.equal(((answer.result as Msg).configOptions as Msg[])[0].configId, 'model');
  });

  test('resume with replayFrom is v1 load, without it v1 resume; either answer follows a state snapshot; another replayFrom is refused', () => {
    const w = world();
    assert.equal((w.send({ id: 1, method: 'session/resume', params: { sessionId: 's', cwd: '/w', replayFrom: { type: 'start' } } }) as Msg).method, 'session/load');
    assert.deepEqual(((w.send({ id: 2, method: 'session/resume', params: { sessionId: 's', cwd: '/w' } }) as Msg).params as Msg).mcpServers, []);
    assert.deepEqual(kinds(w.reply({ id: 1, result: { configOptions: [] } })), ['state_update', 'answer:1']);
    w.reply({ method: '_zcode/session/queue', params: { sessionId: 's', running: { sentBy: { kind: 'local' } }, waiting: [] } });
    const [snapshot] = w.reply({ id: 2, result: {} });
    assert.equal(((snapshot.params as Msg).update as Msg).state, 'running', 'the snapshot follows the queue');
    const refused = world();
    assert.equal(refused.send({ id: 3, method: 'session/resume', params: { sessionId: 's', cwd: '/w', replayFrom: { type: '_later' } } }), undefined);
  });

  test('auth/login is authenticate; _zcode methods and their answers pass unchanged', () => {
    const w = world();
    assert.equal((w.send({ id: 1, method: 'auth/login', params: { methodId: 'zcode-login' } }) as Msg).method, 'authenticate');
    const ext = { jsonrpc: '2.0', id: 2, method: '_zcode/quota', params: {} };
    assert.deepEqual(w.send(ext), ext);
    assert.deepEqual(w.reply({ id: 2, result: { x: 1 } }), [{ jsonrpc: '2.0', id: 2, result: { x: 1 } }]);
  });
});
