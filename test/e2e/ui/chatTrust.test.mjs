// Issue 13 in the real VS Code (code-server + Chromium, the extension from the source tree, the
// simulator as zcode): the chat never approves by accident. A permission that arrives while the user
// types in an editor leaves the focus in the editor; the next Enter is a newline there, and the
// permission is still pending. Screenshots: $ARTIFACTS/ui/trust-*.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openViewContainer, openWorkbench, readSimRecord, screenshot, step, waitUntil, webviewFrame, log } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'trust' });
  await openViewContainer(wb.page, 'ZCode');
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('trust: chat ready');
});
after(async () => { await wb?.close(); });

/** Answers the bridge sent to the simulator's permission requests (responses to its `server-N` ids). */
const permissionReplies = () =>
  readSimRecord(wb.simRecord)
    .filter(({ msg }) => msg && typeof msg.id === 'string' && msg.id.startsWith('server-') && msg.result && 'decision' in msg.result)
    .map(({ msg }) => msg.result);

/** Opens `file` of the workspace with Quick Open and puts the cursor at its end. */
async function openInEditor(page, file) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(file);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first().waitFor();
  await page.keyboard.press('Enter');
  const editor = page.locator('.part.editor .monaco-editor').first();
  await editor.locator('.view-lines').waitFor();
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  return editor;
}

/** True when the workbench's keyboard focus is in a text editor (not in a webview, not elsewhere). */
const focusInEditor = (page) => page.evaluate(() => !!document.activeElement?.closest('.part.editor .monaco-editor'));

/**
 * Sends a prompt from the chat WITHOUT giving the chat focus (a real click would move it): the
 * composer's value is set and its Enter dispatched as DOM events inside the webview.
 */
async function sendWithoutFocus(text) {
  const input = chat.locator('textarea.prompt-input');
  await input.evaluate((el, value) => {
    el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await input.dispatchEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true });
}

test('a permission arriving while the user types in an editor: Enter is a newline there, the permission stays pending', T, () =>
  step(wb, 'no-accidental-approval', async (page) => {
    const editor = await openInEditor(page, 'notes.txt');
    await page.keyboard.type(' typing here');
    const lines = () => editor.locator('.view-lines .view-line').count();
    const linesBefore = await lines();
    assert.ok(await focusInEditor(page), 'the editor has focus before the permission arrives');
    const repliesBefore = permissionReplies().length;

    await sendWithoutFocus('[scenario:permission]');
    const card = chat.locator('section.permission');
    await card.waitFor({ timeout: 60_000 });
    await screenshot(page, 'trust-1-permission-while-typing');
    assert.ok(await focusInEditor(page), 'the permission card did not take the focus from the editor');

    await page.keyboard.press('Enter');
    await page.keyboard.type('next line');
    await waitUntil(async () => (await lines()) === linesBefore + 1, { what: 'the Enter to add a line in the editor' });
    await editor.locator('.view-line', { hasText: 'next line' }).waitFor();
    assert.ok(await focusInEditor(page), 'the focus is still in the editor');
    // The card is still a pending decision (its buttons are there) and zcode got no answer.
    assert.ok((await card.locator('button').count()) >= 2, 'the permission card still offers its options');
    assert.equal(permissionReplies().length, repliesBefore, 'no answer reached zcode');
    await screenshot(page, 'trust-2-enter-went-to-the-editor');

    // It is still answerable: an explicit click decides, and zcode receives exactly that.
    await card.locator('button', { hasText: /deny|reject/i }).first().click();
    await waitUntil(() => permissionReplies().length > repliesBefore, { what: 'the explicit answer to reach zcode' });
    assert.equal(permissionReplies().at(-1).decision, 'deny');
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
  }));
