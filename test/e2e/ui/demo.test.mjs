// `npm run demo` really runs: it prints a URL, the workbench there shows the ZCode view container with
// the extension installed (not in development mode), and Ctrl+C (SIGINT) stops code-server's whole
// process group.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { launchChromium } from '../lib/codeServer.mjs';
import { REPO_ROOT, activityBarItem, openZcodeContainer, screenshot, waitUntil } from './harness.mjs';

let demo;
let browser;
after(async () => {
  await browser?.close().catch(() => {});
  if (demo && demo.exitCode === null) { try { process.kill(-demo.pid, 'SIGKILL'); } catch { /* gone */ } }
});

test('npm run demo serves the workbench with ZCode and stops cleanly on Ctrl+C', { timeout: 120_000 }, async () => {
  demo = spawn(process.execPath, [join(REPO_ROOT, 'scripts/demo.mjs')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ZCODE_DEMO_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  demo.stdout.on('data', (d) => { out += d; });
  demo.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((r) => demo.on('exit', (code, signal) => r({ code, signal })));

  const url = await waitUntil(() => /Open: (http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(out)?.[1], { timeout: 60_000, what: `the demo URL; output so far:\n${out}` });
  const csPid = Number(/process group (\d+)/.exec(out)?.[1]);
  assert.ok(csPid > 0, `no code-server pid in the demo banner:\n${out}`);

  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(url);
  await activityBarItem(page, 'ZCode').waitFor({ timeout: 60_000 });
  await openZcodeContainer(page);
  // a normal window: the extension is installed, not loaded through extensionDevelopmentPath
  assert.doesNotMatch(await page.title(), /Extension Development Host/);
  await screenshot(page, 'demo');
  await browser.close();
  browser = undefined;

  process.kill(demo.pid, 'SIGINT');
  const { code } = await exited;
  assert.equal(code, 0, `demo exited with ${code}:\n${out}`);
  const alive = () => { try { process.kill(-csPid, 0); return true; } catch { return false; } };
  await waitUntil(() => !alive(), { timeout: 10_000, what: 'the code-server process group to be gone' });
});
