/**
 * "Changed files" after a turn that edited files: every file with lines added/removed, Review all
 * (VS Code's multi-file diff editor, before the turn ⇄ now), Undo per file and Undo all. The host
 * decides whether an undo may happen (extension/changes/changeTracker.ts) and sends the updated card.
 */
import type { ChangedFileView, ChangesItem } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { baseName } from './DiffView.tsx';
import { Icon } from './Icon.tsx';

const STATUS_ICON = { modified: 'diff-modified', created: 'diff-added', deleted: 'diff-removed' } as const;

function statusText(file: ChangedFileView): string {
  return file.status === 'created' ? t('created') : file.status === 'deleted' ? t('deleted') : t('modified');
}

function FileRow({ changeSetId, file }: { changeSetId: string; file: ChangedFileView }) {
  const actions = useActions();
  const name = baseName(file.path);
  const undoTitle = file.status === 'created' ? t('Undo: delete {0}, which this turn created', name) : file.status === 'deleted' ? t('Undo: recreate {0}', name) : t('Undo: restore {0} as it was before this turn', name);
  return (
    <li class={`changed-file${file.undone ? ' undone' : ''}`}>
      <Icon name={STATUS_ICON[file.status]} />
      <button type="button" class="link-button changed-path" title={`${file.path} (${statusText(file)})`} onClick={() => actions.reviewChanges(changeSetId, file.path)}>
        {name}
      </button>
      <span class="diff-stats" aria-label={t('{0} lines added, {1} lines removed', file.added, file.removed)}>
        <span class="diff-added">+{file.added}</span> <span class="diff-removed">−{file.removed}</span>
      </span>
      {file.undone ? (
        <span class="changed-undone">{t('Undone')}</span>
      ) : (
        <button
          type="button"
          class="icon-button undo-file"
          disabled={file.beforeUnknown === true}
          title={file.beforeUnknown ? t('Cannot undo: zcode did not say what the file held before this turn') : undoTitle}
          aria-label={undoTitle}
          onClick={() => actions.undoChanges(changeSetId, file.path)}
        >
          <Icon name="discard" />
        </button>
      )}
    </li>
  );
}

export function ChangesCard({ item }: { item: ChangesItem }) {
  const actions = useActions();
  const open = item.files.filter((f) => !f.undone && !f.beforeUnknown);
  const added = item.files.reduce((n, f) => n + f.added, 0);
  const removed = item.files.reduce((n, f) => n + f.removed, 0);
  return (
    <section class="card changes" aria-label={t('Changed files')}>
      <div class="card-header static">
        <Icon name="files" />
        <span class="card-title">{item.files.length === 1 ? t('1 file changed') : t('{0} files changed', item.files.length)}</span>
        <span class="diff-stats">
          <span class="diff-added">+{added}</span> <span class="diff-removed">−{removed}</span>
        </span>
      </div>
      {item.prompt && <div class="changes-prompt" title={item.prompt}>{item.prompt}</div>}
      <ul class="changed-files">
        {item.files.map((f) => (
          <FileRow key={f.path} changeSetId={item.changeSetId} file={f} />
        ))}
      </ul>
      <div class="button-row">
        <button type="button" class="button secondary small review-all" onClick={() => actions.reviewChanges(item.changeSetId)}>
          <Icon name="diff-multiple" /> {t('Review all')}
        </button>
        <button type="button" class="button secondary small undo-all" disabled={open.length === 0} onClick={() => actions.undoChanges(item.changeSetId)}>
          <Icon name="discard" /> {t('Undo all')}
        </button>
      </div>
    </section>
  );
}
