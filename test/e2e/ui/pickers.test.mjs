// Fresh install in the real VS Code chat (code-server + headless Chromium, a new profile, the simulator as zcode with
// no sessions): the mode, model and reasoning pickers are there before any prompt (the bridge reads zcode's model
// list from a draft at `session/new`), and the first prompt runs on the model picked there.
//
//   npm run build && node --test --test-reporter=spec test/e2e/ui/pickers.test.mjs
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openViewContainer, openWorkbench, readSimRecord, roomForTheChat, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 120_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'pickers' });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
});

after(() => wb?.close());

function received(method) {
  return readSimRecord(wb.simRecord).filter(({ msg }) => msg && msg.method === method).map(({ msg }) => msg);
}

const picker = (category) => chat.locator(`select.picker[data-category="${category}"]`);

test('before any prompt: mode (with guarded), model and thought-level pickers; the first prompt runs on the picked model', T, () =>
  step(wb, 'pickers', async (page) => {
    for (const category of ['mode', 'model', 'thought_level']) await picker(category).waitFor({ timeout: 30_000 });
    assert.equal(received('session/send').length, 0, 'no prompt was sent');
    const models = await picker('model').locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(models, ['GLM-5.2', 'GLM-5.1-Air', 'GLM-4.6', 'GLM-5.2-Start'], "zcode's own list");
    const modes = await picker('mode').locator('option').evaluateAll((os) => os.map((o) => o.value));
    assert.ok(modes.includes('guarded'), modes.join(', '));
    await screenshot(page, 'pickers-1-before-first-prompt');

    await picker('model').selectOption('GLM-4.6');
    await waitUntil(async () => (await picker('model').inputValue()) === 'GLM-4.6', { what: 'the pick to stick' });
    const input = chat.locator('textarea.prompt-input');
    await input.click();
    await input.fill('[scenario:model]');
    await input.press('Enter');
    await chat.locator('.message.agent', { hasText: /This turn ran on model GLM-4\.6\b/ }).waitFor({ timeout: 60_000 });
    const creates = received('session/create');
    assert.equal(creates.filter((m) => m.params?.persistence === 'deferred').length, 1, 'one draft for the model list');
    assert.equal(creates.filter((m) => m.params?.persistence !== 'deferred').length, 1, 'one real session, made at the first prompt');
    assert.ok(received('session/close').every((m) => m.params?.expectedPersistence === 'deferred'), 'only the draft was closed');
    await screenshot(page, 'pickers-2-first-prompt-on-picked-model');
  }));
