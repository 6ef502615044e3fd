// Workspace context in the real web workbench (code-server + Chromium) against the simulator:
// `@` picks a workspace file and zcode receives it; a drop of Explorer files (the uri list VS Code
// puts on a Shift+drag) and "Attach the current file" attach the same way; two editor-tab chats run
// two sessions side by side; the history QuickPick filters as you type, renames and removes (with a
// modal confirmation); a chat tab is restored after a window reload. Screenshots: $ARTIFACTS/ui/workspace-*.png.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { openViewContainer, openWorkbench, readSimRecord, runCommand, screenshot, step, waitUntil, webviewFrame, log } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let simState;

before(async () => {
  // zcode keeps its sessions on disk: so does the simulator here, so that a window reload (a new
  // extension host, a new zcode process) can load them again.
  simState = mkdtempSync(join(tmpdir(), 'zcode-sim-state-'));
  wb = await openWorkbench({ name: 'workspace', env: { ZCODE_SIM_STATE_DIR: simState } });
});
after(async () => {
  if (wb && wb.consoleErrors.length) log(`workspace: console errors:\n  ${wb.consoleErrors.slice(0, 20).join('\n  ')}`);
  await wb?.close();
  if (simState) rmSync(simState, { recursive: true, force: true });
});

/** What zcode received as prompts (`session/send` params), in order. */
const sends = () => readSimRecord(wb.simRecord).map((e) => e.msg).filter((m) => m?.method === 'session/send').map((m) => m.params);
const fileUri = (rel) => pathToFileURL(join(wb.folder, rel)).href;

test('@ lists workspace files; the pick becomes a chip and zcode receives the file', T, () =>
  step(wb, 'mention', async (page) => {
    await openViewContainer(page, 'ZCode');
    const chat = webviewFrame(page);
    const input = chat.locator('textarea.prompt-input');
    await input.waitFor({ timeout: 60_000 });
    await input.click();
    await input.pressSequentially('Explain @math');
    const option = chat.locator('.mentions [role="option"]', { hasText: 'math.js' }).first();
    await option.waitFor({ timeout: 30_000 });
    assert.match(await option.innerText(), /src\/math\.js/, 'the folder-relative path is shown');
    await screenshot(page, 'workspace-1-mention-picker');
    await input.press('Enter');
    await chat.locator('.attachments .chip', { hasText: 'math.js' }).waitFor();
    assert.equal(await input.inputValue(), 'Explain ', 'the @word left the text');
    const before = sends().length;
    await input.press('Enter');
    await waitUntil(() => sends().length > before, { what: 'the prompt to reach zcode' });
    const content = sends().at(-1).content;
    // The bridge takes embedded context: zcode gets the file's uri and its text.
    assert.ok(content.includes(fileUri('src/math.js')), `the file's uri reached zcode: ${content}`);
    assert.ok(content.includes(readFileSync(join(wb.folder, 'src/math.js'), 'utf8').split('\n')[0]), 'the file text reached zcode');
    await chat.locator('.message.user .attachment, .message.user', { hasText: 'math.js' }).first().waitFor();
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
  }));

test('dropped Explorer files and "Attach the current file" attach the same way', T, () =>
  step(wb, 'drop', async (page) => {
    const chat = webviewFrame(page);
    // What a Shift+drag from the Explorer delivers to a webview: a drop carrying VS Code's uri list.
    await chat.locator('body').evaluate((body, uri) => {
      const data = new DataTransfer();
      data.setData('application/vnd.code.uri-list', uri);
      body.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, fileUri('notes.txt'));
    await chat.locator('.attachments .chip', { hasText: 'notes.txt' }).waitFor();
    await runCommand(page, 'Go to File...').catch(async () => page.keyboard.press('Control+P'));
    await page.locator('.quick-input-widget input').fill('greet.js');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'greet.js' }).first().click();
    await page.locator('.tab.active', { hasText: 'greet.js' }).waitFor();
    await chat.locator('button.attach-active-file').click();
    await chat.locator('.attachments .chip', { hasText: 'greet.js' }).waitFor();
    await screenshot(page, 'workspace-2-dropped-and-current-file');
    const input = chat.locator('textarea.prompt-input');
    await input.fill('Compare these');
    const before = sends().length;
    await input.press('Enter');
    await waitUntil(() => sends().length > before, { what: 'the prompt to reach zcode' });
    const content = sends().at(-1).content;
    assert.ok(content.includes(fileUri('notes.txt')) && content.includes(fileUri('src/greet.js')), `both files reached zcode: ${content}`);
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
    await runCommand(page, 'View: Close All Editors');
  }));

