// Trust and keyboard in the real VS Code (code-server + Chromium, the extension from the source tree, the
// simulator as zcode): the chat people can trust and drive from the keyboard.
//   - no approval by accident: a permission that arrives while the user types in an editor leaves the
//     focus there; the next Enter is a newline in the editor and the permission stays pending;
//   - a waiting request shows as a badge and "needs input" in the status bar; a turn that ends while
//     the chat is hidden brings a notification whose Show action brings the chat back;
//   - keybindings: focus the chat input, attach the selection, new session, cancel the turn; the send
//     key queues while a turn runs;
//   - copy a message from the context menu, Export Transcript;
//   - the high-contrast look (docs/images/chat-high-contrast.png).
// Screenshots: $ARTIFACTS/ui/trust-*.png.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  REPO_ROOT, expectNotification, openViewContainer, openWorkbench, readSimRecord, runCommand, screenshot, step, waitUntil, webviewFrame, log,
} from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'trust' });
  // Copy Message / Copy All write through the browser's clipboard; the test pastes to check it.
  await wb.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: wb.cs.origin });
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
  await page.locator('.quick-input-list .monaco-list-row', { hasText: file.split('/').pop() }).first().waitFor();
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
    // The waiting request is visible outside the chat too.
    await needsInputStatus(page).waitFor({ timeout: 15_000 });
    await zcodeBadge(page, '1').waitFor({ timeout: 15_000 });

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
    await needsInputStatus(page).waitFor({ state: 'detached', timeout: 15_000 });
    await runCommand(page, 'View: Close All Editors');
    await page.locator('.monaco-dialog-box button', { hasText: /Don.t Save/ }).click({ timeout: 5_000 }).catch(() => {});
  }));

/** The status bar item while requests wait for the user. */
const needsInputStatus = (page) => page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: 'needs input' }).first();
/** The badge on the ZCode activity-bar item showing `count`. */
const zcodeBadge = (page, count) =>
  page.locator('.part.activitybar .action-item').filter({ has: page.locator('a.action-label[aria-label^="ZCode"]') }).locator('.badge-content', { hasText: count }).first();

test('a turn that ends while the chat is hidden brings a notification; its Show action brings the chat back', T, () =>
  step(wb, 'notification', async (page) => {
    const input = chat.locator('textarea.prompt-input');
    await input.fill('[scenario:long]');
    await input.press('Enter');
    await chat.locator('button.stop').waitFor();
    // Hide the chat mid-turn (the scenario holds ≥ 250 ms per round, six rounds).
    await openViewContainer(page, 'Explorer');
    const text = await expectNotification(page, /zcode finished/, { timeout: 60_000 });
    assert.match(text, /All six modules are done/);
    await screenshot(page, 'trust-3-notification');
    // Show: open the Notification Center again and click the notification's Show button.
    await page.locator('.statusbar-item[id$="notifications.statusbar"] a, .statusbar-item[aria-label^="Notifications"]').first().click();
    await page.locator('.notifications-center .notification-list-item', { hasText: 'zcode finished' }).first().locator('a.monaco-button, .monaco-button', { hasText: 'Show' }).first().click();
    await webviewFrame(page).locator('textarea.prompt-input').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Escape');
  }));

