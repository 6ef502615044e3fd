/**
 * A tool call card: kind icon, title, status; diffs, terminal output and text content in the body;
 * raw input / output behind toggles; sub-agent metadata and the background badge.
 */
import { t } from '../l10n.ts';
import type { ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import type { SubagentView, ToolItem } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { useToggle } from '../viewState.ts';
import { DiffView, baseName } from './DiffView.tsx';
import { Icon } from './Icon.tsx';
import { AnsiText, TerminalOutput } from './TerminalOutput.tsx';

export const KIND_ICON: Record<ToolKind, string> = {
  read: 'book',
  edit: 'edit',
  delete: 'trash',
  move: 'move',
  search: 'search',
  execute: 'terminal',
  think: 'lightbulb',
  fetch: 'globe',
  switch_mode: 'arrow-swap',
  other: 'tools',
};

/** A status's icon and its words (read when rendered, so they follow the UI language). */
function statusView(status: ToolCallStatus): { icon: string; label: string; spin?: boolean } {
  switch (status) {
    case 'in_progress':
      return { icon: 'loading', label: t('Running'), spin: true };
    case 'completed':
      return { icon: 'pass', label: t('Done') };
    case 'failed':
      return { icon: 'error', label: t('Failed') };
    default:
      return { icon: 'circle-outline', label: t('Pending') };
  }
}

function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

function subagentSummary(s: SubagentView): string {
  const parts: string[] = [];
  if (s.tokens !== undefined) parts.push(t('{0} tokens', formatTokens(s.tokens)));
  if (s.toolUses !== undefined) parts.push(s.toolUses === 1 ? t('1 tool use') : t('{0} tool uses', s.toolUses));
  if (s.durationMs !== undefined) parts.push(`${(s.durationMs / 1000).toFixed(1)} s`);
  return parts.join(' · ');
}

/** A title with `inline code` spans (tool titles are short markdown-ish strings); text only, never HTML. */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split(/(`[^`]+`)/);
  return <>{parts.map((part, i) => (part.length > 2 && part.startsWith('`') && part.endsWith('`') ? <code key={i}>{part.slice(1, -1)}</code> : part))}</>;
}

function Section({ id, name, label, text, defaultOpen = false }: { id: string; name: string; label: string; text: string; defaultOpen?: boolean }) {
  const [open, toggle] = useToggle(`${id}:${name}`, defaultOpen);
  return (
    <div class="tool-section">
      <button type="button" class="section-toggle" aria-expanded={open} onClick={toggle}>
        <Icon name={open ? 'chevron-down' : 'chevron-right'} />
        {label}
      </button>
      {open && <pre class="raw">{text}</pre>}
    </div>
  );
}

export function ToolCard({ item }: { item: ToolItem }) {
  const actions = useActions();
  const status = item.background?.cancelled ? { icon: 'circle-slash', label: t('Cancelled') } : statusView(item.status);
  const hasBody = item.content.length > 0 || item.terminal !== undefined;
  // Diffs and shell output are the point of their cards: shown. Other output (file contents,
  // search hits) stays folded until asked for.
  const showsByDefault = item.terminal !== undefined || item.kind === 'execute' || item.content.some((c) => c.type === 'diff');
  const [open, toggle] = useToggle(`${item.id}:body`, showsByDefault);
  const texts = item.content.filter((c) => c.type === 'text' && c.text.trim() !== '');
  const isShell = item.kind === 'execute';
  return (
    <section class={`card tool status-${item.status}${item.background ? ' background' : ''}`} aria-label={`${item.title}: ${status.label}`}>
      <div class="card-header">
        <button type="button" class="card-toggle" aria-expanded={hasBody ? open : undefined} onClick={hasBody ? toggle : undefined} disabled={!hasBody}>
          {hasBody && <Icon name={open ? 'chevron-down' : 'chevron-right'} />}
          <Icon name={KIND_ICON[item.kind] ?? 'tools'} />
          <span class="card-title" title={item.title}>
            <InlineCode text={item.title} />
          </span>
        </button>
        {item.background && <span class="badge">{t('background')}</span>}
        {item.background?.taskId && !item.background.cancelled && (item.status === 'in_progress' || item.status === 'pending') && (
          <button type="button" class="icon-button" title={t('Cancel this background task')} aria-label={t('Cancel background task: {0}', item.title)} onClick={() => actions.cancelBackgroundTask(item.background!.taskId!)}>
            <Icon name="debug-stop" />
          </button>
        )}
        {item.subagent && (
          <span class="badge subagent" title={item.subagent.agentId}>
            <Icon name="hubot" /> {subagentSummary(item.subagent)}
          </span>
        )}
        <span class={`tool-status ${item.status}`}>
          <Icon name={status.icon} spin={'spin' in status && status.spin} />
          <span class="tool-status-label">{status.label}</span>
        </span>
      </div>
      {item.locations.length > 0 && (
        <div class="tool-locations">
          {item.locations.map((l, i) => (
            <button key={i} type="button" class="link-button location" title={l.path} onClick={() => actions.openLocation(l.path, l.line ?? undefined)}>
              <Icon name="go-to-file" /> {baseName(l.path)}
              {l.line ? `:${l.line}` : ''}
            </button>
          ))}
        </div>
      )}
      {hasBody && open && (
        <div class="card-body">
          {item.content.map((c, i) => (c.type === 'diff' ? <DiffView key={i} toolCallId={item.toolCallId} diff={c} /> : null))}
          {item.terminal && <TerminalOutput id={item.id} terminal={item.terminal} running={item.status === 'in_progress'} />}
          {!item.terminal &&
            texts.map((c, i) =>
              c.type === 'text' ? (
                <pre key={`t${i}`} class={isShell ? 'terminal-output' : 'tool-text'}>
                  {isShell ? <AnsiText text={c.text} /> : c.text}
                </pre>
              ) : null,
            )}
          {item.content.map((c, i) =>
            c.type === 'resource' ? (
              <button key={`r${i}`} type="button" class="link-button" onClick={() => actions.openLocation(c.uri)}>
                <Icon name="file" /> {c.name}
              </button>
            ) : c.type === 'image' ? (
              <span key={`i${i}`} class="badge">
                {t('image ({0})', c.mimeType)}
              </span>
            ) : null,
          )}
        </div>
      )}
      {(item.input || item.output) && (
        <div class="tool-raw">
          {item.input && <Section id={item.id} name="input" label={t('Input')} text={item.input} />}
          {item.output && <Section id={item.id} name="output" label={t('Output')} text={item.output} />}
        </div>
      )}
    </section>
  );
}
