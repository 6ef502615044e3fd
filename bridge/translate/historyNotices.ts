/**
 * What a replay shows of zcode's internals: the user sees what they saw live, not the
 * runtime's bookkeeping. Read from zcode's message schema (`semantics` of a message's `info`, the
 * `compaction` and `timeline` part types; `jimpablo/ZCode` `packages/shared/src/zcode-protocol-legacy-types.ts`):
 *
 * - `<system-reminder>…</system-reminder>` blocks are cut out of text (zcode injects them into turns);
 * - a message whose `semantics.kind` is a reminder (`system_reminder`, `todo_reminder`), or whose
 *   `uiVisibility` / `transcriptVisibility` hides it, is dropped;
 * - notices become one collapsed card each (a completed `tool_call` of kind `other`, the text as its
 *   content, `_meta.zcode.notice` naming the kind): compaction summaries and `compaction` /
 *   `timeline:"context_compaction"` parts, background-task and sub-agent notifications (also the older
 *   `inputSource:"background_task"` messages), fork and rewind notices and shared context (hand-offs),
 *   model changes.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';

export type NoticeKind = 'compaction' | 'background' | 'handoff' | 'rewind' | 'model_change';

const NOTICE_TITLES: Record<NoticeKind, string> = {
  compaction: 'Conversation compacted',
  background: 'Background task notification',
  handoff: 'Handed over from another session',
  rewind: 'Conversation rewound',
  model_change: 'Model changed',
};

/** `semantics.kind` values that are notices, and what they are. */
const NOTICE_KINDS: Record<string, NoticeKind> = {
  compact_summary: 'compaction',
  background_notification: 'background',
  subagent_notification: 'background',
  fork_notice: 'handoff',
  shared_context: 'handoff',
  rewind_notice: 'rewind',
};

const REMINDER_KINDS = new Set(['system_reminder', 'todo_reminder']);

/** How a message is replayed: as itself, as a notice card, or not at all. */
export type MessageTreatment = { show: 'message' } | { show: 'notice'; kind: NoticeKind } | { show: 'nothing' };

export function messageTreatment(info: Record<string, unknown>): MessageTreatment {
  const semantics = (typeof info.semantics === 'object' && info.semantics !== null ? info.semantics : {}) as Record<string, unknown>;
  const kind = typeof semantics.kind === 'string' ? semantics.kind : undefined;
  if (kind && REMINDER_KINDS.has(kind)) return { show: 'nothing' };
  if (kind && kind in NOTICE_KINDS) return { show: 'notice', kind: NOTICE_KINDS[kind] };
  // Synthetic inputs named by their source (current builds) or the older model-only background inputs.
  const source = typeof info.source === 'string' ? info.source : undefined;
  if (source === 'background_task' || source === 'subagent_message' || info.inputSource === 'background_task') return { show: 'notice', kind: 'background' };
  if (source === 'fork' || source === 'shared_context') return { show: 'notice', kind: 'handoff' };
  if (source === 'rewind') return { show: 'notice', kind: 'rewind' };
  if (source === 'todo_reminder') return { show: 'nothing' };
  if (semantics.uiVisibility === 'hidden' || semantics.uiVisibility === 'debug' || semantics.transcriptVisibility === 'hidden') return { show: 'nothing' };
  if (info.inputVisibility === 'model-only' || info.visibility === 'model-only') return { show: 'nothing' };
  return { show: 'message' };
}

/** A part that is itself a notice (`compaction`, a `timeline` compaction / fork / model change). */
export function partNotice(part: Record<string, unknown>): { kind: NoticeKind; text: string } | undefined {
  if (part.type === 'compaction') return { kind: 'compaction', text: part.auto === true ? 'zcode compacted the conversation automatically.' : 'The conversation was compacted.' };
  if (part.type !== 'timeline') return undefined;
  const tokens = (n: unknown): string => (typeof n === 'number' ? String(n) : '?');
  switch (part.timelineType) {
    case 'context_compaction':
      return { kind: 'compaction', text: typeof part.preCompactTokenCount === 'number' ? `Context compacted (${tokens(part.preCompactTokenCount)} → ${tokens(part.postCompactTokenCount)} tokens).` : 'Context compacted.' };
    case 'session_fork':
      return { kind: 'handoff', text: typeof part.parentSessionId === 'string' ? `Forked from session ${part.parentSessionId}.` : 'Forked from another session.' };
    case 'model_change': {
      const to = (part.toModel as { label?: unknown; modelId?: unknown } | undefined) ?? {};
      return { kind: 'model_change', text: `Model changed to ${String(to.label ?? to.modelId ?? 'another model')}.` };
    }
    default:
      return undefined;
  }
}

/** zcode's `<system-reminder>` blocks cut out of a text (and the blank lines they leave). */
export function stripSystemReminders(text: string): string {
  if (!text.includes('<system-reminder>')) return text;
  return text
    .replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The collapsed card of one notice. */
export function noticeCard(id: string, kind: NoticeKind, text: string): SessionUpdate {
  const card: SessionUpdate = {
    sessionUpdate: 'tool_call',
    toolCallId: `notice-${id}`,
    title: NOTICE_TITLES[kind],
    kind: 'other',
    status: 'completed',
    _meta: { zcode: { notice: { kind } } },
  };
  if (text !== '') card.content = [{ type: 'content', content: { type: 'text', text } }];
  return card;
}

/** The history with each message id once: a re-upserted message keeps its last version, at its last place. */
export function lastVersionOfEach<T extends { info: { id: string } }>(messages: readonly T[]): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (seen.has(messages[i].info.id)) continue;
    seen.add(messages[i].info.id);
    out.push(messages[i]);
  }
  return out.reverse();
}
