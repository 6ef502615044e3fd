/**
 * The prompt composer. The send key (`zcode.chat.sendKey`: Enter, or Ctrl/Cmd+Enter) sends, the
 * other Enter is a new line; `/` opens completion over the agent's `available_commands_update`;
 * selection / file attachments and pasted images (when the agent takes images) ride along. While a
 * turn runs the send key does the unsurprising thing, queue the message for after the turn;
 * steering the running turn is an explicit choice: Alt + the send key, or the Steer button. The
 * placeholder says which is which.
 */
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import type { ChatSettings } from '../contract.ts';
import type { Attachment, SessionView } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import type { ViewState } from '../viewState.ts';
import { Icon } from './Icon.tsx';
import { droppedUris, uriAttachment, useMentionPicker } from './MentionPicker.tsx';

/** Delivers attachments pushed by the host (e.g. the "Attach Selection" editor command). */
export interface AttachBus {
  subscribe(listener: (attachments: Attachment[]) => void): () => void;
  /** "ZCode: Focus Chat Input" ran. */
  onFocusRequest?(listener: () => void): () => void;
  /** A send or a steer failed: its text and attachments come back (before whatever was typed since). */
  onRestoreDraft?(listener: (text: string, attachments: Attachment[]) => void): () => void;
}

/** What a key press in the composer means, given the send-key setting. */
function composerKey(e: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'metaKey' | 'altKey'>, sendKey: ChatSettings['sendKey'], running: boolean): 'send' | 'queue' | 'steer' | undefined {
  if (e.key !== 'Enter' || e.shiftKey) return undefined;
  const mod = e.ctrlKey || e.metaKey;
  if (sendKey === 'enter' ? mod : !mod) return undefined;
  if (!running) return 'send';
  return e.altKey ? 'steer' : 'queue';
}

/** The send key and the steer key, as the placeholder and tooltips name them. */
function keyNames(sendKey: ChatSettings['sendKey']): { send: string; steer: string; newline: string } {
  return sendKey === 'enter' ? { send: 'Enter', steer: 'Alt+Enter', newline: 'Shift+Enter' } : { send: 'Ctrl+Enter', steer: 'Ctrl+Alt+Enter', newline: 'Enter' };
}

let attachmentCounter = 0;
const newId = (): string => `img-${Date.now()}-${++attachmentCounter}`;

/** Commands matching the `/prefix` being typed (whole text must be a single slash word). */
function matchCommands(text: string, commands: AvailableCommand[]): AvailableCommand[] {
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
      resolve({ kind: 'image', id: newId(), name: file.name || t('pasted image'), mimeType: file.type || 'image/png', data: url.slice(comma + 1) });
    };
    reader.onerror = () => reject(reader.error ?? new Error(t('Could not read the pasted image.')));
    reader.readAsDataURL(file);
  });
}

function steerText(state: Exclude<SessionView['steer'], 'none' | undefined>): string {
  switch (state) {
    case 'sent':
      return t('Steer sent…');
    case 'queued':
      return t('Steer queued: zcode will read it at its next step');
    case 'drained':
      return t('Steer delivered: added to the running turn');
    case 'deferred':
      return t("The turn ended before reading the steer: it will be the next turn's input");
  }
}

