/**
 * A settled card's answer in the UI language: the host's fixed words (viewModel.ts ANSWER_WORDS,
 * written by extension/chat/interactionView.ts) come out in Simplified Chinese with the real zh-cn
 * bundle, rendered through the chat in happy-dom; what the user or zcode wrote stays as sent.
 */
import { document } from './dom.ts';
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { act } from 'preact/test-utils';
import { DidChangeSnapshotNotification } from '../../../webview-ui/contract.ts';
import { emptySessionView, type ChatSnapshot, type TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { startChat } from '../../../webview-ui/boot.ts';
import type { MessageSource } from '../../../webview-ui/ipc.ts';
import { setL10nBundle } from '../../../webview-ui/l10n.ts';
import { answerText } from '../../../webview-ui/answerText.ts';
import { summarizeElicitation } from '../../../extension/chat/interactionView.ts';
import { PLAN_FEEDBACK_FIELD } from '../../../shared/forms.ts';

const zhCn = JSON.parse(readFileSync(new URL('../../../l10n/bundle.l10n.zh-cn.json', import.meta.url), 'utf8')) as Record<string, string>;
const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
  setL10nBundle({});
});

function render(items: TranscriptItem[]): Element {
  const listeners = new Set<(e: { data: unknown }) => void>();
  const source: MessageSource = { addEventListener: (_t, l) => listeners.add(l), removeEventListener: (_t, l) => listeners.delete(l) };
  const root = document.createElement('div');
  document.body.appendChild(root);
  let stop: () => void = () => {};
  act(() => {
    stop = startChat({ postMessage: () => {}, getState: () => undefined, setState: () => {} }, source, root, (cb) => cb());
  });
  // The page would carry the bundle (boot reads it from the document); the test sets it after boot.
  setL10nBundle(zhCn);
  const snapshot: ChatSnapshot = { seq: 1, session: { ...emptySessionView(), connection: 'ready' }, items };
  act(() => listeners.forEach((l) => l({ data: { id: 'h1', method: DidChangeSnapshotNotification.method, params: snapshot } })));
  stops.push(() => (act(() => stop()), root.remove()));
  return root;
}

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
