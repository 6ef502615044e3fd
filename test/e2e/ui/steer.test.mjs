// Steering the running turn from the UI, in the real VS Code (code-server + Chromium) against the
// simulator's default profile (desktop 3.15: zcode's v4 command surface): the composer's steer key
// during a turn sends the text into it — zcode gets a guide, the chip says the turn took it in
// ("drained") and the answer reflects it; the palette's "Steer Running Turn" does the same through
// its input box. Screenshots: $ARTIFACTS/ui/steer-*.png.
//
//   node --test test/e2e/ui/steer.test.mjs        (after `npm run build`)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { log, openViewContainer, openWorkbench, readSimRecord, roomForTheChat, runCommand, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'steer' });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('steer: webview ready');
});

after(async () => {
  await wb?.close();
});

/** The v4 commands zcode received with a guide of `text`. */
const guides = (text) =>
  readSimRecord(wb.simRecord)
    .map(({ msg }) => msg)
    .filter((msg) => msg?.method === 'v4/command' && msg.params?.payload?.requestedDelivery === 'guide' && msg.params.payload.text === text);

test('the steer key during a turn adds the text to it: a drained chip and an answer that reflects it', T, () =>
  step(wb, 'steer-key', async (page) => {
    const input = chat.locator('textarea.prompt-input');
    // The scenario waits for a steer before it goes on.
    await input.fill('[scenario:steer] refactor the parser');
    await input.press('Enter');
    await chat.locator('button.stop').waitFor({ timeout: 30_000 });
    await input.fill('keep the public API unchanged');
    const steerButton = chat.locator('button.steer-button');
    assert.equal(await steerButton.getAttribute('aria-disabled'), null, 'Steer is marked unavailable on a v4 build');
    await input.press('Alt+Enter');
    assert.equal(await input.inputValue(), '', 'the composer kept the steered text');
    await chat.locator('.steer-chip.drained').waitFor({ timeout: 30_000 });
    await screenshot(page, 'steer-1-drained');
    await chat.locator('.message.agent', { hasText: 'Steer received: "keep the public API unchanged"' }).waitFor({ timeout: 30_000 });
    assert.equal(guides('keep the public API unchanged').length, 1, 'zcode did not get exactly one guide');
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
    await screenshot(page, 'steer-2-answer');
  }));

test('"ZCode: Steer Running Turn" from the palette steers the running turn', T, () =>
  step(wb, 'steer-palette', async (page) => {
    const input = chat.locator('textarea.prompt-input');
    // Long enough for the palette's two steps (the steer scenario waits only 5 s for a steer).
    await input.fill('[scenario:long:40] now the lexer');
    await input.press('Enter');
    await chat.locator('button.stop').waitFor({ timeout: 30_000 });
    await runCommand(page, 'ZCode: Steer Running Turn');
    const box = page.locator('.quick-input-widget input');
    await box.waitFor({ state: 'visible' });
    await box.fill('add tests for it');
    await screenshot(page, 'steer-3-palette');
    await box.press('Enter');
    await waitUntil(() => guides('add tests for it').length === 1, { what: 'the guide to reach zcode', timeout: 30_000 });
    await chat.locator('.message.agent', { hasText: 'Steer received: "add tests for it"' }).waitFor({ timeout: 30_000 });
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
  }));
