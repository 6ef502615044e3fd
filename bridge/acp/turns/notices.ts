/**
 * Notices: what the bridge itself tells the user during a turn (a retry after a transient
 * failure, waiting for a cancelled turn, restarting a zcode that ignored a stop). They are not
 * the model's words, so they must never run into its text: a client that streams thought chunks
 * together ("Thinking about it.zcode's turn failed…") would glue them to the model's sentence.
 *
 * - A client that declared ACP's `session.notices` capability gets a `notice` update (severity,
 *   title, description): ACP's own place for "information for the user that is not session
 *   history". ACP forbids sending it to any other client.
 * - Every other client gets an `agent_thought_chunk` that starts and ends on a blank line, so it
 *   stands as its own paragraph whatever came before or after it.
 * - Both carry `_meta.zcode.notice` (kind and facts), so our own chat can show it as a status
 *   line of the turn rather than as text; `_meta.zcode.status` (the kind) stays for older readers.
 */
import type { ClientCapabilities, SessionUpdate } from '@agentclientprotocol/sdk';
import { bt, type BridgeLocale } from '../../l10n/messages.ts';
import { supportsNotices } from '../transport/clients.ts';

export type NoticeKind = 'retrying' | 'waitingForCancelledTurn' | 'restartingZcode';

export interface TurnNotice {
  kind: NoticeKind;
  severity: 'info' | 'warning' | 'error';
  /** One plain sentence that stands alone. */
  title: string;
  /** Facts for `_meta.zcode.notice` (attempt, delay, cause …). */
  facts?: Record<string, unknown>;
}

/** The update that carries `notice` to a client with these capabilities. */
export function noticeUpdate(notice: TurnNotice, caps: ClientCapabilities | undefined): SessionUpdate {
  const meta = { zcode: { status: notice.kind, notice: { kind: notice.kind, severity: notice.severity, ...notice.facts } } };
  if (supportsNotices(caps)) return { sessionUpdate: 'notice', severity: notice.severity, title: notice.title, _meta: meta };
  return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `\n\n${notice.title}\n\n` }, _meta: meta };
}

/**
 * The notice of one automatic retry (docs/acp.md "Retries"): the cause, the attempt and the delay,
 * so a slow answer is never a silent one.
 */
export function retryNotice(locale: BridgeLocale, cause: string | undefined, attempt: number, of: number, delayMs: number): TurnNotice {
  const why = bt(locale, cause && cause !== 'unknown' ? cause.replace(/_/g, ' ') : 'a transient error');
  return {
    kind: 'retrying',
    severity: 'warning',
    title: bt(locale, "zcode's turn failed ({0}); retrying in {1} s (attempt {2} of {3})…", why, (delayMs / 1000).toFixed(1), attempt, of),
    facts: { attempt, of, delayMs, ...(cause ? { cause } : {}) },
  };
}
