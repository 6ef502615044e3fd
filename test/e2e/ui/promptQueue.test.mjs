// The chat's prompt queue in the real VS Code (code-server + Chromium, the extension from the source
// tree, the real bridge, the simulator as zcode). Every prompt sent during a turn goes to the bridge at
// once and waits in the bridge's queue; the chat shows it as a chip until the bridge starts it:
//   - three prompts sent during a long turn show as three chips in order; Remove on the middle one
//     cancels its request: once the turn ends, the first runs, then the third; the removed one never
//     appears and never reaches zcode, and Remove cancels nothing else;
//   - Stop during a turn with prompts waiting cancels the session once: the turn stops, the chips go,
//     and none of the waiting prompts reaches zcode.
// Screenshots: $ARTIFACTS/ui/queue-*.png.
//
//   node --test test/e2e/ui/promptQueue.test.mjs        (after `npm run build`)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { log, openViewContainer, openWorkbench, readSimRecord, roomForTheChat, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 180_000 };
/**
 * A turn that ends by itself yet outlasts the test's actions while it runs: 40 rounds, each held at
 * least 250 ms by the simulator even at speed 0 (>= 10 s), and its last line says it is over.
 */
const LONG = '[scenario:long:40]';
const LONG_END = 'All 40 modules are done';
let wb;
let chat;

before(async () => {
  wb = await openWorkbench({ name: 'queue' });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('queue: chat ready');
});

after(async () => {
  await wb?.close();
});

/** Everything the simulator received, in arrival order. */
const received = () => readSimRecord(wb.simRecord).map(({ msg }) => msg).filter(Boolean);
/** The prompts zcode received (`session/send` contents), in order. */
const sends = () => received().filter((msg) => msg.method === 'session/send').map((msg) => String(msg.params?.content ?? ''));
/** The cancels zcode received: legacy `session/stop` and the v4 `stop` command. */
const stops = () => received().filter((msg) => msg.method === 'session/stop' || (msg.method === 'v4/command' && msg.params?.type === 'stop')).length;

/** The texts of the waiting chips, in the order shown. */
const chipTexts = () => chat.locator('.chips.queue .chip .chip-text').allInnerTexts();

/** The transcript in document order: `user:`, `agent:` and `notice:` entries with their visible text. */
const transcript = () =>
  chat.locator('body').evaluate((body) =>
    [...body.querySelectorAll('.message.user .message-text, .message.agent, .notice')].map((el) => {
      const kind = el.classList.contains('message-text') ? 'user' : el.classList.contains('agent') ? 'agent' : 'notice';
      return `${kind}:${el.textContent.replace(/\s+/g, ' ').trim()}`;
    }));

/** The index of the first transcript entry at or after `from` that starts with `kind:` and contains `text`. */
function indexOf(entries, kind, text, from = 0) {
  return entries.findIndex((e, i) => i >= from && e.startsWith(`${kind}:`) && e.includes(text));
}

/** Types `text` into the composer and sends it with Enter (during a turn: it queues). */
async function enter(text) {
  const input = chat.locator('textarea.prompt-input');
  await input.fill(text);
  await input.press('Enter');
  await waitUntil(async () => (await input.inputValue()) === '', { what: `the composer to take "${text}"` });
}

/** The long turn's answer after its prompt (`label`) in `entries`: -1 while it has not ended. */
function longTurnEnd(entries, label) {
  const prompt = indexOf(entries, 'user', label);
  return prompt < 0 ? -1 : indexOf(entries, 'agent', LONG_END, prompt);
}

/**
 * Starts the long turn (its prompt ends with `label`) and waits until zcode streams it: its first
 * step shows after its prompt. Returns how many prompts zcode had received before it.
 */
async function startLongTurn(label) {
  const before = sends().length;
  await enter(`${LONG} ${label}`);
  await chat.locator('button.stop').waitFor({ timeout: 30_000 });
  await waitUntil(async () => {
    const entries = await transcript();
    const prompt = indexOf(entries, 'user', label);
    return prompt >= 0 && indexOf(entries, 'agent', 'Step 1.', prompt) > prompt;
  }, { timeout: 30_000, what: `the first step of "${label}"` });
  assert.deepEqual(sends().slice(before).map((c) => c.includes(LONG)), [true], 'zcode received the long prompt, and only it');
  return before;
}

