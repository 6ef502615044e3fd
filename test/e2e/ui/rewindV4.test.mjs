// zcode's own rewind from the UI, in the real VS Code (code-server + Chromium) against the simulator's
// default profile (desktop 3.15: zcode's v4 command surface):
// - the latest prompt's hover action "Ask again": the prompt is edited in an input box, zcode gets
//   editUserQuery for that message, the conversation is cut there and asked again (the old prompt
//   is gone from the transcript, the edited one is answered);
// - the palette's "ZCode: Rewind": a QuickPick of the messages, then of what to do there; "Fork
//   from here" on an earlier message opens a new session and says the original is kept.
// Screenshots: $ARTIFACTS/ui/rewind-v4-*.png.
//
//   node --test test/e2e/ui/rewindV4.test.mjs        (after `npm run build`)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectNotification, log, openViewContainer, openWorkbench, readSimRecord, roomForTheChat, runCommand, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 180_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'rewind-v4' });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('rewind-v4: webview ready');
});

after(async () => {
  await wb?.close();
});

/** The v4 commands of `type` zcode received. */
const commands = (type) =>
  readSimRecord(wb.simRecord)
    .map(({ msg }) => msg)
    .filter((msg) => msg?.method === 'v4/command' && msg.params?.type === type);

async function turn(text) {
  const input = chat.locator('textarea.prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await chat.locator('.message.user', { hasText: text }).waitFor();
  await chat.locator('button.send').waitFor({ timeout: 60_000 });
}

const userTexts = async () => (await chat.locator('.message.user').allInnerTexts()).map((text) => text.trim());

/** A row of the open QuickPick by its label. */
const pickRow = (page, label) => page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: label }) }).first();

test('Ask again on the latest prompt: edited, the conversation is cut there and asked again', T, () =>
  step(wb, 'ask-again', async (page) => {
    await turn('[scenario:text] first question');
    await turn('[scenario:text] second question');
    const latest = chat.locator('.message.user', { hasText: 'second question' });
    const askAgain = latest.locator('button.ask-again');
    await askAgain.waitFor();
    assert.equal(await askAgain.getAttribute('aria-disabled'), null, `Ask again is inert: ${await askAgain.getAttribute('title')}`);
    assert.equal(await chat.locator('.message.user', { hasText: 'first question' }).locator('button.ask-again').count(), 0, 'Ask again offered on an earlier message');
    await latest.hover();
    await screenshot(page, 'rewind-v4-1-hover-actions');
    await askAgain.click();

    // Files this turn changed could also be restored: then a QuickPick asks first; this turn changed none.
    const box = page.locator('.quick-input-widget input');
    await box.waitFor({ state: 'visible', timeout: 15_000 });
    if (await pickRow(page, /^Ask again$/).isVisible().catch(() => false)) await pickRow(page, /^Ask again$/).click();
    await waitUntil(async () => (await box.inputValue()) === '[scenario:text] second question', { what: 'the input box to offer the prompt to edit' });
    await box.fill('[scenario:text] second question, asked again');
    await screenshot(page, 'rewind-v4-2-edit-prompt');
    await box.press('Enter');

    const [edit] = await waitUntil(() => commands('editUserQuery').length > 0 && commands('editUserQuery'), { what: 'zcode to get editUserQuery', timeout: 30_000 });
    assert.equal(edit.params.payload.newText, '[scenario:text] second question, asked again');
    // The transcript is zcode's cut history plus the re-asked prompt: the old one is gone.
    await waitUntil(async () => {
      const texts = await userTexts();
      return texts.length === 2 && texts[0].includes('first question') && texts[1].includes('asked again');
    }, { what: 'the conversation cut at the prompt and asked again', timeout: 30_000 });
    await chat.locator('.message.agent').nth(1).waitFor({ timeout: 30_000 });
    await screenshot(page, 'rewind-v4-3-asked-again');
  }));

