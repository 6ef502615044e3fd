// Background tasks (seed: "Background Tasks & Sub-Agents"): after the launching turn ends, the task reports
// its lifecycle as `session.updated {taskId, ...}` events, and when it finishes the backend starts a turn
// by itself (`turn.started {inputSource:"background_task"}`). session/cancelBackgroundTask stops it.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Start a background task's lifecycle on `session`.
 * @param {object} sv simulator services
 * @param {object} spec { kind:'agent'|'bash', taskId, toolCallId, toolName, description, outputPath,
 *                        status:'completed'|'failed', tails:string[], stepMs?, result?, reply: steps[] }
 */
export function scheduleBackground(sv, session, spec) {
  const controller = new AbortController();
  const base = {
    taskId: spec.taskId,
    toolCallId: spec.toolCallId,
    toolName: spec.toolName,
    description: spec.description ?? spec.toolName,
    outputPath: spec.outputPath,
    terminalId: spec.taskId,
    startedAt: new Date().toISOString(),
    ...(spec.kind === 'bash' ? { pid: sv.ids.int(20000, 60000) } : {}),
  };
  const task = { ...base, status: 'running', outputTail: '', controller };
  session.tasks.set(spec.taskId, task);
  const report = (status, extra = {}) => session.emit('session.updated', { ...base, status, outputTail: task.outputTail, ...extra });
  const writeOutput = (text) => {
    try {
      mkdirSync(dirname(spec.outputPath), { recursive: true });
      appendFileSync(spec.outputPath, text);
    } catch {
      // the output file is a courtesy for humans; the protocol only carries its path
    }
  };

  (async () => {
    report('running');
    for (const tail of spec.tails ?? []) {
      await sv.delay(spec.stepMs ?? 400, controller.signal);
      if (controller.signal.aborted) return;
      task.outputTail = (task.outputTail + tail).slice(-4000); // cumulative tail
      writeOutput(tail);
      report('running');
    }
    await sv.delay(300, controller.signal);
    if (controller.signal.aborted) return;
    task.status = spec.status ?? 'completed';
    report(task.status, task.status === 'failed' ? { error: spec.error ?? 'background task failed' } : {});
    sv.store.save(session);
    const notification = [
      '<task-notification>',
      `<task-id>${spec.taskId}</task-id>`,
      `<tool-use-id>${spec.toolCallId}</tool-use-id>`,
      `<status>${task.status}</status>`,
      `<summary>${spec.kind === 'bash' ? 'Background command' : 'Agent'} "${base.description}" ${task.status}</summary>`,
      spec.result ? `<result>${spec.result}</result>` : `<output-file>${spec.outputPath}</output-file>`,
      '</task-notification>',
    ].join('\n');
    // The backend's own turn waits until the session is idle (a user turn may be running).
    while (session.turn) await session.whenIdle();
    sv.startTurn(session, {
      source: 'background',
      prompt: notification,
      steps: spec.reply ?? [{ text: `The background task "${base.description}" ${task.status}.` }],
      started: { inputSource: 'background_task', inputVisibility: 'model-only', input: notification },
      vars: { taskId: spec.taskId, status: task.status, outputTail: task.outputTail },
    });
  })();
}

/** `session/cancelBackgroundTask`: true if a running task was cancelled. */
export function cancelBackground(sv, session, taskId) {
  const task = session.tasks.get(taskId);
  if (!task || task.status !== 'running') return false;
  task.status = 'cancelled';
  task.controller.abort();
  const { controller: _c, ...payload } = task;
  session.emit('session.updated', payload);
  sv.store.save(session);
  return true;
}
