/**
 * The transcript: one memoised view per item (an item re-renders only when the host replaced it),
 * windowed to the last `WINDOW` items (older ones load when the user scrolls up), pinned to the
 * bottom while the user is at the bottom.
 */
import { Component } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptItem } from '../contract.ts';
import { useActions, type ChatActions } from '../actions.ts';
import { ElicitationCard, PermissionCard } from './Interactions.tsx';
import { Icon } from './Icon.tsx';
import { AgentMessage, ErrorView, NoticeView, Thought, UserMessage } from './Messages.tsx';
import { PlanView } from './PlanView.tsx';
import { ToolCard } from './ToolCard.tsx';

/** Items rendered at first; each "load earlier" adds as many again. */
export const WINDOW = 150;

export function renderItem(item: TranscriptItem, live: boolean) {
  switch (item.type) {
    case 'user':
      return <UserMessage item={item} />;
    case 'agent':
      return <AgentMessage item={item} live={live} />;
    case 'thought':
      return <Thought item={item} live={live} />;
    case 'tool':
      return <ToolCard item={item} />;
    case 'plan':
      return <PlanView entries={item.entries} />;
    case 'permission':
      return <PermissionCard item={item} />;
    case 'elicitation':
      return <ElicitationCard item={item} />;
    case 'error':
      return <ErrorView item={item} />;
    case 'notice':
      return <NoticeView item={item} />;
  }
}

class ItemView extends Component<{ item: TranscriptItem; live: boolean }> {
  override shouldComponentUpdate(next: { item: TranscriptItem; live: boolean }): boolean {
    return next.item !== this.props.item || next.live !== this.props.live;
  }
  override render() {
    return (
      <div class={`item item-${this.props.item.type}`} data-item-id={this.props.item.id}>
        {renderItem(this.props.item, this.props.live)}
      </div>
    );
  }
}

/** Copy buttons in code blocks and links in markdown (delegated: no inline handlers under CSP). */
export function handleTranscriptClick(e: MouseEvent, actions: ChatActions): void {
  const target = e.target as Element | null;
  const copy = target?.closest?.('[data-action="copy-code"]');
  if (copy) {
    e.preventDefault();
    const code = copy.parentElement?.querySelector('code');
    if (code?.textContent) actions.copyText(code.textContent);
    copy.classList.add('copied');
    setTimeout(() => copy.classList.remove('copied'), 1200);
    return;
  }
  const link = target?.closest?.('.markdown a[href]') as HTMLAnchorElement | null;
  if (link) {
    const href = link.getAttribute('href') ?? '';
    if (/^(https?|mailto):/i.test(href)) return; // VS Code opens these externally
    e.preventDefault();
    const m = /^(.*?)(?:#L(\d+))?$/.exec(href);
    if (m?.[1]) actions.openLocation(decodeURI(m[1]), m[2] ? Number(m[2]) : undefined);
  }
}

export function Transcript({ items, running, empty }: { items: TranscriptItem[]; running: boolean; empty?: preact.ComponentChildren }) {
  const actions = useActions();
  const [count, setCount] = useState(WINDOW);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const [showJump, setShowJump] = useState(false);
  const start = Math.max(0, items.length - count);
  const visible = start > 0 ? items.slice(start) : items;
  const lastIndex = items.length - 1;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });

  const onScroll = (): void => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    pinned.current = atBottom;
    setShowJump(!atBottom);
    if (el.scrollTop < 200 && start > 0) loadEarlier();
  };

  const loadEarlier = (): void => {
    const el = scroller.current;
    const before = el ? el.scrollHeight - el.scrollTop : 0;
    setCount((c) => c + WINDOW);
    // Keep the viewport where it was once the earlier items are in.
    requestAnimationFrame(() => {
      if (el) el.scrollTop = el.scrollHeight - before;
    });
  };

  const jump = (): void => {
    pinned.current = true;
    setShowJump(false);
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  return (
    <div class="transcript-wrap">
      <div ref={scroller} class="transcript" role="log" aria-live="polite" aria-label="Conversation" onScroll={onScroll} onClick={(e) => handleTranscriptClick(e, actions)}>
        {start > 0 && (
          <button type="button" class="link-button load-earlier" onClick={loadEarlier}>
            Show {Math.min(start, WINDOW)} earlier items
          </button>
        )}
        {items.length === 0 && empty}
        {visible.map((item, i) => (
          <ItemView key={item.id} item={item} live={running && start + i === lastIndex} />
        ))}
      </div>
      {showJump && (
        <button type="button" class="jump-latest button secondary small" onClick={jump} aria-label="Jump to the latest message">
          <Icon name="arrow-down" />
        </button>
      )}
    </div>
  );
}
