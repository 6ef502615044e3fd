// Chat webview e2e: the real VS Code web workbench (code-server) + headless Chromium, the extension
// loaded from the source tree, the zcode simulator as the backend (speed 0, record file on).
// Each step drives the chat like a user and checks both the UI and what zcode really received
// (the simulator's record: every message the bridge sent to it).
//
//   node test/e2e/ui/chat.e2e.mjs            (needs `npm run build` and the toolchain: bash .ci/setup-vscode.sh)
//
// Screenshots of every state go to $ARTIFACTS/ui/chat-*.png (default ci-artifacts/ui).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openViewContainer, openWorkbench, readSimRecord, roomForTheChat, runCommand, screenshot, step, waitUntil, webviewFrame, log } from './harness.mjs';

const T = { timeout: 120_000 };
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'chat' });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('chat: webview ready');
});

after(async () => {
  if (wb && wb.consoleErrors.length) log(`chat: workbench console errors:\n  ${wb.consoleErrors.slice(0, 20).join('\n  ')}`);
  await wb?.close();
});

/** Replies the bridge sent to the simulator's `interaction/*` requests, in order. */
function interactionReplies() {
  const record = readSimRecord(wb.simRecord);
  const requests = new Map();
  for (const { msg } of record) if (msg && msg.method && String(msg.method).startsWith('interaction/')) requests.set(msg.id, msg);
  // The record holds what the simulator RECEIVED: responses to its own `server-N` requests.
  // Current builds also ask for runtime preferences on every send: those replies are not interactions.
  return record
    .filter(({ msg }) => msg && typeof msg.id === 'string' && msg.id.startsWith('server-') && 'result' in msg && !('nativeSearchEnhancementsEnabled' in (msg.result ?? {})))
    .map(({ msg }) => msg.result);
}

function received(method) {
  return readSimRecord(wb.simRecord).filter(({ msg }) => msg && msg.method === method).map(({ msg }) => msg);
}

/** Types a prompt and sends it with Enter. */
async function send(text) {
  const input = chat.locator('textarea.prompt-input');
  await input.click();
  await input.fill(text);
  await input.press('Enter');
}

/** Waits until no turn runs (the Send button is back). */
async function idle(timeout = 60_000) {
  await chat.locator('button.send').waitFor({ timeout });
}

/** The n-th (0-based, from the end when negative) agent message's text. */
async function lastAgentText() {
  return chat.locator('.message.agent').last().innerText();
}

test('a prompt streams markdown into the transcript', T, () =>
  step(wb, 'text', async (page) => {
    await send('[scenario:text]');
    await chat.locator('.message.user', { hasText: '[scenario:text]' }).waitFor();
    await chat.locator('.message.agent h1, .message.agent h2, .message.agent h3').first().waitFor();
    await idle();
    assert.ok(await chat.locator('.message.agent .code-block pre code').count(), 'the code block rendered');
    assert.ok(await chat.locator('.message.agent li').count(), 'the list rendered');
    await screenshot(page, 'chat-1-streamed-text');
  }));

test('tool cards run and complete', T, () =>
  step(wb, 'tools', async (page) => {
    await send('[scenario:tools]');
    await chat.locator('section.tool').first().waitFor();
    await idle();
    const statuses = await chat.locator('section.tool').evaluateAll((cards) => cards.map((c) => [...c.classList].find((x) => x.startsWith('status-'))));
    assert.ok(statuses.length >= 3, `several tool cards (${statuses.join(', ')})`);
    assert.ok(statuses.includes('status-completed'), 'at least one completed');
    assert.ok(!statuses.includes('status-in_progress') && !statuses.includes('status-pending'), `none still running (${statuses.join(', ')})`);
    await screenshot(page, 'chat-2-tool-cards');
  }));

test('an edit card opens VS Code\'s diff editor', T, () =>
  step(wb, 'edit', async (page) => {
    await send('[scenario:edit]');
    const diff = chat.locator('.diff').filter({ hasText: 'greeting.ts' }).first();
    await diff.waitFor();
    await idle();
    await screenshot(page, 'chat-3-edit-card');
    await diff.locator('button.open-diff').click();
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 20_000 });
    await page.locator('.tab', { hasText: /greeting\.ts.*zcode/ }).first().waitFor({ timeout: 20_000 });
    await screenshot(page, 'chat-4-open-diff');
    await runCommand(page, 'View: Close All Editors');
  }));

test('two questions: one dropdown pick + one "other" text → zcode gets exactly those answers', T, () =>
  step(wb, 'questions', async (page) => {
    const before = interactionReplies().length;
    await send('[scenario:questions]');
    const form = chat.locator('form.questions');
    await form.waitFor();
    const selects = form.locator('select');
    assert.equal(await selects.count(), 1, 'one dropdown (the single-select question)');
    await selects.first().selectOption({ label: 'Go' });
    // The multi-select question: no box ticked, its "other" field typed.
    const others = form.locator('.other-field input');
    assert.equal(await others.count(), 2, 'an "other" field under each question');
    await others.nth(1).fill('Integration tests');
    await screenshot(page, 'chat-5-question-form');
    await form.locator('button[type="submit"]').click();
    await chat.locator('.card.resolved', { hasText: 'Integration tests' }).waitFor();
    await waitUntil(() => interactionReplies().length > before, { what: 'the answer to reach zcode' });
    const reply = interactionReplies().at(-1);
    assert.deepEqual(reply, {
      action: 'accept',
      content: { answers: { 'Which language should the new service use?': 'Go', 'Which checks should run in CI?': 'Integration tests' } },
    });
    await idle();
    assert.match(await lastAgentText(), /You chose: /);
    await screenshot(page, 'chat-6-questions-answered');
  }));

