/**
 * A settled card's answer in the UI language: the host's fixed words (viewModel.ts ANSWER_WORDS,
 * written by extension/chat/interactionView.ts) come out in Simplified Chinese with the real zh-cn
 * bundle, rendered through the chat in happy-dom; what the user or zcode wrote stays as sent.
 */
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { bootChat, stopAll } from './bootChat.ts';
import { setL10nBundle } from '../../../webview-ui/l10n.ts';
import { answerText } from '../../../webview-ui/answerText.ts';
import { summarizeElicitation } from '../../../extension/chat/interactionView.ts';
import { PLAN_FEEDBACK_FIELD } from '../../../shared/forms.ts';

const zhCn = JSON.parse(readFileSync(new URL('../../../l10n/bundle.l10n.zh-cn.json', import.meta.url), 'utf8')) as Record<string, string>;
afterEach(() => {
  stopAll();
  setL10nBundle({});
});

// The page would carry the bundle (boot reads it from the document); the test sets it after boot.
const render = (items: TranscriptItem[]): Element => bootChat({}, items, () => setL10nBundle(zhCn)).root;

const schema = { type: 'object' as const, properties: { [PLAN_FEEDBACK_FIELD]: { type: 'string' as const } } };

test('settled plan and permission cards say their outcome in Chinese; the user\'s feedback stays as typed', () => {
  const plan = { type: 'elicitation' as const, id: 'e:1', formKind: 'planFeedback' as const, message: 'Ready?', schema, state: 'answered' as const };
  const approved = summarizeElicitation(plan, { action: 'accept', content: { [PLAN_FEEDBACK_FIELD]: '' } });
  const redirected = summarizeElicitation(plan, { action: 'accept', content: { [PLAN_FEEDBACK_FIELD]: 'add tests first' } });
  const root = render([
    { ...plan, answer: approved },
    { ...plan, id: 'e:2', answer: redirected },
    { type: 'permission', id: 'p:1', title: 'npm test', options: [], state: 'answered', answer: 'Dismissed' },
  ]);
  const text = root.textContent ?? '';
  assert.match(text, /计划已批准/);
  assert.match(text, /已拒绝，反馈：add tests first/);
  assert.match(text, /已关闭/);
  assert.doesNotMatch(text, /Plan approved|Rejected with feedback|Dismissed/);
});

test('a question summary translates only "skipped"; without a bundle everything stays English', () => {
  setL10nBundle(zhCn);
  assert.equal(answerText('Which file?: skipped\nWhich checks?: lint, custom'), 'Which file?: 已跳过\nWhich checks?: lint, custom');
  assert.equal(answerText('Allow once'), 'Allow once', 'an option name is the bridge\'s, already in the client\'s language');
  setL10nBundle({});
  assert.equal(answerText('Plan approved'), 'Plan approved');
  assert.equal(answerText('Which file?: skipped'), 'Which file?: skipped');
});
