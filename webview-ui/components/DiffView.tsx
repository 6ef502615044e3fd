/** An edit's compact diff (a few context lines per hunk) with "Open Diff" for the full editor. */
import type { ToolContentView } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { Icon } from './Icon.tsx';

type DiffContent = Extract<ToolContentView, { type: 'diff' }>;

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

export function DiffView({ toolCallId, diff }: { toolCallId: string; diff: DiffContent }) {
  const actions = useActions();
  return (
    <div class="diff">
      <div class="diff-header">
        <Icon name={diff.isNew ? 'new-file' : 'diff'} />
        <button type="button" class="link-button diff-path" title={diff.path} onClick={() => actions.openLocation(diff.path)}>
          {baseName(diff.path)}
        </button>
        <span class="diff-stats" aria-label={t('{0} lines added, {1} lines removed', diff.added, diff.removed)}>
          <span class="diff-added">+{diff.added}</span> <span class="diff-removed">−{diff.removed}</span>
        </span>
        <button type="button" class="button secondary small open-diff" onClick={() => actions.openDiff(toolCallId, diff.index)} aria-label={t('Open diff of {0}', baseName(diff.path))}>
          <Icon name="diff" /> {t('Open Diff')}
        </button>
      </div>
      <div class="diff-lines" role="table" aria-label={t('Changes in {0}', baseName(diff.path))}>
        {diff.lines.map((line, i) =>
          line.t === '@' ? (
            <div key={i} class="diff-line hunk" role="row">
              <span role="cell">⋯ {line.text}</span>
            </div>
          ) : (
            <div key={i} class={`diff-line ${line.t === '+' ? 'add' : line.t === '-' ? 'del' : 'ctx'}`} role="row">
              <span class="diff-sign" role="cell" aria-label={line.t === '+' ? t('added') : line.t === '-' ? t('removed') : t('unchanged')}>
                {line.t}
              </span>
              <span class="diff-text" role="cell">
                {line.text}
              </span>
            </div>
          ),
        )}
        {diff.truncated && <div class="diff-line hunk">{t('… more changes: Open Diff to see everything')}</div>}
      </div>
    </div>
  );
}
