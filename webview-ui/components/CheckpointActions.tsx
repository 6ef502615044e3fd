/**
 * "Rewind to here" and "Fork from here", hover actions of a user message. They work on the message's
 * zcode checkpoint (set by the host: extension/chat/transcriptCheckpoints.ts); when they cannot,
 * they stay visible but inert, with the reason as their tooltip (a disabled button shows none).
 * With zcode's own rewind (current builds) the latest prompt also offers "Ask again" and every
 * message "Undo this turn's file changes"; where the running zcode cannot, the tooltip says why.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { FeatureUnavailable, SessionView, UserItem } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { Icon } from './Icon.tsx';

/** What the actions need of the session (a context: pages of the transcript skip re-renders). */
export interface CheckpointState {
  running: boolean;
  unavailable?: SessionView['checkpointUnavailable'];
  /** Why zcode's own rewinds cannot work (SessionView.featureUnavailable); absent: an older host, not offered. */
  features?: FeatureUnavailable;
  /** The transcript's last user message: the one "Ask again" applies to. */
  latestUserId?: string;
}

export const CheckpointContext = createContext<CheckpointState>({ running: false });

function reasonText(reason: string): string {
  return reason === 'noList' ? t('This zcode build does not list its checkpoints: use ZCode: Rewind or ZCode: Fork Session for the latest one') : reason;
}

function ActionButton({ icon, cls, label, blocked, onClick }: { icon: string; cls: string; label: string; blocked: string | undefined; onClick: () => void }) {
  return (
    <button
      type="button"
      class={`icon-button ${cls}${blocked ? ' inert' : ''}`}
      aria-disabled={blocked ? 'true' : undefined}
      title={blocked ?? label}
      aria-label={blocked ? `${label} — ${blocked}` : label}
      onClick={() => !blocked && onClick()}
    >
      <Icon name={icon} />
    </button>
  );
}

export function CheckpointActions({ item }: { item: UserItem }) {
  const actions = useActions();
  const { running, unavailable, features, latestUserId } = useContext(CheckpointContext);
  const common =
    running ? t('Available once the turn has ended')
    : !item.checkpointId ? t('zcode has no checkpoint for this message (its turn failed, was stopped or has not ended)')
    : undefined;
  const rewindBlocked = common ?? (unavailable?.rewind ? reasonText(unavailable.rewind) : undefined);
  const forkBlocked = common ?? (unavailable?.fork ? reasonText(unavailable.fork) : undefined);
  const idle = running ? t('Available once the turn has ended') : undefined;
  const askAgainBlocked = idle ?? (features?.rewindLatestPrompt !== undefined ? t('Not available: {0}', features.rewindLatestPrompt) : undefined);
  const undoFilesBlocked = idle ?? (features?.fileRewind !== undefined ? t('Not available: {0}', features.fileRewind) : undefined);
  return (
    <span class="checkpoint-actions">
      {features && item.id === latestUserId && (
        <ActionButton
          icon="refresh"
          cls="ask-again"
          label={t('Ask again: remove this prompt and its answer, then ask it again (you can edit it first)')}
          blocked={askAgainBlocked}
          onClick={() => actions.rewindMessage(item.id, 'askAgain')}
        />
      )}
      {features && (
        <ActionButton
          icon="history"
          cls="undo-turn-files"
          label={t("Undo this turn's file changes: restore the files it changed, keep the conversation")}
          blocked={undoFilesBlocked}
          onClick={() => actions.rewindMessage(item.id, 'filesOnly')}
        />
      )}
      <ActionButton
        icon="discard"
        cls="rewind-here"
        label={t('Rewind to here: keep this message and its answer, remove everything after it')}
        blocked={rewindBlocked}
        onClick={() => actions.rewindTo(item.id)}
      />
      <ActionButton
        icon="repo-forked"
        cls="fork-here"
        label={t('Fork from here: a new session with the conversation up to this message and its answer')}
        blocked={forkBlocked}
        onClick={() => actions.forkFrom(item.id)}
      />
    </span>
  );
}
