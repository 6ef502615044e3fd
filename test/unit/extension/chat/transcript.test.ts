/** The host's transcript model, fed literal ACP `session/update`s (as the bridge sends them). */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { TranscriptItem } from '../../../../webview-ui/viewModel.ts';
import { applyTranscriptOps, itemList } from '../../../../webview-ui/transcriptOps.ts';
import * as T from '../../../../extension/chat/transcript.ts';
import * as I from '../../../../extension/chat/transcriptInteractions.ts';
import { formKindMeta } from '../../../../shared/forms.ts';

/** Applies updates; also replays the emitted ops on a second list to prove ops ≡ state. */
function run(updates: SessionUpdate[], state = T.createTranscript({ sessionId: 's1' })) {
  const mirror = itemList(state.list.items.slice());
  const changes: T.Change[] = [];
  for (const u of updates) {
    const change = T.applySessionUpdate(state, u);
    applyTranscriptOps(mirror, change.ops);
    changes.push(change);
  }
  assert.deepEqual(mirror.items, state.list.items, 'the ops rebuild exactly the host state');
  return { state, items: state.list.items, changes };
}

const text = (t: string) => ({ type: 'text' as const, text: t });

describe('messages', () => {
  test('agent chunks stream into one message with append ops; thoughts are separate items', () => {
    const { items, changes } = run([
      { sessionUpdate: 'agent_thought_chunk', content: text('Let me ') },
      { sessionUpdate: 'agent_thought_chunk', content: text('look.') },
      { sessionUpdate: 'agent_message_chunk', content: text('Hello') },
      { sessionUpdate: 'agent_message_chunk', content: text(', world') },
    ]);
    assert.deepEqual(
      items.map((i) => [i.type, 'text' in i ? i.text : '']),
      [
        ['thought', 'Let me look.'],
        ['agent', 'Hello, world'],
      ],
    );
    assert.deepEqual(changes[3].ops, [{ op: 'append', id: items[1].id, field: 'text', text: ', world' }]);
  });

  test('text after a tool card starts a new message', () => {
    const { items } = run([
      { sessionUpdate: 'agent_message_chunk', content: text('Reading.') },
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Read a.ts', kind: 'read', status: 'pending' },
      { sessionUpdate: 'agent_message_chunk', content: text('Done.') },
    ]);
    assert.deepEqual(items.map((i) => i.type), ['agent', 'tool', 'agent']);
  });

  test('a different messageId starts a new message; resource links render as markdown links', () => {
    const { items } = run([
      { sessionUpdate: 'agent_message_chunk', messageId: 'm1', content: text('one') },
      { sessionUpdate: 'agent_message_chunk', messageId: 'm2', content: { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' } },
    ]);
    assert.deepEqual(items.map((i) => ('text' in i ? i.text : '')), ['one', '[a.ts](file:///w/a.ts)']);
  });

  test('load replay: user chunks become user messages', () => {
    const { items } = run([
      { sessionUpdate: 'user_message_chunk', content: text('Fix the bug') },
      { sessionUpdate: 'agent_message_chunk', content: text('On it.') },
    ]);
    assert.deepEqual(items.map((i) => [i.type, 'text' in i ? i.text : '']), [
      ['user', 'Fix the bug'],
      ['agent', 'On it.'],
    ]);
  });

  test('our own prompt echoed back by the bridge is not shown twice', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    T.addUserPrompt(state, 'Fix the bug', []);
    const { items } = run([{ sessionUpdate: 'user_message_chunk', content: text('Fix the bug') }, { sessionUpdate: 'agent_message_chunk', content: text('ok') }], state);
    assert.deepEqual(items.map((i) => i.type), ['user', 'agent']);
  });
});

describe('tool calls', () => {
  test('status, raw input/output and content update one card; lists replace', () => {
    const { items } = run([
      { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'grep TODO', kind: 'search', status: 'pending', rawInput: { pattern: 'TODO' } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress', content: [{ type: 'content', content: text('first') }] },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', rawOutput: { matches: 2 }, content: [{ type: 'content', content: text('a.ts:1\nb.ts:2') }], locations: [{ path: '/w/a.ts', line: 1 }] },
    ]);
    assert.equal(items.length, 1);
    const tool = items[0] as Extract<TranscriptItem, { type: 'tool' }>;
    assert.deepEqual(
      { title: tool.title, kind: tool.kind, status: tool.status, input: tool.input, output: tool.output, content: tool.content, locations: tool.locations },
      {
        title: 'grep TODO',
        kind: 'search',
        status: 'completed',
        input: '{\n  "pattern": "TODO"\n}',
        output: '{\n  "matches": 2\n}',
        content: [{ type: 'text', text: 'a.ts:1\nb.ts:2' }],
        locations: [{ path: '/w/a.ts', line: 1 }],
      },
    );
  });

  test('an edit keeps the full texts host-side and sends a compact diff', () => {
    const oldText = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const newText = oldText.replace('line 15\n', 'line fifteen\n');
    const { state, items } = run([
      { sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit src/a.ts', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/w/src/a.ts', oldText, newText }] },
    ]);
    const tool = items[0] as Extract<TranscriptItem, { type: 'tool' }>;
    assert.deepEqual(tool.content, [
      {
        type: 'diff',
        index: 0,
        path: '/w/src/a.ts',
        isNew: false,
        added: 1,
        removed: 1,
        truncated: false,
        lines: [
          { t: ' ', text: 'line 13' },
          { t: ' ', text: 'line 14' },
          { t: '-', text: 'line 15' },
          { t: '+', text: 'line fifteen' },
          { t: ' ', text: 'line 16' },
          { t: ' ', text: 'line 17' },
        ],
      },
    ]);
    assert.deepEqual(state.diffs.get('e1'), [{ path: '/w/src/a.ts', oldText, newText }]);
  });

  test('terminal meta: info creates the terminal, output deltas are append ops, exit closes it', () => {
    const { items, changes } = run([
      { sessionUpdate: 'tool_call', toolCallId: 'b1', title: 'npm test', kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId: 'b1' }], _meta: { terminal_info: { terminal_id: 'b1', cwd: '/w' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: '\x1b[32mok\x1b[0m 1\n' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: 'ok 2\n' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'completed', _meta: { terminal_exit: { terminal_id: 'b1', exit_code: 0, signal: null } } },
    ]);
    assert.deepEqual(changes[1].ops, [{ op: 'append', id: 'tool:b1', field: 'terminal', text: '\x1b[32mok\x1b[0m 1\n' }]);
    const tool = items[0] as Extract<TranscriptItem, { type: 'tool' }>;
    assert.deepEqual(tool.terminal, { terminalId: 'b1', cwd: '/w', output: '\x1b[32mok\x1b[0m 1\nok 2\n', truncated: false, exited: true, exitCode: 0, signal: null });
    assert.equal(tool.status, 'completed');
  });

  test('sub-agent metadata and background cards', () => {
    const { items } = run([
      { sessionUpdate: 'tool_call', toolCallId: 'a1', title: 'Agent: review', kind: 'other', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'a1', status: 'completed', _meta: { claudeCode: { toolName: 'Agent' }, subagent: { agentId: 'agent_73', tokens: 40904, toolUses: 1, durationMs: 10559 } } },
      { sessionUpdate: 'tool_call', toolCallId: 'bg_1', title: '[background] Read README first heading', kind: 'other', status: 'in_progress', _meta: { zcode: { toolName: 'Agent', taskId: 'agent_88', background: true } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'bg_1', status: 'failed', _meta: { backgroundTask: { cancelled: true } } },
    ]);
    const [agent, bg] = items as Extract<TranscriptItem, { type: 'tool' }>[];
    assert.deepEqual(agent.subagent, { agentId: 'agent_73', tokens: 40904, toolUses: 1, durationMs: 10559 });
    assert.deepEqual([bg.background, bg.status], [{ cancelled: true, taskId: 'agent_88' }, 'failed']);
  });

  test('an update for an unknown tool call creates its card', () => {
    const { items } = run([{ sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'completed', title: 'Late card' }]);
    assert.deepEqual([items[0].type, (items[0] as { title: string }).title], ['tool', 'Late card']);
  });
});

