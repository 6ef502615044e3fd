/**
 * "Rewind to here" and "Fork from here", hover actions of a user message. They work on the message's
 * zcode checkpoint (set by the host: extension/chat/transcriptCheckpoints.ts); when they cannot,
 * they stay visible but inert, with the reason as their tooltip (a disabled button shows none).
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { SessionView, UserItem } from '../contract.ts';
import { useActions } from '../actions.ts';
import { t } from '../l10n.ts';
import { Icon } from './Icon.tsx';

/** What the actions need of the session (a context: pages of the transcript skip re-renders). */
export interface CheckpointState {
  running: boolean;
  unavailable?: SessionView['checkpointUnavailable'];
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
  const { running, unavailable } = useContext(CheckpointContext);
  const common =
    running ? t('Available once the turn has ended')
    : !item.checkpointId ? t('zcode has no checkpoint for this message (its turn failed, was stopped or has not ended)')
    : undefined;
  const rewindBlocked = common ?? (unavailable?.rewind ? reasonText(unavailable.rewind) : undefined);
  const forkBlocked = common ?? (unavailable?.fork ? reasonText(unavailable.fork) : undefined);
  return (
    <span class="checkpoint-actions">
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