test('keyboard: focus the chat input, attach the selection, queue while a turn runs, cancel it, new session', T, () =>
  step(wb, 'keyboard', async (page) => {
    const editor = await openInEditor(page, 'src/math.js');
    // Attach the selection: select the first line in the editor, Ctrl+Alt+A.
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+End');
    await page.keyboard.press('Control+Alt+A');
    await chat.locator('.chips.attachments .chip', { hasText: 'math.js' }).waitFor({ timeout: 15_000 });
    await chat.locator('.chips.attachments button').first().click();

    // Focus the chat input from the editor: Ctrl+Alt+Z.
    await editor.locator('.view-lines').click();
    assert.ok(await focusInEditor(page));
    await page.keyboard.press('Control+Alt+Z');
    const input = chat.locator('textarea.prompt-input');
    await waitUntil(() => input.evaluate((el) => el.ownerDocument.activeElement === el && el.ownerDocument.hasFocus()), { what: 'the composer to have the keyboard' });

    // While a turn runs, the send key queues (it does not steer); the placeholder says so. 40 rounds keep
    // the turn running (>= 10 s even at speed 0) until this test cancels it below.
    await page.keyboard.type('[scenario:long:40]');
    await page.keyboard.press('Enter');
    await chat.locator('button.stop').waitFor();
    assert.match(await input.getAttribute('placeholder'), /Enter queues .*Alt\+Enter steers/);
    await page.keyboard.type('and then summarize');
    await page.keyboard.press('Enter');
    await chat.locator('.chips.queue .chip', { hasText: 'and then summarize' }).waitFor();
    await screenshot(page, 'trust-4-queued-while-running');

    // Cancel the running turn: Ctrl+Alt+Backspace (the chat has focus).
    const stopsBefore = readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/stop').length;
    await page.keyboard.press('Control+Alt+Backspace');
    await chat.locator('.notice', { hasText: 'Stopped.' }).last().waitFor({ timeout: 30_000 });
    await waitUntil(() => readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/stop').length > stopsBefore, { what: 'session/stop to reach zcode' });
    await chat.locator('button.send').waitFor({ timeout: 30_000 });

    // New session: Ctrl+Alt+N while the chat has focus: the transcript empties (the welcome text shows).
    await input.focus();
    await page.keyboard.press('Control+Alt+N');
    await chat.locator('.welcome').waitFor({ timeout: 30_000 });
    await runCommand(page, 'View: Close All Editors');
  }));

test('copy a message from its context menu; Export Transcript opens the conversation as markdown', T, () =>
  step(wb, 'copy-export', async (page) => {
    const input = chat.locator('textarea.prompt-input');
    await input.fill('[scenario:edit]');
    await input.press('Enter');
    await chat.locator('.diff').first().waitFor({ timeout: 60_000 });
    await chat.locator('button.send').waitFor({ timeout: 60_000 });

    const message = chat.locator('.message.agent').last();
    const firstLine = (await message.innerText()).split('\n')[0].slice(0, 20);
    await message.click({ button: 'right' });
    // VS Code's context menu: "Copy Message" is its first item (picked with the keyboard, like a user can).
    const menuItems = page.locator('.context-view .action-label');
    await menuItems.first().waitFor();
    assert.equal((await menuItems.allInnerTexts())[0], 'Copy Message');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    // The clipboard holds the message's markdown (`src/greeting.ts` in backticks), not the rendered text.
    await waitUntil(async () => {
      const text = await page.evaluate(() => navigator.clipboard.readText());
      return text.includes('`src/greeting.ts`') && text.replace(/[`*_]/g, '').includes(firstLine);
    }, { what: 'the message markdown on the clipboard' });

    // Copy All: the whole conversation; tool calls as collapsed sections, diffs as diff blocks.
    await runCommand(page, 'ZCode: Copy All Messages');
    const all = await waitUntil(async () => {
      const text = await page.evaluate(() => navigator.clipboard.readText());
      return text.includes('<details>') ? text : undefined;
    }, { what: 'the conversation on the clipboard' });
    assert.match(all, /<summary>Tool: [^<]*greeting\.ts[^<]*<\/summary>/);
    assert.match(all, /```diff\n--- .*greeting\.ts\n\+\+\+ .*greeting\.ts\n/);
    assert.match(all, /\*\*You:\*\*\n\n\[scenario:edit\]/);

    await runCommand(page, 'ZCode: Export Transcript');
    const doc = page.locator('.part.editor .monaco-editor').first();
    await doc.locator('.view-line', { hasText: '**You:**' }).first().waitFor({ timeout: 15_000 });
    assert.match(await page.locator('.part.editor .tab.active').innerText(), /Untitled/);
    await page.locator('#workbench\\.parts\\.statusbar .statusbar-item', { hasText: 'Markdown' }).first().waitFor();
    await screenshot(page, 'trust-5-export-transcript');
    await runCommand(page, 'View: Revert and Close Editor');
  }));

test('high contrast: cards and controls get visible borders (screenshot for the docs)', T, () =>
  step(wb, 'high-contrast', async (page) => {
    await runCommand(page, 'Preferences: Color Theme');
    const input = page.locator('.quick-input-widget input');
    await input.fill('Dark High Contrast');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Dark High Contrast' }).first().click();
    await waitUntil(() => chat.locator('body').evaluate((b) => b.classList.contains('vscode-high-contrast')), { what: 'the webview to switch to high contrast' });
    const border = await chat.locator('.diff').first().evaluate((el) => {
      const card = el.closest('.card');
      const style = getComputedStyle(card);
      return { width: style.borderTopWidth, style: style.borderTopStyle, color: style.borderTopColor };
    });
    assert.equal(border.style, 'solid');
    assert.notEqual(border.color, 'rgba(0, 0, 0, 0)', `a visible border colour (${border.color})`);
    await screenshot(page, 'trust-6-high-contrast');
    // The docs image: the side bar with the chat only.
    mkdirSync(join(REPO_ROOT, 'docs/images'), { recursive: true });
    await page.locator('#workbench\\.parts\\.sidebar').screenshot({ path: join(REPO_ROOT, 'docs/images/chat-high-contrast.png') });
  }));
