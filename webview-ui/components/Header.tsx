/**
 * Session title, the session switcher (new / fork / resume from the list), zcode's state, and the
 * background tasks of the session with their Cancel buttons.
 */
import { t } from '../l10n.ts';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionSummary } from '../contract.ts';
import type { SessionView } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { Icon } from './Icon.tsx';

function relativeTime(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 60) return t('just now');
  if (s < 3600) return t('{0} min ago', Math.round(s / 60));
  if (s < 86400) return t('{0} h ago', Math.round(s / 3600));
  return t('{0} d ago', Math.round(s / 86400));
}

function SessionMenu({ onClose }: { onClose: () => void }) {
  const actions = useActions();
  const [sessions, setSessions] = useState<SessionSummary[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let live = true;
    actions.listSessions().then(
      (list) => live && setSessions(list),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    return () => {
      live = false;
    };
  }, []);
  const choose = (run: () => void) => () => {
    run();
    onClose();
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
    }
  };
  return (
    <div ref={ref} class="menu" role="menu" aria-label={t('Sessions')} onKeyDown={onKeyDown}>
      <button type="button" role="menuitem" class="menu-item" onClick={choose(() => actions.newSession())}>
        <Icon name="add" /> {t('New session')}
      </button>
      <button type="button" role="menuitem" class="menu-item" onClick={choose(() => actions.forkSession())}>
        <Icon name="repo-forked" /> {t('Fork this session')}
      </button>
      <div class="menu-separator" role="separator" />
      <div class="menu-heading">{t('Resume')}</div>
      {error && <div class="menu-note">{error}</div>}
      {!error && sessions === undefined && <div class="menu-note">{t('Loading…')}</div>}
      {sessions?.length === 0 && <div class="menu-note">{t('No earlier sessions.')}</div>}
      {sessions?.map((s) => (
        <button key={s.sessionId} type="button" role="menuitem" class="menu-item session-entry" onClick={choose(() => actions.loadSession(s.sessionId))}>
          <Icon name="comment-discussion" /> <span class="session-title">{s.title || s.sessionId}</span>
          <span class="session-time">{relativeTime(s.updatedAt)}</span>
        </button>
      ))}
    </div>
  );
}

const connectionText = (state: SessionView['connection']): string =>
  state === 'starting' ? t('Starting zcode…') : state === 'crashed' ? t('zcode stopped unexpectedly.') : state === 'error' ? t('zcode is not available.') : '';

export function Header({ session }: { session: SessionView }) {
  const actions = useActions();
  const [menu, setMenu] = useState(false);
  const running = session.backgroundTasks.filter((task) => task.status === 'running' || task.status === 'pending');
  const problem = session.connection === 'crashed' || session.connection === 'error';
  return (
    <header class="header">
      <div class="header-row">
        <h1 class="session-title-text" title={session.title ?? t('New session')}>
          {session.title || t('New session')}
        </h1>
        {session.connection === 'starting' && <Icon name="loading" spin label={t('Starting zcode')} />}
        <div class="menu-anchor">
          <button type="button" class="icon-button" aria-haspopup="menu" aria-expanded={menu} aria-label={t('Sessions: new, fork, resume')} title={t('Sessions')} onClick={() => setMenu(!menu)}>
            <Icon name="history" />
          </button>
          {menu && <SessionMenu onClose={() => setMenu(false)} />}
        </div>
        <button type="button" class="icon-button copy-all" aria-label={t('Copy all messages as markdown')} title={t('Copy all messages as markdown')} onClick={() => actions.copyTranscript()}>
          <Icon name="copy" />
        </button>
        <button type="button" class="icon-button" aria-label={t('New session')} title={t('New session')} onClick={() => actions.newSession()}>
          <Icon name="add" />
        </button>
      </div>
      {problem && (
        <div class="banner error" role="alert">
          <Icon name="error" /> {session.connectionMessage || connectionText(session.connection)}
        </div>
      )}
      {running.length > 0 && (
        <div class="background-tasks" aria-label={t('Background tasks')}>
          {running.map((task) => (
            <div key={task.id} class="background-task">
              <Icon name={task.kind === 'bash' ? 'terminal' : 'hubot'} />
              <span class="task-description" title={task.description}>
                {task.description}
              </span>
              <span class="task-status">{task.status}</span>
              <button type="button" class="icon-button" aria-label={t('Cancel background task: {0}', task.description)} title={t('Cancel')} onClick={() => actions.cancelBackgroundTask(task.id)}>
                <Icon name="debug-stop" />
              </button>
            </div>
          ))}
        </div>
      )}
    </header>
  );
}
