/**
 * The real third-party client: `acpx` (npm, a headless ACP client) drives the bundled `dist/cli.js`
 * (built with `node esbuild.mjs`) with the simulator behind it, the way a reviewer would try it:
 *
 *   acpx --agent "node dist/cli.js" sessions new
 *   acpx --agent "node dist/cli.js" sessions list
 *   acpx --agent "node dist/cli.js" --ttl 1 "/goal ship the release"
 *   acpx --agent "node dist/cli.js" --ttl 1 --model GLM-4.6 "[scenario:text] hi"
 *
 * (issue 15 items 1–3: one id per conversation, slash commands, the model option). acpx keeps its
 * own records in $HOME/.acpx: every run gets a fresh HOME. acpx comes from the toolchain cache
 * (.ci/setup-vscode.sh) and runs on its Node 24 (it needs Node >= 22.13); the bridge on this Node.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { ZCODE_SIM as SIM_PATH, locateToolchain } from '../lib/codeServer.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const { node: NODE24, acpx: ACPX } = locateToolchain({ browser: false });
const AGENT = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, 'dist/cli.js'))}`;
const T = { timeout: 120_000 };

let temp;
let ws;
let env;

before(() => {
  const built = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(built.status, 0, `node esbuild.mjs failed:\n${built.stderr}`);
  temp = mkdtempSync(path.join(tmpdir(), 'zcode-acpx-'));
  ws = path.join(temp, 'ws');
  mkdirSync(ws);
  mkdirSync(path.join(temp, 'home'));
  env = { ...process.env, HOME: path.join(temp, 'home'), ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_SIM_SPEED: '0', ZCODE_ACP_STORE_DIR: path.join(temp, 'store'), ZCODE_SIM_STATE_DIR: path.join(temp, 'sim') };
  for (const key of ['ZCODE_SIM_PROFILE', 'ZCODE_SIM_QUIRKS', 'ZCODE_SIM_RECORD']) delete env[key];
});

after(async () => {
  // Ends acpx's queue owner for the session (and with it the bridge and the simulator).
  await acpx(['sessions', 'close']).catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
});

/** @returns {Promise<{ stdout: string, stderr: string }>} */
function acpx(args) {
  return new Promise((resolve, reject) => {
    execFile(NODE24, [ACPX, '--agent', AGENT, ...args], { cwd: ws, env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`acpx ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

describe('acpx drives dist/cli.js', () => {
  test('sessions new → listed before its first prompt; a slash command; --model; still one entry under the same id', T, async () => {
    const created = await acpx(['sessions', 'new']);
    const id = /lazy_[0-9a-f-]+/.exec(created.stdout)?.[0];
    assert.ok(id, `a session id in: ${created.stdout}`);

    const listed = (await acpx(['sessions', 'list'])).stdout;
    assert.match(listed, new RegExp(`^${id}\\t`, 'm'), 'the unprompted session is listed');

    const goal = await acpx(['--ttl', '1', '--approve-all', '/goal ship the release']);
    assert.match(goal.stdout, /Goal set: \*\*ship the release\*\* \(active\)/);
    assert.match(goal.stdout, /\[done\] end_turn/);

    const turn = await acpx(['--ttl', '1', '--approve-all', '--model', 'GLM-4.6', '[scenario:text] hi']);
    assert.match(turn.stdout, /\[done\] end_turn/);

    const lines = (await acpx(['sessions', 'list'])).stdout.split('\n').filter((l) => l.trim() !== '');
    assert.equal(lines.length, 1, `one entry for the one conversation:\n${lines.join('\n')}`);
    assert.ok(lines[0].startsWith(`${id}\t`), 'under the id sessions new printed');
    const zcodeId = /"sessionId":"(sess_[0-9a-f]+)"/.exec(lines[0])?.[1];
    assert.ok(zcodeId, "zcode's id in _meta");
    const state = JSON.parse(readFileSync(path.join(temp, 'sim', `${zcodeId}.json`), 'utf8'));
    assert.equal(state.modelId, 'GLM-4.6', '--model reached zcode');
    assert.equal(state.goal.objective, 'ship the release');
  });
});
