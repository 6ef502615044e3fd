/**
 * What the chat's context meter shows of the plan quota: the window with the least
 * left, since that is the one that stops the next prompt. Pure, so the rule is tested without VS Code.
 */
import type { AccountUsageResponse } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { PlanQuotaView } from '../webview-ui/viewModel.ts';

export function planQuotaView(usage: AccountUsageResponse | undefined): PlanQuotaView | undefined {
  const quota = usage?.quota;
  if (!quota || quota.windows.length === 0) return undefined;
  const tightest = quota.windows.reduce((a, b) => (b.remainingPercent < a.remainingPercent ? b : a));
  return {
    label: tightest.label,
    remainingPercent: tightest.remainingPercent,
    ...(tightest.resetsAt ? { resetsAt: tightest.resetsAt } : {}),
    stale: quota.stale,
  };
}
