/**
 * The `session/load` replay: zcode's `session/messages` history as ACP session updates, streamed
 * before the load responds. Tool cards are built by the same functions as the live stream
 * (toolCards.ts), so a replayed card has the kind, title, locations and diff the live one had.
 */
import type { SessionUpdate, ToolCallStatus } from '@agentclientprotocol/sdk';
import type { HistoryMessage } from '../zcode/protocol.ts';
import { errorText, parseSubagentResult, resultText, textContent } from './content.ts';
import { planUpdate } from './plan.ts';
import type { BridgeLocale } from '../l10n/messages.ts';
import { completionContent, exitCodeOf, isTerminalCard, terminalExitMeta, terminalOutputMeta, toolCallCard, zcodeMeta, type CardOptions, type Meta } from './toolCards.ts';
import { asRecord, canonicalToolName, isAgentTool } from './toolInfo.ts';
import { lastVersionOfEach, messageTreatment, noticeCard, partNotice, stripSystemReminders } from './historyNotices.ts';

export interface HistoryOptions {
  /** Session working directory. */
  cwd: string;
  /** The current todo list (`session/read` `todos`); replayed last as the plan. */
  todos?: readonly unknown[];
  /** The client takes terminal meta (see `CardOptions.terminalOutput`). */
  terminalOutput: boolean;
  /** The language of the bridge's card titles (l10n/messages.ts); English when absent. */
  locale?: BridgeLocale;
}

/** A stored tool status → ACP status. Unknown with an error → failed; unknown otherwise → completed. */
function replayToolStatus(state: Record<string, unknown>): ToolCallStatus {
  const status = typeof state.status === 'string' ? state.status.toLowerCase() : undefined;
  switch (status) {
    case 'completed':
    case 'complete':
    case 'success':
    case 'succeeded':
    case 'done':
      return 'completed';
    case 'error':
    case 'failed':
    case 'failure':
    case 'cancelled':
    case 'canceled':
    case 'aborted':
      return 'failed';
    case 'running':
    case 'in_progress':
    case 'started':
      return 'in_progress';
    case 'pending':
    case 'scheduled':
      return 'pending';
    default:
      return state.error !== undefined && state.error !== null ? 'failed' : 'completed';
  }
}

/**
 * One stored tool call as updates: a `tool_call` with its final status and content. Terminal
 * clients get the terminal card, then its output (`terminal_output`) and exit (`terminal_exit`)
 * as updates, as they would have live.
 */
function replayToolCall(
  part: { callId: string; tool: string; state: Record<string, unknown> },
  opts: CardOptions,
): SessionUpdate[] {
  const { callId: id, tool: name } = part;
  const input = asRecord(part.state.input);
  const status = replayToolStatus(part.state);
  const finished = status === 'completed' || status === 'failed';
  const success = status !== 'failed';
  const text = success ? resultText(part.state.output) : errorText(part.state.error ?? part.state.output);
  const metadata = part.state.metadata;

  if (isTerminalCard(name, opts)) {
    const out: SessionUpdate[] = [toolCallCard(id, name, input, finished ? 'in_progress' : status, opts)];
    if (text !== '') out.push({ sessionUpdate: 'tool_call_update', toolCallId: id, _meta: terminalOutputMeta(id, text) });
    if (finished) {
      out.push({
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status,
        _meta: { ...zcodeMeta(name), ...terminalExitMeta(id, exitCodeOf(metadata, success)) },
      });
    }
    return out;
  }

  const card = toolCallCard(id, name, input, status, opts);
  if (finished) {
    if (isAgentTool(name)) {
      if (text !== '') card.content = [textContent(text)];
      const subagent = success ? parseSubagentResult(text) : undefined;
      if (subagent) (card._meta as Meta).subagent = subagent;
    } else {
      const content = completionContent(name, input, opts, { success, text, metadata });
      if (content) card.content = content;
    }
  }
  const out: SessionUpdate[] = [card];
  if (canonicalToolName(name) === 'TodoWrite' && Array.isArray(input.todos)) out.push(planUpdate(input.todos));
  return out;
}

/** A notice message's text parts, reminders cut out. */
function visibleText(parts: readonly unknown[]): string {
  return parts
    .map((p) => (p as Record<string, unknown>))
    .filter((p) => p.type === 'text' && typeof p.text === 'string' && p.ignored !== true)
    .map((p) => stripSystemReminders(p.text as string))
    .filter((t) => t !== '')
    .join('\n\n');
}

/**
 * The whole replay, in order: user text → `user_message_chunk`, assistant text →
 * `agent_message_chunk`, reasoning → `agent_thought_chunk` (each with the message's id), tool parts
 * → cards (see `replayToolCall`; TodoWrite also replays its plan), and finally the current todo
 * list as the plan. What the user did not see live is left out or collapsed (historyNotices.ts): system
 * reminders, hidden messages and parts, repeated message ids (the last version is kept); notices
 * (compaction, background tasks, hand-offs) become collapsed cards. System messages and unknown parts are skipped.
 */
export function historyToUpdates(messages: readonly HistoryMessage[], opts: HistoryOptions): SessionUpdate[] {
  const cardOpts: CardOptions = { cwd: opts.cwd, terminalOutput: opts.terminalOutput, ...(opts.locale ? { locale: opts.locale } : {}) };
  const out: SessionUpdate[] = [];
  for (const message of lastVersionOfEach(messages)) {
    const info = message.info as Record<string, unknown> & { id: string; role: string };
    const role = info.role;
    if (role !== 'user' && role !== 'assistant') continue;
    const treatment = messageTreatment(info);
    if (treatment.show === 'nothing') continue;
    if (treatment.show === 'notice') {
      out.push(noticeCard(info.id, treatment.kind, visibleText(message.parts)));
      continue;
    }
    message.parts.forEach((rawPart, index) => {
      const part = rawPart as Record<string, unknown>;
      if (part.synthetic === true || part.ignored === true) return;
      const notice = partNotice(part);
      const text = typeof part.text === 'string' ? stripSystemReminders(part.text) : '';
      if (notice) {
        out.push(noticeCard(`${info.id}-${index}`, notice.kind, notice.text));
      } else if (part.type === 'text' && text !== '') {
        out.push({
          sessionUpdate: role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
          content: { type: 'text', text },
          messageId: info.id,
        });
      } else if (part.type === 'reasoning' && text !== '' && role === 'assistant') {
        out.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text }, messageId: info.id });
      } else if (part.type === 'tool' && typeof part.callId === 'string' && typeof part.tool === 'string') {
        out.push(...replayToolCall({ callId: part.callId, tool: part.tool, state: asRecord(part.state) }, cardOpts));
      }
    });
  }
  if (opts.todos && opts.todos.length > 0) out.push(planUpdate(opts.todos));
  return out;
}
