// Helpers for Playwright UI tests against the real VS Code web workbench (code-server + headless
// Chromium), with the extension loaded from the source tree and the zcode simulator as the backend.
//
//   import { after, before, test } from 'node:test';
//   import { openWorkbench, runCommand, screenshot, step } from './harness.mjs';
//   let wb;
//   before(async () => { wb = await openWorkbench({ name: 'chat' }); });
//   after(() => wb?.close());
//   test('does X', () => step(wb, 'does X', async (page) => { await runCommand(page, 'ZCode: Show Logs'); ... }));
//
// Every test FILE gets its own code-server (state in a temp dir); files run one after another.
// Screenshots go to $ARTIFACTS/ui (default ci-artifacts/ui); a failing step also saves
// FAIL-<step>.png and, on close, the code-server and extension-host logs.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  REPO_ROOT, launchChromium, startCodeServer as startRawCodeServer, workbenchUrl, zcodeSimSettings,
} from '../lib/codeServer.mjs';

export { REPO_ROOT, workbenchUrl };
export const ARTIFACTS = resolve(process.env.ARTIFACTS || join(REPO_ROOT, 'ci-artifacts'));
export const UI_ARTIFACTS = join(ARTIFACTS, 'ui');
export const EXTENSION_ID = 'zcode-community.zcode-vscode';
export const FIXTURE_WORKSPACE = join(REPO_ROOT, 'test/fixtures/workspace');
const t0 = Date.now();
/** Timestamped progress line on stderr (node:test keeps stdout for its reporter). */
export const log = (...a) => console.error(`[ui ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

/**
 * A private code-server configured for ZCode tests: `zcode.path` = the simulator, `zcode.nodePath` = Node 24,
 * ZCODE_SIM_SPEED=0 and ZCODE_SIM_RECORD=<state dir>/zcode-sim-record.jsonl in the extension host's env.
 * Options as lib/codeServer.mjs startCodeServer (settings, env, vsix, port, ...). Returns it plus `simRecord`.
 */
export async function startCodeServer(o = {}) {
  const dir = o.dir || mkdtempSync(join(tmpdir(), 'zcode-ui-'));
  const simRecord = join(dir, 'zcode-sim-record.jsonl');
  const cs = await startRawCodeServer({
    ...o,
    dir,
    settings: { ...zcodeSimSettings(), ...o.settings },
    env: { ZCODE_SIM_SPEED: '0', ZCODE_SIM_RECORD: simRecord, ...o.env },
  });
  return { ...cs, simRecord };
}

/**
 * Starts code-server (unless `codeServer` is given) and headless Chromium, opens `workspace` (a
 * .code-workspace file) or `folder` (default: a fresh copy of test/fixtures/workspace) with the extension loaded from `extensionDevelopmentPath`
 * (default: the repository; pass [] to test an installed .vsix via `vsix`), and waits until the
 * workbench shows the ZCode activity-bar item (or `ready(page)` resolves; `ready: false` skips it).
 * Only ONE extensionDevelopmentPath works: the web workbench keeps the last one of the payload.
 * @returns {Promise<{ page: import('playwright-core').Page, browser: import('playwright-core').Browser,
 *   cs: Awaited<ReturnType<typeof startCodeServer>>, folder: string, simRecord: string, name: string,
 *   failed: boolean, consoleErrors: string[], close(): Promise<void> }>}
 */
export async function openWorkbench(o = {}) {
  const name = o.name || 'ui';
  const ownsServer = !o.codeServer;
  const cs = o.codeServer || (await startCodeServer(o));
  const folder = o.folder || copyWorkspace(join(cs.dirs.root, 'workspace'));
  const browser = await launchChromium({ env: cs.env });
  const page = await browser.newPage({ viewport: o.viewport || { width: 1400, height: 900 }, ...(o.locale ? { locale: o.locale } : {}) });
  // VS Code's display language (`--locale` for the server). The web workbench reads its language from
  // the language pack it loads, which sets this global; no pack is installed here, so it is set
  // before the workbench starts: `vscode.env.language` in the extension host then says `o.locale`.
  if (o.locale) await page.addInitScript((language) => { globalThis._VSCODE_NLS_LANGUAGE = language; }, o.locale);
  const consoleErrors = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text().slice(0, 500)); });
  page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${String(e).slice(0, 500)}`));
  const wb = {
    page, browser, cs, folder, name, simRecord: cs.simRecord, failed: false, consoleErrors,
    async close() {
      await browser.close().catch(() => {});
      if (wb.failed) saveLogs(cs, name);
      if (ownsServer) await cs.stop();
    },
  };
  try {
    const extensionDevelopmentPath = o.extensionDevelopmentPath ?? REPO_ROOT;
    await page.goto(workbenchUrl(cs.origin, { folder, workspace: o.workspace, extensionDevelopmentPath, payload: o.payload }));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    if (o.ready) await o.ready(page);
    else if (o.ready !== false) await activityBarItem(page, 'ZCode').waitFor({ timeout: 60_000 });
    log(`${name}: workbench ready (${cs.origin})`);
  } catch (e) {
    wb.failed = true;
    await screenshot(page, `FAIL-${name}-open`);
    await wb.close();
    throw e;
  }
  return wb;
}

