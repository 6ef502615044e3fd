import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { flushOpenTools, isRetryableFailure, stopReasonOf, translateEvent } from '../../../../bridge/translate/sessionTranslator.ts';
import { assertValidSessionUpdates } from '../../../helpers/acpSchema.ts';
import { CWD, ev, feed, translator, updatesOf } from './support.ts';

describe('streamed text', () => {
  test('text and reasoning deltas become chunks; a new message id per run, per tool boundary and per turn', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('turn.started', { turnId: 'turn_1' }),
      ev('model.streaming', { kind: 'reasoning_delta', delta: 'Let me look' }),
      ev('model.streaming', { kind: 'reasoning_delta', delta: ' at it.' }),
      ev('model.streaming', { kind: 'text_delta', delta: 'Reading ' }),
      ev('model.streaming', { kind: 'text_delta', delta: '' }),
      ev('model.streaming', { kind: 'text_delta', delta: 'the file.' }),
      ev('model.streaming', { kind: 'tool_call', toolCallId: 'call_1', toolName: 'Read', input: { file_path: '/work/proj/a.ts' } }),
      ev('model.streaming', { kind: 'text_delta', delta: 'Done.' }),
      ev('turn.completed', { resultType: 'success' }),
      ev('turn.started', { turnId: 'turn_2' }),
      ev('model.streaming', { kind: 'text_delta', delta: 'Again.' }),
    ]);
    assert.deepEqual(updates, [
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Let me look' }, messageId: 'msg_1' },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: ' at it.' }, messageId: 'msg_1' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Reading ' }, messageId: 'msg_2' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'the file.' }, messageId: 'msg_2' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' }, messageId: 'msg_3' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Again.' }, messageId: 'msg_4' },
    ]);
  });

  test("zcode's own message id is used when it sends one", () => {
    const state = translator(false);
    const updates = updatesOf(state, [ev('model.streaming', { kind: 'text_delta', delta: 'x', messageId: 'zm_9' })]);
    assert.deepEqual(updates, [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' }, messageId: 'zm_9' }]);
  });
});

