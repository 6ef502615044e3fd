// Playwright, VS Code in Simplified Chinese (`--locale zh-cn`): zcode is not where the settings say →
// the empty chat's "Where the extension looked" explains it in Chinese around the places tried, which
// stay as they are. Screenshot: commands-locate-not-found-zh.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openViewContainer, openWorkbench, screenshot, step, webviewFrame } from './harness.mjs';

const MISSING = '/nonexistent/zcode-for-ui-test';
let wb;
before(async () => { wb = await openWorkbench({ name: 'commands-locate-zh', locale: 'zh-cn', settings: { 'zcode.path': MISSING } }); });
after(async () => { await wb?.close(); });

test('zh-cn: the not-found details are Chinese sentences around the paths tried', { timeout: 120_000 }, () =>
  step(wb, 'not-found-zh', async (page) => {
    await openViewContainer(page, 'ZCode');
    const setup = webviewFrame(page).locator('.welcome.setup');
    await setup.waitFor({ timeout: 30_000 });
    const details = setup.locator('.setup-details');
    await details.locator('summary').click();
    const text = await details.locator('.field-hint').innerText();
    assert.match(text, /^zcode\.path 设为 "\/nonexistent\/zcode-for-ui-test"，但该位置没有文件。/);
    assert.match(text, /已查找：zcode\.path: \/nonexistent\/zcode-for-ui-test。$/);
    assert.doesNotMatch(text, /is set to|no file exists|Tried:/);
    await screenshot(page, 'commands-locate-not-found-zh');
  }));
