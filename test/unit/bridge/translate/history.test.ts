import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { historyToUpdates } from '../../../../bridge/translate/history.ts';
import { MessagesResult } from '../../../../bridge/zcode/protocol.ts';
import { assertValidSessionUpdates } from '../../../helpers/acpSchema.ts';
import { CWD, ev, translator, updatesOf } from './support.ts';

const EDIT_INPUT = { file_path: '/work/proj/src/a.ts', old_string: 'let a = 1;', new_string: 'let a = 2;' };
const WRITE_INPUT = { file_path: '/work/proj/new.ts', content: 'export const x = 1;\n' };
const READ_INPUT = { file_path: '/work/proj/src/a.ts', offset: 5 };
const BASH_INPUT = { command: 'npm test' };
const PATCH = { structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-let a = 1;', '+let a = 2;'] }] };

/** A stored session, parsed through the wire schema like `session/messages` results. */
const messages = MessagesResult.parse({
  messages: [
    { info: { id: 'm_user_1', role: 'user' }, parts: [{ type: 'text', text: 'Bump a and add new.ts' }] },
    {
      info: { id: 'm_asst_1', role: 'assistant' },
      parts: [
        { type: 'reasoning', text: 'Need to edit a.ts.' },
        { type: 'text', text: 'Editing.' },
        { type: 'tool', callId: 'call_read', tool: 'Read', state: { status: 'completed', input: READ_INPUT, output: 'let a = 1;' } },
        { type: 'tool', callId: 'call_edit', tool: 'Edit', state: { status: 'completed', input: EDIT_INPUT, output: 'updated', metadata: PATCH } },
        { type: 'tool', callId: 'call_write', tool: 'Write', state: { status: 'completed', input: WRITE_INPUT, output: 'created' } },
        { type: 'tool', callId: 'call_bash', tool: 'Bash', state: { status: 'error', input: BASH_INPUT, error: '1 failing test' } },
        { type: 'tool', callId: 'call_todo', tool: 'TodoWrite', state: { status: 'completed', input: { todos: [{ content: 'Bump a', status: 'completed' }] } } },
        { type: 'step-start' },
        { type: 'text', text: 'Done.' },
      ],
    },
    {
      info: { id: 'm_hidden', role: 'user', inputVisibility: 'model-only', inputSource: 'background_task' },
      parts: [{ type: 'text', text: '<task-notification>…</task-notification>' }],
    },
    { info: { id: 'm_sys', role: 'system' }, parts: [{ type: 'text', text: 'system prompt' }] },
  ],
}).messages;

describe('historyToUpdates', () => {
  test('what the user saw: reminders cut, reminder and hidden messages dropped, one version per message id, notices as collapsed cards', () => {
    const history = MessagesResult.parse({
      messages: [
        { info: { messageId: 'u1', role: 'user' }, parts: [{ type: 'text', text: 'Fix it\n\n<system-reminder>todo list is empty</system-reminder>' }] },
        { info: { messageId: 'a1', role: 'assistant' }, parts: [{ type: 'text', text: 'first draft' }] },
        { info: { messageId: 'r1', role: 'user', semantics: { origin: 'agent_runtime', kind: 'system_reminder', uiVisibility: 'hidden', providerVisibility: 'visible', transcriptVisibility: 'hidden' } }, parts: [{ type: 'text', text: 'remember X' }] },
        { info: { messageId: 'h1', role: 'user', semantics: { origin: 'agent_runtime', kind: 'user_prompt', uiVisibility: 'debug', providerVisibility: 'visible', transcriptVisibility: 'visible' } }, parts: [{ type: 'text', text: 'debug only' }] },
        { info: { messageId: 'a1', role: 'assistant' }, parts: [{ type: 'text', text: 'final answer' }, { type: 'timeline', timelineType: 'context_compaction', display: 'separator', preCompactTokenCount: 90000, postCompactTokenCount: 12000 }] },
        { info: { messageId: 'c1', role: 'user', semantics: { origin: 'agent_runtime', kind: 'compact_summary', uiVisibility: 'hidden', providerVisibility: 'visible', transcriptVisibility: 'visible' } }, parts: [{ type: 'text', text: 'Summary: fixed the bug' }] },
        { info: { messageId: 'f1', role: 'user', source: 'fork', visibility: 'model-only' }, parts: [{ type: 'text', text: 'forked context' }] },
        { info: { messageId: 't1', role: 'user', source: 'todo_reminder' }, parts: [{ type: 'text', text: 'todos' }] },
        { info: { messageId: 'only', role: 'user' }, parts: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }] },
      ],
    }).messages;
    const updates = historyToUpdates(history, { cwd: CWD, terminalOutput: false });
    assertValidSessionUpdates(updates);
    const shown = updates.map((u) => (u.sessionUpdate === 'tool_call' ? `card:${u.title}:${u.content?.[0]?.type === 'content' && u.content[0].content.type === 'text' ? u.content[0].content.text : ''}` : u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk' ? `${u.sessionUpdate}:${u.content.type === 'text' ? u.content.text : ''}` : u.sessionUpdate));
    assert.deepEqual(shown, [
      'user_message_chunk:Fix it',
      'agent_message_chunk:final answer',
      'card:Conversation compacted:Context compacted (90000 → 12000 tokens).',
      'card:Conversation compacted:Summary: fixed the bug',
      'card:Handed over from another session:forked context',
    ]);
  });

  test('replays user text, thoughts, agent text, tool cards with final status and content, and the plan', () => {
    const updates = historyToUpdates(messages, { cwd: CWD, terminalOutput: false, todos: [{ content: 'Bump a', status: 'completed', priority: 'high' }] });
    assertValidSessionUpdates(updates);
    assert.deepEqual(
      updates.map((u) => u.sessionUpdate),
      ['user_message_chunk', 'agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call', 'tool_call', 'tool_call', 'tool_call', 'plan', 'agent_message_chunk', 'tool_call', 'plan'],
    );
    // The model-only background-task input is a collapsed notice card, not the user's message.
    assert.deepEqual(updates.at(-2), {
      sessionUpdate: 'tool_call',
      toolCallId: 'notice-m_hidden',
      title: 'Background task notification',
      kind: 'other',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: '<task-notification>…</task-notification>' } }],
      _meta: { zcode: { notice: { kind: 'background' } } },
    });
    assert.deepEqual(updates[0], { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Bump a and add new.ts' }, messageId: 'm_user_1' });
    assert.deepEqual(updates[1], { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Need to edit a.ts.' }, messageId: 'm_asst_1' });
    assert.deepEqual(updates[4], {
      sessionUpdate: 'tool_call',
      toolCallId: 'call_edit',
      title: 'Edit src/a.ts',
      kind: 'edit',
      status: 'completed',
      rawInput: EDIT_INPUT,
      name: 'Edit',
      locations: [{ path: '/work/proj/src/a.ts' }],
      content: [{ type: 'diff', path: '/work/proj/src/a.ts', oldText: 'let a = 1;', newText: 'let a = 2;' }],
      _meta: { zcode: { toolName: 'Edit' } },
    });
    assert.deepEqual(updates[6], {
      sessionUpdate: 'tool_call',
      toolCallId: 'call_bash',
      title: 'Run `npm test`',
      kind: 'execute',
      status: 'failed',
      rawInput: BASH_INPUT,
      name: 'Bash',
      content: [{ type: 'content', content: { type: 'text', text: '1 failing test' } }],
      _meta: { zcode: { toolName: 'Bash' } },
    });
    assert.deepEqual(updates.at(-1), { sessionUpdate: 'plan', entries: [{ content: 'Bump a', priority: 'high', status: 'completed' }] });
  });

  test('terminal clients get the terminal card, its output and its exit', () => {
    const updates = historyToUpdates(
      MessagesResult.parse({
        messages: [
          {
            info: { id: 'm1', role: 'assistant' },
            parts: [{ type: 'tool', callId: 'c1', tool: 'Bash', state: { status: 'completed', input: BASH_INPUT, output: 'ok\n' } }],
          },
        ],
      }).messages,
      { cwd: CWD, terminalOutput: true },
    );
    assertValidSessionUpdates(updates);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        title: 'Run `npm test`',
        kind: 'execute',
        status: 'in_progress',
        rawInput: BASH_INPUT,
        name: 'Bash',
        content: [{ type: 'terminal', terminalId: 'c1' }],
        _meta: { zcode: { toolName: 'Bash' }, terminal_info: { terminal_id: 'c1', cwd: CWD } },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'c1', _meta: { terminal_output: { terminal_id: 'c1', data: 'ok\n' } } },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c1',
        status: 'completed',
        _meta: { zcode: { toolName: 'Bash' }, terminal_exit: { terminal_id: 'c1', exit_code: 0, signal: null } },
      },
    ]);
  });

  test('an Agent part carries _meta.subagent like the live card', () => {
    const output = 'done\nagentId: agent_1\n<usage>total_tokens: 10\ntool_uses: 2\nduration_ms: 30</usage>';
    const [card] = historyToUpdates(
      MessagesResult.parse({
        messages: [{ info: { id: 'm', role: 'assistant' }, parts: [{ type: 'tool', callId: 'a', tool: 'Agent', state: { status: 'completed', input: { description: 'Scan' }, output } }] }],
      }).messages,
      { cwd: CWD, terminalOutput: false },
    );
    assert.deepEqual((card as { _meta: unknown })._meta, { zcode: { toolName: 'Agent' }, subagent: { agentId: 'agent_1', tokens: 10, toolUses: 2, durationMs: 30 } });
  });
});

