/** User and agent messages, thoughts (collapsed by default), errors with Retry, notices. */
import type { AgentItem, ErrorItem, NoticeItem, ThoughtItem, UserItem } from '../contract.ts';
import { useActions } from '../actions.ts';
import { useToggle } from '../viewState.ts';
import { Icon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';

const ATTACHMENT_ICON = { file: 'file', selection: 'selection', image: 'file-media' } as const;

export function UserMessage({ item }: { item: UserItem }) {
  return (
    <section class="message user" aria-label="You">
      <div class="message-text">{item.text}</div>
      {item.attachments.length > 0 && (
        <div class="chips">
          {item.attachments.map((a, i) => (
            <span key={i} class="chip">
              <Icon name={ATTACHMENT_ICON[a.kind] ?? 'file'} /> {a.name}
            </span>
          ))}
        </div>
      )}
    </section>
  );
}

export function AgentMessage({ item, live }: { item: AgentItem; live: boolean }) {
  return (
    <section class={`message agent${live ? ' live' : ''}`} aria-label="zcode" aria-busy={live}>
      <Markdown text={item.text} />
    </section>
  );
}

export function Thought({ item, live }: { item: ThoughtItem; live: boolean }) {
  const [open, toggle] = useToggle(`${item.id}:open`, false);
  return (
    <section class="thought">
      <button type="button" class="section-toggle" aria-expanded={open} onClick={toggle}>
        <Icon name={open ? 'chevron-down' : 'chevron-right'} />
        <Icon name="lightbulb" /> {live ? 'Thinking…' : 'Thought'}
      </button>
      {open && <Markdown text={item.text} class="thought-text" />}
    </section>
  );
}

export function ErrorView({ item }: { item: ErrorItem }) {
  const actions = useActions();
  return (
    <section class="card error-card" role="alert">
      <div class="error-row">
        <Icon name="error" />
        <span class="error-message">{item.message}</span>
      </div>
      {item.retryable && (
        <div class="button-row">
          <button type="button" class="button secondary" onClick={() => actions.retry(item.id)}>
            <Icon name="refresh" /> Retry
          </button>
        </div>
      )}
    </section>
  );
}

export function NoticeView({ item }: { item: NoticeItem }) {
  const icon = item.severity === 'error' ? 'error' : item.severity === 'warning' ? 'warning' : 'info';
  return (
    <section class={`notice ${item.severity}`} role={item.severity === 'info' ? 'status' : 'alert'}>
      <Icon name={icon} /> <span class="notice-title">{item.title}</span>
      {item.description && <Markdown text={item.description} class="notice-description" />}
    </section>
  );
}
