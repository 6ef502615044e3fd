/**
 * The transcript: one memoised view per item (an item re-renders only when the host replaced it),
 * grouped in pages of `PAGE` items (each page skips layout and paint while off screen:
 * `content-visibility: auto` per page, not per item, keeps the browser's visibility bookkeeping
 * small), windowed to the last `WINDOW` items (older pages load as the user scrolls up; a new
 * transcript fills its window a page a frame), pinned to the bottom while the user is at the bottom.
 */
import { Component } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SessionView, TranscriptItem } from '../viewModel.ts';
import { useActions, type ChatActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { Announcer } from './Announcer.tsx';
import { ChangesCard } from './ChangesCard.tsx';
import { CheckpointContext, type CheckpointState } from './CheckpointActions.tsx';
import { ElicitationCard, PermissionCard } from './Interactions.tsx';
import { Icon } from './Icon.tsx';
import { AgentMessage, ErrorView, NoticeView, Thought, UserMessage } from './Messages.tsx';
import { PlanView } from './PlanView.tsx';
import { ToolCard } from './ToolCard.tsx';

/** Items per page (the unit of off-screen skipping and of "load earlier"). */
const PAGE = 20;
/** Items rendered at first (at least; rounded to whole pages). */
const WINDOW = 60;
/** Items added per "load earlier" (one page, so scrolling back never blocks a frame for long). */
export const STEP = PAGE;
/**
 * A new transcript (reload, session switch) renders its last page in the first frame and one more
 * page a frame until `WINDOW`: 60 markdown messages and tool cards at once held the main thread
 * past a frame budget (a 2000-item snapshot's longest task stays under 50 ms in `npm run bench`).
 */
export const FIRST_FRAME = PAGE;

function renderItem(item: TranscriptItem, live: boolean) {
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
    case 'changes':
      return <ChangesCard item={item} />;
  }
}

/** A page of items; re-renders only when one of its items changed. */
class PageView extends Component<{ items: TranscriptItem[]; liveId: string | undefined }> {
  override shouldComponentUpdate(next: { items: TranscriptItem[]; liveId: string | undefined }): boolean {
    const prev = this.props.items;
    if (next.items.length !== prev.length) return true;
    for (let i = 0; i < prev.length; i++) if (prev[i] !== next.items[i]) return true;
    return next.liveId !== this.props.liveId && (next.items.some((it) => it.id === next.liveId) || prev.some((it) => it.id === this.props.liveId));
  }
  override render() {
    return (
      <div class="page">
        {this.props.items.map((item) => (
          <ItemView key={item.id} item={item} live={item.id === this.props.liveId} />
        ))}
      </div>
    );
  }
}

class ItemView extends Component<{ item: TranscriptItem; live: boolean }> {
  override shouldComponentUpdate(next: { item: TranscriptItem; live: boolean }): boolean {
    return next.item !== this.props.item || next.live !== this.props.live;
  }
  override render() {
    const item = this.props.item;
    // A sub-agent's tool call streams right after its Agent card: indented, it reads as part of it.
    const parent = item.type === 'tool' ? item.parent : undefined;
    return (
      <div class={`item item-${item.type}${parent ? ' nested' : ''}`} data-item-id={item.id} {...(parent ? { 'data-parent': parent.toolCallId } : {})}>
        {renderItem(this.props.item, this.props.live)}
      </div>
    );
  }
}