describe('plan and session state', () => {
  test('a plan update replaces the plan card of the turn in place', () => {
    const { items } = run([
      { sessionUpdate: 'plan', entries: [{ content: 'Write tests', priority: 'high', status: 'in_progress' }] },
      { sessionUpdate: 'agent_message_chunk', content: text('working') },
      { sessionUpdate: 'plan', entries: [{ content: 'Write tests', priority: 'high', status: 'completed' }, { content: 'Ship', priority: 'low', status: 'pending' }] },
    ]);
    assert.deepEqual(items.map((i) => i.type), ['plan', 'agent']);
    assert.deepEqual((items[0] as Extract<TranscriptItem, { type: 'plan' }>).entries.map((e) => e.status), ['completed', 'pending']);
  });

  test('commands, mode, config options, title and usage land in the session view', () => {
    const configOptions = [
      { id: 'mode', name: 'Mode', category: 'mode', type: 'select' as const, currentValue: 'plan', options: [{ value: 'plan', name: 'Plan' }, { value: 'build', name: 'Build' }] },
      { id: 'model', name: 'Model', category: 'model', type: 'select' as const, currentValue: 'GLM-5.2', options: [{ value: 'GLM-5.2', name: 'GLM-5.2' }] },
    ];
    const { state, changes } = run([
      { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Compact the conversation' }] },
      { sessionUpdate: 'config_option_update', configOptions },
      { sessionUpdate: 'current_mode_update', currentModeId: 'build' },
      { sessionUpdate: 'session_info_update', title: 'Fix login' },
      { sessionUpdate: 'usage_update', used: 12000, size: 200000 },
    ]);
    assert.deepEqual(state.session.commands, [{ name: 'compact', description: 'Compact the conversation' }]);
    assert.equal(state.session.configOptions[0].currentValue, 'build');
    assert.equal(state.session.currentModeId, 'build');
    assert.equal(state.session.title, 'Fix login');
    assert.deepEqual(state.session.usage, { used: 12000, size: 200000, cost: null });
    assert.deepEqual(changes[3], { ops: [], session: { title: 'Fix login' } });
  });
});

describe('turns and interactions', () => {
  test('a prompt starts a turn; the stop reason ends it in words; errors offer retry', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    T.addUserPrompt(state, 'go', [{ kind: 'file', name: 'a.ts' }]);
    assert.equal(state.session.running, true);
    T.endTurn(state, { stopReason: 'cancelled' });
    T.addUserPrompt(state, 'again', []);
    T.endTurn(state, { error: 'zcode is not running.' });
    assert.equal(state.session.running, false);
    assert.deepEqual(
      state.list.items.map((i) => [i.type, 'text' in i ? i.text : 'title' in i ? i.title : 'message' in i ? i.message : '']),
      [
        ['user', 'go'],
        ['notice', 'Stopped.'],
        ['user', 'again'],
        ['error', 'zcode is not running.'],
      ],
    );
    assert.equal((state.list.items[3] as { retryable: boolean }).retryable, true);
  });

  test('a shell permission is one card: the tool card waits behind it (kept up to date) and returns below it once answered', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    const mirror = itemList([]);
    const apply = (change: { ops: Parameters<typeof applyTranscriptOps>[1] }): void => applyTranscriptOps(mirror, change.ops);
    apply(T.applySessionUpdate(state, { sessionUpdate: 'tool_call', toolCallId: 'b1', title: 'Run `npm test`', kind: 'execute', status: 'pending', rawInput: { command: 'npm test', description: 'Run the tests' } }));
    const { id, change } = I.addPermission(state, {
      sessionId: 's1',
      toolCall: { toolCallId: 'b1', title: 'Run `npm test`', kind: 'execute', rawInput: { command: 'npm test', description: 'Run the tests' } },
      options: [{ optionId: 'allow', name: 'Allow once', kind: 'allow_once' }],
    });
    apply(change);
    assert.deepEqual(state.list.items.map((i) => i.type), ['permission'], 'one card while the permission waits');
    const card = state.list.items[0];
    assert.ok(card.type === 'permission');
    assert.deepEqual(card.command, { line: 'npm test', description: 'Run the tests' });
    apply(T.applySessionUpdate(state, { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'in_progress' }));
    assert.deepEqual(state.list.items.map((i) => i.type), ['permission'], 'an update of the held card shows nothing yet');
    apply(I.answerPermission(state, id, 'allow'));
    assert.deepEqual(state.list.items.map((i) => i.type), ['permission', 'tool'], 'the tool card returns below the answered permission');
    const tool = state.list.items[1];
    assert.ok(tool.type === 'tool');
    assert.equal(tool.status, 'in_progress', 'with what happened while it was held');
    apply(T.applySessionUpdate(state, { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'completed' }));
    assert.equal((state.list.items[1] as { status: string }).status, 'completed');
    assert.deepEqual(mirror.items, state.list.items, 'the ops rebuild exactly the host state');
  });

  test('permission: card from the request, answered once, withdraw after answer is a no-op', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    T.applySessionUpdate(state, { sessionUpdate: 'tool_call', toolCallId: 'p1', title: 'Run rm -rf build', kind: 'execute', status: 'pending', rawInput: { command: 'rm -rf build' } });
    const { id } = I.addPermission(state, {
      sessionId: 's1',
      toolCall: { toolCallId: 'p1' },
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const card = state.list.items[1];
    assert.deepEqual(card, {
      type: 'permission',
      id,
      title: 'Run rm -rf build',
      kind: 'execute',
      input: '{\n  "command": "rm -rf build"\n}',
      options: [
        { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
      ],
      state: 'pending',
    });
    I.answerPermission(state, id, 'allow');
    assert.deepEqual(I.withdrawInteraction(state, id).ops, []);
    assert.deepEqual([(state.list.items[1] as { state: string }).state, (state.list.items[1] as { answer: string }).answer], ['answered', 'Allow once']);
  });

  test('elicitation kinds and answer summaries (questions, plan approve / reject / decline)', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    const questions = I.addElicitation(state, {
      mode: 'form',
      sessionId: 's1',
      message: 'Please answer 2 question(s).',
      requestedSchema: {
        type: 'object',
        properties: {
          q_0: { type: 'string', title: 'Which file?', oneOf: [{ const: 'auth.test.ts', title: 'auth.test.ts' }, { const: '__skip__', title: 'Skip this question' }] },
          q_0_other: { type: 'string', title: 'other' },
          q_1: { type: 'array', title: 'Which checks?', items: { anyOf: [{ const: 'a', title: 'lint' }] } },
          q_1_other: { type: 'string', title: 'other' },
        },
        required: [],
      },
      _meta: formKindMeta('questions'),
    });
    const planForm = { mode: 'form' as const, sessionId: 's1', message: 'Ready to code?', requestedSchema: { type: 'object' as const, properties: { feedback: { type: 'string' as const, title: 'Feedback' } }, required: [] }, _meta: formKindMeta('planFeedback') };
    const plan1 = I.addElicitation(state, planForm);
    const plan2 = I.addElicitation(state, planForm);
    const plan3 = I.addElicitation(state, planForm);
    const kinds = state.list.items.map((i) => (i.type === 'elicitation' ? i.formKind : ''));
    assert.deepEqual(kinds, ['questions', 'planFeedback', 'planFeedback', 'planFeedback']);
    I.answerElicitation(state, questions.id, { action: 'accept', content: { q_0: 'auth.test.ts', q_0_other: '', q_1: ['a'], q_1_other: 'custom' } });
    I.answerElicitation(state, plan1.id, { action: 'accept', content: { feedback: '' } });
    I.answerElicitation(state, plan2.id, { action: 'accept', content: { feedback: 'add tests first' } });
    I.answerElicitation(state, plan3.id, { action: 'decline' });
    assert.deepEqual(
      state.list.items.map((i) => (i.type === 'elicitation' ? i.answer : '')),
      ['Which file?: auth.test.ts\nWhich checks?: lint, custom', 'Plan approved', 'Rejected with feedback: add tests first', 'Plan rejected'],
    );
  });
});

