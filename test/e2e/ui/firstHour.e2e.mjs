// What a new user meets in the first hour, in the real VS Code (code-server + headless Chromium) with
// the zcode simulator: the `/` menu, a question that arrives while the Explorer is open, a failed
// send that keeps the text, a question form, a shell permission and failed turns in the user's
// language. Run once per display language by firstHour.test.mjs (English) and firstHourZh.test.mjs
// (Simplified Chinese, `--locale zh-cn`).
//
// Screenshots of each state go to $ARTIFACTS/screens/<phase>-<name>-<locale>.png (phase: $ZCODE_SCREENS_PHASE,
// default "after"), taken before the assertions so an older build still leaves its pictures.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ARTIFACTS, expectNotification, log, openViewContainer, openWorkbench, roomForTheChat, runCommand, step, waitUntil, webviewFrame } from './harness.mjs';

const T = { timeout: 120_000 };
const PHASE = process.env.ZCODE_SCREENS_PHASE || 'after';

/** @param {{ locale: 'en' | 'zh-cn' }} o */
export function firstHourSuite({ locale }) {
  const zh = locale === 'zh-cn';
  /** The text the user should see in this suite's language. */
  const L = (en, cn) => (zh ? cn : en);
  let wb;
  let chat;

  const shot = async (name) => {
    const dir = join(ARTIFACTS, 'screens');
    mkdirSync(dir, { recursive: true });
    await wb.page.screenshot({ path: join(dir, `${PHASE}-${name}-${locale}.png`) }).catch((e) => log(`screenshot ${name} failed: ${e.message}`));
  };
  const input = () => chat.locator('textarea.prompt-input');
  const send = async (text) => {
    await input().click();
    await input().fill(text);
    await input().press('Enter');
  };
  const idle = () => chat.locator('button.send').waitFor({ timeout: 60_000 });
  /** The outline a card's heading shows once focused (as the chat focuses it for screen readers). */
  const headingOutline = (card) =>
    card.locator('.card-title').first().evaluate((heading) => {
      heading.focus();
      return getComputedStyle(heading).outlineStyle;
    });
  /** A test that failed mid-turn leaves the next one a stopped turn and an empty input. */
  const settle = async () => {
    await openViewContainer(wb.page, 'ZCode');
    if (await chat.locator('button.stop').isVisible().catch(() => false)) await chat.locator('button.stop').click();
    await idle();
    await input().fill('');
  };

  before(async () => {
    wb = await openWorkbench({ name: `firstHour-${locale}`, ...(zh ? { locale } : {}) });
    await openViewContainer(wb.page, 'ZCode');
    await roomForTheChat(wb.page);
    chat = webviewFrame(wb.page);
    await input().waitFor({ timeout: 60_000 });
  });
  after(async () => {
    if (wb && wb.consoleErrors.length) log(`firstHour: console errors:\n  ${wb.consoleErrors.slice(0, 20).join('\n  ')}`);
    await wb?.close();
  });

  test('the empty chat says which zcode is connected, offers the pickers and first prompts', T, () =>
    step(wb, 'empty', async () => {
      const welcome = chat.locator('.welcome');
      await welcome.waitFor();
      await chat.locator('.welcome .starter').first().waitFor({ timeout: 30_000 }).catch(() => {});
      // Which zcode runs arrives once zcode has started and answered `--version`.
      const connected = chat.locator('.welcome .welcome-model', { hasText: zh ? /已连接 zcode \d+\.\d+\.\d+/ : /Connected to zcode \d+\.\d+\.\d+/ });
      await connected.waitFor({ timeout: 30_000 }).catch(() => {});
      await chat.locator('.welcome .starter', { hasText: 'zcode-demo-workspace' }).waitFor({ timeout: 30_000 }).catch(() => {});
      await shot('empty');
      assert.ok(await connected.isVisible(), `the empty chat names the zcode that runs: ${await welcome.innerText()}`);
      assert.match(await chat.locator('.welcome .welcome-model').innerText(), zh ? /模型：/ : /Model: /, 'and the model');
      assert.match(await welcome.innerText(), zh ? /开始|试试/ : /Start|Try/);
      assert.ok((await chat.locator('.welcome .starter').count()) >= 2, 'suggested first prompts');
      // For this workspace: the fixture's package.json names the project.
      assert.match(await chat.locator('.welcome .starter').first().innerText(), /zcode-demo-workspace/, 'the first prompt names this project');
      // The placeholder fits one line of the input at the default width.
      const fits = await input().evaluate((el) => {
        const probe = document.createElement('span');
        const cs = getComputedStyle(el);
        probe.style.font = cs.font;
        probe.style.whiteSpace = 'nowrap';
        probe.style.position = 'absolute';
        probe.textContent = el.placeholder;
        document.body.append(probe);
        const width = probe.getBoundingClientRect().width;
        probe.remove();
        return { width, room: el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) };
      });
      assert.ok(fits.width <= fits.room, `placeholder ${fits.width}px fits the input's ${fits.room}px`);
    }));

  test('typing / opens the command menu: it filters, arrows move, Escape closes, Enter picks', T, () =>
    step(wb, 'slash', async () => {
      await settle();
      await input().click();
      await input().fill('');
      await input().pressSequentially('/');
      const menu = chat.locator('ul.completions[role="listbox"]');
      await menu.waitFor({ timeout: 15_000 });
      await shot('slash-menu');
      const names = await menu.locator('[role="option"] .command-name').allInnerTexts();
      assert.ok(names.includes('/compact'), `the bridge's commands are listed (${names.join(' ')})`);
      const compact = menu.locator('[role="option"]', { has: chat.locator('.command-name', { hasText: /^\/compact$/ }) });
      assert.match(await compact.locator('.command-description').innerText(), zh ? /压缩对话历史/ : /Compact the conversation/, 'the bridge describes its commands in the user\'s language');
      await input().pressSequentially('comp');
      await waitUntil(async () => (await menu.locator('[role="option"]').count()) < names.length, { what: 'the menu to filter' });
      assert.equal(await menu.locator('[role="option"] .command-name').first().innerText(), '/compact');
      await input().press('Escape');
      await menu.waitFor({ state: 'hidden' });
      assert.equal(await input().inputValue(), '/comp', 'Escape closes the menu and keeps the text');
      await input().fill('');
      await input().pressSequentially('/');
      await menu.waitFor();
      await input().press('ArrowDown');
      const second = await menu.locator('[role="option"]').nth(1).locator('.command-name').innerText();
      assert.equal(await menu.locator('[role="option"][aria-selected="true"] .command-name').innerText(), second);
      await input().press('Enter');
      await menu.waitFor({ state: 'hidden' });
      assert.equal(await input().inputValue(), `${second} `, 'Enter put the chosen command in the input');
      await input().fill('');
    }));

  test('a question that arrives while the Explorer is open leaves the Explorer open; the badge and the notification tell', T, () =>
    step(wb, 'attention', async (page) => {
      await settle();
      await send('[scenario:question-later]');
      await chat.locator('.message.agent', { hasText: 'once you are ready' }).waitFor();
      await page.keyboard.press('Control+Shift+E');
      const explorer = page.locator('#workbench\\.parts\\.sidebar .composite.title', { hasText: /Explorer|资源管理器/ });
      await explorer.waitFor();
      // The Explorer shows: now the simulator asks (scenario question-later waits for this file).
      writeFileSync(join(wb.folder, '.zcode-sim-go'), '');
      await expectNotification(page, L('zcode needs your input', 'zcode 需要你的输入'), { timeout: 30_000 });
      await shot('question-while-explorer');
      assert.ok(await explorer.isVisible(), 'the Explorer is still the side bar');
      const badge = page.locator('.part.activitybar .action-item').filter({ has: page.locator('a.action-label[aria-label^="ZCode"]') }).locator('.badge-content');
      assert.equal((await badge.innerText()).trim(), '1', 'the ZCode activity-bar badge counts the waiting question');
      await openViewContainer(page, 'ZCode');
      const form = chat.locator('form.questions');
      await form.waitFor();
      await form.locator('button[type="submit"]').click();
      await idle();
      rmSync(join(wb.folder, '.zcode-sim-go'), { force: true });
    }));

  test('a question form speaks the user\'s language and is one card', T, () =>
    step(wb, 'questions', async () => {
      await settle();
      await send('[scenario:questions]');
      const form = chat.locator('form.questions');
      await form.waitFor();
      await form.scrollIntoViewIfNeeded();
      await shot('question-form');
      const text = await form.innerText();
      assert.match(text, zh ? /跳过此问题/ : /Skip this question/);
      assert.doesNotMatch(text, zh ? /Please answer|Skip this question|or type a custom value/ : /请回答/);
      // One card: no tool card for the questions beside the form (its title names the questions).
      assert.equal(await chat.locator('section.tool').filter({ hasText: /AskUserQuestion|\d+ questions|Question/ }).count(), 0, 'no tool card beside the form');
      await form.locator('button[type="submit"]').click();
      await idle();
    }));

  test('a shell permission shows the command as a command, its options in the user\'s language', T, () =>
    step(wb, 'permission', async () => {
      await settle();
      await send('[scenario:permission]');
      const card = chat.locator('.card.permission').last();
      await card.waitFor();
      await card.scrollIntoViewIfNeeded();
      await shot('shell-permission');
      // One card: the tool's own card waits behind the permission (it would show the command twice).
      assert.equal(await chat.locator('section.tool').filter({ hasText: 'npm test' }).count(), 0, 'no tool card beside the permission');
      assert.equal(await headingOutline(card), 'none', 'no focus rectangle on the card heading');
      assert.equal((await card.locator('.shell-command code').innerText()).trim(), 'npm test');
      assert.match(await card.innerText(), /Run the test suite/);
      assert.doesNotMatch(await card.innerText(), /"command"/, 'no raw JSON');
      const buttons = await card.locator('button').allInnerTexts();
      assert.ok(buttons.some((b) => b.includes(L('Allow once', '允许一次'))), `options: ${buttons.join(' | ')}`);
      await card.locator('button', { hasText: L('Allow once', '允许一次') }).click();
      await idle();
      // Answered, the tool card comes back below the permission with the command's output.
      await chat.locator('section.tool').filter({ hasText: 'npm test' }).last().waitFor();
    }));

  test('the plan box: one card, its feedback field inside it, "empty = approve" said once, no focus rectangle on its heading', T, () =>
    step(wb, 'plan', async () => {
      await settle();
      await send('[scenario:plan]');
      const card = chat.locator('form.plan-feedback');
      await card.waitFor();
      await card.scrollIntoViewIfNeeded();
      await shot('plan-box');
      const box = await card.evaluate((form) => {
        const field = form.querySelector('textarea');
        const outer = form.getBoundingClientRect();
        const inner = field?.getBoundingClientRect();
        return { cardRight: outer.right, cardLeft: outer.left, fieldRight: inner?.right ?? Infinity, fieldLeft: inner?.left ?? -Infinity };
      });
      assert.ok(box.fieldRight <= box.cardRight, `the feedback field's right edge ${box.fieldRight}px is inside the card's ${box.cardRight}px`);
      assert.ok(box.fieldLeft >= box.cardLeft, `the feedback field's left edge ${box.fieldLeft}px is inside the card's ${box.cardLeft}px`);
      const text = await card.innerText();
      // The rule ("leave it empty to approve") is said once, however it is worded.
      const rule = zh ? /留空/g : /\bempty\b/gi;
      assert.equal(text.match(rule)?.length ?? 0, 1, `"empty = approve" once in: ${text}`);
      assert.equal(await chat.locator('section.tool').filter({ hasText: /Plan ready for approval|计划待批准/ }).count(), 0, 'no tool card beside the plan box');
      assert.equal(await headingOutline(card), 'none', 'no focus rectangle on the card heading');
      await card.locator('button[type="submit"]').click();
      await idle();
    }));

  test('a failed turn: one muted line, the cause in words, the action that fits, the text back in the input', T, () =>
    step(wb, 'failed', async () => {
      await settle();
      const before = await chat.locator('.turn-error').count();
      await send('[scenario:fail-captcha]');
      await idle();
      await chat.locator('.turn-error, .error-card').last().scrollIntoViewIfNeeded().catch(() => {});
      await shot('failed-turn');
      await chat.locator('.turn-error').nth(before).waitFor();
      assert.equal(await chat.locator('.turn-error').count(), before + 1, 'one error line for the failed turn');
      const line = chat.locator('.turn-error').last();
      assert.equal(await line.locator('button', { hasText: L('Retry', '重试') }).count(), 0, 'no Retry for a captcha');
      await line.locator('button', { hasText: L('Open the ZCode desktop app', '打开 ZCode 桌面应用') }).waitFor();
      assert.match(await line.innerText(), zh ? /验证码/ : /captcha/i);
      assert.equal(await input().inputValue(), '[scenario:fail-captcha]', 'the failed prompt is back in the input');
      await input().fill('');
    }));

  test('automatic retries: the partial answer is not repeated, no retry notice inside a thought, one error line', T, () =>
    step(wb, 'retries', async () => {
      await settle();
      const before = await chat.locator('.message.agent').count();
      const errors = await chat.locator('.turn-error').count();
      await send('[scenario:fail-rate-limit]');
      // The turn ends with its error line after the automatic retries (zcode's retryTurn): wait for
      // that line, not for the Send button, which shows before the turn has even started.
      await chat.locator('.turn-error').nth(errors).waitFor({ timeout: 60_000 });
      await idle();
      await chat.locator('.turn-error, .error-card').last().scrollIntoViewIfNeeded().catch(() => {});
      await shot('retried-turn');
      const texts = await chat.locator('.message.agent').allInnerTexts();
      const repeated = texts.slice(before).join('\n').split('Working on it').length - 1;
      assert.ok(repeated <= 1, `the failed attempts' text shows at most once (${repeated} times)`);
      assert.equal(await chat.locator('.turn-error').count(), errors + 1, 'one error line for the turn');
      assert.equal(await chat.locator('.thought', { hasText: /retrying/ }).count(), 0, 'no retry notice inside a thought');
      await input().fill('');
    }));
}
