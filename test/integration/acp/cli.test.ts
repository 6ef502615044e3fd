/**
 * The `zcode-acp` CLI as a process: --help / --version, unknown flags, and its lifetime — it exits
 * when stdin closes and leaves no zcode process behind.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { SIM_PATH, simLocateOptions } from '../../helpers/sim.ts';
import { buildCli } from './harness.ts';
import { WORKSPACE } from './helpers.ts';

const T = { timeout: 60_000 };
let cli = '';

before(async () => {
  cli = await buildCli();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('zcode-acp CLI', () => {
  test('--version and --help print to stdout and exit 0; an unknown flag exits 2', T, () => {
    const version = spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' });
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^zcode-acp \d+\.\d+\.\d+/);
    const help = spawnSync(process.execPath, [cli, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    for (const word of ['ZCODE_BIN', 'ZCODE_NODE', 'ZCODE_ACP_DEBUG', 'ZCODE_ACP_STORE_DIR', 'agent_servers']) assert.ok(help.stdout.includes(word), word);
    const bad = spawnSync(process.execPath, [cli, '--frobnicate'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /unknown option --frobnicate/);
  });

  test('exits when stdin closes, stopping zcode (no orphan process)', T, async () => {
    const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
    let kill = (): void => undefined;
    try {
      const child = spawn(process.execPath, [cli], {
        env: { ...simLocateOptions({ speed: 0 }).env, ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_ACP_STORE_DIR: storeDir },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      kill = () => void child.kill('SIGKILL');
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const send = (msg: object): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
      const waitFor = async (what: string, predicate: () => boolean): Promise<void> => {
        const deadline = Date.now() + 10_000;
        while (!predicate()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${stderr}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      send({ id: 1, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } });
      // Like every client, wait for initialize's answer (the SDK refuses requests before it).
      await waitFor('initialize', () => stdout.includes('"id":1'));
      send({ id: 2, method: 'session/new', params: { cwd: WORKSPACE, mcpServers: [] } });
      await waitFor('session/new', () => stdout.includes('"id":2'));
      const sessionId = /"sessionId":"([^"]+)"/.exec(stdout)![1];
      send({ id: 3, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: '[scenario:text]' }] } });
      await waitFor('the prompt response', () => stdout.includes('"id":3'));
      const pid = Number(/zcode started \(pid (\d+)\)/.exec(stderr)?.[1]);
      assert.ok(pid > 0 && alive(pid), 'zcode is running');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.end();
      assert.equal(await exited, 0);
      await waitFor('zcode to be gone', () => !alive(pid));
      for (const line of stdout.trim().split('\n')) assert.equal(JSON.parse(line).jsonrpc, '2.0');
    } finally {
      kill();
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
