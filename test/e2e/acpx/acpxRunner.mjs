// Runs the real acpx CLI against `node dist/cli.js` (zcode-acp) with the simulator as zcode, in a private
// HOME (acpx keeps its session index there, the bridge its store) and a copy of the fixture workspace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, ZCODE_SIM, locateToolchain } from '../lib/codeServer.mjs';

/**
 * @param {{ env?: Record<string, string> }} [o] extra env for acpx and so for the bridge and the simulator
 * @returns {{ dir: string, workspace: string, simStateDir: string, run(args: string[], opts?: { timeout?: number }): { status: number | null, stdout: string, output: string }, ok(args: string[]): { status: number | null, stdout: string, output: string }, close(): void, dispose(): void }}
 */
export function acpxRunner(o = {}) {
  const { node, acpx } = locateToolchain({ browser: false });
  const dir = mkdtempSync(join(tmpdir(), 'zcode-acpx-'));
  const home = join(dir, 'home');
  const workspace = join(dir, 'workspace');
  mkdirSync(home);
  cpSync(join(REPO_ROOT, 'test/fixtures/workspace'), workspace, { recursive: true });
  const agent = `${process.execPath} ${join(REPO_ROOT, 'dist/cli.js')}`;
  const simStateDir = join(dir, 'sim-state');
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: dir,
    ZCODE_BIN: ZCODE_SIM,
    ZCODE_SIM_SPEED: '0',
    ZCODE_SIM_STATE_DIR: simStateDir,
    ZCODE_ACP_STORE_DIR: join(dir, 'store'),
    ...o.env,
  };
  const run = (args, { timeout = 90_000 } = {}) => {
    const r = spawnSync(node, [acpx, '--agent', agent, '--cwd', workspace, ...args], { cwd: workspace, env, encoding: 'utf8', timeout });
    return { status: r.status, stdout: r.stdout ?? '', output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
  };
  const dispose = () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  return {
    dir,
    workspace,
    simStateDir,
    run,
    /** One acpx run that must succeed (its output is the assertion message). */
    ok(args) {
      const r = run(args, { timeout: 60_000 });
      assert.equal(r.status, 0, `acpx ${args.join(' ')} failed:\n${r.output}`);
      return r;
    },
    /** Ends acpx's queue owner for the session (and with it the bridge and the simulator), then removes the dirs. */
    close() {
      run(['sessions', 'close']);
      dispose();
    },
    dispose,
  };
}