describe('live and replay agree', () => {
  /** The card a client ends up with: tool_call fields merged with every later update (lists replace). */
  function finalCards(updates: SessionUpdate[]): Map<string, Record<string, unknown>> {
    const cards = new Map<string, Record<string, unknown>>();
    for (const u of updates) {
      if (u.sessionUpdate === 'tool_call') cards.set(u.toolCallId, { ...u });
      if (u.sessionUpdate === 'tool_call_update') {
        const { sessionUpdate: _s, _meta: _m, ...fields } = u;
        const card = cards.get(u.toolCallId) ?? {};
        for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) card[k] = v;
        cards.set(u.toolCallId, card);
      }
    }
    return cards;
  }

  const pick = (card: Record<string, unknown> | undefined) => ({
    kind: card?.kind,
    title: card?.title,
    locations: card?.locations,
    status: card?.status,
    content: card?.content,
  });

  for (const terminalOutput of [false, true]) {
    test(`the same tools give the same kind, title, locations, status and diff/content (terminalOutput=${terminalOutput})`, () => {
      const live = translator(terminalOutput);
      const liveUpdates = updatesOf(live, [
        ev('model.streaming', { kind: 'tool_call', toolCallId: 'call_read', toolName: 'Read', input: READ_INPUT }),
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_read' }),
        ev('tool.updated', { kind: 'result', toolCallId: 'call_read', result: { success: true, content: 'let a = 1;' } }),
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_edit', toolName: 'Edit', input: EDIT_INPUT }),
        ev('tool.updated', { kind: 'result', toolCallId: 'call_edit', result: { success: true, content: 'updated', metadata: PATCH } }),
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_write', toolName: 'Write', input: WRITE_INPUT }),
        ev('tool.updated', { kind: 'result', toolCallId: 'call_write', result: { success: true, content: 'created' } }),
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_bash', toolName: 'Bash', input: BASH_INPUT }),
        ev('tool.updated', { kind: 'error', toolCallId: 'call_bash', error: '1 failing test' }),
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_todo', toolName: 'TodoWrite', input: { todos: [{ content: 'Bump a', status: 'completed' }] } }),
        ev('tool.updated', { kind: 'result', toolCallId: 'call_todo', result: { success: true, content: 'ok' } }),
      ]);
      const replayUpdates = historyToUpdates(messages, { cwd: CWD, terminalOutput });
      assertValidSessionUpdates(replayUpdates);
      const liveCards = finalCards(liveUpdates);
      const replayCards = finalCards(replayUpdates);
      for (const id of ['call_read', 'call_edit', 'call_write', 'call_bash', 'call_todo']) {
        assert.deepEqual(pick(replayCards.get(id)), pick(liveCards.get(id)), id);
      }
      // and the diffs are really there
      assert.deepEqual(liveCards.get('call_edit')?.content, [{ type: 'diff', path: '/work/proj/src/a.ts', oldText: 'let a = 1;', newText: 'let a = 2;' }]);
      assert.deepEqual(liveCards.get('call_write')?.content, [{ type: 'diff', path: '/work/proj/new.ts', oldText: null, newText: 'export const x = 1;\n' }]);
    });
  }
});
