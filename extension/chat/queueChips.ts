/**
 * The chips above the composer: the session's waiting prompts, in the bridge's order
 * (`_zcode/session/queue`), this chat's own ones removable, other clients' ones named by their
 * sender; this chat's prompts the bridge has not listed yet (still on their way) come last.
 * Whether the session runs a turn this chat did not start. Pure.
 */
import type { PromptSender, SessionQueueParams } from '../../bridge/acp/extensions/notificationSchemas.ts';
import type { AttachmentSummary, QueuedPrompt } from '../../webview-ui/viewModel.ts';

/** One of this chat's prompts that waits (sent, not started, not withdrawn). */
export interface OwnWaiting {
  id: string;
  text: string;
  summary: AttachmentSummary[];
}

/**
 * @param own this chat's waiting prompts, oldest first
 * @param ownIds every promptId this chat sent for the session (a started or answered one the bridge
 *   still lists, one event behind, is not someone else's)
 * @param bridge the bridge's last word on the session's queue, if any
 */
export function queueChips(own: readonly OwnWaiting[], ownIds: ReadonlySet<string>, bridge: SessionQueueParams | undefined): QueuedPrompt[] {
  const mine = new Map(own.map((p) => [p.id, p]));
  const chips: QueuedPrompt[] = [];
  bridge?.waiting.forEach((entry, index) => {
    if (entry.promptId !== undefined && ownIds.has(entry.promptId)) {
      const waiting = mine.get(entry.promptId);
      if (waiting) chips.push(ownChip(waiting));
      mine.delete(entry.promptId);
      return;
    }
    chips.push({ id: `other:${index}:${entry.promptId ?? ''}`, text: entry.text, attachments: [], from: senderName(entry.sentBy) });
  });
  for (const waiting of mine.values()) chips.push(ownChip(waiting));
  return chips;
}

/** A turn runs in the session for a prompt that is not this chat's. */
export function othersTurn(bridge: SessionQueueParams | undefined, ownIds: ReadonlySet<string>): boolean {
  const running = bridge?.running;
  return running !== undefined && (running.promptId === undefined || !ownIds.has(running.promptId));
}

/**
 * How a chip names another client: what it calls itself (`clientInfo.name`), else its connection's
 * label, else its kind. The name comes first because the bridge labels a remote connection with its
 * address and port, which tells the user less than "Toad" does.
 */
export function senderName(sender: PromptSender): string {
  return sender.name ?? sender.label ?? sender.kind ?? '?';
}

function ownChip(prompt: OwnWaiting): QueuedPrompt {
  return { id: prompt.id, text: prompt.text, attachments: prompt.summary };
}
