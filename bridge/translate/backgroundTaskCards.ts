/**
 * Background tasks (docs/zcode-protocol.md "Background tasks and sub-agents"): `session.updated` lifecycle steps with a
 * `taskId` → a reused Bash launch card or a fresh `[background] …` card, plus the session's task
 * list on every change; and the cards of tasks the user cancels.
 */
import type { SessionUpdate, ToolCallContent, ToolCallStatus } from '@agentclientprotocol/sdk';
import { backgroundTaskKindOf } from '../../shared/backgroundTasks.ts';
import type { BackgroundTaskPayload, BackgroundTaskStatus } from '../zcode/protocol.ts';
import { tailDelta, textContent } from './content.ts';
import { shellTextContent, terminalExitMeta, terminalOutputMeta, zcodeMeta, type Meta } from './toolCards.ts';
import { isAgentTool, isShellTool, stringField } from './toolInfo.ts';
import {
  isBackgroundInput,
  isFinished,
  update,
  type BackgroundTaskInfo,
  type SessionTranslatorState,
  type TaskRecord,
  type ToolRecord,
  type TranslateResult,
} from './translatorState.ts';


/** The session's background tasks, oldest first (copies). */
export function listBackgroundTasks(state: SessionTranslatorState): BackgroundTaskInfo[] {
  return [...state.tasks.values()].map((task) => ({ ...task.info }));
}

function taskKind(payload: BackgroundTaskPayload, launch: ToolRecord | undefined): 'agent' | 'bash' {
  const name = payload.toolName ?? launch?.name;
  if (isShellTool(name)) return 'bash';
  if (isAgentTool(name)) return 'agent';
  return backgroundTaskKindOf(payload.taskId);
}

/** A task seen for the first time: reuse its Bash launch card, or mint `[background] …` card `bg_<taskId>`. */
function openTask(state: SessionTranslatorState, payload: BackgroundTaskPayload, out: SessionUpdate[]): TaskRecord {
  const launchId = payload.toolCallId ?? state.taskLaunchCards.get(payload.taskId);
  const launch = launchId ? state.tools.get(launchId) : undefined;
  const reuse =
    launch !== undefined &&
    launch.announced &&
    isShellTool(launch.name) &&
    (launch.launchPending || (isBackgroundInput(launch) && !isFinished(launch)));
  const description =
    payload.description ?? stringField(launch?.input ?? {}, 'description', 'command') ?? payload.toolName ?? payload.taskId;
  const cardId = reuse ? launch.id : `bg_${payload.taskId}`;
  const info: BackgroundTaskInfo = { id: payload.taskId, kind: taskKind(payload, launch), description, status: payload.status, cardId };
  if (payload.startedAt) info.startedAt = payload.startedAt;
  if (payload.outputPath) info.outputPath = payload.outputPath;
  if (launchId) info.toolCallId = launchId;
  const toolName = payload.toolName ?? launch?.name;
  const task: TaskRecord = { info, reusesLaunchCard: reuse, terminalCard: reuse && launch.terminalCard, lastTail: '', finished: false, toolName };
  state.tasks.set(payload.taskId, task);
  const meta = zcodeMeta(toolName, { taskId: payload.taskId, background: true });
  if (reuse) {
    launch.launchPending = true;
    launch.status = 'in_progress';
    out.push(update(cardId, { status: 'in_progress', _meta: meta }));
  } else {
    const rawInput: Record<string, unknown> = { taskId: payload.taskId, description };
    if (toolName) rawInput.toolName = toolName;
    if (payload.outputPath) rawInput.outputPath = payload.outputPath;
    out.push({
      sessionUpdate: 'tool_call',
      toolCallId: cardId,
      title: `[background] ${description}`,
      kind: 'other',
      status: 'in_progress',
      rawInput,
      ...(toolName ? { name: toolName } : {}),
      _meta: meta,
    });
  }
  return task;
}

/** Merge changed descriptive fields; true when the task list changed. */
function mergeTaskInfo(info: BackgroundTaskInfo, payload: BackgroundTaskPayload): boolean {
  let changed = false;
  if (payload.description && payload.description !== info.description) {
    info.description = payload.description;
    changed = true;
  }
  if (payload.outputPath && payload.outputPath !== info.outputPath) {
    info.outputPath = payload.outputPath;
    changed = true;
  }
  if (payload.startedAt && payload.startedAt !== info.startedAt) {
    info.startedAt = payload.startedAt;
    changed = true;
  }
  if (payload.status !== info.status) {
    info.status = payload.status;
    changed = true;
  }
  return changed;
}

