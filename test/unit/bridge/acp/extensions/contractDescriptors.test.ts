/**
 * The `_zcode/*` contract (bridge/acp/extensions/contractDescriptors.ts) as a client uses it: results checked
 * against their schema, notifications parsed once (the background-task list with its defaults),
 * and the shared form rules (shared/forms.ts) the bridge and the clients both apply.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BackgroundTasksNotification,
  CheckpointsChangedNotification,
  EXTENSION_NOTIFICATIONS,
  EXTENSION_REQUESTS,
  ForkRequest,
  notificationOf,
  replayOf,
  SteerStateNotification,
} from '../../../../../bridge/acp/extensions/contractDescriptors.ts';
import { callExtension, CONTRACT_SCHEMAS, ContractViolation, paramsSchema, parseNotification, readNotification } from '../../../../../bridge/acp/extensions/contractSchemas.ts';
import { backgroundTaskKindOf } from '../../../../../shared/backgroundTasks.ts';
import { combineAnswer, formKindMeta, otherEffect, readFormKind, SKIP_CHOICE } from '../../../../../shared/forms.ts';

describe('the _zcode/* descriptors', () => {
  test('every method and notification is _zcode/<session|account|agent>/<name>, each declared once', () => {
    const methods = [...EXTENSION_REQUESTS, ...EXTENSION_NOTIFICATIONS].map((d) => d.method);
    for (const method of methods) assert.match(method, /^_zcode\/(session|account|agent)\/[a-zA-Z]+$/);
    assert.equal(new Set(methods).size, methods.length);
  });

  test('callExtension sends the method and params and returns the checked result', async () => {
    const sent: Array<[string, unknown]> = [];
    const result = await callExtension(
      async (method, params) => {
        sent.push([method, params]);
        return { sessionId: 'sess_2', cwd: '/w', extra: true };
      },
      ForkRequest,
      { sessionId: 's1', checkpointId: 'cp' },
    );
    assert.deepEqual(sent, [['_zcode/session/fork', { sessionId: 's1', checkpointId: 'cp' }]]);
    // Unknown keys are dropped: the caller sees exactly the declared shape.
    assert.deepEqual(result, { sessionId: 'sess_2', cwd: '/w' });
  });

  test('an answer outside the contract is a ContractViolation naming the method and the problem', async () => {
    await assert.rejects(
      callExtension(async () => ({ cwd: '/w' }), ForkRequest, { sessionId: 's1' }),
      (error: unknown) => {
        assert.ok(error instanceof ContractViolation);
        assert.equal(error.method, '_zcode/session/fork');
        assert.match(error.message, /_zcode\/session\/fork.*sessionId/);
        return true;
      },
    );
  });

  test('readNotification: params of its own method only, checked', () => {
    assert.deepEqual(readNotification(SteerStateNotification, { method: '_zcode/session/steerState', params: { sessionId: 's', state: 'queued' } }), { sessionId: 's', state: 'queued' });
    assert.equal(readNotification(SteerStateNotification, { method: '_zcode/session/steerState', params: { sessionId: 's', state: 'lost' } }), undefined);
    assert.equal(readNotification(SteerStateNotification, { method: '_zcode/session/backgroundTasks', params: { sessionId: 's', state: 'queued' } }), undefined);
    assert.deepEqual(readNotification(CheckpointsChangedNotification, { method: '_zcode/session/checkpointsChanged', params: { sessionId: 's' } }), { sessionId: 's' });
  });

  test('parseNotification, a client\'s boundary: any contract notification, checked; requests, unknown methods and bad params pass nothing on', () => {
    const steer = parseNotification({ method: SteerStateNotification.method, params: { sessionId: 's', state: 'queued', extra: 1 } });
    assert.deepEqual(steer, { method: SteerStateNotification.method, params: { sessionId: 's', state: 'queued' } });
    assert.deepEqual(steer && notificationOf(SteerStateNotification, steer), { sessionId: 's', state: 'queued' });
    assert.equal(steer && notificationOf(CheckpointsChangedNotification, steer), undefined);
    assert.equal(parseNotification({ method: SteerStateNotification.method, params: { sessionId: 's', state: 'lost' } }), undefined);
    assert.equal(parseNotification({ method: ForkRequest.method, params: { sessionId: 's' } }), undefined);
    assert.equal(parseNotification({ method: '_zcode/session/unheardOf', params: { sessionId: 's' } }), undefined);
  });

  test('every descriptor has its schemas: a request a params and a result schema, a notification params only', () => {
    for (const d of EXTENSION_REQUESTS) assert.ok(paramsSchema(d) && 'result' in CONTRACT_SCHEMAS[d.method], d.method);
    for (const d of EXTENSION_NOTIFICATIONS) assert.ok(paramsSchema(d) && !('result' in CONTRACT_SCHEMAS[d.method]), d.method);
  });

  test('replayOf reads session/load\'s replay summary without zod; a malformed one is none', () => {
    assert.deepEqual(replayOf({ _meta: { zcode: { replay: { total: 9, replayed: 5, cursor: 'c' } } } }), { total: 9, replayed: 5, cursor: 'c' });
    assert.deepEqual(replayOf({ _meta: { zcode: { replay: { total: 5, replayed: 5 } } } }), { total: 5, replayed: 5 });
    assert.equal(replayOf({ _meta: { zcode: { replay: { total: -1, replayed: 5 } } } }), undefined);
    assert.equal(replayOf({ _meta: { zcode: { replay: { total: 5, replayed: 5, cursor: 7 } } } }), undefined);
    assert.equal(replayOf({ _meta: { zcode: {} } }), undefined);
    assert.equal(replayOf(undefined), undefined);
  });
});

describe('the background-task list: one parser', () => {
  const read = (tasks: unknown[]) => readNotification(BackgroundTasksNotification, { method: BackgroundTasksNotification.method, params: { sessionId: 's', tasks } })?.tasks;

  test('a missing kind is read from the id: exec_… is a shell task, anything else a sub-agent', () => {
    assert.deepEqual(
      read([{ id: 'exec_1' }, { id: 'agent_1' }, { taskId: 'task_9' }]),
      [
        { id: 'exec_1', kind: 'bash', description: 'exec_1', status: 'running' },
        { id: 'agent_1', kind: 'agent', description: 'agent_1', status: 'running' },
        { id: 'task_9', kind: 'agent', description: 'task_9', status: 'running' },
      ],
    );
    assert.equal(backgroundTaskKindOf('exec_7'), 'bash');
    assert.equal(backgroundTaskKindOf('a1'), 'agent');
  });

  test('every field kept, epoch ms → ISO, malformed entries dropped without losing the others', () => {
    const tasks = read([
      { id: 'exec_1', kind: 'bash', description: 'Build', status: 'completed', startedAt: 0, outputPath: '/tmp/o', toolCallId: 'c1', cardId: 'c1' },
      null,
      { description: 'no id' },
      { id: 'agent_2', kind: 'robot', status: 5, startedAt: 'never' },
    ]);
    assert.deepEqual(tasks, [
      { id: 'exec_1', kind: 'bash', description: 'Build', status: 'completed', startedAt: '1970-01-01T00:00:00.000Z', outputPath: '/tmp/o', toolCallId: 'c1', cardId: 'c1' },
      { id: 'agent_2', kind: 'agent', description: 'agent_2', status: 'running' },
    ]);
  });

  test('a notification without a task array is refused whole', () => {
    assert.equal(readNotification(BackgroundTasksNotification, { method: BackgroundTasksNotification.method, params: { sessionId: 's' } }), undefined);
  });
});

describe('shared form rules', () => {
  test('formKind: the tag the bridge writes is the tag a client reads; untagged is a generic form', () => {
    assert.equal(readFormKind(formKindMeta('questions')), 'questions');
    assert.equal(readFormKind(formKindMeta('planFeedback')), 'planFeedback');
    assert.equal(readFormKind(undefined), 'form');
    assert.equal(readFormKind({ zcode: { formKind: 'mystery' } }), 'form');
  });

  test('other overrides a single pick, is added to multiple picks; Skip or nothing skips', () => {
    assert.deepEqual(combineAnswer(['a'], ' mine ', false), ['mine']);
    assert.deepEqual(combineAnswer(['a'], '', false), ['a']);
    assert.deepEqual(combineAnswer([SKIP_CHOICE], '', false), []);
    assert.deepEqual(combineAnswer([], '', false), []);
    assert.deepEqual(combineAnswer(['a', 'b'], 'c', true), ['a', 'b', 'c']);
    assert.deepEqual(combineAnswer(['a', SKIP_CHOICE], '', true), []);
    assert.deepEqual(combineAnswer([SKIP_CHOICE], 'typed', true), ['typed']);
    assert.equal(otherEffect('x', false), 'overrides');
    assert.equal(otherEffect('x', true), 'adds');
    assert.equal(otherEffect('  ', true), undefined);
  });
});
