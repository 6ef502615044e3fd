/**
 * Token usage as ACP clients read it: the turn's usage in the prompt result's own (unstable) `usage`
 * field, checked on the raw wire against schema.unstable.json (the official client's stable parser
 * would hide it), next to zcode's figures under `_meta.zcode.usage`; and `usage_update.used` as the
 * context window's current fill, never a running token total. Run in-process and over stdio.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { AnyMessage, SessionUpdate } from '@agentclientprotocol/sdk';
import { validateOutgoing } from '../../helpers/acpSchema.ts';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { newSession, prompt, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };

before(async () => {
  await buildCli();
});

/** The raw `session/prompt` results the bridge sent, in order. */
function promptResults(h: AcpHarness): Record<string, unknown>[] {
  const promptIds = new Set(h.traffic.entries.filter((e) => e.dir === 'in' && 'method' in e.msg && e.msg.method === 'session/prompt' && 'id' in e.msg).map((e) => (e.msg as { id: unknown }).id));
  return h.traffic.sent
    .filter((m: AnyMessage) => 'result' in m && 'id' in m && promptIds.has(m.id))
    .map((m) => (m as { result: Record<string, unknown> }).result);
}

function usedValues(updates: readonly SessionUpdate[]): Array<{ used: number; size: number }> {
  return updates.flatMap((u) => (u.sessionUpdate === 'usage_update' ? [{ used: u.used, size: u.size }] : []));
}

for (const mode of MODES) {
  describe(`usage (${mode})`, () => {
    test("the prompt result carries the turn's usage in ACP's usage field, and zcode's under _meta.zcode.usage", T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        assert.equal((await prompt(h, sessionId, '[scenario:usage]')).stopReason, 'end_turn');
        const [result] = promptResults(h);
        assert.ok(result, 'the prompt result was seen on the wire');
        // The traffic recorder validated it already; once more here so this test stands on its own.
        validateOutgoing('session/prompt', result, 'response');
        assert.deepEqual(result.usage, { totalTokens: 13023, inputTokens: 12345, outputTokens: 678, thoughtTokens: 256, cachedReadTokens: 8000, cachedWriteTokens: 1024 });
        const zcode = (result._meta as { zcode: Record<string, unknown> }).zcode;
        assert.equal((zcode.usage as { webSearchRequests: number }).webSearchRequests, 2);
        assert.equal('promptUsage' in zcode, false, 'one place for the ACP figures');
      });
    });

    test('usage_update.used is the context fill: it grows by what a turn added, not by the tokens the turn spent', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        await prompt(h, sessionId, '[scenario:usage]');
        const afterFirst = usedValues(h.updatesOf(sessionId));
        await prompt(h, sessionId, '[scenario:usage]');
        const all = usedValues(h.updatesOf(sessionId));
        assert.ok(afterFirst.length > 0 && all.length > afterFirst.length, 'each turn reported the context');
        for (const { used, size } of all) assert.ok(used <= size, `used ${used} fits the window ${size}`);
        const first = afterFirst[afterFirst.length - 1].used;
        const second = all[all.length - 1].used;
        const spent = promptResults(h).map((r) => (r.usage as { inputTokens: number }).inputTokens);
        assert.deepEqual(spent, [12345, 12345]);
        // A running total would grow by at least the second turn's input tokens (12345, three model
        // requests each reading the whole context); the fill grows by the turn's own text.
        assert.ok(second > first, `the context grew (${first} → ${second})`);
        assert.ok(second - first < spent[1], `grew by ${second - first}, less than the ${spent[1]} tokens the turn read`);
        assert.ok(!all.some(({ used }) => used === spent[0] || used === spent[0] + spent[1]), 'never a turn total or a sum of them');
      });
    });
  });
}
