/** Shell output of a tool card: ANSI colours rendered, only the last lines until expanded. */
import { t } from '../l10n.ts';
import { useMemo } from 'preact/hooks';
import { parseAnsi, type AnsiSegment } from '../ansi.ts';
import type { TerminalView } from '../viewModel.ts';
import { useToggle } from '../viewState.ts';
import { Icon } from './Icon.tsx';

/** Lines shown before "Show all". */
const TAIL_LINES = 12;

function segmentProps(seg: AnsiSegment): { class?: string; style?: Record<string, string> } {
  const s = seg.style;
  const fg = s.inverse ? s.bg : s.fg;
  const bg = s.inverse ? s.fg : s.bg;
  const classes: string[] = [];
  const style: Record<string, string> = {};
  if (typeof fg === 'number') classes.push(`ansi-fg-${fg}`);
  else if (fg) style.color = fg;
  if (typeof bg === 'number') classes.push(`ansi-bg-${bg}`);
  else if (bg) style.backgroundColor = bg;
  if (s.bold) classes.push('ansi-bold');
  if (s.dim) classes.push('ansi-dim');
  if (s.italic) classes.push('ansi-italic');
  if (s.underline) classes.push('ansi-underline');
  return { ...(classes.length ? { class: classes.join(' ') } : {}), ...(Object.keys(style).length ? { style } : {}) };
}

export function AnsiText({ text }: { text: string }) {
  const segments = useMemo(() => parseAnsi(text), [text]);
  return (
    <>
      {segments.map((seg, i) => {
        const props = segmentProps(seg);
        return props.class || props.style ? (
          <span key={i} {...props}>
            {seg.text}
          </span>
        ) : (
          seg.text
        );
      })}
    </>
  );
}

export function TerminalOutput({ id, terminal, running }: { id: string; terminal: TerminalView; running: boolean }) {
  const [expanded, toggle] = useToggle(`${id}:terminal-all`, false);
  const lines = useMemo(() => {
    const all = terminal.output.replace(/\n$/, '').split('\n');
    return all;
  }, [terminal.output]);
  const hidden = Math.max(0, lines.length - TAIL_LINES);
  const shown = expanded || hidden === 0 ? terminal.output : lines.slice(-TAIL_LINES).join('\n');
  const status = terminal.exited
    ? terminal.signal
      ? t('killed by {0}', terminal.signal)
      : t('exit code {0}', terminal.exitCode ?? '?')
    : running
      ? t('running')
      : undefined;
  return (
    <div class="terminal" role="region" aria-label={t('Command output')}>
      {(hidden > 0 || terminal.truncated) && (
        <button type="button" class="link-button terminal-expand" aria-expanded={expanded} onClick={toggle}>
          <Icon name={expanded ? 'fold-up' : 'unfold'} />
          {expanded ? t('Show last lines only') : terminal.truncated ? t('Show all {0} lines (earlier output was cut)', lines.length) : t('Show all {0} lines', lines.length)}
        </button>
      )}
      {terminal.output === '' ? (
        <pre class="terminal-output empty">{terminal.exited ? t('(no output)') : t('Waiting for output…')}</pre>
      ) : (
        <pre class="terminal-output">
          <AnsiText text={shown} />
        </pre>
      )}
      {status && (
        <div class={`terminal-status${terminal.exited && terminal.exitCode !== 0 ? ' failed' : ''}`}>
          {terminal.cwd ? `${terminal.cwd} · ` : ''}
          {status}
        </div>
      )}
    </div>
  );
}