/** Text content of a non-terminal background card: the launch note, the output tail, and (at the end) a link to the output file. */
function taskContent(state: SessionTranslatorState, task: TaskRecord, final: boolean): ToolCallContent[] {
  const content: ToolCallContent[] = [];
  const launchText = task.reusesLaunchCard ? state.tools.get(task.info.cardId)?.launchText : undefined;
  if (launchText) content.push(textContent(launchText));
  if (task.lastTail !== '') content.push(task.info.kind === 'bash' ? shellTextContent(task.lastTail) : textContent(task.lastTail));
  if (final && task.info.outputPath) {
    content.push({ type: 'content', content: { type: 'resource_link', name: 'output', uri: fileUri(task.info.outputPath) } });
  }
  return content;
}

function fileUri(path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  const normalized = path.replace(/\\/g, '/');
  return `file://${normalized.startsWith('/') ? '' : '/'}${encodeURI(normalized)}`;
}

/** Close a task's card: completed → completed (exit 0); failed / cancelled → failed (exit 1), cancelled marked in `_meta.backgroundTask`. */
function finishTask(state: SessionTranslatorState, task: TaskRecord, status: Exclude<BackgroundTaskStatus, 'running'>): SessionUpdate[] {
  task.finished = true;
  task.info.status = status;
  const acpStatus: ToolCallStatus = status === 'completed' ? 'completed' : 'failed';
  const cardId = task.info.cardId;
  if (task.reusesLaunchCard) {
    const launch = state.tools.get(cardId);
    if (launch) {
      launch.launchPending = false;
      launch.status = acpStatus;
    }
  }
  const meta: Meta = zcodeMeta(task.toolName, { taskId: task.info.id, background: true });
  if (status === 'cancelled') meta.backgroundTask = { cancelled: true };
  if (task.terminalCard) {
    return [update(cardId, { status: acpStatus, _meta: { ...meta, ...terminalExitMeta(cardId, status === 'completed' ? 0 : 1) } })];
  }
  const content = taskContent(state, task, true);
  return [update(cardId, { status: acpStatus, ...(content.length > 0 ? { content } : {}), _meta: meta })];
}

/**
 * A background-task lifecycle step (`session.updated` with a `taskId`). First sight opens the card
 * (see `openTask`); a new `outputTail` is streamed (terminal cards: only the part not yet sent;
 * text cards: the tail as content); completed / failed / cancelled close it. Late events for a
 * finished task are ignored. Any change to the task list emits `background_tasks`.
 */
export function translateBackgroundTask(state: SessionTranslatorState, payload: BackgroundTaskPayload): TranslateResult {
  const updates: SessionUpdate[] = [];
  let task = state.tasks.get(payload.taskId);
  if (task?.finished) return { updates: [], signals: [] };
  let changed: boolean;
  if (!task) {
    task = openTask(state, payload, updates);
    changed = true;
  } else {
    changed = mergeTaskInfo(task.info, payload);
  }
  if (payload.outputTail !== undefined) {
    const delta = tailDelta(task.lastTail, payload.outputTail);
    task.lastTail = payload.outputTail;
    if (delta !== '') {
      if (task.terminalCard) updates.push(update(task.info.cardId, { _meta: terminalOutputMeta(task.info.cardId, delta) }));
      else if (payload.status === 'running') updates.push(update(task.info.cardId, { content: taskContent(state, task, false) }));
    }
  }
  task.info.status = payload.status;
  if (payload.status !== 'running') updates.push(...finishTask(state, task, payload.status));
  return { updates, signals: changed ? [{ type: 'background_tasks', tasks: listBackgroundTasks(state) }] : [] };
}

/**
 * The updates for a background task the user cancelled (`_zcode/session/cancelBackgroundTask`):
 * its card is marked failed with `_meta.backgroundTask.cancelled = true` (plus `terminal_exit` for
 * a Bash terminal card). The task's status becomes `cancelled` (see `listBackgroundTasks`). A task
 * the translator never saw, or one already finished, gives `[]`.
 */
export function cancelledBackgroundTaskUpdates(state: SessionTranslatorState, taskId: string): SessionUpdate[] {
  let task = state.tasks.get(taskId);
  if (!task) {
    const launchId = state.taskLaunchCards.get(taskId);
    const launch = launchId ? state.tools.get(launchId) : undefined;
    if (!launch?.launchPending) return [];
    task = openTask(state, { taskId, toolCallId: launchId, toolName: launch.name, status: 'running' }, []);
  }
  if (task.finished) return [];
  return finishTask(state, task, 'cancelled');
}
