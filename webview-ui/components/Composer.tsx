/**
 * The prompt composer. Enter sends, Shift+Enter is a new line; `/` opens completion over the
 * agent's `available_commands_update`; selection / file attachments and pasted images (when the
 * agent takes images) ride along. While a turn runs: Stop, and typed text can Steer the running
 * turn (Enter) or be queued for after it (Alt+Enter).
 */
import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import type { Attachment, SessionView } from '../contract.ts';
import { useActions } from '../actions.ts';
import type { ViewState } from '../viewState.ts';
import { Icon } from './Icon.tsx';

/** Delivers attachments pushed by the host (e.g. the "Attach Selection" editor command). */
export interface AttachBus {
  subscribe(listener: (attachments: Attachment[]) => void): () => void;
}

let attachmentCounter = 0;
const newId = (): string => `img-${Date.now()}-${++attachmentCounter}`;

/** Commands matching the `/prefix` being typed (whole text must be a single slash word). */
export function matchCommands(text: string, commands: AvailableCommand[]): AvailableCommand[] {
  const m = /^\/(\S*)$/.exec(text);
  if (!m) return [];
  const q = m[1].toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains];
}

function readImage(file: File): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      const comma = url.indexOf(',');
      resolve({ kind: 'image', id: newId(), name: file.name || 'pasted image', mimeType: file.type || 'image/png', data: url.slice(comma + 1) });
    };
    reader.onerror = () => reject(reader.error ?? new Error('could not read the image'));
    reader.readAsDataURL(file);
  });
}

const STEER_TEXT = { sent: 'Steer sent…', queued: 'Steer queued: zcode will read it at its next step', drained: 'Steer delivered' } as const;