describe('tool calls', () => {
  test('cached announcement + scheduled without input → ONE pending tool_call; duplicate scheduled → nothing', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('model.streaming', { kind: 'tool_call', toolCallId: 'call_1', toolName: 'Read', input: { file_path: '/work/proj/src/a.ts', offset: 3 } }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_1', toolName: 'Read' }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_1', toolName: 'Read', input: { file_path: '/work/proj/src/a.ts', offset: 3 } }),
      ev('tool.updated', { kind: 'started', toolCallId: 'call_1' }),
      ev('tool.updated', { kind: 'started', toolCallId: 'call_1' }),
      // no toolName on the result: recovered from the cache
      ev('tool.updated', { kind: 'result', toolCallId: 'call_1', result: { success: true, content: [{ type: 'text', text: '1\tconst a = 1;' }] } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'call_1', result: { success: true, content: 'duplicate' } }),
    ]);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'call_1',
        title: 'Read src/a.ts (from line 3)',
        kind: 'read',
        status: 'pending',
        rawInput: { file_path: '/work/proj/src/a.ts', offset: 3 },
        name: 'Read',
        locations: [{ path: '/work/proj/src/a.ts', line: 3 }],
        _meta: { zcode: { toolName: 'Read' } },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'call_1', status: 'in_progress' },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: '1\tconst a = 1;' } }],
        _meta: { zcode: { toolName: 'Read' } },
      },
    ]);
  });

  test('Edit carries its diff from the start and keeps it on completion (refined by the metadata patch)', () => {
    const state = translator(false);
    const input = { file_path: '/work/proj/src/a.ts', old_string: 'let a = 1;', new_string: 'let a = 2;' };
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_e', toolName: 'Edit', input }),
      ev('tool.updated', {
        kind: 'result',
        toolCallId: 'call_e',
        result: {
          success: true,
          content: 'The file /work/proj/src/a.ts has been updated.',
          metadata: { structuredPatch: [{ oldStart: 4, oldLines: 2, newStart: 4, newLines: 2, lines: [' // a', '-let a = 1;', '+let a = 2;'] }] },
        },
      }),
    ]);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'call_e',
        title: 'Edit src/a.ts',
        kind: 'edit',
        status: 'pending',
        rawInput: input,
        name: 'Edit',
        locations: [{ path: '/work/proj/src/a.ts' }],
        content: [{ type: 'diff', path: '/work/proj/src/a.ts', oldText: 'let a = 1;', newText: 'let a = 2;' }],
        _meta: { zcode: { toolName: 'Edit' } },
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call_e',
        status: 'completed',
        content: [{ type: 'diff', path: '/work/proj/src/a.ts', oldText: '// a\nlet a = 1;', newText: '// a\nlet a = 2;' }],
        _meta: { zcode: { toolName: 'Edit' } },
      },
    ]);
  });

  test('Write of a new file: diff with oldText null; a failed Write shows the error instead', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'w1', toolName: 'Write', input: { file_path: 'new.ts', content: 'x\n' } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'w1', result: { success: false, content: 'EACCES: permission denied' } }),
    ]);
    assert.deepEqual(updates[0], {
      sessionUpdate: 'tool_call',
      toolCallId: 'w1',
      title: 'Write new.ts',
      kind: 'edit',
      status: 'pending',
      rawInput: { file_path: 'new.ts', content: 'x\n' },
      name: 'Write',
      locations: [{ path: '/work/proj/new.ts' }],
      content: [{ type: 'diff', path: '/work/proj/new.ts', oldText: null, newText: 'x\n' }],
      _meta: { zcode: { toolName: 'Write' } },
    });
    assert.deepEqual(updates[1], {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'w1',
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text: 'EACCES: permission denied' } }],
      _meta: { zcode: { toolName: 'Write' } },
    });
  });

  test('error → failed with the error text', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'g1', toolName: 'Grep', input: { pattern: 'x' } }),
      ev('tool.updated', { kind: 'error', toolCallId: 'g1', error: { message: 'ripgrep not found' } }),
      ev('tool.updated', { kind: 'error', toolCallId: 'g1', error: 'again' }),
    ]);
    assert.deepEqual(updates.slice(1), [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'g1',
        status: 'failed',
        content: [{ type: 'content', content: { type: 'text', text: 'ripgrep not found' } }],
        _meta: { zcode: { toolName: 'Grep' } },
      },
    ]);
  });

  test('batch completes the listed tools that are still open, and only those', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'a', toolName: 'Glob', input: { pattern: '*.ts' } }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b', toolName: 'Glob', input: { pattern: '*.md' } }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'c', toolName: 'Glob', input: { pattern: '*.js' } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'a', result: { success: true, content: 'a.ts' } }),
      ev('tool.updated', { kind: 'batch', toolCallIds: ['a', 'b', 'unknown'], succeeded: 2, failed: 0 }),
    ]);
    assert.deepEqual(updates.slice(4), [{ sessionUpdate: 'tool_call_update', toolCallId: 'b', status: 'completed' }]);
  });

  test('a tool first seen at its result is announced before it is completed', () => {
    const state = translator(false);
    const updates = updatesOf(state, [ev('tool.updated', { kind: 'result', toolCallId: 'late', toolName: 'WebFetch', result: { content: 'page' } })]);
    assert.equal(updates.length, 2);
    assert.deepEqual(updates[0], {
      sessionUpdate: 'tool_call',
      toolCallId: 'late',
      title: 'Fetch',
      kind: 'fetch',
      status: 'in_progress',
      rawInput: {},
      name: 'WebFetch',
      _meta: { zcode: { toolName: 'WebFetch' } },
    });
    assert.equal((updates[1] as { status?: string }).status, 'completed');
  });

  test('TodoWrite → its card plus the complete plan', () => {
    const state = translator(false);
    const todos = [
      { content: 'Implement login', status: 'completed', priority: 'high' },
      { content: 'Implement signup', status: 'in_progress' },
      { content: 'Write docs', status: 'pending', priority: 'low' },
      { content: 'Old idea', status: 'cancelled', priority: 'urgent' },
    ];
    const updates = updatesOf(state, [ev('tool.updated', { kind: 'scheduled', toolCallId: 't1', toolName: 'TodoWrite', input: { todos } })]);
    assert.equal(updates.length, 2);
    assert.equal((updates[0] as { title: string }).title, 'Update plan');
    assert.equal((updates[0] as { kind: string }).kind, 'think');
    assert.deepEqual(updates[1], {
      sessionUpdate: 'plan',
      entries: [
        { content: 'Implement login', priority: 'high', status: 'completed' },
        { content: 'Implement signup', priority: 'medium', status: 'in_progress' },
        { content: 'Write docs', priority: 'low', status: 'pending' },
        { content: 'Old idea', priority: 'medium', status: 'completed', _meta: { zcode: { status: 'cancelled' } } },
      ],
    });
  });

  test('ExitPlanMode shows the plan on a switch_mode card', () => {
    const state = translator(false);
    const updates = updatesOf(state, [ev('tool.updated', { kind: 'scheduled', toolCallId: 'p1', toolName: 'ExitPlanMode', input: { plan: '1. Do it' } })]);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'p1',
        title: 'Plan ready for approval',
        kind: 'switch_mode',
        status: 'pending',
        rawInput: { plan: '1. Do it' },
        name: 'ExitPlanMode',
        content: [{ type: 'content', content: { type: 'text', text: '1. Do it' } }],
        _meta: { zcode: { toolName: 'ExitPlanMode' } },
      },
    ]);
  });
});

