// @vscode/test-cli configuration: mocha tests that run INSIDE a real VS Code extension host.
//
//   npx vscode-test --label source   all test/e2e/extension-host/**/*.test.cjs against the source tree (dist/)
//   npx vscode-test --label vsix     the *.smoke.test.cjs subset against the INSTALLED dist-vsix/zcode-vscode.vsix
// Files run in alphabetical order of their path, all in ONE extension host (state carries over).
//
// By default "VS Code" is test/e2e/codeShim.mjs: a private code-server (VS Code 1.139 server, real Node
// extension host) driven by headless Chromium, because these machines cannot download desktop VS Code.
// ZCODE_E2E_DESKTOP=1 uses the normal downloaded desktop VS Code instead (needs internet).
//
// The tests get through process.env: ZCODE_SIM_RECORD (file the simulator records every message it
// received into), ZCODE_SIM_SPEED=0, ZCODE_E2E_REPO_ROOT, ZCODE_E2E_MODE ('source' | 'vsix'), and
// ZCODE_TEST_VSIX in vsix mode. User settings: zcode.path = the simulator, zcode.nodePath = Node 24.
import { defineConfig } from '@vscode/test-cli';
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zcodeSimSettings } from './test/e2e/lib/codeServer.mjs';

const root = dirname(fileURLToPath(import.meta.url));
const state = join(root, '.vscode-test');
const desktop = process.env.ZCODE_E2E_DESKTOP === '1';
const vsix = resolve(root, process.env.ZCODE_TEST_VSIX || 'dist-vsix/zcode-vscode.vsix');

/**
 * Test files as sorted absolute paths: test-cli passes absolute paths through in order, while its glob
 * order is arbitrary (files run alphabetically, so e.g. zzLifecycle.test.cjs really runs last).
 */
function testFiles(re) {
  const dir = join(root, 'test/e2e/extension-host');
  return readdirSync(dir, { recursive: true }).map(String).filter((f) => re.test(f)).sort().map((f) => join(dir, f));
}

/** A fresh copy of the fixture workspace per label (tests may edit it). */
function workspace(label) {
  const dir = join(state, 'workspace', label);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  cpSync(join(root, 'test/fixtures/workspace'), dir, { recursive: true });
  return dir;
}

function testRun(label, files, extra) {
  const simRecord = join(state, `zcode-sim-record-${label}.jsonl`);
  rmSync(simRecord, { force: true });
  const settings = {
    ...zcodeSimSettings(),
    ...(process.env.ZCODE_TEST_SETTINGS ? JSON.parse(process.env.ZCODE_TEST_SETTINGS) : {}),
  };
  return {
    label,
    files,
    workspaceFolder: workspace(label),
    mocha: { ui: 'bdd', timeout: 30_000, slow: 5_000 },
    env: {
      // The palette suite drives steer and rewind, which current builds removed: these mocha runs use the
      // seed-era 0.15.2 unless told otherwise. The UI e2e (test/e2e/ui) and the demo run the simulator's
      // default, desktop-3.12.
      ZCODE_SIM_PROFILE: process.env.ZCODE_SIM_PROFILE ?? '0.15.2',
      ZCODE_SIM_SPEED: '0',
      ZCODE_SIM_RECORD: simRecord,
      ZCODE_E2E_REPO_ROOT: root,
      ZCODE_E2E_MODE: label,
      ZCODE_TEST_SETTINGS: JSON.stringify(settings),
      ...extra?.env,
    },
    ...(desktop ? {} : { useInstallation: { fromPath: join(root, 'test/e2e/codeShim.mjs') } }),
    ...extra?.config,
  };
}

export default defineConfig([
  testRun('source', testFiles(/\.test\.cjs$/)),
  testRun('vsix', testFiles(/\.smoke\.test\.cjs$/), {
    env: { ZCODE_TEST_VSIX: vsix },
    // The web workbench runs extensionTestsPath only in extension-development mode, so an empty
    // test-only extension is the development path and the extension under test is the installed .vsix.
    config: { extensionDevelopmentPath: join(root, 'test/e2e/vsixHost') },
  }),
]);