/** A fresh copy of the fixture workspace in `dest` (tests may edit it). */
export function copyWorkspace(dest, from = FIXTURE_WORKSPACE) {
  rmSync(dest, { recursive: true, force: true });
  cpSync(from, dest, { recursive: true });
  return dest;
}

/**
 * Runs `fn(page)`; on failure saves FAIL-<name>.png, marks the workbench failed (its close() then keeps
 * the logs) and rethrows.
 */
export async function step(wb, name, fn) {
  try {
    return await fn(wb.page);
  } catch (e) {
    wb.failed = true;
    await screenshot(wb.page, `FAIL-${wb.name}-${name}`);
    throw e;
  }
}

/** Saves a PNG of the page to $ARTIFACTS/ui/<name>.png and returns its path. */
export async function screenshot(page, name) {
  mkdirSync(UI_ARTIFACTS, { recursive: true });
  const file = join(UI_ARTIFACTS, `${name.replace(/[^\w.-]+/g, '-')}.png`);
  await page.screenshot({ path: file }).catch((e) => log(`screenshot ${name} failed: ${e.message}`));
  return file;
}

/** Copies code-server's and the extension host's logs to $ARTIFACTS/ui/logs-<name>. */
export function saveLogs(cs, name) {
  const dest = join(UI_ARTIFACTS, `logs-${name.replace(/[^\w.-]+/g, '-')}`);
  try {
    mkdirSync(dest, { recursive: true });
    cpSync(cs.logFile, join(dest, 'code-server.log'));
    if (existsSync(join(cs.dirs.userDataDir, 'logs'))) cpSync(join(cs.dirs.userDataDir, 'logs'), join(dest, 'logs'), { recursive: true });
    if (cs.simRecord && existsSync(cs.simRecord)) cpSync(cs.simRecord, join(dest, 'zcode-sim-record.jsonl'));
    log(`logs saved to ${dest}`);
  } catch (e) {
    log(`saving logs failed: ${e.message}`);
  }
}

/** The activity-bar entry (the clickable label) of a view container, by its title (e.g. 'ZCode', 'Explorer'). */
export function activityBarItem(page, title) {
  return page.locator(`.part.activitybar .action-item a.action-label[aria-label^="${title}"]`).first();
}

/**
 * Shows a view container's side bar: clicks its activity-bar item unless it is already showing.
 * Right after a (re)load the item can read as checked while the workbench is still restoring its
 * layout and the side bar stays hidden; then the item is clicked again (hide, then show) until the
 * container's title is visible.
 */
