#!/usr/bin/env node
// A stand-in "VS Code executable" for @vscode/test-cli / @vscode/test-electron (`useInstallation.fromPath`).
// It accepts the desktop CLI test-electron passes
//   --extensionDevelopmentPath=<dir>... --extensionTestsPath=<file> [--user-data-dir=..] [--extensions-dir=..] [folder]
// starts a private code-server (real Node extension host), opens the workbench in headless Chromium with the
// dev/test payload, streams the extension host's test output and exits with the test runner's exit code.
//
// Env:
//   ZCODE_TEST_VSIX       install this .vsix into the private extensions dir first (prove the packaged artifact)
//   ZCODE_TEST_SETTINGS   JSON object merged into the user settings
//   VSCODE_SHIM_TIMEOUT_MS  overall limit (default 10 min)     ZCODE_E2E_KEEP  keep the temp state dir
//   ZCODE_E2E_VERBOSE     also print the workbench's expected offline noise (gallery DNS errors, cancellations)
//   ARTIFACTS             where logs of a failed run are copied (default <repo>/ci-artifacts)
//   + the toolchain variables of lib/codeServer.mjs (CS_NODE, CS_ENTRY, CHROME, VSCODE_CI_CACHE)
// --user-data-dir / --extensions-dir are ignored on purpose: every run gets fresh private ones, so an
// installed .vsix never leaks into a source-tree run and vice versa. Desktop-only flags are ignored too.
import { cpSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT, launchChromium, startCodeServer, workbenchUrl } from './lib/codeServer.mjs';

const TIMEOUT = Number(process.env.VSCODE_SHIM_TIMEOUT_MS || 10 * 60_000);
const ARTIFACTS = resolve(process.env.ARTIFACTS || join(REPO_ROOT, 'ci-artifacts'));
const VERBOSE = !!process.env.ZCODE_E2E_VERBOSE;
const t0 = Date.now();
/** Workbench chatter that is expected offline (gallery lookups, cancelled account queries); ZCODE_E2E_VERBOSE=1 shows it. */
const NOISE = [/ENOTFOUND (open-vsx\.org|[\w.-]+\.(vscode-cdn\.net|visualstudio\.com))/, /^Canceled: Canceled/];
const isNoise = (args) => args?.length > 0 && typeof args[0] === 'string' && NOISE.some((re) => re.test(args[0]));
const say = (...a) => console.log(`[code-shim ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

const dev = [];
let tests;
let folder;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const m = /^--([^=]+)(?:=(.*))?$/s.exec(argv[i]);
  if (!m) { folder = resolve(argv[i]); continue; }
  const [, key, inline] = m;
  const value = () => (inline !== undefined ? inline : argv[++i]);
  if (key === 'extensionDevelopmentPath') dev.push(resolve(value()));
  else if (key === 'extensionTestsPath') tests = resolve(value());
  else if (key === 'user-data-dir' || key === 'extensions-dir' || key === 'locale') value();
  else if (key === 'version' || key === 'help') { console.log('zcode code-shim (code-server + headless Chromium)'); process.exit(0); }
  // everything else (--no-sandbox, --disable-gpu-sandbox, --skip-welcome, ...) is desktop-only: ignored
}
if (!tests) { console.error('code-shim: --extensionTestsPath is required'); process.exit(2); }
// the web workbench's payload keeps only the LAST extensionDevelopmentPath (checked on code-server 4.139.1)
if (dev.length > 1) { console.error(`code-shim: only one --extensionDevelopmentPath is supported by the web workbench, got ${dev.length}`); process.exit(2); }

let cs;
let browser;
let exiting = false;
async function finish(code, reason) {
  if (exiting) return;
  exiting = true;
  if (reason) console.error(`code-shim: ${reason}`);
  await browser?.close().catch(() => {});
  if (cs && code !== 0) {
    const dest = join(ARTIFACTS, `code-shim-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    try {
      mkdirSync(dest, { recursive: true });
      cpSync(cs.logFile, join(dest, 'code-server.log'));
      cpSync(join(cs.dirs.userDataDir, 'logs'), join(dest, 'logs'), { recursive: true });
      console.error(`code-shim: logs copied to ${dest}`);
    } catch { /* best effort */ }
  }
  await cs?.stop();
  say(`exit ${code}`);
  process.exit(code);
}
process.on('SIGINT', () => void finish(130, 'interrupted'));
process.on('SIGTERM', () => void finish(143, 'terminated'));

try {
  const vsix = process.env.ZCODE_TEST_VSIX;
  cs = await startCodeServer({ vsix });
  if (vsix) say(`installed ${vsix} into ${cs.dirs.extensionsDir}`);
  say(`code-server on ${cs.origin}`);
  cs.proc.on('exit', (code, signal) => void finish(1, `code-server exited unexpectedly (${code ?? signal}); log: ${cs.logFile}`));
  browser = await launchChromium({ env: cs.env });
  const page = await browser.newPage();
  let done;
  const finished = new Promise((r) => (done = r));
  // the hooks @vscode/test-web uses: the workbench forwards extension-host console output and the exit code here
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    if (!VERBOSE && isNoise(args)) return;
    (console[type] || console.log)(...(args || []));
  });
  await page.exposeFunction('codeAutomationExit', (code) => done(code));
  page.on('pageerror', (e) => console.error('[workbench pageerror]', String(e).slice(0, 300)));
  await page.goto(workbenchUrl(cs.origin, { folder, extensionDevelopmentPath: dev, extensionTestsPath: tests }));
  say('workbench loaded, running extension tests');
  let timer;
  const code = await Promise.race([finished, new Promise((r) => (timer = setTimeout(() => r('timeout'), TIMEOUT)))]);
  clearTimeout(timer);
  if (code === 'timeout') await finish(124, `timed out after ${TIMEOUT} ms waiting for the extension tests`);
  else await finish(typeof code === 'number' ? code : 1);
} catch (e) {
  await finish(3, e?.stack || String(e));
}
