import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planQuotaView } from '../../../extension/planQuota.ts';
import type { AccountUsageResponse } from '../../../bridge/acp/extensions/contractDescriptors.ts';

const window = (key: string, remainingPercent: number, resetsAt?: string) => ({
  key,
  label: key === 'tokens_5h' ? '5-hour window' : 'Weekly window',
  usedPercent: 100 - remainingPercent,
  remainingPercent,
  ...(resetsAt ? { resetsAt } : {}),
});

const usage = (windows: ReturnType<typeof window>[], stale = false): AccountUsageResponse => ({
  quota: { provider: 'builtin:zai-coding-plan', plan: 'pro', windows, fetchedAt: '2026-12-02T04:00:00.000Z', stale },
});

describe('plan quota in the context meter', () => {
  test('the window with the least left is shown, with its reset time', () => {
    const view = planQuotaView(usage([window('tokens_week', 80), window('tokens_5h', 35, '2026-12-02T09:00:00.000Z')]));
    assert.deepEqual(view, { label: '5-hour window', remainingPercent: 35, resetsAt: '2026-12-02T09:00:00.000Z', stale: false });
  });

  test('stale figures stay marked stale', () => {
    assert.equal(planQuotaView(usage([window('tokens_5h', 50)], true))?.stale, true);
  });

  test('no figures, no windows or no answer: nothing to show', () => {
    assert.equal(planQuotaView(undefined), undefined);
    assert.equal(planQuotaView({ quota: null, unavailable: { reason: 'no_key', message: 'no key' } }), undefined);
    assert.equal(planQuotaView(usage([])), undefined);
  });
});
