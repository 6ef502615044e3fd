import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { commandWord, mergeZcodeCommands, skillPrompt, zcodeCommandEntry } from '../../../../bridge/translate/zcodeCommands.ts';
import { parseQuota, windowLine } from '../../../../bridge/translate/quotaWindows.ts';
import { frontMatter } from '../../../../bridge/zcode/commandFolders.ts';
import { assertValidSessionUpdate } from '../../../helpers/acpSchema.ts';

describe("zcode's commands", () => {
  test('first source wins (bridge, snapshot, plugins, skills); untypable names are skipped', () => {
    const merged = mergeZcodeCommands(
      {
        snapshot: [{ name: 'compact', description: 'zcode compact' }, { name: 'review', description: 'zcode review', inputHint: '<path>' }],
        plugins: [{ name: 'review', description: 'plugin review' }, { name: 'lint', description: 'Lint' }],
        skills: [{ name: 'lint', description: 'skill lint' }, { name: 'deploy', description: 'Deploy', path: '/h/SKILL.md' }, { name: 'two words', description: 'x' }],
      },
      new Set(['compact']),
    );
    assert.deepEqual(merged.map((c) => [c.name, c.kind]), [['review', 'zcode'], ['lint', 'plugin'], ['deploy', 'skill']]);
    const entries = merged.map(zcodeCommandEntry);
    assert.deepEqual(entries[0], { name: 'review', description: 'zcode command: zcode review', input: { hint: '<path>' } });
    assert.deepEqual(entries[2], { name: 'deploy', description: 'Skill: Deploy', input: { hint: '[what to do with it]' } });
    assertValidSessionUpdate({ sessionUpdate: 'available_commands_update', availableCommands: entries });
  });

  test('a /word is a command word only when the name ends the word (paths are prompts)', () => {
    assert.deepEqual(commandWord('/deploy  staging now'), { name: 'deploy', args: 'staging now' });
    assert.deepEqual(commandWord('/plugin:cmd'), { name: 'plugin:cmd', args: '' });
    assert.equal(commandWord('/etc/hosts'), undefined);
    assert.equal(commandWord('say /deploy'), undefined);
    assert.equal(skillPrompt({ name: 'deploy', description: '', kind: 'skill', path: '/h/SKILL.md' }, ''), 'Use the "deploy" skill (/h/SKILL.md) for this request.');
  });

  test('front matter: flat keys, quotes stripped, nested lines ignored', () => {
    assert.deepEqual(frontMatter('---\nname: "x"\ndescription: it: works\nmeta:\n  nested: 1\n---\nbody'), { name: 'x', description: 'it: works', meta: '' });
    assert.deepEqual(frontMatter('no front matter'), {});
  });
});

describe('plan quota', () => {
  test('windows from counters or percentage, ordered 5h, week, others; reset times in UTC', () => {
    const parsed = parseQuota(200, {
      success: true,
      data: {
        level: 'lite',
        limits: [
          { type: 'MCP_LIMIT', usage: 100, currentValue: 10 },
          { type: 'TOKENS_LIMIT', number: 7, percentage: 12.4 },
          { type: 'TOKENS_LIMIT', number: 5, remaining: 30, currentValue: 70, nextResetTime: Date.UTC(2030, 0, 1, 5) },
          { type: 'TOKENS_LIMIT', number: 5 },
        ],
      },
    });
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.windows.map((w) => [w.key, w.usedPercent, w.remainingPercent]), [['tokens_5h', 70, 30], ['tokens_week', 12, 88], ['mcp', 10, 90]]);
    assert.equal(parsed.plan, 'lite');
    assert.equal(windowLine(parsed.windows[0]), '30% left of the 5-hour window, resets 2030-01-01 05:00 UTC');
    assert.equal(windowLine(parsed.windows[2]), '90% left of the MCP calls (10 of 100 used)');
  });

  test('failures say why', () => {
    assert.deepEqual(parseQuota(429, {}), { ok: false, reason: 'rate_limited', message: 'the provider is rate limiting quota requests; try again in a minute' });
    assert.equal(parseQuota(200, { success: false, code: 1001, msg: 'token expired' }).ok, false);
    assert.deepEqual(parseQuota(200, { success: false, code: 1001 }), { ok: false, reason: 'auth', message: 'the provider refused the stored Coding Plan key' });
    assert.deepEqual(parseQuota(502, undefined), { ok: false, reason: 'unexpected', message: 'the provider answered HTTP 502 without quota data' });
    assert.deepEqual(parseQuota(200, { success: true, data: { limits: [] } }), { ok: false, reason: 'unexpected', message: 'the provider answered without any quota window' });
  });
});