describe('edit permission cards', () => {
  const options = [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' as const }];
  test('an Edit permission shows the proposed diff (the bridge sends it with the request), with the texts kept for Open Diff', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    const { id } = I.addPermission(state, {
      sessionId: 's1',
      toolCall: {
        toolCallId: 'e1',
        title: 'Edit src/greet.js',
        kind: 'edit',
        rawInput: { file_path: '/w/src/greet.js', old_string: 'Hello', new_string: 'Hi there\nfriend' },
        content: [{ type: 'diff', path: '/w/src/greet.js', oldText: 'Hello', newText: 'Hi there\nfriend' }],
      },
      options,
      _meta: { zcode: { toolName: 'Edit', requestId: 'r1' } },
    });
    const item = state.list.items.find((i) => i.id === id);
    assert.ok(item?.type === 'permission');
    assert.equal(item.toolCallId, 'e1');
    assert.deepEqual(item.diffs?.map((d) => [d.path, d.added, d.removed, d.isNew]), [['/w/src/greet.js', 2, 1, false]]);
    assert.deepEqual(state.diffs.get('e1'), [{ path: '/w/src/greet.js', oldText: 'Hello', newText: 'Hi there\nfriend' }]);
  });

  test('the request\'s own diff content wins; a Bash permission keeps its raw input and no diff', () => {
    const state = T.createTranscript({ sessionId: 's1' });
    I.addPermission(state, {
      sessionId: 's1',
      toolCall: { toolCallId: 'w1', title: 'Write', content: [{ type: 'diff', path: '/w/new.txt', oldText: null, newText: 'a\n' }] },
      options,
    });
    const { id } = I.addPermission(state, { sessionId: 's1', toolCall: { toolCallId: 'b1', title: 'npm test', rawInput: { command: 'npm test' } }, options, _meta: { zcode: { toolName: 'Bash' } } });
    const [write, bash] = state.list.items;
    assert.ok(write.type === 'permission' && bash.type === 'permission' && bash.id === id);
    assert.deepEqual(write.diffs?.map((d) => [d.isNew, d.added]), [[true, 1]]);
    assert.equal(bash.diffs, undefined);
    assert.match(bash.input ?? '', /npm test/);
  });
});