test('"ZCode: Rewind" offers the messages, then the kinds of rewind; Fork from here keeps the original', T, () =>
  step(wb, 'palette-rewind', async (page) => {
    await turn('[scenario:text] third question');
    const sessionsBefore = readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/send').length;
    assert.ok(sessionsBefore >= 3);
    await runCommand(page, 'ZCode: Rewind');
    const target = pickRow(page, 'second question, asked again');
    await target.waitFor({ timeout: 15_000 });
    await screenshot(page, 'rewind-v4-4-palette-targets');
    await target.click();
    const fork = pickRow(page, 'Fork from here');
    await fork.waitFor({ timeout: 15_000 });
    assert.equal(await pickRow(page, /^Ask again$/).count(), 0, 'an earlier message offers Ask again');
    await screenshot(page, 'rewind-v4-5-rewind-choice');
    await fork.click();
    await expectNotification(page, 'The original session is kept unchanged', { timeout: 30_000 });
    // The fork starts just before that message: only the first exchange.
    await waitUntil(async () => {
      const texts = await userTexts();
      return texts.length === 1 && texts[0].includes('first question');
    }, { what: 'the fork shown', timeout: 30_000 });
    await screenshot(page, 'rewind-v4-6-forked');
  }));

const sends = () => readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/send').length;
const loads = () => readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/messages' || msg?.method === 'session/resume').length;

/** A prompt in a new session that fails; resolves once its error line offers Retry. */
async function failingTurn(page, text) {
  await runCommand(page, 'ZCode: New Session');
  await waitUntil(async () => (await chat.locator('.message.user').count()) === 0, { what: 'the new session shown' });
  const input = chat.locator('textarea.prompt-input');
  await input.fill(text);
  await input.press('Enter');
  const retry = chat.locator('.turn-error button', { hasText: 'Retry' });
  await retry.waitFor({ timeout: 30_000 });
  return retry;
}

test('Retry on a failed turn with a reply: zcode runs it again in place (retryTurn, no new copy of the prompt)', T, () =>
  step(wb, 'retry', async (page) => {
    // Some text, then the model fails. The bridge's own automatic retries already went to zcode as
    // retryTurn (in place); the failure the user sees is the last attempt's.
    const sendsAtStart = sends();
    const retry = await failingTurn(page, '[scenario:fail] flaky work');
    await screenshot(page, 'rewind-v4-7-failed');
    const [sendsBefore, loadsBefore, retriesBefore] = [sends(), loads(), commands('retryTurn').length];
    const copiesInZcode = sendsBefore - sendsAtStart;
    assert.equal(copiesInZcode, 1, 'the automatic retries sent the prompt again');
    await retry.click();
    await waitUntil(() => commands('retryTurn').length === retriesBefore + 1, { what: 'zcode to get retryTurn', timeout: 30_000 });
    // zcode ran it again (and it failed again): the chat shows zcode's history again.
    await waitUntil(() => loads() > loadsBefore, { what: 'the chat to reload the session' });
    await waitUntil(async () => (await chat.locator('.message.agent').count()) > 0, { what: 'the reloaded turn shown', timeout: 30_000 });
    await screenshot(page, 'rewind-v4-8-retried');
    assert.equal(sends(), sendsBefore, 'the prompt was sent again instead of retried in place');
    assert.equal(await chat.locator('.message.user', { hasText: 'flaky work' }).count(), copiesInZcode, 'the retry added a copy of the prompt');
  }));

test('Retry on a turn that failed before any reply: zcode cannot retry it in place, the prompt is sent again', T, () =>
  step(wb, 'retry-resend', async (page) => {
    // A retryable failure before any text (the scenario fails every other run, then answers).
    const retry = await failingTurn(page, '[scenario:fail-transient] one more go');
    const [sendsBefore, retriesBefore] = [sends(), commands('retryTurn').length];
    await retry.click();
    await waitUntil(() => sends() === sendsBefore + 1, { what: 'the prompt sent again', timeout: 30_000 });
    // The bridge looked at the turn and found no reply to retry: zcode got no retryTurn.
    assert.equal(commands('retryTurn').length, retriesBefore);
    await chat.locator('.message.agent', { hasText: 'Recovered after a transient error' }).waitFor({ timeout: 30_000 });
    assert.equal(await chat.locator('.turn-error', { hasText: 'did not retry' }).count(), 0, "zcode's refusal was shown instead of acted on");
  }));
