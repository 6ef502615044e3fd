/** The agent's plan as a checklist (ACP `plan`: always the complete list). */
import { t } from '../l10n.ts';
import type { PlanEntry } from '@agentclientprotocol/sdk';
import { Icon } from './Icon.tsx';

const STATUS: Record<PlanEntry['status'], { icon: string; label: string }> = {
  pending: { icon: 'circle-large-outline', label: 'pending' },
  in_progress: { icon: 'loading', label: 'in progress' },
  completed: { icon: 'pass-filled', label: 'done' },
};

export function PlanView({ entries }: { entries: PlanEntry[] }) {
  const done = entries.filter((e) => e.status === 'completed').length;
  return (
    <section class="card plan" aria-label={t('Plan')}>
      <div class="card-header static">
        <Icon name="checklist" />
        <span class="card-title">{t('Plan')}</span>
        <span class="badge">
          {done}/{entries.length}
        </span>
      </div>
      <ul class="plan-entries">
        {entries.map((entry, i) => {
          const s = STATUS[entry.status] ?? STATUS.pending;
          return (
            <li key={i} class={`plan-entry ${entry.status}`}>
              <Icon name={s.icon} spin={entry.status === 'in_progress'} label={s.label} />
              <span class="plan-text">{entry.content}</span>
              {entry.priority === 'high' && <span class="badge priority">high</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
