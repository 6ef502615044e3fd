import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackgroundTasksNotification } from '../../../bridge/acp/extensions/contractDescriptors.ts';
import { readNotification } from '../../../bridge/acp/extensions/contractSchemas.ts';
import { BackgroundTasksModel, formatElapsed, fromNotification } from '../../../extension/backgroundTasks/model.ts';

/** The notification as the ACP client passes it on: parsed at its boundary by the contract's schema. */
const parsedAtBoundary = (params: unknown) => readNotification(BackgroundTasksNotification, { method: BackgroundTasksNotification.method, params });
function wire(params: unknown) {
  const parsed = parsedAtBoundary(params);
  assert.ok(parsed, 'a well-formed notification');
  return parsed;
}
const parseNotification = (params: unknown) => {
  const parsed = parsedAtBoundary(params);
  return parsed && fromNotification(parsed);
};

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const running = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'bash', description: `task ${id}`, status: 'running', startedAt: 1_000_000, ...extra });

test('tasks of other sessions are kept but not shown', () => {
  const model = new BackgroundTasksModel(clock().now);
  model.setActiveSession('s1');
  assert.deepEqual(model.apply(wire({ sessionId: 's2', tasks: [running('a')] })), { kind: 'none' });
  assert.equal(model.tasks().length, 0);
  assert.deepEqual(model.setActiveSession('s2'), { kind: 'all' });
  assert.deepEqual(model.tasks().map((t) => t.id), ['a']);
});

test('a new task refreshes the list; a status change refreshes only that item', () => {
  const model = new BackgroundTasksModel(clock().now);
  model.setActiveSession('s1');
  assert.deepEqual(model.apply(wire({ sessionId: 's1', tasks: [running('a'), running('b')] })), { kind: 'all' });
  assert.deepEqual(model.apply(wire({ sessionId: 's1', tasks: [running('a'), running('b')] })), { kind: 'none' });
  assert.deepEqual(model.apply(wire({ sessionId: 's1', tasks: [running('a'), running('b', { status: 'completed' })] })), { kind: 'items', ids: ['b'] });
  assert.deepEqual(model.apply(wire({ sessionId: 's1', tasks: [running('a')] })), { kind: 'all' });
});

test('running tasks sort first; elapsed time ticks while running and freezes when finished', () => {
  const c = clock();
  const model = new BackgroundTasksModel(c.now);
  model.setActiveSession('s1');
  model.apply(wire({ sessionId: 's1', tasks: [running('old', { status: 'failed', startedAt: 999_000 }), running('new')] }));
  assert.deepEqual(model.tasks().map((t) => t.id), ['new', 'old']);
  c.advance(5_000);
  assert.equal(model.elapsedMs(model.get('new')!), 5_000);
  model.apply(wire({ sessionId: 's1', tasks: [running('old', { status: 'failed', startedAt: 999_000 }), running('new', { status: 'completed' })] }));
  c.advance(60_000);
  assert.equal(model.elapsedMs(model.get('new')!), 5_000);
  assert.deepEqual(model.runningIds(), []);
});

test('cancelling survives a stale running update and ends with the final status', () => {
  const model = new BackgroundTasksModel(clock().now);
  model.setActiveSession('s1');
  model.apply(wire({ sessionId: 's1', tasks: [running('a')] }));
  assert.deepEqual(model.setStatus('s1', 'a', 'cancelling'), { kind: 'items', ids: ['a'] });
  assert.deepEqual(model.apply(wire({ sessionId: 's1', tasks: [running('a')] })), { kind: 'none' });
  assert.equal(model.get('a')!.status, 'cancelling');
  assert.deepEqual(model.apply(wire({ sessionId: 's1', tasks: [running('a', { status: 'cancelled' })] })), { kind: 'items', ids: ['a'] });
  assert.equal(model.get('a')!.status, 'cancelled');
});

test('the boundary parser skips malformed entries and accepts ISO times and taskId', () => {
  assert.equal(parseNotification(null), undefined);
  assert.equal(parseNotification({ sessionId: 1, tasks: [] }), undefined);
  const parsed = parseNotification({ sessionId: 's', tasks: [null, { nope: 1 }, { taskId: 't', kind: 'agent', status: 'running', startedAt: '2024-01-01T00:00:00Z', outputPath: '/tmp/o' }] });
  assert.deepEqual(parsed, { sessionId: 's', tasks: [{ id: 't', kind: 'agent', description: 't', status: 'running', startedAt: Date.parse('2024-01-01T00:00:00Z'), outputPath: '/tmp/o', toolCallId: undefined }] });
});

test('elapsed formatting', () => {
  assert.equal(formatElapsed(4_200), '4s');
  assert.equal(formatElapsed(123_000), '2m 03s');
  assert.equal(formatElapsed(3_720_000), '1h 02m');
});