test('plan feedback: approve with an empty box, then reject another plan with feedback', T, () =>
  step(wb, 'plan', async (page) => {
    let before = interactionReplies().length;
    await send('[scenario:plan]');
    const box = chat.locator('form.plan-feedback').last();
    await box.waitFor();
    const submit = box.locator('button[type="submit"]');
    assert.match(await submit.innerText(), /Approve plan/);
    await screenshot(page, 'chat-7-plan-box');
    await submit.click();
    await waitUntil(() => interactionReplies().length > before, { what: 'the approval to reach zcode' });
    assert.deepEqual(interactionReplies().at(-1), { action: 'accept', content: { answer_0: 'approve' } });
    await idle();
    assert.match(await lastAgentText(), /Plan approved, starting\./);

    before = interactionReplies().length;
    await send('[scenario:plan]');
    const second = chat.locator('form.plan-feedback').last();
    await second.waitFor();
    await second.locator('textarea').fill('Use argon2 instead of scrypt');
    const reject = second.locator('button[type="submit"]');
    assert.match(await reject.innerText(), /Reject with feedback/);
    await screenshot(page, 'chat-8-plan-feedback-typed');
    await reject.click();
    await waitUntil(() => interactionReplies().length > before, { what: 'the rejection to reach zcode' });
    assert.deepEqual(interactionReplies().at(-1), { action: 'decline', reason: 'Use argon2 instead of scrypt' });
    await idle();
    assert.match(await lastAgentText(), /Re-planning with your feedback: Use argon2 instead of scrypt/);
    await screenshot(page, 'chat-9-plan-rejected');
  }));

test('a permission prompt is answered from its card', T, () =>
  step(wb, 'permission', async (page) => {
    const before = interactionReplies().length;
    await send('[scenario:permission]');
    const card = chat.locator('section.permission');
    await card.waitFor();
    await screenshot(page, 'chat-10-permission');
    const buttons = await card.locator('button').allInnerTexts();
    assert.ok(buttons.length >= 2, `one button per option (${buttons.join(', ')})`);
    await card.locator('button').first().click();
    await waitUntil(() => interactionReplies().length > before, { what: 'the permission answer to reach zcode' });
    assert.deepEqual(interactionReplies().at(-1), { decision: 'allow' });
    await idle();
    assert.match(await lastAgentText(), /Permission granted/);
  }));

test('Stop cancels the running turn', T, () =>
  step(wb, 'stop', async (page) => {
    const stopsBefore = received('session/stop').length;
    await send('[scenario:long]');
    // The scenario holds each of its 6 rounds ≥ 250 ms even at speed 0: Stop lands mid-turn.
    const stop = chat.locator('button.stop');
    await stop.waitFor();
    await chat.locator('.message.agent, section.tool').last().waitFor();
    await screenshot(page, 'chat-11-running');
    await stop.click();
    await chat.locator('.notice', { hasText: 'Stopped.' }).waitFor({ timeout: 30_000 });
    await idle();
    await waitUntil(() => received('session/stop').length > stopsBefore, { what: 'session/stop to reach zcode' });
    await screenshot(page, 'chat-12-stopped');
  }));

test('the transcript survives hiding and re-showing the view (snapshot on ready)', T, () =>
  step(wb, 'reload', async (page) => {
    const count = await chat.locator('[data-item-id]').count();
    await openViewContainer(page, 'Explorer');
    await openViewContainer(page, 'ZCode');
    const again = webviewFrame(page);
    await again.locator('textarea.prompt-input').waitFor({ timeout: 30_000 });
    await waitUntil(async () => (await again.locator('[data-item-id]').count()) >= Math.min(count, 60), { what: 'the transcript to come back' });
    await screenshot(page, 'chat-13-after-reshow');
  }));

test('the webview reported no CSP violation and no uncaught error to the ZCode log', T, () =>
  step(wb, 'csp', async () => {
    const logs = join(wb.cs.dirs.userDataDir, 'logs');
    const files = existsSync(logs) ? readdirSync(logs, { recursive: true }).map(String).filter((f) => /ZCode\.log$/.test(f)) : [];
    assert.ok(files.length > 0, 'the ZCode log channel file exists');
    const text = files.map((f) => readFileSync(join(logs, f), 'utf8')).join('\n');
    assert.match(text, /chat webview: started/, 'the webview reports to this log (else the check below proves nothing)');
    const problems = text.split('\n').filter((l) => l.includes('chat webview:') && /CSP blocked|\[error\]/.test(l));
    assert.deepEqual(problems, []);
  }));
