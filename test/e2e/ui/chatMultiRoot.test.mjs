// A multi-root workspace (two folders) in the real web workbench against the simulator: "ZCode: New
// Session" asks which folder, zcode creates the session in that folder, and the history lists the
// sessions of both folders, each labelled by its folder. Screenshots: $ARTIFACTS/ui/multiroot-*.png.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { copyWorkspace, openViewContainer, openWorkbench, readSimRecord, runCommand, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
const root = mkdtempSync(join(tmpdir(), 'zcode-multiroot-'));
const folders = { one: copyWorkspace(join(root, 'one')), two: copyWorkspace(join(root, 'two')) };

before(async () => {
  const workspace = join(root, 'both.code-workspace');
  writeFileSync(workspace, JSON.stringify({ folders: [{ path: folders.one }, { path: folders.two }] }));
  wb = await openWorkbench({ name: 'multiroot', workspace, folder: folders.one });
});
after(async () => { await wb?.close(); });

const received = (method) => readSimRecord(wb.simRecord).map((e) => e.msg).filter((m) => m?.method === method);

/** New Session from the palette in `folder`, then a prompt in the chat; resolves when zcode created the session. */
async function sessionIn(page, folder, prompt) {
  const created = received('session/create').length;
  await runCommand(page, 'ZCode: New Session');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: folder }).first();
  await row.waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('.quick-input-list .monaco-list-row').count(), 2, 'one choice per folder');
  if (folder === 'two') await screenshot(page, 'multiroot-1-pick-folder');
  await row.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
  const chat = webviewFrame(page);
  const input = chat.locator('textarea.prompt-input');
  const mine = chat.locator('.message.user', { hasText: prompt });
  // Known, not yet understood: once in CI the first prompt typed right after
  // New Session in a fresh multi-root window left an empty composer and nothing was sent. The test types
  // it again once, and says so, rather than fail on that instead of on what it checks (the folder).
  for (let attempt = 1; ; attempt++) {
    await input.fill(prompt);
    await input.press('Enter');
    try {
      await mine.waitFor({ timeout: 15_000 });
      break;
    } catch (error) {
      if (attempt === 2) throw error;
      console.log(`[multiroot] the prompt "${prompt}" did not show after New Session; typing it again`);
    }
  }
  await chat.locator('.message.agent', { hasText: `You said: ${prompt}` }).waitFor({ timeout: 60_000 });
  await waitUntil(() => received('session/create').length > created, { what: 'zcode to create the session' });
  return received('session/create').at(-1).params;
}

test('New Session asks for the folder; zcode creates the session there', T, () =>
  step(wb, 'new', async (page) => {
    await openViewContainer(page, 'ZCode');
    await webviewFrame(page).locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
    const inTwo = await sessionIn(page, 'two', 'work in two');
    assert.equal(inTwo.workspace.workspacePath ?? inTwo.workspace, folders.two);
    const inOne = await sessionIn(page, 'one', 'work in one');
    assert.equal(inOne.workspace.workspacePath ?? inOne.workspace, folders.one);
  }));

test('the history covers both folders, labelled by folder', T, () =>
  step(wb, 'history', async (page) => {
    await runCommand(page, 'ZCode: Resume Session');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const two = rows.filter({ hasText: 'work in two' }).first();
    const one = rows.filter({ hasText: 'work in one' }).first();
    await two.waitFor({ timeout: 30_000 });
    await one.waitFor();
    // The folder is the description (the title, "work in …", is the label).
    assert.match(await two.locator('.label-description').innerText(), /^\s*two · /, 'the session of folder two is labelled "two"');
    assert.match(await one.locator('.label-description').innerText(), /^\s*one · /, 'the session of folder one is labelled "one"');
    await screenshot(page, 'multiroot-2-history');
    // Resuming the session of the second folder loads it there.
    const loads = received('session/resume').length + received('session/read').length;
    await two.click();
    await waitUntil(() => received('session/resume').length + received('session/read').length > loads, { what: 'zcode to be asked for the session' });
    await webviewFrame(page).locator('.message.agent', { hasText: 'You said: work in two' }).waitFor({ timeout: 60_000 });
  }));

test('the chat\'s own session menu lists both folders too', T, () =>
  step(wb, 'menu', async (page) => {
    const chat = webviewFrame(page);
    await chat.locator('button[aria-label="Sessions: new, fork, resume"]').click();
    await chat.locator('.session-entry', { hasText: 'two: work in two' }).waitFor({ timeout: 30_000 });
    await chat.locator('.session-entry', { hasText: 'one: work in one' }).waitFor();
    await screenshot(page, 'multiroot-3-chat-menu');
    await chat.locator('.session-entry', { hasText: 'one: work in one' }).click();
    await chat.locator('.message.agent', { hasText: 'You said: work in one' }).waitFor({ timeout: 60_000 });
  }));
