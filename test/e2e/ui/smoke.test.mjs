// UI smoke: the real web workbench, the extension loaded from the source tree.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openWorkbench, openZcodeContainer, runCommand, screenshot, selectedOutputChannel, step, waitUntil } from './harness.mjs';

let wb;
before(async () => { wb = await openWorkbench({ name: 'smoke' }); });
after(async () => { await wb?.close(); });

test('the ZCode activity-bar item opens the ZCode view container with Background Tasks', { timeout: 90_000 }, () =>
  step(wb, 'view-container', async (page) => {
    await openZcodeContainer(page);
    await screenshot(page, 'smoke-view-container');
  }));

test('"ZCode: Show Logs" from the palette shows the ZCode output channel', { timeout: 90_000 }, () =>
  step(wb, 'show-logs', async (page) => {
    await runCommand(page, 'ZCode: Show Logs');
    await page.locator('#workbench\\.parts\\.panel .output-view').waitFor({ state: 'visible', timeout: 15_000 });
    await waitUntil(async () => (await selectedOutputChannel(page)) === 'ZCode', { what: 'the ZCode output channel to be selected' });
    assert.equal(await selectedOutputChannel(page), 'ZCode');
    await screenshot(page, 'smoke-show-logs');
  }));