export function Composer({ session, view, bus, settings }: { session: SessionView; view: ViewState; bus?: AttachBus; settings: ChatSettings }) {
  const actions = useActions();
  const [text, setText] = useState(view.draft);
  const [attachments, setAttachments] = useState<Attachment[]>(view.attachments);
  const [selected, setSelected] = useState(0);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const [caret, setCaret] = useState(view.draft.length);
  const [dropping, setDropping] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);
  /** Where the caret goes after the next render (a picked mention rewrote the text). */
  const caretAfterRender = useRef<number | undefined>(undefined);
  const listId = useId();
  const mentionListId = useId();
  const hintId = useId();
  const running = session.running;
  const matches = useMemo(() => (dismissed === text ? [] : matchCommands(text, session.commands)), [text, session.commands, dismissed]);
  const open = matches.length > 0;
  const active = Math.min(selected, matches.length - 1);
  // A chat without a session has no menu yet: the first `/` makes the session (once per chat).
  const wantsMenu = text.startsWith('/') && session.commands.length === 0 && !session.sessionId;
  useEffect(() => {
    if (wantsMenu) actions.prepareSession();
  }, [wantsMenu]);

  useEffect(() => view.setDraft(text, attachments), [text, attachments]);
  useEffect(() => bus?.subscribe((more) => setAttachments((a) => [...a, ...more])), [bus]);
  useEffect(() => bus?.onFocusRequest?.(() => input.current?.focus()), [bus]);
  useEffect(
    () =>
      bus?.onRestoreDraft?.((failed, files) => {
        setText((now) => (now.trim() === '' ? failed : `${failed}\n${now}`));
        setAttachments((a) => [...files, ...a]);
        setDismissed(undefined);
      }),
    [bus],
  );
  useLayoutEffect(() => {
    const at = caretAfterRender.current;
    if (at === undefined || !input.current) return;
    caretAfterRender.current = undefined;
    input.current.setSelectionRange(at, at);
  });
  const mentions = useMentionPicker(actions, text, caret, mentionListId, (attachment, next, at) => {
    setText(next);
    setAttachments((a) => [...a, attachment]);
    setCaret(at);
    caretAfterRender.current = at;
    input.current?.focus();
  });
  // Files dropped anywhere on the chat (Shift+drag from the Explorer) become attachments.
  useEffect(() => {
    const doc = input.current?.ownerDocument;
    if (!doc) return;
    const carriesUris = (e: DragEvent): boolean => !!e.dataTransfer && [...e.dataTransfer.types].some((t) => t === 'text/uri-list' || t === 'application/vnd.code.uri-list');
    const onDragOver = (e: DragEvent): void => {
      if (!carriesUris(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      setDropping(true);
    };
    const onDragLeave = (): void => setDropping(false);
    const onDrop = (e: DragEvent): void => {
      setDropping(false);
      if (!e.dataTransfer || !carriesUris(e)) return;
      e.preventDefault();
      const uris = droppedUris(e.dataTransfer);
      if (uris.length) setAttachments((a) => [...a, ...uris.map(uriAttachment)]);
    };
    doc.addEventListener('dragover', onDragOver);
    doc.addEventListener('dragleave', onDragLeave);
    doc.addEventListener('drop', onDrop);
    return () => {
      doc.removeEventListener('dragover', onDragOver);
      doc.removeEventListener('dragleave', onDragLeave);
      doc.removeEventListener('drop', onDrop);
    };
  }, []);
  const keys = keyNames(settings.sendKey);

  const clear = (): void => {
    setText('');
    setAttachments([]);
    setHint(undefined);
  };

  /** Sends, or while a turn runs queues (the host queues a prompt that arrives during a turn). */
  const send = (): void => {
    const trimmed = text.trim();
    if (!trimmed && attachments.length === 0) return;
    actions.sendPrompt(trimmed, attachments);
    clear();
  };

  /** Why this zcode cannot steer (shown on the button; the steer key says it and keeps the text). */
  const steerBlocked = session.featureUnavailable?.steer;
  const steer = (): void => {
    const trimmed = text.trim();
    if (!trimmed) return;
    if (steerBlocked !== undefined) return setHint(t('Steering is not available: {0}', steerBlocked));
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
    if (mentions.onKeyDown(e)) return;
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
    const action = composerKey(e, settings.sendKey, running);
    if (action) {
      e.preventDefault();
      if (action === 'send' || action === 'queue') send();
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
      setHint(t('zcode does not accept images in this session.'));
      return;
    }
    void Promise.all(files.map(readImage)).then(
      (images) => setAttachments((a) => [...a, ...images]),
      () => setHint(t('Could not read the pasted image.')),
    );
  };

  const attach = (source: 'selection' | 'activeFile' | 'pickFiles'): void => {
    void actions.attachContext(source).then(
      (more) => {
        if (more.length) setAttachments((a) => [...a, ...more]);
        else if (source === 'selection') setHint(t('Select some text in an editor first.'));
        else if (source === 'activeFile') setHint(t('Open a file in an editor first.'));
      },
      () => setHint(t('Could not attach that.')),
    );
  };

  const hasText = text.trim() !== '';
  return (
    <div class={`composer${dropping ? ' dropping' : ''}`}>
      {session.queue.length > 0 && (
        <div class="chips queue" aria-label={t('Queued prompts')}>
          {session.queue.map((q) => (
            <span key={q.id} class={q.from === undefined ? 'chip' : 'chip other'}>
              <Icon name="clock" /> <span class="chip-text">{q.text || t('(attachments)')}</span>
              {q.from === undefined ? (
                <button type="button" class="icon-button" aria-label={t('Remove queued prompt: {0}', q.text)} onClick={() => actions.removeQueued(q.id)}>
                  <Icon name="close" />
                </button>
              ) : (
                <span class="chip-from">{t('from {0}', q.from)}</span>
              )}
            </span>
          ))}
        </div>
      )}
      {session.steer && session.steer !== 'none' && (
        <div class={`chip steer-chip ${session.steer}`} role="status">
          <Icon name={session.steer === 'drained' ? 'pass' : 'clock'} /> {steerText(session.steer)}
          {session.steer === 'deferred' && (
            <button type="button" class="link-button remove-steer" onClick={() => actions.removeSteer()}>
              {t('Remove')}
            </button>
          )}
        </div>
      )}
      {attachments.length > 0 && (
        <div class="chips attachments" aria-label={t('Attachments')}>
          {attachments.map((a) => (
            <span key={a.id} class="chip" title={a.kind === 'image' ? a.name : a.uri}>
              {a.kind === 'image' ? <img class="thumb" src={`data:${a.mimeType};base64,${a.data}`} alt="" /> : <Icon name={a.kind === 'selection' ? 'selection' : 'file'} />}
              <span class="chip-text">{a.name}</span>
              <button type="button" class="icon-button" aria-label={t('Remove {0}', a.name)} onClick={() => setAttachments((list) => list.filter((x) => x.id !== a.id))}>
                <Icon name="close" />
              </button>
            </span>
          ))}
        </div>
      )}
      <div class="input-wrap">
        {mentions.list}
        {open && (
          <ul id={listId} class="completions" role="listbox" aria-label={t('Commands')}>
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
          placeholder={
            running
              ? t('{0} queues a message for after this turn · {1} steers the running turn now', keys.send, keys.steer)
              : t('Ask zcode — / for commands, @ for files, {0} sends, {1} for a new line', keys.send, keys.newline)
          }
          aria-label={t('Message zcode')}
          aria-controls={mentions.open ? mentionListId : open ? listId : undefined}
          aria-autocomplete="list"
          aria-activedescendant={mentions.open ? mentions.activeId : open ? `${listId}-${active}` : undefined}
          aria-describedby={hint ? hintId : undefined}
          onInput={(e) => {
            const area = e.currentTarget as HTMLTextAreaElement;
            setText(area.value);
            setCaret(area.selectionStart ?? area.value.length);
            setSelected(0);
            setHint(undefined);
          }}
          onKeyDown={onKeyDown}
          onKeyUp={(e) => {
            const area = e.currentTarget as HTMLTextAreaElement;
            if (area.selectionStart !== caret) setCaret(area.selectionStart);
          }}
          onClick={(e) => setCaret((e.currentTarget as HTMLTextAreaElement).selectionStart)}
          onPaste={onPaste}
        />
      </div>
      {hint && (
        <div id={hintId} class="field-hint composer-hint" role="status">
          {hint}
        </div>
      )}
      <div class="composer-actions">
        <button type="button" class="icon-button" title={t('Attach the editor selection')} aria-label={t('Attach the editor selection')} onClick={() => attach('selection')}>
          <Icon name="selection" />
        </button>
        <button type="button" class="icon-button attach-active-file" title={t('Attach the current file')} aria-label={t('Attach the current file')} onClick={() => attach('activeFile')}>
          <Icon name="file-add" />
        </button>
        <button type="button" class="icon-button" title={t('Attach files')} aria-label={t('Attach files')} onClick={() => attach('pickFiles')}>
          <Icon name="attach" />
        </button>
        <span class="spacer" />
        {running && hasText && (
          <>
            <button type="button" class="button primary small queue-button" onClick={() => send()} title={t('Send after this turn ({0})', keys.send)}>
              <Icon name="clock" /> {t('Queue')}
            </button>
            <button
              type="button"
              class={`button secondary small steer-button${steerBlocked !== undefined ? ' inert' : ''}`}
              onClick={steer}
              aria-disabled={steerBlocked !== undefined ? 'true' : undefined}
              title={steerBlocked !== undefined ? t('Steering is not available: {0}', steerBlocked) : t('Send into the running turn now ({0})', keys.steer)}
            >
              <Icon name="comment" /> {t('Steer')}
            </button>
          </>
        )}
        {running ? (
          <button type="button" class="button secondary small stop" onClick={() => actions.cancelTurn()} aria-label={t('Stop the running turn')}>
            <Icon name="debug-stop" /> {t('Stop')}
          </button>
        ) : (
          <button type="button" class="button primary small send" onClick={() => send()} disabled={!hasText && attachments.length === 0} aria-label={t('Send')}>
            <Icon name="send" /> {t('Send')}
          </button>
        )}
      </div>
    </div>
  );
}
