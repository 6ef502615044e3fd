#!/usr/bin/env node
// `npm run test:e2e`: every test that needs a real VS Code, in one go. It builds nothing except the
// .vsix (`npm test` builds dist/ first). Steps, in this order:
//   source        extension-host mocha tests against the source tree          (vscode-test --label source)
//   ui            Playwright UI tests in code-server + Chromium                 (node --test test/e2e/ui)
//   acpx          dist/cli.js driven by the real acpx client                     (node --test test/e2e/acpx)
//   package       npm run package -> dist-vsix/zcode-vscode.vsix
//   vsix-contents the .vsix holds only the allow-list, sane size              (node --test test/e2e/package)
//   vsix          the *.smoke.test.cjs subset against the INSTALLED .vsix        (vscode-test --label vsix)
//   npm-package   `npm pack` of packages/zcode-acp installed outside the checkout, run with npx
//                 (node --import tsx --test test/e2e/npmPackage)
//   npm-package-floor  the same on the oldest Node its engines.node allows (lib/floorNode.mjs installs it)
//   release-dry   npm run release:dry -> dist-release/ (.vsix, npm tarball, registry entry; publishes nothing)
//   release-vsix  the store rules on the release .vsix (its links pinned to the tag)  (test/e2e/package/publishRules)
// The package step runs after source and ui because its --production build replaces the dev build in dist/: the
// source and UI steps run first on the dev build (readable stack traces with source maps).
//
// Options: --only a,b   --skip a,b   (step names above).  Env: ARTIFACTS (default ci-artifacts),
// ZCODE_E2E_STEP_TIMEOUT_MS (default 20 min per step), + the toolchain vars of lib/codeServer.mjs.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { REPO_ROOT, ensureToolchain, toolchainVersions } from './lib/codeServer.mjs';
import { ensureFloorNode, floorNodeAvailable } from './lib/floorNode.mjs';

const ARTIFACTS = resolve(process.env.ARTIFACTS || join(REPO_ROOT, 'ci-artifacts'));
const STEP_TIMEOUT = Number(process.env.ZCODE_E2E_STEP_TIMEOUT_MS || 20 * 60_000);
const VSCODE_TEST = join(REPO_ROOT, 'node_modules/@vscode/test-cli/out/bin.mjs');
const t0 = Date.now();
const stamp = () => `[e2e ${new Date().toISOString().slice(11, 19)} +${((Date.now() - t0) / 1000).toFixed(0)}s]`;

/** Test files under `dir` whose name matches `re`, sorted (Node 20's --test has no globs). */
const filesUnder = (dir, re) =>
  existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String).filter((f) => re.test(f)).sort().map((f) => relative(REPO_ROOT, join(dir, f))) : [];

const nodeTest = (dir, re = /\.test\.mjs$/, loader = []) => {
  const files = filesUnder(join(REPO_ROOT, dir), re);
  // one file at a time: each starts its own code-server + Chromium, and CI has 2 cores
  return files.length ? [process.execPath, ...loader, '--test', '--test-concurrency=1', '--test-reporter=spec', ...files] : null;
};

const STEPS = [
  { name: 'source', cmd: () => [process.execPath, VSCODE_TEST, '--label', 'source'], needsVSCode: true },
  { name: 'ui', cmd: () => nodeTest('test/e2e/ui'), needsVSCode: true },
  // zcode-acp driven by the third-party acpx client (from the toolchain cache, on its Node 24)
  { name: 'acpx', cmd: () => nodeTest('test/e2e/acpx'), needsVSCode: true },
  { name: 'package', cmd: () => [npmCommand(), 'run', 'package'] },
  { name: 'vsix-contents', cmd: () => nodeTest('test/e2e/package'), after: 'package' },
  { name: 'vsix', cmd: () => [process.execPath, VSCODE_TEST, '--label', 'vsix'], needsVSCode: true, after: 'package' },
  { name: 'npm-package', cmd: () => nodeTest('test/e2e/npmPackage', /\.test\.ts$/, ['--import', 'tsx']), after: 'package' },
  { name: 'npm-package-floor', cmd: () => (floorNodeAvailable() ? nodeTest('test/e2e/npmPackage', /\.test\.ts$/, ['--import', 'tsx']) : null), env: () => ({ ZCODE_ACP_TEST_NODE: ensureFloorNode() }), after: 'package' },
  { name: 'release-dry', cmd: () => [npmCommand(), 'run', 'release:dry'] },
  { name: 'release-vsix', cmd: () => [process.execPath, '--test', '--test-reporter=spec', 'test/e2e/package/publishRules.test.mjs'], env: () => ({ ZCODE_TEST_VSIX: releaseVsix() }), after: 'release-dry' },
];