export async function openViewContainer(page, title = 'ZCode') {
  const li = page.locator('.part.activitybar .action-item').filter({ has: page.locator(`a.action-label[aria-label^="${title}"]`) }).first();
  const header = page.locator('#workbench\\.parts\\.sidebar .composite.title', { hasText: title });
  await li.waitFor({ timeout: 30_000 });
  for (let attempt = 1; ; attempt++) {
    // force: a badge on the item (a waiting request) covers the label; the click still reaches the item.
    if (!(await li.getAttribute('class'))?.split(/\s+/).includes('checked')) await activityBarItem(page, title).click({ force: true });
    try {
      await header.waitFor({ timeout: 15_000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
      // Checked but hidden: toggle it off; the next round shows it.
      if ((await li.getAttribute('class'))?.split(/\s+/).includes('checked')) await activityBarItem(page, title).click({ force: true });
    }
  }
}

/**
 * A view's header (or, when it is the only view of its container, the container title "ZCode: <view>")
 * that is visible in the side bar.
 */
export function viewTitle(page, viewName) {
  return page.locator('#workbench\\.parts\\.sidebar .pane-header, #workbench\\.parts\\.sidebar .composite.title')
    .filter({ hasText: viewName })
    .filter({ visible: true })
    .first();
}

/** Screenshots show more of the chat: the Background Tasks view collapsed, the side bar `px` wider. */
export async function roomForTheChat(page, px = 260) {
  const tasks = page.locator('#workbench\\.parts\\.sidebar .pane-header', { hasText: 'Background Tasks' }).first();
  if ((await tasks.getAttribute('aria-expanded').catch(() => null)) === 'true') await tasks.click();
  const sidebar = await page.locator('#workbench\\.parts\\.sidebar').boundingBox();
  if (sidebar) {
    const x = sidebar.x + sidebar.width + 1;
    const y = sidebar.y + sidebar.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + px, y, { steps: 8 });
    await page.mouse.up();
  }
}

/** Opens the ZCode view container and waits until its Background Tasks view shows (the extension's views are up). */
export async function openZcodeContainer(page) {
  await openViewContainer(page, 'ZCode');
  await viewTitle(page, 'Background Tasks').waitFor({ timeout: 15_000 });
}

/**
 * Runs a command from the palette (F1) by its full title, e.g. 'ZCode: Show Logs'. Retries with a fresh
 * palette while the command is not listed yet (extensions still being scanned right after startup).
 */
export async function runCommand(page, title, { timeout = 20_000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  // exact label match: "ZCode: Show Logs" must not pick "ZCode: Show Logs Folder"
  const row = page.locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(title)}$`) }) }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      if (!(await input.isVisible())) await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: 3_000 });
      await input.fill(`>${title}`, { timeout: 3_000 });
      await row.waitFor({ timeout: 2_000 });
      break;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`command "${title}" not found in the command palette`, { cause: e });
      // close the (possibly stale) palette and wait until it is really gone before reopening it
      await page.keyboard.press('Escape');
      await input.waitFor({ state: 'hidden', timeout: 3_000 }).catch(() => {});
    }
  }
  await row.click();
  await input.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
}

/**
 * Waits for a notification containing `text` (string or RegExp). In smoke-test-driver mode VS Code does
 * not show toasts, so this looks in the Notification Center (opened from the status bar bell) and closes
 * it again. Returns the notification's row locator text.
 */
export async function expectNotification(page, text, { timeout = 15_000 } = {}) {
  const match = (loc) => loc.locator('.monaco-list-row, .notification-list-item').filter({ hasText: text }).first();
  const toast = match(page.locator('.notifications-toasts'));
  if (await toast.isVisible().catch(() => false)) return toast.innerText();
  const center = page.locator('.notifications-center');
  const deadline = Date.now() + timeout;
  for (;;) {
    if (!(await center.locator('.notifications-list-container').isVisible().catch(() => false))) {
      await page.locator('.statusbar-item[id$="notifications.statusbar"] a, .statusbar-item[aria-label^="Notifications"]').first().click().catch(() => {});
    }
    try {
      const row = match(center);
      await row.waitFor({ state: 'visible', timeout: 1_000 });
      const content = await row.innerText();
      await page.keyboard.press('Escape');
      return content;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`notification ${text} not found within ${timeout} ms`, { cause: e });
    }
  }
}

/**
 * The content frame of a webview: webviews sit in two nested iframes (the host `iframe.webview`, then
 * `#active-frame`). The outer iframes carry no title; they are told apart by the owning extension (in
 * their src) and visibility (hidden webviews stay in the DOM). `index` picks among the visible ones of
 * `extensionId` (default ZCode; null = any extension).
 */
export function webviewFrame(page, { extensionId = EXTENSION_ID, index = 0 } = {}) {
  const sel = extensionId ? `iframe.webview[src*="extensionId=${extensionId}"]` : 'iframe.webview';
  return page.locator(sel).filter({ visible: true }).nth(index).contentFrame().frameLocator('#active-frame');
}

/** Shows the Output panel's channel selector and returns the selected channel name. */
export async function selectedOutputChannel(page) {
  const select = page.locator('#workbench\\.parts\\.panel select[aria-label="Switch Output"]').first();
  await select.waitFor({ state: 'visible' });
  return select.evaluate((s) => s.options[s.selectedIndex]?.text ?? '');
}

/** The JSON lines the simulator recorded (every message it received); unparsable lines are skipped. */
export function readSimRecord(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).flatMap((l) => { try { return [JSON.parse(l)]; } catch { return []; } });
}

/** Polls `predicate` (sync or async) every `interval` ms until it returns truthy; throws after `timeout`. */
export async function waitUntil(predicate, { timeout = 15_000, interval = 200, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
