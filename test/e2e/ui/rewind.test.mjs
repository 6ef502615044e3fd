// Rewind to here / Fork from here on the transcript's user messages, in the real VS Code
// (code-server + Chromium) against the simulator as zcode 0.15.2 (a build that still has
// session/rewind and session/checkpoints): three turns → "Rewind to here" on the first message →
// zcode gets session/rewind for that message's checkpoint and the transcript is reloaded to what zcode
// now holds (only the first message and its answer); "Fork from here" opens the fork.
//
//   node --test test/e2e/ui/rewind.test.mjs        (after `npm run build`)
//   UPDATE_SCREENSHOTS=1 …                         also writes docs/images/rewind-actions.png
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REPO_ROOT, openViewContainer, openWorkbench, readSimRecord, roomForTheChat, screenshot, step, waitUntil, webviewFrame, log } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'rewind', env: { ZCODE_SIM_PROFILE: '0.15.2' } });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('rewind: webview ready');
});

after(async () => {
  await wb?.close();
});

// The bridge's capability probe asks a seed build about session/steer and session/rewind for a
// session that cannot exist (bridge/acp/extensions/capabilities.ts PROBE_SESSION_ID): not the user's calls.
const PROBE_SESSION_ID = 'zcode-bridge-capability-probe';
const received = (method) =>
  readSimRecord(wb.simRecord)
    .filter(({ msg }) => msg && msg.method === method && msg.params?.sessionId !== PROBE_SESSION_ID)
    .map(({ msg }) => msg);

async function turn(text) {
  const input = chat.locator('textarea.prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await chat.locator('.message.user', { hasText: text }).waitFor();
  await chat.locator('button.send').waitFor({ timeout: 60_000 });
}

test('Rewind to here rewinds zcode to that message and reloads the transcript; Fork from here opens the fork', T, () =>
  step(wb, 'rewind', async (page) => {
    await turn('[scenario:text] first question');
    await turn('[scenario:text] second question');
    await turn('[scenario:text] third question');
    const first = chat.locator('.message.user', { hasText: 'first question' });
    const rewind = first.locator('button.rewind-here');
    // The host marks each message with its checkpoint once zcode listed them.
    await waitUntil(async () => (await rewind.getAttribute('aria-disabled')) === null, { what: 'the first message to get its checkpoint' });
    assert.match(await rewind.getAttribute('title'), /Rewind to here/);
    const checkpoints = await waitUntil(() => received('session/checkpoints').length > 0 && received('session/checkpoints'), { what: 'session/checkpoints asked' });
    assert.ok(checkpoints.length > 0);
    await first.hover();
    await screenshot(page, 'rewind-1-actions');
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(join(REPO_ROOT, 'docs/images'), { recursive: true });
      await page.locator('#workbench\\.parts\\.sidebar').screenshot({ path: join(REPO_ROOT, 'docs/images/rewind-actions.png') });
    }

    const loadsBefore = received('session/resume').length + received('session/messages').length;
    await rewind.click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 15_000 });
    assert.match(await dialog.innerText(), /Rewind the conversation to this message\?/);
    await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();

    const rewound = await waitUntil(() => received('session/rewind')[0], { what: 'session/rewind to reach zcode' });
    assert.equal(rewound.params.target.kind, 'checkpoint');
    // Reloaded from zcode: only the first exchange is left on screen.
    await waitUntil(async () => (await chat.locator('.message.user').count()) === 1 && (await chat.locator('.message.user').first().innerText()).includes('first question'), {
      what: 'the transcript reloaded to the first message',
      timeout: 30_000,
    });
    assert.equal(await chat.locator('.message.user', { hasText: 'second question' }).count(), 0);
    assert.ok(received('session/resume').length + received('session/messages').length > loadsBefore, 'the transcript came from zcode again');
    await chat.locator('.message.agent').first().waitFor();
    await screenshot(page, 'rewind-2-reloaded');

    // Fork from here: zcode forks at that checkpoint and the chat shows the fork.
    const fork = chat.locator('.message.user', { hasText: 'first question' }).locator('button.fork-here');
    await waitUntil(async () => (await fork.getAttribute('aria-disabled')) === null, { what: 'fork available after the reload' });
    await chat.locator('.message.user').first().hover();
    await fork.click();
    const forked = await waitUntil(() => received('session/fork')[0], { what: 'session/fork to reach zcode' });
    assert.deepEqual(forked.params.target, { kind: 'checkpoint', checkpointId: rewound.params.target.checkpointId });
    await waitUntil(async () => (await chat.locator('.message.user').count()) === 1, { what: 'the fork shown', timeout: 30_000 });
    await screenshot(page, 'rewind-3-forked');
  }));