describe('earlier history', () => {
  test('a page of updates goes before every item, in order, with fresh ids; what it says about the session is ignored', () => {
    const { state } = run([
      { sessionUpdate: 'user_message_chunk', content: text('latest question') },
      { sessionUpdate: 'agent_message_chunk', content: text('latest answer') },
    ]);
    state.session.title = 'Now';
    const mirror = itemList(state.list.items.slice());
    const change = T.prependHistory(state, [
      { sessionUpdate: 'user_message_chunk', content: text('first ') },
      { sessionUpdate: 'user_message_chunk', content: text('question') },
      { sessionUpdate: 'tool_call', toolCallId: 'e1', title: 'Edit a.ts', kind: 'edit', status: 'completed', content: [{ type: 'diff', path: '/w/a.ts', oldText: 'a', newText: 'b' }] },
      { sessionUpdate: 'agent_message_chunk', content: text('first answer') },
      { sessionUpdate: 'session_info_update', title: 'Then' },
    ]);
    applyTranscriptOps(mirror, change.ops);
    assert.deepEqual(mirror.items, state.list.items, 'the ops rebuild exactly the host state');
    assert.equal(change.ops.length, 1);
    assert.equal(change.session, undefined);
    assert.equal(state.session.title, 'Now');
    assert.deepEqual(
      state.list.items.map((i) => [i.type, 'text' in i ? i.text : i.type === 'tool' ? i.title : '']),
      [
        ['user', 'first question'],
        ['tool', 'Edit a.ts'],
        ['agent', 'first answer'],
        ['user', 'latest question'],
        ['agent', 'latest answer'],
      ],
    );
    assert.equal(new Set(state.list.items.map((i) => i.id)).size, 5, 'ids never collide with the items shown');
    assert.deepEqual(state.list.items.map((i) => state.list.index.get(i.id)), [0, 1, 2, 3, 4], 'the index follows the new positions');
    assert.deepEqual(state.diffs.get('e1'), [{ path: '/w/a.ts', oldText: 'a', newText: 'b' }], 'Open Diff works on earlier tool calls');
    // Streaming goes on at the end, into the open message.
    T.applySessionUpdate(state, { sessionUpdate: 'agent_message_chunk', content: text(', continued') });
    assert.equal((state.list.items.at(-1) as { text: string }).text, 'latest answer, continued');
  });

  test('an empty page changes nothing; an item already shown is not shown twice', () => {
    const { state } = run([{ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', kind: 'read', status: 'completed' }]);
    assert.deepEqual(T.prependHistory(state, []).ops, []);
    T.prependHistory(state, [
      { sessionUpdate: 'user_message_chunk', content: text('earlier') },
      { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', kind: 'read', status: 'completed' },
    ]);
    assert.deepEqual(state.list.items.map((i) => i.type), ['user', 'tool']);
  });
});
