/**
 * What a screen reader hears of the transcript: a finished answer and each new card that asks for
 * a decision, once, through one polite status region. The transcript itself is not a live region:
 * streamed deltas would be read out token by token.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptItem } from '../viewModel.ts';
import { t } from '../l10n.ts';

const SPOKEN_LENGTH = 300;

const shorten = (text: string): string => {
  const plain = text.replace(/[#*_`>]/g, '').replace(/\s+/g, ' ').trim();
  return plain.length > SPOKEN_LENGTH ? `${plain.slice(0, SPOKEN_LENGTH - 1)}…` : plain;
};

/** The sentence for a new pending card, or undefined when `item` is not one. */
function cardAnnouncement(item: TranscriptItem): string | undefined {
  if (item.type === 'permission' && item.state === 'pending') return t('Permission needed: {0}', item.title);
  if (item.type === 'elicitation' && item.state === 'pending') {
    return item.formKind === 'planFeedback' ? t('zcode asks you to review a plan') : t('zcode asks: {0}', shorten(item.message));
  }
  return undefined;
}

/** The sentence for a turn that just ended: its last answer. */
function finishedAnnouncement(items: readonly TranscriptItem[]): string {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.type === 'agent') return t('zcode finished: {0}', shorten(item.text));
    if (item.type === 'error') return t('The turn failed: {0}', item.message);
    if (item.type === 'user') break;
  }
  return t('zcode finished the turn.');
}

export function Announcer({ items, running }: { items: readonly TranscriptItem[]; running: boolean }) {
  const [text, setText] = useState('');
  // Cards present when the view starts (a reload, a re-show) were announced before.
  const known = useRef<Set<string> | undefined>(undefined);
  const wasRunning = useRef(running);
  useEffect(() => {
    const messages: string[] = [];
    if (wasRunning.current && !running) messages.push(finishedAnnouncement(items));
    wasRunning.current = running;
    const first = known.current === undefined;
    const seen = (known.current ??= new Set());
    for (const item of items) {
      if (item.type !== 'permission' && item.type !== 'elicitation') continue;
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      const card = first ? undefined : cardAnnouncement(item);
      if (card) messages.push(card);
    }
    if (messages.length) setText(messages.join(' '));
  }, [items, running]);
  return (
    <div class="sr-only announcer" role="status" aria-live="polite" aria-atomic="true">
      {text}
    </div>
  );
}
