/**
 * The real third-party client: `acpx` (npm, a headless ACP client) drives the bundled `dist/cli.js`
 * (built by `npm test` first, or `node esbuild.mjs`) with the simulator behind it, the way a reviewer would try it:
 *
 *   acpx --agent "node dist/cli.js" sessions new
 *   acpx --agent "node dist/cli.js" sessions list
 *   acpx --agent "node dist/cli.js" --ttl 1 "/goal ship the release"
 *   acpx --agent "node dist/cli.js" --ttl 1 --model GLM-4.6 "[scenario:text] hi"
 *
 * (one id per conversation, slash commands, the model option). acpx keeps its
 * own records in $HOME/.acpx: every run gets a fresh HOME. acpx comes from the toolchain cache
 * (.ci/setup-vscode.sh) and runs on its Node 24 (it needs Node >= 22.13); the bridge on this Node.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { acpxRunner } from './acpxRunner.mjs';

const T = { timeout: 120_000 };
const acpx = acpxRunner();

after(() => acpx.close());

const ok = (args) => acpx.ok(args);

describe('acpx drives dist/cli.js', () => {
  test('sessions new → listed before its first prompt; a slash command; --model; still one entry under the same id', T, () => {
    const created = ok(['sessions', 'new']);
    const id = /lazy_[0-9a-f-]+/.exec(created.stdout)?.[0];
    assert.ok(id, `a session id in: ${created.stdout}`);

    const listed = ok(['sessions', 'list']).stdout;
    assert.match(listed, new RegExp(`^${id}\\t`, 'm'), 'the unprompted session is listed');

    const goal = ok(['--ttl', '1', '--approve-all', '/goal ship the release']);
    assert.match(goal.stdout, /Goal set: \*\*ship the release\*\* \(active\)/);
    assert.match(goal.stdout, /\[done\] end_turn/);

    const turn = ok(['--ttl', '1', '--approve-all', '--model', 'GLM-4.6', '[scenario:text] hi']);
    assert.match(turn.stdout, /\[done\] end_turn/);

    const lines = ok(['sessions', 'list']).stdout.split('\n').filter((l) => l.trim() !== '');
    assert.equal(lines.length, 1, `one entry for the one conversation:\n${lines.join('\n')}`);
    assert.ok(lines[0].startsWith(`${id}\t`), 'under the id sessions new printed');
    const zcodeId = /"sessionId":"(sess_[0-9a-f]+)"/.exec(lines[0])?.[1];
    assert.ok(zcodeId, "zcode's id in _meta");
    const state = JSON.parse(readFileSync(join(acpx.simStateDir, `${zcodeId}.json`), 'utf8'));
    assert.equal(state.modelId, 'GLM-4.6', '--model reached zcode');
    assert.equal(state.goal.objective, 'ship the release');
  });
});
