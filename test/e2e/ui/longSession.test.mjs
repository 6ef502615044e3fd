// Long sessions in the real VS Code (code-server + Chromium, the simulator as zcode): a session with
// 260 messages (130 turns) loads its tail only (the bridge's default 200 messages); scrolling to the
// top of the chat pages back through `_zcode/session/loadEarlier` and the earliest turns appear in
// front, in order. Screenshots: $ARTIFACTS/ui/long-*.png.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { copyWorkspace, openViewContainer, openWorkbench, readSimRecord, runCommand, screenshot, step, waitUntil, webviewFrame, log } from './harness.mjs';

const T = { timeout: 240_000 };
const TURNS = 130;
let wb;
let root;

/** The simulator's persisted session (sessions.mjs PERSISTED fields): TURNS question/answer pairs. */
function longSession(folder) {
  const now = Date.now() - TURNS * 60_000;
  const messages = [];
  for (let i = 0; i < TURNS; i++) {
    const turnId = `turn_${i}`;
    const createdAt = now + i * 60_000;
    messages.push({ info: { id: `msg_u${i}`, role: 'user', createdAt, turnId }, parts: [{ type: 'text', text: `Question number ${i}` }] });
    messages.push({ info: { id: `msg_a${i}`, role: 'assistant', createdAt: createdAt + 1000, turnId }, parts: [{ type: 'text', text: `Answer number ${i}` }] });
  }
  return { sessionId: 'sess_longhistory01', workspace: { workspacePath: folder }, title: 'A very long session', mode: 'build', createdAt: now, updatedAt: now + TURNS * 60_000, messages, checkpoints: [], todos: [] };
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'zcode-long-'));
  const folder = copyWorkspace(join(root, 'workspace'));
  const simState = join(root, 'sim-state');
  mkdirSync(simState);
  writeFileSync(join(simState, 'sess_longhistory01.json'), JSON.stringify(longSession(folder)));
  wb = await openWorkbench({ name: 'long', folder, env: { ZCODE_SIM_STATE_DIR: simState } });
});
after(async () => {
  if (wb && wb.consoleErrors.length) log(`long: console errors:\n  ${wb.consoleErrors.slice(0, 20).join('\n  ')}`);
  await wb?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a long session loads its tail; scrolling to the top brings the earlier turns in front', T, () =>
  step(wb, 'long', async (page) => {
    await openViewContainer(page, 'ZCode');
    const chat = webviewFrame(page);
    await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
    await runCommand(page, 'ZCode: Resume Session');
    const rows = page.locator('.quick-input-list .monaco-list-row');
    await rows.filter({ hasText: 'A very long session' }).first().click({ timeout: 30_000 });

    // textContent, not innerText: pages off screen skip layout (content-visibility), innerText is empty there.
    const userTexts = () => chat.locator('.message.user').evaluateAll((els) => els.map((el) => el.textContent ?? ''));
    await chat.locator('.message.agent', { hasText: `Answer number ${TURNS - 1}` }).waitFor({ timeout: 60_000 });
    const loads = readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/messages').length;
    assert.ok(loads >= 1);

    // The chat's own window first (clicks, no scrolling): it ends at the bridge's tail — 200 messages,
    // turns 30..129 — with the affordance for the host's earlier page at its top.
    const localMore = chat.locator('button.load-earlier', { hasText: /Show \d+ earlier items/ });
    // A DOM click: Playwright's own would scroll the button into view, and scrolling loads pages too.
    while ((await localMore.count()) > 0) await localMore.evaluate((el) => el.click());
    const atTop = await chat.locator('.transcript').evaluate((el) => ({
      affordance: el.querySelector('.load-earlier')?.textContent ?? '',
      first: el.querySelector('.message.user')?.textContent ?? '',
      users: el.querySelectorAll('.message.user').length,
    }));
    assert.equal(atTop.affordance, 'Show earlier messages');
    assert.deepEqual([atTop.first.trim(), atTop.users], [`Question number ${TURNS - 100}`, 100], 'the load replayed the tail only');
    await screenshot(page, 'long-0-tail');

    // Scroll up until the host has paged back to the first turn.
    const scroller = chat.locator('.transcript');
    const first = chat.locator('.message.user', { hasText: /^Question number 0$/ });
    await waitUntil(async () => {
      await scroller.evaluate((el) => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); });
      return (await first.count()) > 0;
    }, { timeout: 90_000, interval: 300, what: 'the first turn to appear after scrolling up' });
    // The page went in front with the viewport kept where it was; the top now shows the first turn.
    await scroller.evaluate((el) => { el.scrollTop = 0; });
    await screenshot(page, 'long-1-earliest-turns');

    // All turns, in order, each once; the tail is still at the end; no affordance left at the start.
    const texts = (await userTexts()).map((t) => t.trim());
    const numbers = texts.map((t) => Number(/Question number (\d+)/.exec(t)?.[1]));
    assert.deepEqual(numbers, Array.from({ length: TURNS }, (_, i) => i), 'every question once, oldest first');
    assert.equal(await chat.locator('.load-earlier').count(), 0, 'the start of the history: nothing more to load');
    assert.ok(readSimRecord(wb.simRecord).filter(({ msg }) => msg?.method === 'session/messages').length > loads, 'earlier pages came from zcode');
  }));