test('two editor-tab chats run two sessions side by side', T, () =>
  step(wb, 'editor-chats', async (page) => {
    await runCommand(page, 'View: Close Primary Side Bar');
    await runCommand(page, 'ZCode: Open Chat in Editor');
    await webviewFrame(page, { index: 0 }).locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
    await runCommand(page, 'ZCode: Open Chat in Editor');
    await waitUntil(async () => (await page.locator('.editor-group-container').count()) >= 2, { what: 'a second editor group' });
    const chats = [webviewFrame(page, { index: 0 }), webviewFrame(page, { index: 1 })];
    await chats[1].locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
    const before = sends().length;
    for (const [i, word] of ['alpha tab', 'beta tab'].entries()) {
      await chats[i].locator('textarea.prompt-input').fill(word);
      await chats[i].locator('textarea.prompt-input').press('Enter');
    }
    for (const [i, word] of ['alpha tab', 'beta tab'].entries()) {
      await chats[i].locator('.message.agent', { hasText: `You said: ${word}` }).waitFor({ timeout: 60_000 });
    }
    assert.equal(await chats[0].locator('.message', { hasText: 'beta tab' }).count(), 0, 'tab A shows only its own session');
    assert.equal(await chats[1].locator('.message', { hasText: 'alpha tab' }).count(), 0, 'tab B shows only its own session');
    await waitUntil(() => sends().length >= before + 2, { what: 'both prompts to reach zcode' });
    const [a, b] = sends().slice(before);
    assert.notEqual(a.sessionId, b.sessionId, 'each tab has its own zcode session');
    await page.locator('.tab', { hasText: 'ZCode: alpha tab' }).first().waitFor({ timeout: 20_000 });
    await page.mouse.move(700, 450); // no hover tooltip in the picture
    await screenshot(page, 'workspace-3-two-editor-chats');
  }));

test('history: filter as you type, rename, remove with confirmation', T, () =>
  step(wb, 'history', async (page) => {
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const input = page.locator('.quick-input-widget input');
    await runCommand(page, 'ZCode: Resume Session');
    await rows.filter({ hasText: 'alpha tab' }).first().waitFor({ timeout: 30_000 });
    await waitUntil(async () => (await rows.count()) >= 2, { what: 'both tab sessions listed' });
    await input.fill('beta');
    await waitUntil(async () => (await rows.count()) === 1, { what: 'the filter to leave one session' });
    const beta = rows.first();
    assert.match(await beta.innerText(), /beta tab/);
    await screenshot(page, 'workspace-4-history-filtered');

    await beta.hover();
    await beta.locator('.action-label[aria-label="Rename"]').click();
    await waitUntil(async () => (await input.inputValue()) === 'beta tab', { what: 'the rename box with the old title' });
    await input.fill('Beta, renamed');
    await input.press('Enter');
    await rows.filter({ hasText: 'Beta, renamed' }).first().waitFor({ timeout: 15_000 });

    await input.fill('renamed');
    const renamed = rows.filter({ hasText: 'Beta, renamed' }).first();
    await renamed.hover();
    await renamed.locator('.action-label[aria-label="Remove from history…"]').click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match(await dialog.innerText(), /Remove "Beta, renamed" from the history\?/);
    await screenshot(page, 'workspace-5-remove-confirmation');
    await dialog.locator('.monaco-button', { hasText: /^Remove$/ }).click();
    await waitUntil(async () => (await rows.filter({ hasText: 'Beta, renamed' }).count()) === 0, { what: 'the removed session to leave the list' });
    await page.keyboard.press('Escape');
    // The tab that showed the removed session closed; the other one stays.
    await page.locator('.tab', { hasText: 'ZCode: beta tab' }).waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await page.locator('.tab', { hasText: 'ZCode: alpha tab' }).count(), 1);

    // Reopened: still gone; the others are still there.
    await runCommand(page, 'ZCode: Resume Session');
    await rows.filter({ hasText: 'alpha tab' }).first().waitFor({ timeout: 30_000 });
    assert.equal(await rows.filter({ hasText: /beta tab|Beta, renamed/ }).count(), 0);
    await page.keyboard.press('Escape');
  }));

test('a chat tab survives a window reload, bound to its session', T, () =>
  step(wb, 'restore', async (page) => {
    const loadsBefore = readSimRecord(wb.simRecord).length;
    await runCommand(page, 'Developer: Reload Window');
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    // The serializer re-creates the tab and loads the session the webview remembered: its history replays.
    const chat = webviewFrame(page, { index: 0 });
    await chat.locator('.message.agent', { hasText: 'You said: alpha tab' }).waitFor({ timeout: 90_000 });
    await chat.locator('.message.user', { hasText: 'alpha tab' }).waitFor();
    assert.ok(readSimRecord(wb.simRecord).length > loadsBefore, 'zcode was asked for the session again');
    await screenshot(page, 'workspace-6-restored-tab');
  }));
