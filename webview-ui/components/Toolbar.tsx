/** Config pickers (mode, model, thought level, …: ACP config options) and the context meter. */
import { t } from '../l10n.ts';
import type { SessionConfigOption, SessionConfigSelectGroup, SessionConfigSelectOption } from '@agentclientprotocol/sdk';
import type { PlanQuotaView, SessionView } from '../viewModel.ts';
import { useActions } from '../actions.ts';

const CATEGORY_ORDER = ['mode', 'model', 'thought_level'];

function isGrouped(options: SessionConfigSelectOption[] | SessionConfigSelectGroup[]): options is SessionConfigSelectGroup[] {
  return options.length > 0 && 'group' in options[0];
}

function compactNumber(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return String(n);
}

function Picker({ option }: { option: SessionConfigOption }) {
  const actions = useActions();
  if (option.type === 'boolean') {
    return (
      <label class="picker checkbox-label" title={option.description ?? option.name}>
        <input type="checkbox" checked={option.currentValue} onChange={(e) => actions.setConfigOption(option.id, (e.currentTarget as HTMLInputElement).checked)} />
        {option.name}
      </label>
    );
  }
  if (option.type !== 'select') return null;
  const options = option.options;
  return (
    <select
      class="select picker"
      aria-label={option.name}
      title={option.description ?? option.name}
      data-category={option.category ?? undefined}
      value={option.currentValue}
      onChange={(e) => actions.setConfigOption(option.id, (e.currentTarget as HTMLSelectElement).value)}
    >
      {isGrouped(options)
        ? options.map((g) => (
            <optgroup key={g.group} label={g.name}>
              {g.options.map((o) => (
                <option key={o.value} value={o.value} title={o.description ?? undefined}>
                  {o.name}
                </option>
              ))}
            </optgroup>
          ))
        : options.map((o) => (
            <option key={o.value} value={o.value} title={o.description ?? undefined}>
              {o.name}
            </option>
          ))}
    </select>
  );
}

function UsageMeter({ usage }: { usage: NonNullable<SessionView['usage']> }) {
  const ratio = usage.size > 0 ? Math.min(1, usage.used / usage.size) : 0;
  const level = ratio > 0.9 ? 'high' : ratio > 0.7 ? 'medium' : 'low';
  const label = t('Context: {0} of {1} tokens used', compactNumber(usage.used), compactNumber(usage.size));
  return (
    <div class={`usage ${level}`} role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={usage.size} aria-valuenow={usage.used} title={label + (usage.cost ? ` · ${usage.cost.amount.toFixed(2)} ${usage.cost.currency}` : '')}>
      <span class="usage-bar">
        <span class="usage-fill" style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
      </span>
      <span class="usage-text">
        {compactNumber(usage.used)} / {compactNumber(usage.size)}
      </span>
    </div>
  );
}

/** The plan window with the least left: "62% left", its reset time and staleness in the tooltip. */
function PlanQuotaMeter({ quota }: { quota: PlanQuotaView }) {
  const left = Math.max(0, Math.min(100, Math.round(quota.remainingPercent)));
  const level = left < 10 ? 'high' : left < 30 ? 'medium' : 'low';
  const resets = quota.resetsAt ? new Date(quota.resetsAt) : undefined;
  const parts = [t('Plan quota, {0}: {1}% left', quota.label, left)];
  if (resets && !Number.isNaN(resets.getTime())) parts.push(t('resets {0}', resets.toLocaleString()));
  if (quota.stale) parts.push(t('stale: the last refresh failed'));
  const label = parts.join(' · ');
  return (
    <div class={`usage plan-quota ${level}${quota.stale ? ' stale' : ''}`} role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={left} title={label}>
      <span class="codicon codicon-dashboard" aria-hidden="true" />
      <span class="usage-text">
        {left}%{quota.stale ? '?' : ''}
      </span>
    </div>
  );
}

export function Toolbar({ session }: { session: SessionView }) {
  const options = [...session.configOptions].sort((a, b) => {
    const ra = CATEGORY_ORDER.indexOf(a.category ?? '');
    const rb = CATEGORY_ORDER.indexOf(b.category ?? '');
    return (ra < 0 ? 99 : ra) - (rb < 0 ? 99 : rb);
  });
  if (options.length === 0 && !session.usage && !session.planQuota) return null;
  return (
    <div class="toolbar">
      {options.map((o) => (
        <Picker key={o.id} option={o} />
      ))}
      <span class="spacer" />
      {session.usage && <UsageMeter usage={session.usage} />}
      {session.planQuota && <PlanQuotaMeter quota={session.planQuota} />}
    </div>
  );
}
