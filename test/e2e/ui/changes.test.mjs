// Changed files per turn, in the real VS Code (code-server + Chromium) against the simulator, which
// really writes its edits (ZCODE_SIM_APPLY_EDITS=1): an edit turn → the changes card lists each file
// with lines added/removed → Review all opens VS Code's multi-file diff editor → Undo refuses a file
// the user changed since, then restores the disk (the edited file as before, the created one gone).
//
//   node --test test/e2e/ui/changes.test.mjs        (after `npm run build`)
//   UPDATE_SCREENSHOTS=1 …                          also writes docs/images/changes-*.png
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT, expectNotification, openViewContainer, openWorkbench, roomForTheChat, runCommand, screenshot, step, waitUntil, webviewFrame, log } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  // A state dir: sessions outlive the simulator process, as zcode's do (the reload test restarts it).
  const state = mkdtempSync(join(tmpdir(), 'zcode-sim-state-'));
  wb = await openWorkbench({ name: 'changes', env: { ZCODE_SIM_APPLY_EDITS: '1', ZCODE_SIM_STATE_DIR: state } });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('changes: webview ready');
});

after(async () => {
  await wb?.close();
});

/** A README picture, only when asked for (UPDATE_SCREENSHOTS=1): the side bar, or the whole window. */
async function docsShot(page, name, locator) {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(join(REPO_ROOT, 'docs/images'), { recursive: true });
  await (locator ?? page).screenshot({ path: join(REPO_ROOT, 'docs/images', `${name}.png`) });
}

const file = (rel) => join(wb.folder, rel);
const read = (rel) => (existsSync(file(rel)) ? readFileSync(file(rel), 'utf8') : null);

test('an edit turn shows its changed files; Review all opens the multi-file diff; Undo restores the disk', T, () =>
  step(wb, 'changes', async (page) => {
    const original = read('src/math.js');
    assert.ok(original?.includes('// TODO: handle overflow'), 'the fixture file is there');
    const input = chat.locator('textarea.prompt-input');
    await input.fill('[scenario:edit-files] handle the overflow');
    await input.press('Enter');

    const card = chat.locator('section.card.changes');
    await card.waitFor({ timeout: 60_000 });
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
    const edited = read('src/math.js');
    const created = read('src/math.test.js');
    assert.ok(edited?.includes('RangeError') && created?.includes("test('multiplies'"), 'zcode (the simulator) wrote both files');
    const rows = card.locator('li.changed-file');
    assert.equal(await rows.count(), 2);
    assert.match(await rows.nth(0).innerText(), /math\.js\s*\+3\s*−2/);
    assert.match(await rows.nth(1).innerText(), /math\.test\.js\s*\+6\s*−0/);
    await screenshot(page, 'changes-1-card');
    await docsShot(page, 'changes-card', page.locator('#workbench\\.parts\\.sidebar'));

    await card.locator('button.review-all').click();
    const multi = page.locator('.multiDiffEditor, .multi-diff-editor').first();
    await multi.waitFor({ timeout: 30_000 });
    await page.locator('.tab', { hasText: 'zcode: [scenario:edit-files] handle the overflow' }).first().waitFor({ timeout: 20_000 });
    await multi.locator('.monaco-diff-editor').first().waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await multi.innerText()).includes('math.test.js'), { what: 'both files in the multi-file diff' });
    await screenshot(page, 'changes-2-review-all');
    await docsShot(page, 'changes-review-all');

    // The user changes the created file: its Undo (and Undo all) must refuse and change nothing.
    writeFileSync(file('src/math.test.js'), `${created}// mine\n`);
    await card.locator('button.undo-all').click();
    await expectNotification(page, /Nothing was undone: math\.test\.js changed after this turn/);
    assert.equal(read('src/math.js'), edited, 'Undo all changed nothing');
    assert.equal(read('src/math.test.js'), `${created}// mine\n`);

    // Undo of one file works on its own; the created file, once back as the turn left it, goes.
    await rows.nth(0).locator('button.undo-file').click();
    await waitUntil(() => read('src/math.js') === original, { what: 'math.js restored on disk' });
    await rows.nth(0).locator('.changed-undone').waitFor();
    writeFileSync(file('src/math.test.js'), created);
    await card.locator('button.undo-all').click();
    await waitUntil(() => read('src/math.test.js') === null, { what: 'the created file deleted' });
    await rows.nth(1).locator('.changed-undone').waitFor();
    assert.ok(await card.locator('button.undo-all').isDisabled(), 'nothing left to undo');
    await screenshot(page, 'changes-3-undone');
    await runCommand(page, 'View: Close All Editors');
  }));


test('an edit permission card shows the proposed diff instead of raw JSON', T, () =>
  step(wb, 'permission-diff', async (page) => {
    const input = chat.locator('textarea.prompt-input');
    await input.fill('[scenario:edit-permission] a friendlier greeting');
    await input.press('Enter');
    const card = chat.locator('section.permission');
    await card.waitFor({ timeout: 60_000 });
    const diff = card.locator('.diff');
    await diff.waitFor();
    assert.match(await diff.innerText(), /greet\.js[\s\S]*\+1\s*−1[\s\S]*Hi there/);
    assert.equal(await card.locator('pre.raw').count(), 0, 'no raw JSON');
    await screenshot(page, 'changes-4-permission-diff');
    await docsShot(page, 'permission-diff', page.locator('#workbench\\.parts\\.sidebar'));
    assert.equal(read('src/greet.js')?.includes('Hi there'), false, 'nothing written before the answer');
    await card.locator('button', { hasText: /^\s*Allow/ }).first().click();
    await chat.locator('button.send').waitFor({ timeout: 60_000 });
    assert.equal(read('src/greet.js')?.includes('Hi there'), true);
  }));

test('on a build without session/rewind (the current ones), Rewind to here says so and stays inert with the reason', T, () =>
  step(wb, 'rewind-unsupported', async (page) => {
    const message = chat.locator('.message.user').first();
    const rewind = message.locator('button.rewind-here');
    await waitUntil(async () => (await rewind.getAttribute('aria-disabled')) === null, { what: 'the message to get its checkpoint (checkpoint.created)' });
    await message.hover();
    await rewind.click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
    await chat.locator('.turn-error', { hasText: /session\/rewind is not supported by this zcode version/ }).waitFor({ timeout: 20_000 });
    await waitUntil(async () => (await rewind.getAttribute('aria-disabled')) === 'true', { what: 'Rewind to become inert' });
    assert.match(await rewind.getAttribute('title'), /not supported by this zcode version/);
    assert.equal(await message.locator('button.fork-here').getAttribute('aria-disabled'), null, 'fork still works on this build');
  }));

test('after a window reload the changes cards come back with the session, and Undo still works', T, () =>
  step(wb, 'reload', async (page) => {
    assert.equal(read('src/greet.js')?.includes('Hi there'), true, 'the permitted edit of the earlier test is on disk');
    await page.reload();
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await openViewContainer(page, 'ZCode');
    chat = webviewFrame(page);
    // The remembered session is loaded again; its stored changes cards follow the replay.
    const card = chat.locator('section.card.changes', { has: chat.locator('li.changed-file', { hasText: 'greet.js' }) });
    await card.waitFor({ timeout: 60_000 });
    assert.match(await card.innerText(), /a friendlier greeting/);
    await card.locator('li.changed-file', { hasText: 'greet.js' }).locator('button.undo-file').click();
    await waitUntil(() => read('src/greet.js')?.includes('Hello') === true, { what: 'greet.js restored after the reload' });
    await screenshot(page, 'changes-5-after-reload');
  }));
