/**
 * `zcode-acp --doctor [--json]`, run as the bundled CLI against the simulator:
 * what it reports, its verdict and exit code, and that no secret value is part of it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import type { DoctorReport } from '../../../bridge/zcode/doctor.ts';
import { fakeDesktopApp } from '../../helpers/bundledApp.ts';
import { SIM_PATH, simLocateOptions, tempDir } from '../../helpers/sim.ts';
import { buildCli } from './harness.ts';

const KEY = 'cp-doctor-fake-key-123';
const TOKEN = 'remote-token-doctor-456';

let cli: string;
before(async () => {
  cli = await buildCli();
});

function doctor(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, '--doctor', ...args], { env, timeout: 60_000 }, (error, stdout) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: String(stdout) });
    });
  });
}

function home(dir: string, withKey: boolean): string {
  mkdirSync(path.join(dir, '.zcode', 'v2'), { recursive: true });
  if (withKey) writeFileSync(path.join(dir, '.zcode', 'v2', 'config.json'), JSON.stringify({ provider: { 'builtin:zai-coding-plan': { options: { apiKey: KEY } } } }));
  return dir;
}

test('--doctor --json: zcode found, its version, launch, credentials presence, it starts; verdict OK; no secret printed', { timeout: 60_000 }, async () => {
  const tmp = tempDir();
  try {
    const env = { ...simLocateOptions().env, ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, HOME: home(tmp.dir, true), ZCODE_ACP_REMOTE_TOKEN: TOKEN };
    const { code, stdout } = await doctor(['--json'], env);
    const report = JSON.parse(stdout) as DoctorReport;
    assert.equal(code, 0);
    assert.equal(report.zcode.found, true);
    assert.equal(report.zcode.how, 'ZCODE_BIN');
    assert.match(report.version?.text ?? '', /^zcode \d+\.\d+/);
    assert.equal(report.start?.ok, true);
    assert.deepEqual(report.configuration.zcodeConfig.providersWithApiKey, ['builtin:zai-coding-plan']);
    assert.ok(report.launch?.removed.includes('ZCODE_ACP_REMOTE_TOKEN'));
    assert.equal(report.verdict.ok, true);
    assert.ok(!stdout.includes(KEY) && !stdout.includes(TOKEN), 'no key or token value in the report');
  } finally {
    tmp.cleanup();
  }
});

test('--doctor on a desktop app whose CLI cannot start: the problem, zcode\'s own words and the fix; exit 1', { timeout: 60_000 }, async () => {
  const tmp = tempDir();
  try {
    const app = fakeDesktopApp(tmp.file('ZCode'), 'none');
    const env = { ...simLocateOptions().env, ZCODE_BIN: app.cli, ZCODE_NODE: process.execPath, HOME: home(tmp.file('home'), false) };
    const { code, stdout } = await doctor([], env);
    assert.equal(code, 1);
    assert.match(stdout, /desktop bundle: yes/);
    assert.match(stdout, /provider table: not found/);
    assert.match(stdout, /verdict: +PROBLEM: zcode was found but does not start/);
    assert.match(stdout, /fix: +.*cannot find its provider table.*无法定位 CLI ZCode Built-in Provider Config/);
  } finally {
    tmp.cleanup();
  }
});
