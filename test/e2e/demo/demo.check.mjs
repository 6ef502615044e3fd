// The README's demo, exercised as a user would (CI runs this after `npm ci`; see .ci/run):
//   1. `npm run demo` exactly as typed (it installs Node 24 + code-server itself when $VSCODE_CI_CACHE is empty),
//   2. wait for the URL it prints, check it answers 200 with the VS Code workbench,
//   3. open it in headless Chromium, open the ZCode view, send one prompt, see the simulator's streamed answer,
//   4. Ctrl+C: SIGINT to the demo's process group (what a terminal sends to its foreground job),
//   5. no process of the demo is left: npm, the demo script, code-server, extension hosts, the simulator.
//
//   node --test test/e2e/demo/demo.check.mjs      (Chromium at $CHROME or /usr/bin/chromium; .ci/setup-vscode.sh installs it)
// Env: DEMO_CHECK_TIMEOUT_MS (default 15 min: a cold toolchain install takes ~3-4 min on 2 cores).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CACHE, REPO_ROOT, launchChromium } from '../lib/codeServer.mjs';
import { openViewContainer, screenshot, webviewFrame } from '../ui/harness.mjs';

const TIMEOUT = Number(process.env.DEMO_CHECK_TIMEOUT_MS || 15 * 60_000);
const log = (...a) => console.error('[demo-check]', ...a);
let demo;
let browser;

after(async () => {
  await browser?.close().catch(() => {});
  if (demo && demo.exitCode === null) { try { process.kill(-demo.pid, 'SIGKILL'); } catch { /* gone */ } }
});

/** Processes (pid → command line) whose command line names this repository's simulator or the toolchain cache. */
function demoProcesses() {
  const found = new Map();
  const markers = [join(REPO_ROOT, 'test/zcode-sim'), join(CACHE, 'cs/'), join(REPO_ROOT, 'scripts/demo.mjs')];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmd;
    try { cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim(); } catch { continue; }
    if (Number(pid) !== process.pid && markers.some((m) => cmd.includes(m))) found.set(Number(pid), cmd);
  }
  return found;
}

/** Resolves with the first stdout match of `re`; rejects when the demo exits first or `ms` pass. */
function waitForOutput(child, re, ms) {
  return new Promise((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`no ${re} from npm run demo within ${ms / 1000}s:\n${out.slice(-4000)}`)), ms);
    const on = (d) => {
      const s = String(d);
      process.stderr.write(s);
      out += s;
      const m = re.exec(out);
      if (m) { clearTimeout(timer); res(m); }
    };
    child.stdout.on('data', on);
    child.stderr.on('data', (d) => { process.stderr.write(d); out += d; });
    child.once('exit', (code, sig) => { clearTimeout(timer); rej(new Error(`npm run demo exited (${code ?? sig}) before printing a URL:\n${out.slice(-4000)}`)); });
  });
}

test('npm run demo: URL answers, the chat streams a simulator answer, Ctrl+C leaves no process', { timeout: TIMEOUT + 120_000 }, async () => {
  assert.equal(demoProcesses().size, 0, `demo processes before the check: ${[...demoProcesses().values()].join('\n')}`);
  const started = Date.now();
  // detached = its own process group, like a terminal's foreground job; stdin closed as in CI
  demo = spawn('npm', ['run', 'demo'], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const [, url] = await waitForOutput(demo, /Open: (http:\/\/\S+)/, TIMEOUT);
  log(`URL after ${((Date.now() - started) / 1000).toFixed(0)} s: ${url}`);

  const res = await fetch(url);
  assert.equal(res.status, 200, `GET ${url}`);
  const html = await res.text();
  assert.match(html, /workbench/i, 'the page is the VS Code workbench');

  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  await openViewContainer(page, 'ZCode');
  const chat = webviewFrame(page);
  const input = chat.locator('textarea.prompt-input');
  await input.waitFor({ timeout: 90_000 });
  await input.click();
  await input.fill('hello from the demo check');
  await input.press('Enter');
  // the simulator's default scenario echoes the prompt, streamed in small deltas at realistic speed
  await chat.locator('.message.agent', { hasText: 'You said' }).first().waitFor({ timeout: 60_000 });
  await chat.locator('.message.agent', { hasText: 'hello from the demo check' }).first().waitFor({ timeout: 60_000 });
  await screenshot(page, 'demo-check-answer');
  const during = demoProcesses();
  assert.ok([...during.values()].some((c) => c.includes('zcode-sim')), `the simulator runs while the chat is open:\n${[...during.values()].join('\n')}`);
  await browser.close();
  browser = undefined;

  const exited = new Promise((res) => demo.once('exit', (code, sig) => res({ code, sig })));
  process.kill(-demo.pid, 'SIGINT');
  const { code, sig } = await exited;
  log(`npm run demo ended after SIGINT (code ${code}, signal ${sig})`);
  // the demo's own cleanup (code-server's group SIGTERM, then SIGKILL after 3 s) has finished when npm exits;
  // poll /proc a little for the kernel to reap what was just killed
  let left = demoProcesses();
  for (let i = 0; i < 50 && left.size; i++) { await new Promise((r) => setTimeout(r, 100)); left = demoProcesses(); }
  assert.equal(left.size, 0, `processes left after Ctrl+C:\n${[...left].map(([p, c]) => `${p} ${c}`).join('\n')}`);
});