test('prompts sent during a turn wait as chips; Remove takes one out; the others run after the turn, in order', T, () =>
  step(wb, 'queue-remove', async (page) => {
    const [A, B, C] = ['queued prompt alpha', 'queued prompt bravo', 'queued prompt charlie'];
    const stopsBefore = stops();
    const sendsBefore = await startLongTurn('first turn');

    for (const text of [A, B, C]) {
      await enter(text);
      await chat.locator('.chips.queue .chip', { hasText: text }).waitFor({ timeout: 15_000 });
    }
    assert.deepEqual(await chipTexts(), [A, B, C], 'the chips show the prompts in the order they were sent');
    await screenshot(page, 'queue-1-three-chips');

    await chat.getByRole('button', { name: `Remove queued prompt: ${B}` }).click();
    await chat.locator('.chips.queue .chip', { hasText: B }).waitFor({ state: 'detached', timeout: 15_000 });
    assert.deepEqual(await chipTexts(), [A, C], 'only the removed chip went');
    // The first turn is still running: the removal happened while A and C were still waiting.
    assert.equal(longTurnEnd(await transcript(), 'first turn'), -1, 'the first turn ended before Remove: the test did not remove a waiting prompt');
    await screenshot(page, 'queue-2-bravo-removed');

    // The first turn ends by itself; A runs, then C; the chat is idle after C's answer.
    await chat.locator('.message.agent', { hasText: `You said: ${C}` }).waitFor({ timeout: 90_000 });
    await chat.locator('button.send').waitFor({ timeout: 30_000 });
    assert.equal(await chat.locator('.chips.queue .chip').count(), 0, 'no chip is left');
    await screenshot(page, 'queue-3-alpha-then-charlie');

    const entries = await transcript();
    // The first turn's prompt may have left the transcript's window (it renders the last items); its
    // answer is the only one of its kind in this session.
    const firstEnd = indexOf(entries, 'agent', LONG_END);
    const userA = indexOf(entries, 'user', A);
    const answerA = indexOf(entries, 'agent', `You said: ${A}`);
    const userC = indexOf(entries, 'user', C);
    const answerC = indexOf(entries, 'agent', `You said: ${C}`);
    const shown = `the transcript's tail: ${JSON.stringify(entries.slice(-8).map((e) => e.slice(0, 60)))}`;
    assert.ok(firstEnd >= 0, `the first turn's answer shows; ${shown}`);
    assert.ok(firstEnd < userA && userA < answerA && answerA < userC && userC < answerC,
      `first answer (${firstEnd}) < A (${userA}) < A's answer (${answerA}) < C (${userC}) < C's answer (${answerC}); ${shown}`);
    assert.ok(entries.slice(firstEnd + 1, userA).every((e) => !e.startsWith('user:')), `A follows the first turn directly; ${shown}`);
    assert.equal(entries.filter((e) => e.includes(B)).length, 0, `the removed prompt never shows; ${shown}`);

    // zcode received the long prompt, A and C, in that order; B never. Remove cancelled no turn.
    const got = sends().slice(sendsBefore);
    assert.equal(got.length, 3, `zcode received three prompts: ${JSON.stringify(got)}`);
    assert.ok(got[0].includes(LONG) && got[1].includes(A) && got[2].includes(C), `zcode received the long prompt, A, C in order: ${JSON.stringify(got)}`);
    assert.equal(stops(), stopsBefore, 'Remove sent no stop to zcode');
  }));

test('Stop with prompts waiting: the turn stops, the chips go, no waiting prompt reaches zcode, one stop does', T, () =>
  step(wb, 'queue-stop', async (page) => {
    const [D, E] = ['waiting prompt delta', 'waiting prompt echo'];
    const stopsBefore = stops();
    const sendsBefore = await startLongTurn('second turn');
    for (const text of [D, E]) {
      await enter(text);
      await chat.locator('.chips.queue .chip', { hasText: text }).waitFor({ timeout: 15_000 });
    }
    assert.deepEqual(await chipTexts(), [D, E]);

    await chat.locator('button.stop').click();
    await chat.locator('.notice', { hasText: 'Stopped.' }).last().waitFor({ timeout: 30_000 });
    await chat.locator('button.send').waitFor({ timeout: 30_000 });
    assert.equal(await chat.locator('.chips.queue .chip').count(), 0, 'the chips went with the Stop');
    assert.equal(longTurnEnd(await transcript(), 'second turn'), -1, 'the turn ended by itself before Stop: the test did not stop it');
    await waitUntil(() => stops() > stopsBefore, { what: 'the stop to reach zcode' });
    await screenshot(page, 'queue-4-stopped');

    // A round trip proves nothing more is on its way: a new prompt runs and answers; by then a
    // waiting prompt the bridge had let through would have reached zcode before it.
    const F = 'after the stop foxtrot';
    await enter(F);
    await chat.locator('.message.agent', { hasText: `You said: ${F}` }).waitFor({ timeout: 60_000 });
    await chat.locator('button.send').waitFor({ timeout: 30_000 });
    const got = sends().slice(sendsBefore);
    assert.equal(got.length, 2, `zcode received the long prompt and the one after the Stop only: ${JSON.stringify(got)}`);
    assert.ok(got[0].includes(LONG) && got[1].includes(F), JSON.stringify(got));
    assert.equal(stops() - stopsBefore, 1, 'exactly one stop reached zcode');
    const entries = await transcript();
    assert.equal(entries.filter((e) => e.includes(D) || e.includes(E)).length, 0, 'no waiting prompt became a message');
    const second = indexOf(entries, 'user', 'second turn');
    const stopped = indexOf(entries, 'notice', 'Stopped.', second);
    assert.ok(second >= 0 && second < stopped && stopped < indexOf(entries, 'user', F), 'the Stopped notice ends the stopped turn, before the next prompt');
  }));