/** The .vsix `npm run release:dry` writes. */
function releaseVsix() {
  const { name, version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  return join(REPO_ROOT, 'dist-release', `${name}-${version}.vsix`);
}

function npmCommand() {
  return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

function parseList(flag) {
  const i = process.argv.indexOf(flag);
  return i < 0 ? null : new Set(process.argv[i + 1].split(',').map((s) => s.trim()).filter(Boolean));
}

/** Pass/fail counts from mocha ("3 passing", "1 failing") or node:test spec ("ℹ pass 3", "ℹ fail 1") output. */
function countTests(text) {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
  const sum = (re) => [...plain.matchAll(re)].reduce((s, m) => s + Number(m[1]), 0);
  return {
    passed: sum(/^\s*(\d+) passing\b/gm) + sum(/^ℹ pass (\d+)$/gm),
    failed: sum(/^\s*(\d+) failing\b/gm) + sum(/^ℹ fail (\d+)$/gm) + sum(/^ℹ cancelled (\d+)$/gm),
  };
}

let current;
function run(step, argv, env) {
  return new Promise((resolveRun) => {
    let out = '';
    const child = spawn(argv[0], argv.slice(1), {
      cwd: REPO_ROOT,
      env: { ...process.env, ARTIFACTS, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // own process group: a timeout or Ctrl+C kills code-server, Chromium and all
    });
    current = child;
    const tee = (stream) => (d) => { stream.write(d); out += d; if (out.length > 4e6) out = out.slice(-2e6); };
    child.stdout.on('data', tee(process.stdout));
    child.stderr.on('data', tee(process.stderr));
    const timer = setTimeout(() => {
      console.error(`${stamp()} ${step.name}: timed out after ${STEP_TIMEOUT / 1000}s, killing it`);
      killTree(child.pid);
    }, STEP_TIMEOUT);
    child.on('error', (e) => { out += `\n${e.message}`; });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      current = undefined;
      resolveRun({ code: code ?? (signal ? 128 : 1), out });
    });
  });
}

function killTree(pid) {
  try { process.kill(-pid, 'SIGTERM'); } catch { return; }
  setTimeout(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } }, 3000).unref();
}

process.on('SIGINT', () => { if (current) killTree(current.pid); process.exit(130); });
process.on('SIGTERM', () => { if (current) killTree(current.pid); process.exit(143); });

async function main() {
  const only = parseList('--only');
  const skip = parseList('--skip');
  const selected = STEPS.filter((s) => (!only || only.has(s.name)) && !skip?.has(s.name));
  if (selected.some((s) => s.needsVSCode)) {
    try {
      ensureToolchain({ log: (line) => console.log(line.split('\n').map((l) => `${stamp()} ${l}`).join('\n')) });
    } catch (e) {
      console.error(`\n${e.message}\n`);
      console.log('e2e: 0 passed, 1 failed');
      process.exit(1);
    }
    const v = toolchainVersions();
    console.log(`${stamp()} code-server ${v.codeServer} on Node ${v.node}`);
  }
  // the shim is executed directly by @vscode/test-electron: it must be executable even if a checkout lost the bit
  chmodSync(join(REPO_ROOT, 'test/e2e/codeShim.mjs'), 0o755);
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const old of readdirSync(ARTIFACTS)) if (old === 'ui' || old.startsWith('code-shim-')) rmSync(join(ARTIFACTS, old), { recursive: true, force: true });

  const results = [];
  const failedSteps = new Set();
  for (const step of selected) {
    const started = Date.now();
    const argv = step.cmd();
    if (!argv) {
      console.log(`${stamp()} ${step.name}: no test files, skipped`);
      results.push({ name: step.name, passed: 0, failed: 0, code: 0, secs: 0, note: 'no tests' });
      continue;
    }
    if (step.after && failedSteps.has(step.after)) {
      console.log(`${stamp()} ${step.name}: skipped because ${step.after} failed`);
      results.push({ name: step.name, passed: 0, failed: 1, code: 1, secs: 0, note: `${step.after} failed` });
      failedSteps.add(step.name);
      continue;
    }
    let env;
    try {
      env = step.env?.();
    } catch (e) {
      console.error(`${stamp()} ${step.name}: ${e.message}`);
      results.push({ name: step.name, passed: 0, failed: 1, code: 1, secs: 0, note: 'could not prepare' });
      failedSteps.add(step.name);
      continue;
    }
    console.log(`\n${stamp()} ── ${step.name}: ${Object.entries(env ?? {}).map(([k, v]) => `${k}=${v} `).join('')}${argv.map((a) => relative(REPO_ROOT, a) || a).join(' ')}`);
    const { code, out } = await run(step, argv, env);
    let { passed, failed } = countTests(out);
    if (step.name === 'package' || step.name === 'release-dry') (code === 0 ? passed++ : failed++);
    else if (code !== 0 && failed === 0) failed = 1; // crashed / timed out before reporting
    const secs = Math.round((Date.now() - started) / 1000);
    results.push({ name: step.name, passed, failed, code, secs });
    if (code !== 0) failedSteps.add(step.name);
    console.log(`${stamp()} ${step.name}: exit ${code}, ${passed} passed, ${failed} failed (${secs}s)`);
  }

  const passed = results.reduce((s, r) => s + r.passed, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  const table = results.map((r) => `  ${r.code === 0 ? 'ok  ' : 'FAIL'} ${r.name.padEnd(17)} ${String(r.passed).padStart(3)} passed ${String(r.failed).padStart(3)} failed ${String(r.secs).padStart(5)}s${r.note ? `  (${r.note})` : ''}`).join('\n');
  const total = Math.round((Date.now() - t0) / 1000);
  const summary = `${table}\n  total ${total}s\ne2e: ${passed} passed, ${failed} failed`;
  console.log(`\n${summary}`);
  writeFileSync(join(ARTIFACTS, 'e2e-summary.txt'), `${summary}\n`);
  process.exit(failed > 0 || results.some((r) => r.code !== 0) ? 1 : 0);
}

await main();