export function Composer({ session, view, bus }: { session: SessionView; view: ViewState; bus?: AttachBus }) {
  const actions = useActions();
  const [text, setText] = useState(view.draft);
  const [attachments, setAttachments] = useState<Attachment[]>(view.attachments);
  const [selected, setSelected] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const input = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const hintId = useId();
  const running = session.running;
  const matches = useMemo(() => (dismissed === text ? [] : matchCommands(text, session.commands)), [text, session.commands, dismissed]);
  const open = matches.length > 0;
  const active = Math.min(selected, matches.length - 1);

  useEffect(() => view.setDraft(text, attachments), [text, attachments]);
  useEffect(() => bus?.subscribe((more) => setAttachments((a) => [...a, ...more])), [bus]);

  const clear = (): void => {
    setText('');
    setAttachments([]);
    setHint(undefined);
  };

  const send = (whenBusy?: 'queue'): void => {
    const trimmed = text.trim();
    if (!trimmed && attachments.length === 0) return;
    actions.sendPrompt(trimmed, attachments, whenBusy);
    clear();
  };

  const steer = (): void => {
    const trimmed = text.trim();
    if (!trimmed) return;
    actions.steer(trimmed);
    clear();
  };

  const accept = (command: AvailableCommand): void => {
    const next = `/${command.name} `;
    setText(next);
    setDismissed(next);
    setSelected(0);
    input.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.isComposing) return;
    if (open) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setSelected((active + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
        return;
      }
      if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
        e.preventDefault();
        accept(matches[active]);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(text);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      if (!running) send();
      else if (e.altKey) send('queue');
      else steer();
    } else if (e.key === 'Escape' && running && text === '') {
      e.preventDefault();
      actions.cancelTurn();
    }
  };

  const onPaste = (e: ClipboardEvent): void => {
    const files = [...(e.clipboardData?.files ?? [])].filter((f) => f.type.startsWith('image/'));
    if (files.length === 0) return;
    e.preventDefault();
    if (!session.promptCapabilities.image) {
      setHint('zcode does not accept images in this session.');
      return;
    }
    void Promise.all(files.map(readImage)).then(
      (images) => setAttachments((a) => [...a, ...images]),
      () => setHint('Could not read the pasted image.'),
    );
  };

  const attach = (source: 'selection' | 'pickFiles'): void => {
    void actions.attachContext(source).then(
      (more) => {
        if (more.length) setAttachments((a) => [...a, ...more]);
        else if (source === 'selection') setHint('Select some text in an editor first.');
      },
      () => setHint('Could not attach that.'),
    );
  };

  const hasText = text.trim() !== '';
  return (
    <div class="composer">
      {session.queue.length > 0 && (
        <div class="chips queue" aria-label="Queued prompts">
          {session.queue.map((q) => (
            <span key={q.id} class="chip">
              <Icon name="clock" /> <span class="chip-text">{q.text || '(attachments)'}</span>
              <button type="button" class="icon-button" aria-label={`Remove queued prompt: ${q.text}`} onClick={() => actions.removeQueued(q.id)}>
                <Icon name="close" />
              </button>
            </span>
          ))}
        </div>
      )}
      {session.steer && (
        <div class={`chip steer-chip ${session.steer}`} role="status">
          <Icon name={session.steer === 'drained' ? 'pass' : 'clock'} /> {STEER_TEXT[session.steer]}
        </div>
      )}
      {attachments.length > 0 && (
        <div class="chips attachments" aria-label="Attachments">
          {attachments.map((a) => (
            <span key={a.id} class="chip" title={a.kind === 'image' ? a.name : a.uri}>
              {a.kind === 'image' ? <img class="thumb" src={`data:${a.mimeType};base64,${a.data}`} alt="" /> : <Icon name={a.kind === 'selection' ? 'selection' : 'file'} />}
              <span class="chip-text">{a.name}</span>
              <button type="button" class="icon-button" aria-label={`Remove ${a.name}`} onClick={() => setAttachments((list) => list.filter((x) => x.id !== a.id))}>
                <Icon name="close" />
              </button>
            </span>
          ))}
        </div>
      )}
      <div class="input-wrap">
        {open && (
          <ul id={listId} class="completions" role="listbox" aria-label="Commands">
            {matches.map((c, i) => (
              <li
                key={c.name}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                class={i === active ? 'active' : ''}
                onMouseDown={(e) => {
                  e.preventDefault();
                  accept(c);
                }}
              >
                <span class="command-name">/{c.name}</span> <span class="command-description">{c.description}</span>
              </li>
            ))}
          </ul>
        )}
        <textarea
          ref={input}
          class="prompt-input"
          rows={2}
          value={text}
          placeholder={running ? 'Steer the running turn (Enter) or queue a message (Alt+Enter)…' : 'Ask zcode — / for commands, Shift+Enter for a new line'}
          aria-label="Message zcode"
          aria-controls={open ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={open ? `${listId}-${active}` : undefined}
          aria-describedby={hint ? hintId : undefined}
          onInput={(e) => {
            setText((e.currentTarget as HTMLTextAreaElement).value);
            setSelected(0);
            setHint(undefined);
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
      </div>
      {hint && (
        <div id={hintId} class="field-hint composer-hint" role="status">
          {hint}
        </div>
      )}
      <div class="composer-actions">
        <button type="button" class="icon-button" title="Attach the editor selection" aria-label="Attach the editor selection" onClick={() => attach('selection')}>
          <Icon name="selection" />
        </button>
        <button type="button" class="icon-button" title="Attach files" aria-label="Attach files" onClick={() => attach('pickFiles')}>
          <Icon name="attach" />
        </button>
        <span class="spacer" />
        {running && hasText && (
          <>
            <button type="button" class="button secondary small" onClick={() => send('queue')} title="Send after this turn (Alt+Enter)">
              <Icon name="clock" /> Queue
            </button>
            <button type="button" class="button primary small" onClick={steer} title="Send into the running turn (Enter)">
              <Icon name="comment" /> Steer
            </button>
          </>
        )}
        {running ? (
          <button type="button" class="button secondary small stop" onClick={() => actions.cancelTurn()} aria-label="Stop the running turn">
            <Icon name="debug-stop" /> Stop
          </button>
        ) : (
          <button type="button" class="button primary small send" onClick={() => send()} disabled={!hasText && attachments.length === 0} aria-label="Send">
            <Icon name="send" /> Send
          </button>
        )}
      </div>
    </div>
  );
}
