/**
 * Sub-agents and background tasks, following docs/zcode-protocol.md "Background tasks and sub-agents"
 * (its literal payloads are used where it gives them).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cancelledBackgroundTaskUpdates, listBackgroundTasks } from '../../../../bridge/translate/sessionTranslator.ts';
import { assertValidSessionUpdates } from '../../../helpers/acpSchema.ts';
import { ev, feed, translator, updatesOf } from './support.ts';

const AGENT_RESULT = [
  'The README starts with "# zcode".',
  'agentId: agent_73c7c63d-1f0a-4c1e-9a51-2c0b7f6f1a11 (for resuming to continue this agent\'s work if needed)',
  '<usage>total_tokens: 40904',
  'tool_uses: 1',
  'duration_ms: 10559</usage>',
].join('\n');

describe('synchronous sub-agent', () => {
  test('inner tool calls are ordinary cards; the Agent card ends with _meta.subagent', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_agent', toolName: 'Agent', input: { description: 'Read README first heading', prompt: 'Read it' } }),
      ev('tool.updated', { kind: 'started', toolCallId: 'call_agent' }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_inner', toolName: 'Read', input: { file_path: '/work/proj/README.md' }, parentToolCallId: 'call_agent' }),
      ev('tool.updated', { kind: 'result', toolCallId: 'call_inner', result: { success: true, content: '# zcode' } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'call_agent', result: { success: true, content: [{ type: 'text', text: AGENT_RESULT }] } }),
    ]);
    assert.deepEqual(updates[0], {
      sessionUpdate: 'tool_call',
      toolCallId: 'call_agent',
      title: 'Agent: Read README first heading',
      kind: 'other',
      status: 'pending',
      rawInput: { description: 'Read README first heading', prompt: 'Read it' },
      name: 'Agent',
      _meta: { zcode: { toolName: 'Agent' } },
    });
    assert.deepEqual((updates[2] as { _meta: unknown })._meta, { zcode: { toolName: 'Read', parentToolCallId: 'call_agent' } });
    assert.deepEqual(updates.at(-1), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_agent',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: AGENT_RESULT } }],
      _meta: {
        zcode: { toolName: 'Agent' },
        subagent: { agentId: 'agent_73c7c63d-1f0a-4c1e-9a51-2c0b7f6f1a11', tokens: 40904, toolUses: 1, durationMs: 10559 },
      },
    });
  });
});

describe('background sub-agent', () => {
  test('launch card completes; the lifecycle gets its own [background] card; the background turn is tagged', () => {
    const state = translator(false);
    const launch = feed(state, [
      ev('turn.started', { turnId: 'turn_user' }),
      ev('tool.updated', {
        kind: 'scheduled',
        toolCallId: 'call_orig',
        toolName: 'Agent',
        input: { description: 'Read README first heading', prompt: 'Read it', run_in_background: true },
      }),
      ev('tool.updated', {
        kind: 'result',
        toolCallId: 'call_orig',
        result: { success: true, content: 'agentId: agent_88a44529-aaaa\noutput_file: /tmp/out.txt\nThe agent is working in the background.' },
      }),
      ev('turn.completed', { resultType: 'success' }),
    ]);
    assert.deepEqual(launch.updates.at(-1), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_orig',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'agentId: agent_88a44529-aaaa\noutput_file: /tmp/out.txt\nThe agent is working in the background.' } }],
      _meta: { zcode: { toolName: 'Agent' }, subagent: { agentId: 'agent_88a44529-aaaa' } },
    });

    const running = feed(state, [
      ev('session.updated', {
        taskId: 'agent_88a44529-aaaa',
        toolCallId: 'call_orig',
        toolName: 'Agent',
        status: 'running',
        description: 'Read README first heading',
        outputPath: '/tmp/out.txt',
        terminalId: 'agent_88a44529-aaaa',
        startedAt: '2026-07-18T09:06:45.929Z',
      }),
    ]);
    assert.deepEqual(running.updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'bg_agent_88a44529-aaaa',
        title: '[background] Read README first heading',
        kind: 'other',
        status: 'in_progress',
        rawInput: { taskId: 'agent_88a44529-aaaa', description: 'Read README first heading', toolName: 'Agent', outputPath: '/tmp/out.txt' },
        name: 'Agent',
        _meta: { zcode: { toolName: 'Agent', taskId: 'agent_88a44529-aaaa', background: true } },
      },
    ]);
    const task = {
      id: 'agent_88a44529-aaaa',
      kind: 'agent',
      description: 'Read README first heading',
      status: 'running',
      cardId: 'bg_agent_88a44529-aaaa',
      startedAt: '2026-07-18T09:06:45.929Z',
      outputPath: '/tmp/out.txt',
      toolCallId: 'call_orig',
    };
    assert.deepEqual(running.signals, [{ type: 'background_tasks', tasks: [task] }]);

    // The same status again changes nothing.
    assert.deepEqual(feed(state, [ev('session.updated', { taskId: 'agent_88a44529-aaaa', toolCallId: 'call_orig', toolName: 'Agent', status: 'running' })]), {
      updates: [],
      signals: [],
    });

    const done = feed(state, [
      ev('session.updated', { taskId: 'agent_88a44529-aaaa', toolCallId: 'call_orig', toolName: 'Agent', status: 'completed' }),
      // the backend starts its own turn to report the result
      ev('turn.started', {
        inputSource: 'background_task',
        inputVisibility: 'model-only',
        input: '<task-notification>\n  <task-id>agent_88a44529-aaaa</task-id>\n  <status>completed</status>\n</task-notification>',
        turnId: 'turn_95197b25',
      }),
      ev('model.streaming', { kind: 'text_delta', delta: 'The background agent found "# zcode".' }),
      ev('turn.completed', { resultType: 'success' }),
      // a late duplicate for the finished task is ignored
      ev('session.updated', { taskId: 'agent_88a44529-aaaa', toolCallId: 'call_orig', toolName: 'Agent', status: 'completed' }),
    ]);
    assert.deepEqual(done.updates, [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'bg_agent_88a44529-aaaa',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'resource_link', name: 'output', uri: 'file:///tmp/out.txt' } }],
        _meta: { zcode: { toolName: 'Agent', taskId: 'agent_88a44529-aaaa', background: true } },
      },
      {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'The background agent found "# zcode".' },
        messageId: 'msg_1',
        _meta: { zcode: { background: true } },
      },
    ]);
    assert.deepEqual(done.signals, [
      { type: 'background_tasks', tasks: [{ ...task, status: 'completed' }] },
      { type: 'turn_started', background: true, turnId: 'turn_95197b25', inputSource: 'background_task' },
      { type: 'turn_completed', resultType: 'success', stopReason: 'end_turn', background: true, turnId: 'turn_95197b25' },
    ]);

    // The next user turn is not a background turn.
    const next = feed(state, [ev('turn.started', { turnId: 'turn_next' }), ev('model.streaming', { kind: 'text_delta', delta: 'hi' })]);
    assert.deepEqual(next.signals, [{ type: 'turn_started', background: false, turnId: 'turn_next' }]);
    assert.deepEqual(next.updates, [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' }, messageId: 'msg_2' }]);
  });

  test('a failed background agent fails its card', () => {
    const state = translator(false);
    const { updates } = feed(state, [
      ev('session.updated', { taskId: 'agent_1', toolName: 'Agent', status: 'running', description: 'Scan' }),
      ev('session.updated', { taskId: 'agent_1', toolName: 'Agent', status: 'failed', outputTail: 'Error: no access' }),
    ]);
    assert.deepEqual(updates.at(-1), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'bg_agent_1',
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: 'Error: no access' } }],
      _meta: { zcode: { toolName: 'Agent', taskId: 'agent_1', background: true } },
    });
    assert.equal(listBackgroundTasks(state)[0].status, 'failed');
  });
});

describe('background Bash', () => {
  function launch(terminalOutput: boolean) {
    const state = translator(terminalOutput);
    const result = feed(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_e282b4ec', toolName: 'Bash', input: { command: 'sleep 2; echo done', run_in_background: true } }),
      ev('tool.updated', { kind: 'started', toolCallId: 'call_e282b4ec' }),
      ev('tool.updated', { kind: 'result', toolCallId: 'call_e282b4ec', result: { success: true, content: 'Command running in background with ID: exec_ac3a5053-1' } }),
      ev('turn.completed', { resultType: 'success' }),
    ]);
    return { state, result };
  }

  test('terminal clients: the launch card is reused, stays in_progress, gets the unsent output and exit 0', () => {
    const { state, result } = launch(true);
    assert.deepEqual(result.updates.slice(2), [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_e282b4ec',
        status: 'in_progress',
        _meta: {
          zcode: { toolName: 'Bash', background: true, taskId: 'exec_ac3a5053-1' },
          terminal_output: { terminal_id: 'call_e282b4ec', data: 'Command running in background with ID: exec_ac3a5053-1\n' },
        },
      },
    ]);
    // No terminal_exit at launch.
    assert.ok(result.updates.every((u) => !(u._meta && 'terminal_exit' in u._meta)));

    const lifecycle = feed(state, [
      ev('session.updated', {
        taskId: 'exec_ac3a5053-1',
        toolCallId: 'call_e282b4ec',
        toolName: 'Bash',
        status: 'running',
        pid: 22410,
        outputPath: '/tmp/call_e282b4ec-stdout.log',
        outputTail: 'starting\n',
      }),
      ev('session.updated', { taskId: 'exec_ac3a5053-1', toolCallId: 'call_e282b4ec', toolName: 'Bash', status: 'running', outputTail: 'starting\n' }),
      ev('session.updated', { taskId: 'exec_ac3a5053-1', toolCallId: 'call_e282b4ec', toolName: 'Bash', status: 'completed', outputTail: 'starting\ndone\n' }),
    ]);
    assert.deepEqual(lifecycle.updates, [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_e282b4ec',
        status: 'in_progress',
        _meta: { zcode: { toolName: 'Bash', taskId: 'exec_ac3a5053-1', background: true } },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'call_e282b4ec', _meta: { terminal_output: { terminal_id: 'call_e282b4ec', data: 'starting\n' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'call_e282b4ec', _meta: { terminal_output: { terminal_id: 'call_e282b4ec', data: 'done\n' } } },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_e282b4ec',
        status: 'completed',
        _meta: {
          zcode: { toolName: 'Bash', taskId: 'exec_ac3a5053-1', background: true },
          terminal_exit: { terminal_id: 'call_e282b4ec', exit_code: 0, signal: null },
        },
      },
    ]);
    // No duplicate [background] card for a reused launch card.
    assert.ok(lifecycle.updates.every((u) => u.sessionUpdate !== 'tool_call'));
    assert.deepEqual(
      lifecycle.signals.map((s) => (s.type === 'background_tasks' ? s.tasks.map((t) => `${t.kind}:${t.status}:${t.cardId}`) : s.type)),
      [['bash:running:call_e282b4ec'], ['bash:completed:call_e282b4ec']],
    );
  });

  test('failed task → exit code 1', () => {
    const { state } = launch(true);
    const { updates } = feed(state, [
      ev('session.updated', { taskId: 'exec_ac3a5053-1', toolCallId: 'call_e282b4ec', toolName: 'Bash', status: 'failed' }),
    ]);
    assert.deepEqual(updates.at(-1), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_e282b4ec',
      status: 'failed',
      _meta: {
        zcode: { toolName: 'Bash', taskId: 'exec_ac3a5053-1', background: true },
        terminal_exit: { terminal_id: 'call_e282b4ec', exit_code: 1, signal: null },
      },
    });
  });

  test('lifecycle without a toolCallId still finds the launch card through the id in the launch text', () => {
    const { state } = launch(true);
    const { updates } = feed(state, [ev('session.updated', { taskId: 'exec_ac3a5053-1', toolName: 'Bash', status: 'running' })]);
    assert.deepEqual(updates.map((u) => [u.sessionUpdate, (u as { toolCallId: string }).toolCallId]), [['tool_call_update', 'call_e282b4ec']]);
  });

  test('unknown toolCallId → a fresh bg_ card', () => {
    const state = translator(true);
    const { updates } = feed(state, [
      ev('session.updated', { taskId: 'exec_zz', toolCallId: 'call_never_seen', toolName: 'Bash', status: 'running', outputTail: 'x\n' }),
      ev('session.updated', { taskId: 'exec_zz', toolCallId: 'call_never_seen', toolName: 'Bash', status: 'completed', outputTail: 'x\ny\n' }),
    ]);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'bg_exec_zz',
        title: '[background] Bash',
        kind: 'other',
        status: 'in_progress',
        rawInput: { taskId: 'exec_zz', description: 'Bash', toolName: 'Bash' },
        name: 'Bash',
        _meta: { zcode: { toolName: 'Bash', taskId: 'exec_zz', background: true } },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'bg_exec_zz', content: [{ type: 'content', content: { type: 'text', text: '```console\nx\n```' } }] },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'bg_exec_zz',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: '```console\nx\ny\n```' } }],
        _meta: { zcode: { toolName: 'Bash', taskId: 'exec_zz', background: true } },
      },
    ]);
  });

  test('text clients: the reused card shows the launch note and the output tail', () => {
    const { state, result } = launch(false);
    assert.deepEqual(result.updates.at(-1), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_e282b4ec',
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: 'Command running in background with ID: exec_ac3a5053-1' } }],
      _meta: { zcode: { toolName: 'Bash', background: true, taskId: 'exec_ac3a5053-1' } },
    });
    const { updates } = feed(state, [
      ev('session.updated', { taskId: 'exec_ac3a5053-1', toolCallId: 'call_e282b4ec', toolName: 'Bash', status: 'completed', outputTail: 'done\n' }),
    ]);
    assert.deepEqual(updates.at(-1), {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_e282b4ec',
      status: 'completed',
      content: [
        { type: 'content', content: { type: 'text', text: 'Command running in background with ID: exec_ac3a5053-1' } },
        { type: 'content', content: { type: 'text', text: '```console\ndone\n```' } },
      ],
      _meta: { zcode: { toolName: 'Bash', taskId: 'exec_ac3a5053-1', background: true } },
    });
  });

  test('taskId keeps no trailing full stop from the launch text ("… with ID: exec_…. Output is being written to …")', () => {
    const state = translator(true);
    const text = 'Command running in background with ID: exec_5f0c2a9e-7b1d. Output is being written to: /tmp/zcode-sim-tasks/exec_5f0c2a9e-7b1d.output';
    const { updates } = feed(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_dot', toolName: 'Bash', input: { command: 'npm run build', run_in_background: true } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'call_dot', result: { success: true, content: text } }),
    ]);
    assert.deepEqual((updates.at(-1)?._meta as { zcode: unknown }).zcode, { toolName: 'Bash', background: true, taskId: 'exec_5f0c2a9e-7b1d' });
    // The parsed id is the task's real id: a lifecycle step without a toolCallId and a cancel find the launch card.
    const lifecycle = feed(state, [ev('session.updated', { taskId: 'exec_5f0c2a9e-7b1d', toolName: 'Bash', status: 'running' })]);
    assert.deepEqual(lifecycle.updates.map((u) => (u as { toolCallId: string }).toolCallId), ['call_dot']);
    assert.equal(cancelledBackgroundTaskUpdates(state, 'exec_5f0c2a9e-7b1d')[0]?._meta?.backgroundTask !== undefined, true);
  });

  test('launch text ids: internal dots and colons are kept, trailing punctuation is not', () => {
    for (const [content, id] of [
      ['Command running in background with ID: exec_9.', 'exec_9'],
      ['Command running in background with ID: exec_9:', 'exec_9'],
      ['Command running in background with ID: exec_a.b-1...', 'exec_a.b-1'],
      ['Command running in background with ID: task:42.', 'task:42'],
    ] as const) {
      const state = translator(false);
      const { updates } = feed(state, [
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'c', toolName: 'Bash', input: { command: 'x', run_in_background: true } }),
        ev('tool.updated', { kind: 'result', toolCallId: 'c', result: { success: true, content } }),
      ]);
      assert.equal((updates.at(-1)?._meta as { zcode: { taskId?: string } }).zcode.taskId, id, content);
    }
  });

  test('a launch card is not closed by a cancelled turn', () => {
    const state = translator(true);
    const { updates } = feed(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'bb', toolName: 'Bash', input: { command: 'serve', run_in_background: true } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'bb', result: { success: true, content: 'Command running in background with ID: exec_9' } }),
      ev('turn.completed', { resultType: 'cancelled' }),
    ]);
    assert.equal(updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed').length, 0);
  });
});

describe('cancelBackgroundTask', () => {
  test('Bash: the card fails with _meta.backgroundTask.cancelled and terminal_exit; idempotent', () => {
    const state = translator(true);
    feed(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'bb', toolName: 'Bash', input: { command: 'serve', run_in_background: true } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'bb', result: { success: true, content: 'Command running in background with ID: exec_9' } }),
      ev('session.updated', { taskId: 'exec_9', toolCallId: 'bb', toolName: 'Bash', status: 'running' }),
    ]);
    const updates = cancelledBackgroundTaskUpdates(state, 'exec_9');
    assertValidSessionUpdates(updates);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'bb',
        status: 'failed',
        _meta: {
          zcode: { toolName: 'Bash', taskId: 'exec_9', background: true },
          backgroundTask: { cancelled: true },
          terminal_exit: { terminal_id: 'bb', exit_code: 1, signal: null },
        },
      },
    ]);
    assert.equal(listBackgroundTasks(state)[0].status, 'cancelled');
    assert.deepEqual(cancelledBackgroundTaskUpdates(state, 'exec_9'), []);
    // the backend's own "cancelled" lifecycle event afterwards changes nothing
    assert.deepEqual(feed(state, [ev('session.updated', { taskId: 'exec_9', toolCallId: 'bb', toolName: 'Bash', status: 'cancelled' })]), { updates: [], signals: [] });
  });

  test('Bash cancelled before any lifecycle event: found through the launch text', () => {
    const state = translator(true);
    feed(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'bb', toolName: 'Bash', input: { command: 'serve', run_in_background: true } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'bb', result: { success: true, content: 'Command running in background with ID: exec_9' } }),
    ]);
    const updates = cancelledBackgroundTaskUpdates(state, 'exec_9');
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0]._meta?.backgroundTask, { cancelled: true });
  });

  test('Agent: the bg_ card fails with the cancelled mark; unknown tasks give nothing', () => {
    const state = translator(true);
    feed(state, [ev('session.updated', { taskId: 'agent_7', toolName: 'Agent', status: 'running', description: 'Long scan' })]);
    const updates = cancelledBackgroundTaskUpdates(state, 'agent_7');
    assertValidSessionUpdates(updates);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'bg_agent_7',
        status: 'failed',
        _meta: { zcode: { toolName: 'Agent', taskId: 'agent_7', background: true }, backgroundTask: { cancelled: true } },
      },
    ]);
    assert.deepEqual(cancelledBackgroundTaskUpdates(state, 'nope'), []);
  });
});