describe('Bash output', () => {
  test('terminal clients: terminal card, only the NEW part of cumulative tails, the unsent rest of the result, exit', () => {
    const state = translator(true);
    const updates = updatesOf(state, [
      ev('model.streaming', { kind: 'tool_call', toolCallId: 'b1', toolName: 'Bash', input: { command: 'npm test' } }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b1' }),
      ev('tool.updated', { kind: 'started', toolCallId: 'b1' }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b1', stdoutTail: 'line 1\n' }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b1', stdoutTail: 'line 1\nline 2\n' }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b1', stdoutTail: 'line 1\nline 2\n', stderrTail: 'warn\n' }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b1', stdoutTail: 'line 1\nline 2\n', stderrTail: 'warn\n' }),
      ev('tool.updated', { kind: 'result', toolCallId: 'b1', result: { success: true, content: 'line 1\nline 2\nline 3\n' } }),
    ]);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'b1',
        title: 'Run `npm test`',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: 'npm test' },
        name: 'Bash',
        content: [{ type: 'terminal', terminalId: 'b1' }],
        _meta: { zcode: { toolName: 'Bash' }, terminal_info: { terminal_id: 'b1', cwd: CWD } },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'in_progress' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: 'line 1\n' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: 'line 2\n' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: 'warn\n' } } },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', _meta: { terminal_output: { terminal_id: 'b1', data: 'line 3\n' } } },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'b1',
        status: 'completed',
        _meta: { zcode: { toolName: 'Bash' }, terminal_exit: { terminal_id: 'b1', exit_code: 0, signal: null } },
      },
    ]);
  });

  test('a sliding tail window: only the part after the overlap is sent', () => {
    const state = translator(true);
    const window1 = 'aaaaaaaaaa-bbbbbbbbbb-cccccccccc\n';
    const window2 = 'bbbbbbbbbb-cccccccccc\ndddddddddd\n'; // the window dropped "aaaaaaaaaa-" and gained a line
    const window3 = 'completely different output\n'; // no overlap: sent whole
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b2', toolName: 'Bash', input: { command: 'make' } }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b2', stdoutTail: window1 }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b2', stdoutTail: window2 }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b2', stdoutTail: window3 }),
    ]);
    const data = updates.slice(1).map((u) => ((u._meta as { terminal_output: { data: string } }).terminal_output.data));
    assert.deepEqual(data, [window1, 'dddddddddd\n', window3]);
    // The first progress also moves the card to in_progress.
    assert.equal((updates[1] as { status?: string }).status, 'in_progress');
  });

  test('failed command: non-zero exit code from the result', () => {
    const state = translator(true);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b3', toolName: 'Bash', input: { command: 'false' } }),
      ev('tool.updated', { kind: 'result', toolCallId: 'b3', result: { success: false, content: 'boom\n', exitCode: 2 } }),
    ]);
    assert.deepEqual(updates.slice(1), [
      { sessionUpdate: 'tool_call_update', toolCallId: 'b3', _meta: { terminal_output: { terminal_id: 'b3', data: 'boom\n' } } },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'b3',
        status: 'failed',
        _meta: { zcode: { toolName: 'Bash' }, terminal_exit: { terminal_id: 'b3', exit_code: 2, signal: null } },
      },
    ]);
  });

  test('text clients: no terminal meta; the accumulated output as fenced text (content lists replace)', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b4', toolName: 'Bash', input: { command: 'npm test' } }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b4', stdoutTail: 'one\n' }),
      ev('tool.updated', { kind: 'progress', toolCallId: 'b4', stdoutTail: 'one\ntwo\n' }),
      ev('tool.updated', { kind: 'result', toolCallId: 'b4', result: { success: true, content: 'one\ntwo\nthree\n' } }),
    ]);
    assert.deepEqual(updates, [
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'b4',
        title: 'Run `npm test`',
        kind: 'execute',
        status: 'pending',
        rawInput: { command: 'npm test' },
        name: 'Bash',
        _meta: { zcode: { toolName: 'Bash' } },
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'b4',
        status: 'in_progress',
        content: [{ type: 'content', content: { type: 'text', text: '```console\none\n```' } }],
      },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b4', content: [{ type: 'content', content: { type: 'text', text: '```console\none\ntwo\n```' } }] },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'b4',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: '```console\none\ntwo\nthree\n```' } }],
        _meta: { zcode: { toolName: 'Bash' } },
      },
    ]);
  });

  test('switching the audience affects new cards only', () => {
    const state = translator(true);
    const updates = updatesOf(state, [ev('tool.updated', { kind: 'scheduled', toolCallId: 'old', toolName: 'Bash', input: { command: 'a' } })]);
    state.terminalOutput = false;
    updates.push(
      ...updatesOf(state, [
        ev('tool.updated', { kind: 'scheduled', toolCallId: 'new', toolName: 'Bash', input: { command: 'b' } }),
        ev('tool.updated', { kind: 'progress', toolCallId: 'old', stdoutTail: 'x\n' }),
        ev('tool.updated', { kind: 'progress', toolCallId: 'new', stdoutTail: 'y\n' }),
      ]),
    );
    assert.deepEqual(updates[2], { sessionUpdate: 'tool_call_update', toolCallId: 'old', status: 'in_progress', _meta: { terminal_output: { terminal_id: 'old', data: 'x\n' } } });
    assert.deepEqual(updates[3], {
      sessionUpdate: 'tool_call_update',
      toolCallId: 'new',
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text: '```console\ny\n```' } }],
    });
  });

  test('tool error on a terminal card: the message goes to the terminal, exit 1', () => {
    const state = translator(true);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b5', toolName: 'Bash', input: { command: 'sleep 999' } }),
      ev('tool.updated', { kind: 'error', toolCallId: 'b5', error: 'timed out' }),
    ]);
    assert.deepEqual(updates.slice(1), [
      { sessionUpdate: 'tool_call_update', toolCallId: 'b5', _meta: { terminal_output: { terminal_id: 'b5', data: 'timed out\n' } } },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'b5',
        status: 'failed',
        _meta: { zcode: { toolName: 'Bash' }, terminal_exit: { terminal_id: 'b5', exit_code: 1, signal: null } },
      },
    ]);
  });
});

