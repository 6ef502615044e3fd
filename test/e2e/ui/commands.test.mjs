// Playwright in the real web workbench (code-server + Chromium), the extension from the source tree and
// the simulator as zcode: a prompt typed in the chat starts a background shell task, the Background
// Tasks tree lists it and its inline Cancel button reaches zcode; "ZCode: Fork Session" from the
// command palette forks the session from the latest checkpoint. Screenshots: $ARTIFACTS/ui/commands-*.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  expectNotification, openWorkbench, openZcodeContainer, readSimRecord, runCommand, screenshot, step, waitUntil, webviewFrame,
} from './harness.mjs';

/** Messages zcode (the simulator) received with `method`. */
const received = (wb, method) => readSimRecord(wb.simRecord).map((e) => e.msg).filter((m) => m?.method === method);

let wb;
before(async () => {
  // Slow the simulator down (x6) so the background task runs long enough to be cancelled by a click.
  wb = await openWorkbench({ name: 'commands', env: { ZCODE_SIM_SPEED: '6' } });
});
after(async () => { await wb?.close(); });

/** The Background Tasks tree row of a task, by its description. */
const taskRow = (page, label) =>
  page.locator('#workbench\\.parts\\.sidebar .pane').filter({ has: page.locator('.pane-header', { hasText: 'Background Tasks' }) })
    .locator('.monaco-list-row').filter({ hasText: label }).first();

test('a background task appears in the tree and its inline Cancel button cancels it in zcode', { timeout: 180_000 }, () =>
  step(wb, 'cancel-inline', async (page) => {
    await openZcodeContainer(page);
    await screenshot(page, 'commands-1-empty');

    const composer = webviewFrame(page).locator('textarea[aria-label="Message zcode"]');
    await composer.waitFor({ timeout: 30_000 });
    await composer.fill('Build the project in the background [scenario:bash-bg]');
    await composer.press('Enter');

    const row = taskRow(page, 'Build the project');
    await row.waitFor({ timeout: 60_000 });
    await waitUntil(async () => /running/.test(await row.innerText()), { what: 'the task to show "running"' });
    await row.hover();
    await screenshot(page, 'commands-2-task-running');
    const cancel = row.locator('.actions .action-label[aria-label="Cancel Background Task"]');
    await cancel.click();

    await waitUntil(() => received(wb, 'session/cancelBackgroundTask').length > 0, { timeout: 15_000, what: 'zcode to receive session/cancelBackgroundTask' });
    const [cancelled] = received(wb, 'session/cancelBackgroundTask');
    assert.match(cancelled.params.taskId, /\S/);
    await waitUntil(async () => /cancelled/.test(await row.innerText()), { what: 'the item to turn cancelled' });
    assert.equal(await row.locator('.actions .action-label[aria-label="Cancel Background Task"]').count(), 0, 'a cancelled task still offers Cancel');
    await screenshot(page, 'commands-3-task-cancelled');
  }));

test('"ZCode: Fork Session" from the palette forks from the latest checkpoint', { timeout: 180_000 }, () =>
  step(wb, 'fork', async (page) => {
    // The launching turn has ended by now (the task was cancelled after it); wait for its checkpoint.
    await waitUntil(() => received(wb, 'session/send').length > 0, { what: 'the prompt to reach zcode' });
    await runCommand(page, 'ZCode: Fork Session');
    const latest = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Latest checkpoint' }).first();
    await latest.waitFor({ timeout: 15_000 });
    await screenshot(page, 'commands-4-fork-picker');
    await latest.click();
    await waitUntil(() => received(wb, 'session/fork').length > 0, { timeout: 30_000, what: 'zcode to receive session/fork' });
    const [fork] = received(wb, 'session/fork');
    assert.deepEqual(fork.params.target, { kind: 'latestCheckpoint' });
    await expectNotification(page, 'Forked into a new session', { timeout: 30_000 });
    await screenshot(page, 'commands-5-forked');
  }));
