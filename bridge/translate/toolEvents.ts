/**
 * `tool.updated` events → tool cards: one `tool_call` per tool call, then status, output and
 * content updates. Shell output arrives as cumulative tails and leaves as deltas (terminal clients)
 * or as the accumulated text (others). A background Bash launch keeps its card open for the task's
 * lifecycle (backgroundTaskCards.ts).
 */
import type { SessionUpdate, ToolCallStatus } from '@agentclientprotocol/sdk';
import type { ToolUpdatedPayload } from '../zcode/protocol.ts';
import { errorText, parseSubagentResult, resultText, tailDelta, textContent, unsentRemainder } from './content.ts';
import {
  completionContent,
  exitCodeOf,
  shellTextContent,
  terminalExitMeta,
  terminalOutputMeta,
  zcodeMeta,
  type Meta,
} from './toolCards.ts';
import { asRecord, isAgentTool, isShellTool, stringField } from './toolInfo.ts';
import { announce, isBackgroundInput, isFinished, recordFor, update, type SessionTranslatorState, type ToolRecord } from './translatorState.ts';

/** Cap for accumulated text output (text-content clients): keep the end. */
const MAX_TEXT_OUTPUT = 200_000;

function appendCapped(text: string, data: string): string {
  const joined = text + data;
  return joined.length <= MAX_TEXT_OUTPUT ? joined : `…\n${joined.slice(joined.length - MAX_TEXT_OUTPUT)}`;
}


/**
 * A sub-agent's tool call names the Agent call it runs under (zcode 3.15+: `parentToolCallId`, the
 * seed builds' `parentId`) and the sub-agent's type; the card carries both in `_meta.zcode` so a client
 * can show it under its Agent card.
 */
function attribute(record: ToolRecord, payload: { parentToolCallId?: string; agentType?: string }): void {
  const parent = payload.parentToolCallId ?? stringField(asRecord(payload), 'parentId');
  if (parent && parent !== record.id) record.parentToolCallId = parent;
  if (payload.agentType) record.agentType = payload.agentType;
}

export function onToolUpdated(state: SessionTranslatorState, payload: ToolUpdatedPayload): SessionUpdate[] {
  state.segment = undefined;
  switch (payload.kind) {
    case 'scheduled': {
      const record = recordFor(state, payload.toolCallId);
      if (payload.toolName) record.name = payload.toolName;
      if (payload.input) record.input = payload.input;
      attribute(record, payload);
      // A duplicate `scheduled` (or one after an interaction card) must not open a second card.
      return record.announced ? [] : announce(state, record, 'pending');
    }
    case 'started': {
      const record = recordFor(state, payload.toolCallId);
      if (payload.toolName && !record.name) record.name = payload.toolName;
      if (isFinished(record)) return [];
      if (!record.announced) {
        attribute(record, payload);
        return announce(state, record, 'in_progress');
      }
      if (record.status === 'in_progress') return [];
      record.status = 'in_progress';
      return [update(record.id, { status: 'in_progress' })];
    }
    case 'progress':
      return onProgress(state, payload);
    case 'result':
      return onResult(state, payload);
    case 'error':
      return onError(state, payload);
    case 'batch':
      return onBatch(state, payload);
    case 'raw':
      // Current builds' opaque tool payloads: nothing a client can show.
      return [];
  }
}

/** Announce a tool seen only now (e.g. subscribed mid-turn) before updating it. */
function ensureAnnounced(state: SessionTranslatorState, record: ToolRecord): SessionUpdate[] {
  return record.announced ? [] : announce(state, record, 'in_progress');
}

