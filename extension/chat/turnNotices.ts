/**
 * Status notices of a running turn that are not the model's words: the bridge's automatic retry
 * of a failed attempt ("retrying in 1.0 s, attempt 1 of 2"), waiting for a stopped turn. They
 * arrive on a `session/update` whose `_meta.zcode.notice` carries them; older bridges sent the
 * retry as a thought chunk marked `_meta.zcode.status: 'retrying'`, read the same way. Pure: the
 * transcript decides what to show.
 */
import type { ContentBlock, SessionUpdate } from '@agentclientprotocol/sdk';

export interface TurnNotice {
  /** `retrying`: the attempt failed and the bridge sends the prompt again. */
  kind: 'retrying' | 'other';
  text: string;
}

const record = (value: unknown): Record<string, unknown> | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/** The update's own text: a chunk's, or an ACP `notice`'s title. */
function chunkText(update: SessionUpdate): string {
  if (update.sessionUpdate === 'notice') return update.title;
  if (update.sessionUpdate !== 'agent_thought_chunk' && update.sessionUpdate !== 'agent_message_chunk') return '';
  const content: ContentBlock = update.content;
  return content.type === 'text' ? content.text : '';
}

/**
 * The turn notice an update carries, if any. `_meta.zcode.notice` is `{kind, …facts}` on a thought
 * chunk (whose text is the notice) or on an ACP `notice` update (its title); a `text` field or a
 * plain string wins over both.
 */
export function turnNoticeOf(update: SessionUpdate): TurnNotice | undefined {
  const zcode = record(record(update._meta)?.zcode);
  if (!zcode) return undefined;
  const notice = zcode.notice;
  if (typeof notice === 'string' && notice.trim()) return { kind: 'other', text: notice.trim() };
  const fields = record(notice);
  if (fields) {
    const text = typeof fields.text === 'string' && fields.text.trim() ? fields.text.trim() : chunkText(update).trim();
    if (text) return { kind: fields.kind === 'retrying' ? 'retrying' : 'other', text };
  }
  if (zcode.status === 'retrying') {
    const text = chunkText(update).trim();
    if (text) return { kind: 'retrying', text };
  }
  return undefined;
}
