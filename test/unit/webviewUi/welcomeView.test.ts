/**
 * The empty chat in happy-dom, through the contract (snapshot in, commands out): zcode not found
 * says so with its ways out; otherwise first prompts that start work; a failed turn is one line
 * with the action that fits.
 */
import { click } from './dom.ts';
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { act } from 'preact/test-utils';
import type { SessionView, TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { bootChat, stopAll } from './bootChat.ts';

afterEach(stopAll);

const render = (session: Partial<SessionView>, items: TranscriptItem[] = []) => bootChat(session, items);

const button = (root: Element, text: string): HTMLButtonElement => {
  const found = [...root.querySelectorAll('button')].find((b) => b.textContent?.includes(text));
  assert.ok(found, `a "${text}" button`);
  return found as HTMLButtonElement;
};

test('zcode not found: the empty chat says so with Locate zcode…, Open Settings and Install; no first prompts', () => {
  const { root, sent } = render({ notFound: 'zcode was not found. Tried: zcode.path: /nope; PATH: zcode; desktop app: /Applications/ZCode.app' });
  assert.match(root.querySelector('.welcome.setup')?.textContent ?? '', /zcode was not found on this computer/);
  act(() => click(button(root, 'Locate zcode…')));
  act(() => click(button(root, 'Open Settings')));
  act(() => click(button(root, 'Install ZCode')));
  assert.deepEqual(sent('setup/action'), [{ action: 'locate' }, { action: 'openSettings' }, { action: 'install' }]);
  assert.equal(root.querySelectorAll('.starter').length, 0);
});

test('zcode found: first prompts start work (a click sends one)', () => {
  const { root, sent } = render({ notFound: '' });
  const starters = root.querySelectorAll('.starter');
  assert.ok(starters.length >= 2);
  act(() => click(starters[0] as HTMLElement));
  assert.equal(sent('prompt/send').length, 1);
  assert.equal(root.querySelectorAll('.welcome.setup').length, 0);
});

test('a failed turn is one muted line; a captcha offers the desktop app, not Retry', () => {
  const { root, sent } = render({ sessionId: 's1' }, [
    { type: 'user', id: 'user:1', text: 'go', attachments: [] },
    { type: 'error', id: 'error:2', message: 'The model provider asked for a captcha verification', retryable: false, action: 'openDesktop' },
  ]);
  assert.equal(root.querySelectorAll('.turn-error').length, 1);
  assert.equal(root.querySelectorAll('.error-card').length, 0);
  assert.equal([...root.querySelectorAll('.turn-error button')].filter((b) => b.textContent?.includes('Retry')).length, 0);
  act(() => click(button(root, 'Open the ZCode desktop app')));
  assert.deepEqual(sent('turn/errorAction'), [{ action: 'openDesktop' }]);
});

test('a shell permission shows the command as a command with its description, not the raw JSON', () => {
  const { root } = render({ sessionId: 's1' }, [
    {
      type: 'permission',
      id: 'permission:1',
      title: 'Run `npm test`',
      kind: 'execute',
      input: '{\n  "command": "npm test",\n  "description": "Run the test suite"\n}',
      command: { line: 'npm test', description: 'Run the test suite' },
      options: [{ optionId: 'allow', name: 'Allow once', kind: 'allow_once' }],
      state: 'pending',
    },
  ]);
  assert.equal(root.querySelector('.shell-command code')?.textContent, 'npm test');
  assert.match(root.querySelector('.shell-command')?.textContent ?? '', /Run the test suite/);
  assert.equal(root.querySelectorAll('.permission pre.raw').length, 0);
});
