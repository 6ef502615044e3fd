/** User and agent messages, thoughts (collapsed by default), errors with Retry, notices. */
import type { AgentItem, ErrorAction, ErrorItem, NoticeItem, ThoughtItem, UserItem } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { useToggle } from '../viewState.ts';
import { CheckpointActions } from './CheckpointActions.tsx';
import { Icon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';

const ATTACHMENT_ICON = { file: 'file', selection: 'selection', image: 'file-media' } as const;

/**
 * What VS Code's webview context menu gets for a message (`webviewSection == 'message'` enables
 * "Copy Message"; the command receives `itemId`).
 */
const messageContext = (itemId: string): string => JSON.stringify({ webviewSection: 'message', itemId, preventDefaultContextMenuItems: true });

/** The hover (and keyboard) button that copies a message as markdown. */
function CopyMessage({ text }: { text: string }) {
  const actions = useActions();
  return (
    <button type="button" class="icon-button copy-message" title={t('Copy message as markdown')} aria-label={t('Copy message as markdown')} onClick={() => actions.copyText(text)}>
      <Icon name="copy" />
    </button>
  );
}

export function UserMessage({ item }: { item: UserItem }) {
  return (
    <section class="message user" aria-label={t('You')} data-vscode-context={messageContext(item.id)}>
      <CheckpointActions item={item} />
      <CopyMessage text={item.text} />
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
    <section class={`message agent${live ? ' live' : ''}`} aria-label={t('zcode')} aria-busy={live} data-vscode-context={messageContext(item.id)}>
      {!live && <CopyMessage text={item.text} />}
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
        <Icon name="lightbulb" /> {live ? t('Thinking…') : t('Thought')}
      </button>
      {open && <Markdown text={item.text} class="thought-text" />}
    </section>
  );
}

/** The label of an error line's one action. */
const ACTION_LABEL: Record<ErrorAction, () => string> = {
  retry: () => t('Retry'),
  openDesktop: () => t('Open the ZCode desktop app'),
  checkApiKey: () => t('Check the API key'),
  showLogs: () => t('Show Logs'),
};

/** A failed turn: one muted line, the cause in words, one action that fits. */
export function ErrorView({ item }: { item: ErrorItem }) {
  const actions = useActions();
  const action: ErrorAction | undefined = item.action ?? (item.retryable ? 'retry' : undefined);
  return (
    <section class="turn-error" role="alert">
      <Icon name="error" />
      <span class="error-message">{item.message}</span>
      {action && (
        <button type="button" class="link-button" onClick={() => (action === 'retry' ? actions.retry(item.id) : actions.errorAction(action))}>
          {ACTION_LABEL[action]()}
        </button>
      )}
    </section>
  );
}

export function NoticeView({ item }: { item: NoticeItem }) {
  if (item.status) {
    return (
      <div class="turn-status" role="status">
        <Icon name="sync" /> <span>{item.title}</span>
      </div>
    );
  }
  const icon = item.severity === 'error' ? 'error' : item.severity === 'warning' ? 'warning' : 'info';
  return (
    <section class={`notice ${item.severity}`} role={item.severity === 'info' ? 'status' : 'alert'}>
      <Icon name={icon} /> <span class="notice-title">{item.title}</span>
      {item.description && <Markdown text={item.description} class="notice-description" />}
    </section>
  );
}