describe('turn lifecycle and signals', () => {
  test('turn.completed → signal with usage; a cancelled turn closes open tools', () => {
    const state = translator(true);
    const usage = { source: 'model', modelRequestCount: 2, inputTokens: 1200, outputTokens: 80, totalTokens: 1280 };
    const done = feed(state, [ev('turn.started', { turnId: 'turn_1' }), ev('turn.completed', { resultType: 'success', usage })]);
    assert.deepEqual(done.signals, [
      { type: 'turn_started', background: false, turnId: 'turn_1' },
      { type: 'turn_completed', resultType: 'success', stopReason: 'end_turn', usage, background: false, turnId: 'turn_1' },
    ]);

    const cancelled = feed(state, [
      ev('turn.started', {}),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'r1', toolName: 'Read', input: { file_path: 'a' } }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'b1', toolName: 'Bash', input: { command: 'sleep 5' } }),
      ev('tool.updated', { kind: 'started', toolCallId: 'b1' }),
      ev('turn.completed', { resultType: 'cancelled' }),
    ]);
    assert.deepEqual(cancelled.updates.slice(3), [
      { sessionUpdate: 'tool_call_update', toolCallId: 'r1', status: 'failed' },
      { sessionUpdate: 'tool_call_update', toolCallId: 'b1', status: 'failed', _meta: { terminal_exit: { terminal_id: 'b1', exit_code: 1, signal: null } } },
    ]);
    assert.deepEqual(cancelled.signals.at(-1), { type: 'turn_completed', resultType: 'cancelled', stopReason: 'cancelled', background: false });
  });

  test('turn.failed → signal with code, message and the retry verdict', () => {
    const state = translator(false);
    const { signals } = feed(state, [
      ev('turn.failed', { error: { code: 429, message: 'Too Many Requests' } }),
      ev('turn.failed', { error: { code: 1305, message: 'service busy' } }),
      ev('turn.failed', { error: { code: 401, message: 'invalid api key' } }),
      ev('turn.failed', { error: { message: 'upstream overloaded, try later' } }),
      ev('turn.failed', { error: {} }),
    ]);
    // Messages and causes come from failures.ts (its own tests cover every cause).
    assert.deepEqual(
      signals.map((s) => (s.type === 'turn_failed' ? [s.code, s.cause, s.retryable, s.background] : s.type)),
      [
        [429, 'rate_limit', true, false],
        [1305, 'rate_limit', true, false],
        [401, 'auth_failed', false, false],
        [undefined, 'unknown', true, false],
        [undefined, 'unknown', false, false],
      ],
    );
    const messages = signals.map((s) => (s.type === 'turn_failed' ? s.message : ''));
    assert.match(messages[0], /rate-limiting.*\(zcode: Too Many Requests\)/);
    assert.match(messages[2], /Authentication with the model provider failed.*invalid api key/);
    assert.equal(messages[3], 'upstream overloaded, try later');
    assert.match(messages[4], /zcode gave no reason/);
  });

  test('retry rule', () => {
    for (const code of [429, 500, 502, 503, 529, 1302, 1303, 1305, 1308, -32010, '503']) assert.equal(isRetryableFailure(code, 'x'), true, String(code));
    for (const code of [400, 401, 403, 404, 1301, 1304, -32004, 'invalid_request']) assert.equal(isRetryableFailure(code, 'bad'), false, String(code));
    assert.equal(isRetryableFailure(undefined, 'Rate limit reached for requests'), true);
    assert.equal(isRetryableFailure('rate_limit_error', ''), true);
    assert.equal(isRetryableFailure(undefined, 'failed', { message: 'socket hang up' }), true);
    assert.equal(isRetryableFailure(undefined, 'context length exceeded'), false);
  });

  test('stop reasons', () => {
    assert.equal(stopReasonOf('success'), 'end_turn');
    assert.equal(stopReasonOf(undefined), 'end_turn');
    assert.equal(stopReasonOf('cancelled'), 'cancelled');
    assert.equal(stopReasonOf('max_tokens'), 'max_tokens');
    assert.equal(stopReasonOf('refusal'), 'refusal');
  });

  test('turn.terminal, steer, state.updated → signals only', () => {
    const state = translator(false);
    const result = feed(state, [
      ev('turn.terminal', { kind: 'turn.terminal', status: 'success', resultType: 'end_turn', durationMs: 12345, inputTokens: 1234, outputTokens: 567, totalTokens: 1801 }),
      ev('turn.steerQueued', {}),
      ev('turn.steerDrained', {}),
      ev('state.updated', { patch: { mode: 'plan', model: { modelId: 'GLM-5.2' }, thoughtLevel: 'max' }, reason: 'user' }),
      ev('state.updated', { patch: { model: 'GLM-5.1' } }),
      ev('state.updated', { patch: { compaction: { status: 'completed' } }, reason: 'compact' }),
      ev('state.updated', { patch: { title: 'Fix login' } }),
      ev('state.updated', { patch: { somethingElse: 1 } }),
    ]);
    assert.deepEqual(result.updates, []);
    assert.deepEqual(result.signals, [
      { type: 'turn_terminal', status: 'success', resultType: 'end_turn', durationMs: 12345, inputTokens: 1234, outputTokens: 567, totalTokens: 1801, background: false },
      { type: 'steer', state: 'queued' },
      { type: 'steer', state: 'drained' },
      { type: 'config', mode: 'plan', model: 'GLM-5.2', thoughtLevel: 'max', reason: 'user' },
      { type: 'config', model: 'GLM-5.1' },
      { type: 'compaction', status: 'completed', reason: 'compact' },
      { type: 'title', title: 'Fix login' },
    ]);
  });

  test('a turn.terminal after turn.completed (even after the next turn began) carries its turnId and its own turn\'s background flag', () => {
    const state = translator(false);
    const { signals } = feed(state, [
      ev('turn.started', { turnId: 'turn_bg', inputSource: 'background_task' }),
      ev('turn.completed', { turnId: 'turn_bg', resultType: 'success' }),
      ev('turn.started', { turnId: 'turn_user' }),
      ev('turn.terminal', { kind: 'turn.terminal', turnId: 'turn_bg', status: 'success', totalTokens: 10 }),
      ev('turn.terminal', { kind: 'turn.terminal', turnId: 'turn_user', status: 'success', totalTokens: 20 }),
      ev('turn.completed', { turnId: 'turn_user', resultType: 'success' }),
      ev('turn.terminal', { kind: 'turn.terminal', status: 'success', totalTokens: 30 }),
    ]);
    assert.deepEqual(
      signals.filter((s) => s.type === 'turn_terminal'),
      [
        { type: 'turn_terminal', turnId: 'turn_bg', status: 'success', totalTokens: 10, background: true },
        { type: 'turn_terminal', turnId: 'turn_user', status: 'success', totalTokens: 20, background: false },
        { type: 'turn_terminal', status: 'success', totalTokens: 30, background: false },
      ],
    );
  });

  test('session.updated usage → usage_update {used, size}; no size known → nothing', () => {
    const state = translator(false);
    assert.deepEqual(updatesOf(state, [ev('session.updated', { usage: { inputTokens: 5000 } })]), []);
    assert.deepEqual(updatesOf(state, [ev('session.updated', { usage: { inputTokens: 5000 }, contextWindow: 200000 })]), [
      { sessionUpdate: 'usage_update', used: 5000, size: 200000 },
    ]);
    // the window is remembered
    assert.deepEqual(updatesOf(state, [ev('session.updated', { usage: { inputTokens: 6000 } })]), [{ sessionUpdate: 'usage_update', used: 6000, size: 200000 }]);
    const seeded = translator(false, { contextWindow: 128000 });
    assert.deepEqual(updatesOf(seeded, [ev('session.updated', { usage: { inputTokens: 10.4 } })]), [{ sessionUpdate: 'usage_update', used: 10, size: 128000 }]);
  });

  test('flushOpenTools closes pending and running cards once', () => {
    const state = translator(false);
    updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'x', toolName: 'Read', input: {} }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'y', toolName: 'Read', input: {} }),
      ev('tool.updated', { kind: 'result', toolCallId: 'y', result: { content: 'ok' } }),
    ]);
    const flushed = flushOpenTools(state, 'failed');
    assertValidSessionUpdates(flushed);
    assert.deepEqual(flushed, [{ sessionUpdate: 'tool_call_update', toolCallId: 'x', status: 'failed' }]);
    assert.deepEqual(flushOpenTools(state, 'failed'), []);
  });

  test('events for other state are translated independently per session state', () => {
    const a = translator(false);
    const b = translator(false);
    translateEvent(a, ev('tool.updated', { kind: 'scheduled', toolCallId: 'same', toolName: 'Read', input: {} }));
    assert.equal(translateEvent(b, ev('tool.updated', { kind: 'scheduled', toolCallId: 'same', toolName: 'Read', input: {} })).updates.length, 1);
  });
});
