/**
 * zcode's own commands in the slash menu, `/init`, `/resume`, `/quota` and `_zcode/account/usage`
 * (issue 15 items 3 and 4), in-process and over stdio, every message schema-checked (strict: nothing
 * outside the ACP schema but `_meta`). zcode's folders live in a private HOME (test/helpers/zcodeHome.ts):
 * a user skill `deploy`, an enabled plugin `reviewer` with the command `review`; the plan quota comes
 * from a loopback stand-in for the provider's endpoint.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { QUOTA_KEY, useZcodeAccount } from '../../helpers/zcodeHome.ts';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { newSession, say, sentPrompts, withHarness } from './helpers.ts';

const T = { timeout: 90_000 };
const account = useZcodeAccount();
const { zhome } = account;

before(() => buildCli());

function menus(h: AcpHarness, sessionId: string): AvailableCommand[][] {
  return h.updatesOf(sessionId).flatMap((u) => (u.sessionUpdate === 'available_commands_update' ? [u.availableCommands] : []));
}

async function menu(h: AcpHarness, sessionId: string, count = 1): Promise<AvailableCommand[]> {
  await h.waitFor(`menu #${count}`, () => menus(h, sessionId).length >= count);
  return menus(h, sessionId)[count - 1];
}



for (const mode of MODES) {
  describe(`zcode's commands in the slash menu (${mode})`, () => {
    test('skills and plugin commands from zcode\'s listings; a skill is named to the model, a plugin command goes as typed; the menu follows zcode', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h, zhome.home);
        const first = await menu(h, sessionId);
        const byName = new Map(first.map((c) => [c.name, c]));
        for (const name of ['compact', 'model', 'mcp', 'init', 'resume', 'quota']) assert.ok(byName.has(name), `bridge command /${name}`);
        assert.equal(byName.get('review')?.description, 'Plugin command: Review the working tree changes');
        assert.deepEqual(byName.get('review')?.input, { hint: '[path]' });
        assert.equal(byName.get('deploy')?.description, 'Skill: Deploy the app to an environment');
        assert.equal(first.filter((c) => c.name === 'compact').length, 1, "zcode's own /compact is not listed twice");
        // (zcode already runs here: session/new read its model list from a draft. Whether this first menu came from
        // zcode's folders or from its listings, it is the same menu.)

        await say(h, sessionId, '/deploy staging [scenario:text]');
        // After the prompt (zcode runs now) the menu is discovered again from zcode's listings.
        await h.waitFor("zcode's listings", () => ['skills/referenceCatalog', 'plugins/list'].every((m) => h.simRecord().received.some((r) => r.method === m)));
        await say(h, sessionId, '/review src [scenario:text]');
        assert.deepEqual(sentPrompts(h), [`Use the "deploy" skill (${zhome.skillFile}) for this request.\n\nstaging [scenario:text]`, '/review src [scenario:text]']);

        // A plugin command appears in zcode's set: the next prompt's end brings the new menu.
        const seen = menus(h, sessionId).length;
        zhome.addPluginCommand(`lint-${mode}`, 'Lint the changed files');
        await say(h, sessionId, 'hello [scenario:text]');
        const next = await menu(h, sessionId, seen + 1);
        assert.ok(next.some((c) => c.name === `lint-${mode}`), next.map((c) => c.name).join(','));
        // Nothing changed since: after two more prompts (and their re-discovery), no menu repeats the one before it.
        const catalogReads = (): number => h.simRecord().received.filter((m) => m.method === 'skills/referenceCatalog').length;
        const reads = catalogReads();
        await say(h, sessionId, 'again [scenario:text]');
        await say(h, sessionId, '/model');
        await h.waitFor('the re-discovery after both prompts', () => catalogReads() >= reads + 2);
        const all = menus(h, sessionId).map((m) => JSON.stringify(m));
        assert.ok(all.every((m, i) => i === 0 || m !== all[i - 1]), 'an unchanged menu is never re-sent');
      });
    });

    test('/init becomes a prompt asking zcode for AGENTS.md; /resume lists the folder\'s other conversations', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const older = await newSession(h, zhome.home);
        await say(h, older, 'Fix the flaky test [scenario:text]');
        const sessionId = await newSession(h, zhome.home);
        await say(h, sessionId, '/init the build scripts');
        const init = sentPrompts(h).at(-1) ?? '';
        assert.match(init, /^Study this project and write \(or update\) AGENTS\.md/);
        assert.match(init, /Focus on: the build scripts$/);
        const resume = await say(h, sessionId, '/resume');
        assert.match(resume, /^Earlier conversations in `/);
        assert.match(resume, /\*\*Fix the flaky test\*\* — `sess_/);
        assert.equal(sentPrompts(h).length, 2, '/resume is answered by the bridge');
      });
    });

    test('/quota and _zcode/account/usage: the plan windows from the provider, stale when a refresh fails', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h, zhome.home);
        const text = await say(h, sessionId, '/quota');
        assert.equal(
          text,
          'GLM Coding Plan (pro):\n- 75% left of the 5-hour window (250 of 1000 used), resets 2030-01-01 05:00 UTC\n- 60% left of the weekly window, resets 2030-01-07 00:00 UTC',
        );
        assert.ok(account.quota.requests.every((r) => r.authorization === `Bearer ${QUOTA_KEY}`));
        await say(h, sessionId, 'count some tokens [scenario:text]');
        const usage = (await h.agent.request('_zcode/account/usage', { sessionId })) as {
          quota: { provider: string; windows: Array<{ key: string; remainingPercent: number; resetsAt?: string }>; stale: boolean };
          session?: { totalTokens: number };
        };
        assert.equal(usage.quota.provider, 'builtin:zai-coding-plan');
        assert.deepEqual(usage.quota.windows.map((w) => [w.key, w.remainingPercent, w.resetsAt]), [
          ['tokens_5h', 75, '2030-01-01T05:00:00.000Z'],
          ['tokens_week', 60, '2030-01-07T00:00:00.000Z'],
        ]);
        assert.equal(usage.quota.stale, false);
        assert.ok((usage.session?.totalTokens ?? 0) > 0, "zcode's session/usage for the session");
        const bad = await h.agent.request('_zcode/account/usage', { refresh: 'yes' }).catch((e: unknown) => e as { code: number; message: string });
        assert.equal((bad as { code: number }).code, -32602);
        assert.match((bad as { message: string }).message, /refresh must be true or false/);
      });
    });
  });
}

describe('zcode builds without the listing methods (0.15.2)', () => {
  test("the same skills and plugin commands come from zcode's folders", T, async () => {
    await withHarness('inproc', { sim: { profile: '0.15.2' } }, async (h) => {
      const sessionId = await newSession(h, zhome.home);
      const names = (await menu(h, sessionId)).map((c) => c.name);
      assert.ok(names.includes('deploy') && names.includes('review'), names.join(','));
      await say(h, sessionId, '/deploy [scenario:text]');
      assert.equal(sentPrompts(h).at(-1), `Use the "deploy" skill (${zhome.skillFile}) for this request.\n\n[scenario:text]`);
    });
  });
});
