// Playwright: zcode is not where the settings say → after first use the Background Tasks view says
// exactly what was tried (its message) and offers "Locate zcode…", install instructions and "Check
// Again"; the status bar says "zcode not found". Screenshot: commands-locate-not-found.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openWorkbench, openZcodeContainer, runCommand, screenshot, step, webviewFrame } from './harness.mjs';

const MISSING = '/nonexistent/zcode-for-ui-test';
let wb;
before(async () => { wb = await openWorkbench({ name: 'commands-locate', settings: { 'zcode.path': MISSING } }); });
after(async () => { await wb?.close(); });

test('before any prompt or command, the empty chat and the Background Tasks view say zcode is missing, with the ways out', { timeout: 120_000 }, () =>
  step(wb, 'not-found-at-once', async (page) => {
    await openZcodeContainer(page);
    const chat = webviewFrame(page);
    const setup = chat.locator('.welcome.setup');
    await setup.waitFor({ timeout: 30_000 });
    assert.match(await setup.innerText(), /zcode was not found on this computer/);
    for (const action of ['Locate zcode…', 'Open Settings', 'Install ZCode']) await setup.locator('button', { hasText: action }).waitFor();
    assert.equal(await chat.locator('.starter').count(), 0, 'no first prompts that would fail');
    const pane = page.locator('#workbench\\.parts\\.sidebar .pane').filter({ has: page.locator('.pane-header', { hasText: 'Background Tasks' }) });
    await pane.locator('.monaco-list-row').filter({ hasText: 'Locate zcode…' }).first().waitFor({ timeout: 10_000 });
    assert.equal(await pane.getByText('No background tasks', { exact: false }).count(), 0);
    await screenshot(page, 'commands-locate-not-found-at-once');
  }));

test('a missing zcode shows the welcome view with "Locate zcode…" and what was tried', { timeout: 120_000 }, () =>
  step(wb, 'not-found', async (page) => {
    await openZcodeContainer(page);
    await runCommand(page, 'ZCode: Check zcode Installation');
    const pane = page.locator('#workbench\\.parts\\.sidebar .pane').filter({ has: page.locator('.pane-header', { hasText: 'Background Tasks' }) });
    // The view's message lists every location discovery tried, starting with the setting.
    await pane.getByText(MISSING, { exact: false }).first().waitFor({ timeout: 30_000 });
    for (const action of ['Locate zcode…', 'Install Instructions', 'Check Again']) {
      await pane.locator('.monaco-list-row').filter({ hasText: action }).first().waitFor({ timeout: 10_000 });
    }
    const status = page.locator('.statusbar-item').filter({ hasText: 'zcode not found' }).first();
    await status.waitFor({ timeout: 10_000 });
    assert.ok(await status.isVisible());
    await screenshot(page, 'commands-locate-not-found');
  }));
