// What the running zcode cannot do is shown before the click, in the real VS Code (code-server +
// Chromium) against the simulator as zcode 0.16.5 (no v4 command surface, no legacy steer):
// the latest prompt's "Ask again" hover action is inert with the reason as its tooltip; during a
// turn the Steer button is inert with the reason, the steer key says why and keeps the text, and
// nothing steer-like reaches zcode; the palette does not offer "Steer Running Turn".
// Screenshots: $ARTIFACTS/ui/unavailable-*.png.
//
//   node --test test/e2e/ui/unavailableFeatures.test.mjs        (after `npm run build`)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { log, openViewContainer, openWorkbench, readSimRecord, roomForTheChat, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'unavailable', env: { ZCODE_SIM_PROFILE: '0.16.5' } });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('unavailable: webview ready');
});

after(async () => {
  await wb?.close();
});

const received = () => readSimRecord(wb.simRecord).map(({ msg }) => msg).filter((msg) => msg && typeof msg.method === 'string');

test('on a zcode without v4, Ask again and Steer say why before any click; the steer key keeps the text', T, () =>
  step(wb, 'unavailable', async (page) => {
    const input = chat.locator('textarea.prompt-input');
    await input.fill('[scenario:text] first question');
    await input.press('Enter');
    const first = chat.locator('.message.user', { hasText: 'first question' });
    await first.waitFor();
    await chat.locator('button.send').waitFor({ timeout: 60_000 });

    // The hover action of the latest prompt: shown, inert, the bridge's reason as its tooltip.
    const askAgain = first.locator('button.ask-again');
    await waitUntil(async () => (await askAgain.count()) === 1 && (await askAgain.getAttribute('aria-disabled')) === 'true', { what: 'Ask again to be shown inert' });
    const tooltip = await askAgain.getAttribute('title');
    assert.match(tooltip, /^Not available: /);
    assert.doesNotMatch(tooltip, /has not been started/, 'the reason is the probed build\'s, not "not known yet"');
    await first.hover();
    await screenshot(page, 'unavailable-1-hover-actions');

    // A running turn: the Steer button is inert with the reason; the steer key keeps the text.
    await input.fill('[scenario:long] work for a while');
    await input.press('Enter');
    await chat.locator('button.stop').waitFor({ timeout: 30_000 });
    await input.fill('also update the changelog');
    const steerButton = chat.locator('button.steer-button');
    await steerButton.waitFor();
    assert.equal(await steerButton.getAttribute('aria-disabled'), 'true');
    assert.match(await steerButton.getAttribute('title'), /^Steering is not available: .*update zcode/);
    await input.press('Alt+Enter');
    await chat.locator('.composer-hint', { hasText: 'Steering is not available' }).waitFor();
    assert.equal(await input.inputValue(), 'also update the changelog', 'the steer key lost what the user typed');
    await screenshot(page, 'unavailable-2-steer');

    // The palette does not offer it (its enablement is false): type its title, no such entry.
    await page.keyboard.press('F1');
    const quickInput = page.locator('.quick-input-widget input');
    await quickInput.waitFor();
    await quickInput.fill('>ZCode: Steer Running Turn');
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 15_000 }).catch(() => {});
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.ok(!rows.some((row) => /Steer Running Turn/.test(row)), `the palette offers Steer: ${rows.join(' | ')}`);
    await screenshot(page, 'unavailable-3-palette');
    await page.keyboard.press('Escape');

    await chat.locator('button.stop').click();
    await chat.locator('button.send').waitFor({ timeout: 30_000 });
    // The bridge's capability probe asks `session/steer` once for a session that cannot exist: not a steer.
    const sessions = new Set(received().filter((msg) => msg.method === 'session/send').map((msg) => msg.params.sessionId));
    assert.equal(sessions.size, 1);
    const steerLike = received().filter((msg) => (msg.method === 'session/steer' && sessions.has(msg.params.sessionId)) || msg.method === 'v4/command');
    assert.deepEqual(steerLike.map((msg) => msg.method), [], 'a steer reached zcode');
  }));
