/**
 * Session title, the session switcher (new / fork / resume from the list), zcode's state, and the
 * background tasks of the session with their Cancel buttons.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SessionSummary, SessionView } from '../contract.ts';
import { useActions } from '../actions.ts';
import { Icon } from './Icon.tsx';

export function relativeTime(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
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
    <div ref={ref} class="menu" role="menu" aria-label="Sessions" onKeyDown={onKeyDown}>
      <button type="button" role="menuitem" class="menu-item" onClick={choose(() => actions.newSession())}>
        <Icon name="add" /> New session
      </button>
      <button type="button" role="menuitem" class="menu-item" onClick={choose(() => actions.forkSession())}>
        <Icon name="repo-forked" /> Fork this session
      </button>
      <div class="menu-separator" role="separator" />
      <div class="menu-heading">Resume</div>
      {error && <div class="menu-note">{error}</div>}
      {!error && sessions === undefined && <div class="menu-note">Loading…</div>}
      {sessions?.length === 0 && <div class="menu-note">No earlier sessions.</div>}
      {sessions?.map((s) => (
        <button key={s.sessionId} type="button" role="menuitem" class="menu-item session-entry" onClick={choose(() => actions.loadSession(s.sessionId))}>
          <Icon name="comment-discussion" /> <span class="session-title">{s.title || s.sessionId}</span>
          <span class="session-time">{relativeTime(s.updatedAt)}</span>
        </button>
      ))}
    </div>
  );
}

const CONNECTION_TEXT = { notStarted: '', starting: 'Starting zcode…', ready: '', crashed: 'zcode stopped unexpectedly.', error: 'zcode is not available.' } as const;

export function Header({ session }: { session: SessionView }) {
  const actions = useActions();
  const [menu, setMenu] = useState(false);
  const running = session.backgroundTasks.filter((t) => t.status === 'running' || t.status === 'pending');
  const problem = session.connection === 'crashed' || session.connection === 'error';
  return (
    <header class="header">
      <div class="header-row">
        <h1 class="session-title-text" title={session.title ?? 'New session'}>
          {session.title || 'New session'}
        </h1>
        {session.connection === 'starting' && <Icon name="loading" spin label="Starting zcode" />}
        <div class="menu-anchor">
          <button type="button" class="icon-button" aria-haspopup="menu" aria-expanded={menu} aria-label="Sessions: new, fork, resume" title="Sessions" onClick={() => setMenu(!menu)}>
            <Icon name="history" />
          </button>
          {menu && <SessionMenu onClose={() => setMenu(false)} />}
        </div>
        <button type="button" class="icon-button" aria-label="New session" title="New session" onClick={() => actions.newSession()}>
          <Icon name="add" />
        </button>
      </div>
      {problem && (
        <div class="banner error" role="alert">
          <Icon name="error" /> {session.connectionMessage || CONNECTION_TEXT[session.connection]}
        </div>
      )}
      {running.length > 0 && (
        <div class="background-tasks" aria-label="Background tasks">
          {running.map((t) => (
            <div key={t.id} class="background-task">
              <Icon name={t.kind === 'bash' ? 'terminal' : 'hubot'} />
              <span class="task-description" title={t.description}>
                {t.description}
              </span>
              <span class="task-status">{t.status}</span>
              <button type="button" class="icon-button" aria-label={`Cancel background task: ${t.description}`} title="Cancel" onClick={() => actions.cancelBackgroundTask(t.id)}>
                <Icon name="debug-stop" />
              </button>
            </div>
          ))}
        </div>
      )}
    </header>
  );
}