function onProgress(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'progress' }>): SessionUpdate[] {
  const record = recordFor(state, payload.toolCallId);
  if (payload.toolName && !record.name) record.name = payload.toolName;
  if (isFinished(record)) return [];
  const out = ensureAnnounced(state, record);
  const statusChange = record.status !== 'in_progress';
  record.status = 'in_progress';
  const track = (record.output ??= { stdout: '', stderr: '', streamed: false, text: '' });
  let data = '';
  if (payload.stdoutTail !== undefined) {
    data += tailDelta(track.stdout, payload.stdoutTail);
    track.stdout = payload.stdoutTail;
  }
  if (payload.stderrTail !== undefined) {
    data += tailDelta(track.stderr, payload.stderrTail);
    track.stderr = payload.stderrTail;
  }
  const status = statusChange ? { status: 'in_progress' as const } : {};
  if (data === '') {
    if (statusChange) out.push(update(record.id, status));
    return out;
  }
  track.streamed = true;
  if (record.terminalCard) {
    out.push(update(record.id, { ...status, _meta: terminalOutputMeta(record.id, data) }));
  } else {
    // Content lists replace: send everything accumulated so far.
    track.text = appendCapped(track.text, data);
    out.push(update(record.id, { ...status, content: [shellTextContent(track.text)] }));
  }
  return out;
}

/** The text of a `result` payload (its `content`, else `output` / `error`). */
function payloadResultText(result: Record<string, unknown>): string {
  if (result.content !== undefined) return resultText(result.content);
  if (result.output !== undefined) return resultText(result.output);
  return errorText(result.error);
}

/**
 * A background command's id in its launch acknowledgement. zcode writes a sentence:
 * "Command running in background with ID: exec_…. Output is being written to: …", so the id is
 * followed by a full stop; an id may contain `.`/`:` inside, but never ends with one, so trailing
 * punctuation is not part of it (the id must equal the `taskId` of the lifecycle events).
 */
function launchedTaskId(text: string): string | undefined {
  return /background with ID:\s*([\w.:-]*[\w-])/i.exec(text)?.[1] ?? /\b(exec_[\w-]+)/.exec(text)?.[1];
}

function onResult(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'result' }>): SessionUpdate[] {
  const record = recordFor(state, payload.toolCallId);
  // `result` may carry no toolName: the cached one from `tool_call`/`scheduled` is used.
  if (payload.toolName && !record.name) record.name = payload.toolName;
  if (record.resultSeen) return [];
  const out = ensureAnnounced(state, record);
  const result = asRecord(payload.result);
  const success = payload.result.success !== false;
  const text = payloadResultText(result);
  record.resultSeen = true;
  if (isShellTool(record.name)) {
    if (success && isBackgroundInput(record)) return [...out, ...onBackgroundLaunch(state, record, text)];
    return [...out, ...finishShell(record, success, text, result)];
  }
  const status: ToolCallStatus = success ? 'completed' : 'failed';
  record.status = status;
  if (isAgentTool(record.name)) {
    const meta: Meta = zcodeMeta(record.name);
    const subagent = parseSubagentResult(text);
    if (subagent) meta.subagent = subagent;
    out.push(update(record.id, { status, ...(text !== '' ? { content: [textContent(text)] } : {}), _meta: meta }));
    return out;
  }
  const content = completionContent(record.name, record.input ?? {}, state, { success, text, metadata: result.metadata });
  out.push(update(record.id, { status, ...(content ? { content } : {}), _meta: zcodeMeta(record.name) }));
  return out;
}

/**
 * A background Bash launch acknowledgement: the card stays in_progress (no terminal_exit) and is
 * reused by the task's lifecycle (docs/zcode-protocol.md "Background tasks and sub-agents"). If the task already finished on this
 * card (lifecycle raced ahead of the result), the card is left alone.
 */
function onBackgroundLaunch(state: SessionTranslatorState, record: ToolRecord, text: string): SessionUpdate[] {
  record.launchText = text;
  const taskId = launchedTaskId(text);
  if (taskId) state.taskLaunchCards.set(taskId, record.id);
  const task = [...state.tasks.values()].find((t) => t.reusesLaunchCard && t.info.cardId === record.id);
  if (task?.finished) return [];
  record.launchPending = true;
  record.status = 'in_progress';
  const meta: Meta = zcodeMeta(record.name, { background: true, ...(taskId ? { taskId } : {}) });
  if (record.terminalCard) {
    const data = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    return [update(record.id, { status: 'in_progress', _meta: data !== '' ? { ...meta, ...terminalOutputMeta(record.id, data) } : meta })];
  }
  return [update(record.id, { status: 'in_progress', ...(text !== '' ? { content: [textContent(text)] } : {}), _meta: meta })];
}

