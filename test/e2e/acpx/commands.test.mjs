// zcode's own commands through a third-party client: the real `acpx` drives dist/cli.js with the
// simulator as zcode; zcode's folders are in acpx's private HOME (a user skill `deploy`, an enabled plugin
// `reviewer` with the command `review`). A reviewer can run the same by hand:
//
//   acpx --agent "node dist/cli.js" sessions new
//   acpx --agent "node dist/cli.js" --ttl 30 "/deploy staging"      # a skill: named to the model
//   acpx --agent "node dist/cli.js" --ttl 30 "/review src"          # a plugin command: sent as typed
//   acpx --agent "node dist/cli.js" --ttl 30 "/quota"               # plan quota (or why there is none)
//   acpx --agent "node dist/cli.js" --ttl 30 "/resume"
//
//   node --test test/e2e/acpx/commands.test.mjs      (needs `node esbuild.mjs` and the toolchain)
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { acpxRunner } from './acpxRunner.mjs';

const T = { timeout: 180_000 };
const acpx = acpxRunner();
const home = join(acpx.dir, 'home');

function write(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
const skillFile = join(home, '.zcode', 'skills', 'deploy', 'SKILL.md');
write(skillFile, '---\nname: deploy\ndescription: Deploy the app to an environment\n---\n\nRun the deploy script.\n');
write(join(home, '.zcode', 'cli', 'config.json'), JSON.stringify({ plugins: { enabledPlugins: { 'reviewer@market': true } } }));
write(join(home, '.zcode', 'cli', 'plugins', 'cache', 'market', 'reviewer', '1.0.0', 'commands', 'review.md'), '---\ndescription: Review the working tree changes\n---\n\nReview $ARGUMENTS.\n');

after(() => acpx.close());

const ok = (args) => acpx.ok(args);

/** What the simulator was sent as prompts (its saved session files). */
function sentPrompts() {
  return readdirSync(acpx.simStateDir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => JSON.parse(readFileSync(join(acpx.simStateDir, f), 'utf8')).messages)
    .filter((m) => m.info.role === 'user')
    .map((m) => m.parts.find((p) => p.type === 'text')?.text);
}

describe("acpx: zcode's commands", () => {
  test('a skill is named to the model, a plugin command goes as typed, /quota and /resume answer in the chat', T, () => {
    ok(['sessions', 'new']);
    const deploy = ok(['--ttl', '30', '--approve-all', '/deploy staging']);
    assert.match(deploy.stdout, /\[done\] end_turn/);
    ok(['--ttl', '30', '--approve-all', '/review src']);
    const prompts = sentPrompts();
    assert.ok(prompts.includes(`Use the "deploy" skill (${skillFile}) for this request.\n\nstaging`), prompts.join('\n---\n'));
    assert.ok(prompts.includes('/review src'), prompts.join('\n---\n'));

    const quota = ok(['--ttl', '30', '/quota']);
    assert.match(quota.stdout, /No plan quota to show: no GLM Coding Plan API key in zcode's configuration/);
    const resume = ok(['--ttl', '30', '/resume']);
    assert.match(resume.stdout, /There are no earlier conversations in this folder\.|Earlier conversations/);
  });
});