/** Copy buttons in code blocks and links in markdown (delegated: no inline handlers under CSP). */
function handleTranscriptClick(e: MouseEvent, actions: ChatActions): void {
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

/**
 * @param earlier whether the host can load history from before the first item (the bridge replayed
 *   only the tail): once the local window shows everything, scrolling to the top asks for it.
 */
export function Transcript({ items, running, empty, checkpoints, earlier }: { items: TranscriptItem[]; running: boolean; empty?: preact.ComponentChildren; checkpoints?: CheckpointState; earlier?: SessionView['earlier'] }) {
  const actions = useActions();
  const [count, setCount] = useState(WINDOW);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  /** Distance from the bottom to keep while earlier items are inserted above. */
  const anchor = useRef<number | null>(null);
  const [showJump, setShowJump] = useState(false);
  // A transcript is "new" when its first item is another one — unless the old first item is still
  // there: then earlier history was put in front of it (shown at once, the viewport kept in place).
  const first = items[0]?.id;
  const seen = useRef({ first, epoch: 0, prepended: 0 });
  if (seen.current.first !== first) {
    const at = seen.current.first === undefined ? -1 : items.findIndex((i) => i.id === seen.current.first);
    const el = scroller.current;
    if (at > 0) {
      seen.current.prepended += at;
      // Measured before the DOM changes; restored in the layout effect.
      if (el) anchor.current = el.scrollHeight - el.scrollTop;
    } else seen.current = { first, epoch: seen.current.epoch + 1, prepended: 0 };
    seen.current.first = first;
  }
  const epoch = seen.current.epoch;
  const [fill, setFill] = useState({ epoch, count: FIRST_FRAME });
  const filled = fill.epoch === epoch ? fill.count : FIRST_FRAME;
  const visible = (filled >= WINDOW ? count : Math.min(count, filled)) + seen.current.prepended;
  useEffect(() => {
    if (fill.epoch !== epoch) return setFill({ epoch, count: FIRST_FRAME });
    if (fill.count >= WINDOW || fill.count >= items.length) return;
    const frame = requestAnimationFrame(() => setFill((f) => (f.epoch === epoch ? { epoch, count: f.count + PAGE } : f)));
    return () => cancelAnimationFrame(frame);
  }, [epoch, fill, items.length]);
  // Page-aligned start, so a page always holds the same items.
  const start = Math.max(0, Math.floor((items.length - visible) / PAGE) * PAGE);
  const liveId = running ? items[items.length - 1]?.id : undefined;
  const pages: TranscriptItem[][] = [];
  for (let at = start; at < items.length; at += PAGE) pages.push(items.slice(at, at + PAGE));

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current !== null) {
      el.scrollTop = el.scrollHeight - anchor.current;
      anchor.current = null;
    } else if (pinned.current) el.scrollTop = el.scrollHeight;
  });

  const onScroll = (): void => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    pinned.current = atBottom;
    setShowJump(!atBottom);
    if (el.scrollTop < 200 && start > 0) loadEarlier();
    else if (el.scrollTop < 200 && earlier === 'available') actions.loadEarlierHistory();
  };

  const loadEarlier = (): void => {
    const el = scroller.current;
    if (!el || anchor.current !== null) return;
    // Keep the viewport where it is once the earlier items are in (restored in the layout effect).
    anchor.current = el.scrollHeight - el.scrollTop;
    setCount((c) => c + STEP);
  };

  const jump = (): void => {
    pinned.current = true;
    setShowJump(false);
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  const checkpointState = useMemo(
    () => checkpoints ?? { running },
    [checkpoints?.running ?? running, checkpoints?.unavailable, checkpoints?.features, checkpoints?.latestUserId],
  );
  return (
    <CheckpointContext.Provider value={checkpointState}>
    <div class="transcript-wrap">
      <Announcer items={items} running={running} />
      <div ref={scroller} class="transcript" role="region" aria-label={t('Conversation')} tabIndex={0} onScroll={onScroll} onClick={(e) => handleTranscriptClick(e, actions)}>
        {start > 0 && (
          <button type="button" class="link-button load-earlier" onClick={loadEarlier}>
            {t('Show {0} earlier items', Math.min(start, STEP))}
          </button>
        )}
        {start === 0 && earlier === 'available' && (
          <button type="button" class="link-button load-earlier" onClick={() => actions.loadEarlierHistory()}>
            {t('Show earlier messages')}
          </button>
        )}
        {start === 0 && earlier === 'loading' && (
          <div class="load-earlier" role="status">
            {t('Loading earlier messages…')}
          </div>
        )}
        {items.length === 0 && empty}
        {pages.map((page, i) => (
          <PageView key={(start + i * PAGE) / PAGE} items={page} liveId={liveId} />
        ))}
      </div>
      {showJump && (
        <button type="button" class="jump-latest button secondary small" onClick={jump} aria-label={t('Jump to the latest message')} title={t('Jump to the latest message')}>
          <Icon name="arrow-down" />
        </button>
      )}
    </div>
    </CheckpointContext.Provider>
  );
}