/** A shell command finished: the output not yet streamed, then the exit (terminal) or the output as text. */
function finishShell(record: ToolRecord, success: boolean, text: string, result: Record<string, unknown>): SessionUpdate[] {
  const status: ToolCallStatus = success ? 'completed' : 'failed';
  record.status = status;
  record.launchPending = false;
  const track = record.output;
  if (record.terminalCard) {
    const out: SessionUpdate[] = [];
    const remainder = track?.streamed ? unsentRemainder(track.stdout || track.stderr, text) : text;
    if (remainder !== '') out.push(update(record.id, { _meta: terminalOutputMeta(record.id, remainder) }));
    out.push(update(record.id, { status, _meta: { ...zcodeMeta(record.name), ...terminalExitMeta(record.id, exitCodeOf(result, success)) } }));
    return out;
  }
  const output = text !== '' ? text : (track?.text ?? '');
  return [update(record.id, { status, ...(output !== '' ? { content: [shellTextContent(output)] } : {}), _meta: zcodeMeta(record.name) })];
}

function onError(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'error' }>): SessionUpdate[] {
  const record = recordFor(state, payload.toolCallId);
  if (payload.toolName && !record.name) record.name = payload.toolName;
  if (record.resultSeen) return [];
  const out = ensureAnnounced(state, record);
  const text = errorText(payload.error);
  record.resultSeen = true;
  record.status = 'failed';
  record.launchPending = false;
  if (record.terminalCard) {
    if (text !== '') out.push(update(record.id, { _meta: terminalOutputMeta(record.id, text.endsWith('\n') ? text : `${text}\n`) }));
    out.push(update(record.id, { status: 'failed', _meta: { ...zcodeMeta(record.name), ...terminalExitMeta(record.id, 1) } }));
    return out;
  }
  out.push(update(record.id, { status: 'failed', ...(text !== '' ? { content: [textContent(text)] } : {}), _meta: zcodeMeta(record.name) }));
  return out;
}

/**
 * `batch`: several tools finished together. The listed ids still open are completed (the payload's
 * counts do not say which failed). Background launches stay open for their lifecycle.
 */
function onBatch(state: SessionTranslatorState, payload: Extract<ToolUpdatedPayload, { kind: 'batch' }>): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  for (const id of payload.toolCallIds ?? []) {
    const record = state.tools.get(id);
    if (!record || isFinished(record) || record.launchPending) continue;
    if (isShellTool(record.name) && isBackgroundInput(record) && !record.resultSeen) continue;
    out.push(...ensureAnnounced(state, record));
    record.status = 'completed';
    out.push(update(id, { status: 'completed', ...(record.terminalCard ? { _meta: terminalExitMeta(id, 0) } : {}) }));
  }
  return out;
}

/**
 * Close every card still pending / in progress (turn cancelled or failed, or the ACP layer
 * cancelling): `status` on each, plus `terminal_exit` on terminal cards (exit code 0 when
 * completed, 1 when failed). Background launch cards are left to their task.
 */
export function flushOpenTools(state: SessionTranslatorState, status: 'completed' | 'failed'): SessionUpdate[] {
  state.segment = undefined;
  const out: SessionUpdate[] = [];
  for (const record of state.tools.values()) {
    if (!record.announced || isFinished(record) || record.launchPending) continue;
    record.status = status;
    out.push(update(record.id, { status, ...(record.terminalCard ? { _meta: terminalExitMeta(record.id, status === 'completed' ? 0 : 1) } : {}) }));
  }
  return out;
}
