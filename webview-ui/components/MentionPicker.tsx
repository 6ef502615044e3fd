/**
 * The composer's `@` picker: typing `@` (at the start or after a space) lists workspace files,
 * open editors and workspace symbols matching what follows it (the host searches: files honour
 * `files.exclude` and the folder's `.gitignore`); choosing one removes the `@word` from the text
 * and adds the file as an attachment chip. Also: files dropped onto the chat (Shift+drag from the
 * Explorer, as VS Code requires for webviews) become attachments the same way.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { MentionCandidate } from '../contract.ts';
import type { Attachment } from '../viewModel.ts';
import type { ChatActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { Icon } from './Icon.tsx';

/** The `@word` just before the caret: where its `@` is and the text after it; undefined when none. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(?:^|\s)@([^\s@]*)$/.exec(before);
  return m ? { start: caret - m[1].length - 1, query: m[1] } : undefined;
}

let counter = 0;
const newId = (): string => `mention-${Date.now()}-${++counter}`;

/**
 * URIs of a drop: VS Code's own list (`application/vnd.code.uri-list`, what the Explorer puts on
 * a drag) or the standard `text/uri-list` (lines; `#` lines are comments).
 */
export function droppedUris(data: Pick<DataTransfer, 'getData'>): string[] {
  const raw = data.getData('application/vnd.code.uri-list') || data.getData('text/uri-list');
  return raw
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#') && /^[a-z][a-z0-9+.-]*:/i.test(l));
}

/** A file attachment for a URI (named by its last path segment). */
export function uriAttachment(uri: string): Attachment & { kind: 'file' } {
  const path = uri.replace(/[?#].*$/, '').replace(/\/+$/, '');
  let name = path.slice(path.lastIndexOf('/') + 1) || uri;
  try {
    name = decodeURIComponent(name);
  } catch {
    // keep it encoded
  }
  return { kind: 'file', id: newId(), name, uri };
}

const KIND_ICON: Record<MentionCandidate['kind'], string> = { file: 'file', editor: 'files', symbol: 'symbol-method' };
const kindLabel = (kind: MentionCandidate['kind']): string => (kind === 'file' ? t('file') : kind === 'editor' ? t('open editor') : t('symbol'));

export interface MentionPicker {
  open: boolean;
  listId: string;
  activeId: string | undefined;
  /** Handles the picker's keys (arrows, Enter/Tab, Escape); true when it took the key. */
  onKeyDown(e: KeyboardEvent): boolean;
  list: preact.JSX.Element | null;
}

/**
 * State of the picker for the composer's `text` and caret. `pick` receives the candidate's
 * attachment (with a fresh id) and the text with the `@word` removed, and the caret position.
 */
export function useMentionPicker(
  actions: Pick<ChatActions, 'searchMentions'>,
  text: string,
  caret: number,
  listId: string,
  pick: (attachment: Attachment, text: string, caret: number) => void,
): MentionPicker {
  const mention = mentionAt(text, caret);
  const [candidates, setCandidates] = useState<{ query: string; items: MentionCandidate[] } | undefined>(undefined);
  const [selected, setSelected] = useState(0);
  const [dismissed, setDismissed] = useState<number | undefined>(undefined);
  const latest = useRef(0);
  const query = mention && mention.start !== dismissed ? mention.query : undefined;

  useEffect(() => {
    if (query === undefined) return;
    const ticket = ++latest.current;
    actions.searchMentions(query).then(
      (items) => {
        // Only the answer to the newest query counts (an older, slower one may arrive later).
        if (ticket === latest.current) {
          setCandidates({ query, items });
          setSelected(0);
        }
      },
      () => ticket === latest.current && setCandidates({ query, items: [] }),
    );
  }, [query]);
  useEffect(() => {
    if (!mention) setDismissed(undefined);
  }, [mention === undefined]);

  const items = query !== undefined && candidates ? candidates.items : [];
  const open = query !== undefined && candidates !== undefined;
  const active = Math.min(selected, items.length - 1);
  const choose = (candidate: MentionCandidate): void => {
    if (!mention) return;
    const rest = text.slice(caret).replace(/^ /, '');
    const head = text.slice(0, mention.start);
    pick({ ...candidate.attachment, id: newId() }, head + rest, head.length);
    setCandidates(undefined);
  };

  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (!open) return false;
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && items.length > 0) {
      setSelected((active + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
    } else if (((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') && items.length > 0) {
      choose(items[active]);
    } else if (e.key === 'Escape') {
      setDismissed(mention?.start);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };

  const list = open ? (
    <ul id={listId} class="completions mentions" role="listbox" aria-label={t('Files and symbols')}>
      {items.length === 0 && <li class="menu-note" role="presentation">{candidates.query ? t('No matching files or symbols.') : t('Type to search files and symbols.')}</li>}
      {items.map((c, i) => (
        <li
          key={`${c.kind}:${c.attachment.uri}`}
          id={`${listId}-${i}`}
          role="option"
          aria-selected={i === active}
          class={`mention-${c.kind}${i === active ? ' active' : ''}`}
          title={c.attachment.uri}
          onMouseDown={(e) => {
            e.preventDefault();
            choose(c);
          }}
        >
          <Icon name={KIND_ICON[c.kind]} /> <span class="command-name">{c.label}</span> <span class="command-description">{c.description ?? ''}</span>
          <span class="sr-only"> ({kindLabel(c.kind)})</span>
        </li>
      ))}
    </ul>
  ) : null;
  return { open, listId, activeId: open && items.length > 0 ? `${listId}-${active}` : undefined, onKeyDown, list };
}
