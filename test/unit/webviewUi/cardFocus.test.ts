/**
 * No approval by accident: a new decision card takes focus only when the chat
 * had it (and then its heading, not a button), and a key that went down before the card appeared
 * decides nothing inside it.
 */
import { document, mount, unmount, setValue } from './dom.ts';
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { h, type ComponentChild } from 'preact';
import { act } from 'preact/test-utils';
import { ActionsContext } from '../../../webview-ui/actions.ts';
import type { ElicitationItem, PermissionItem } from '../../../webview-ui/viewModel.ts';
import { ElicitationCard, PermissionCard } from '../../../webview-ui/components/Interactions.tsx';
import { KeyHistoryContext } from '../../../webview-ui/components/useCardFocus.ts';
import { KeyHistory } from '../../../webview-ui/keyHistory.ts';
import { recordingActions } from './fakeActions.ts';

const PERMISSION: PermissionItem = {
  type: 'permission',
  id: 'p1',
  title: 'rm -rf build',
  kind: 'execute',
  options: [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
  ],
  state: 'pending',
};
const PLAN: ElicitationItem = {
  type: 'elicitation',
  id: 'e1',
  formKind: 'planFeedback',
  message: '1. Delete the build folder',
  schema: { type: 'object', properties: { feedback: { type: 'string', title: 'Feedback' } } },
  state: 'pending',
};

const keys = new KeyHistory();
const stopObserving = keys.observe(document);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Whether the page has focus, as the card sees it through `document.hasFocus()`. */
function pageFocused(focused: boolean): void {
  const original = document.hasFocus.bind(document);
  document.hasFocus = () => focused;
  cleanups.push(() => (document.hasFocus = original));
}

function render(card: ComponentChild) {
  const actions = recordingActions();
  const root = mount(h(KeyHistoryContext.Provider, { value: keys }, h(ActionsContext.Provider, { value: actions }, card)));
  cleanups.push(() => unmount(root));
  return { root, actions };
}

function press(target: Element, init: KeyboardEventInit & { key: string }, type: 'keydown' | 'keyup' = 'keydown'): KeyboardEvent {
  const event = new KeyboardEvent(type, { bubbles: true, cancelable: true, code: init.key === ' ' ? 'Space' : init.key, ...init });
  act(() => void target.dispatchEvent(event));
  return event;
}

describe('a new decision card', () => {
  test('focuses its heading, not a decision button, when the chat has focus', () => {
    pageFocused(true);
    const { root } = render(h(PermissionCard, { item: PERMISSION }));
    const heading = root.querySelector('.card-title');
    assert.equal(document.activeElement, heading);
    assert.equal(heading?.getAttribute('role'), 'heading');
  });

  test('leaves focus alone while the user is elsewhere (editor, terminal, another window)', () => {
    pageFocused(false);
    const before = document.activeElement;
    const { root } = render(h(PermissionCard, { item: PERMISSION }));
    assert.equal(document.activeElement, before);
    assert.ok(!root.contains(document.activeElement));
  });

  test('does not take focus from text the user is typing in the chat', () => {
    pageFocused(true);
    const composer = document.createElement('textarea');
    document.body.appendChild(composer);
    cleanups.push(() => composer.remove());
    composer.focus();
    setValue(composer, 'half a sentence');
    render(h(ElicitationCard, { item: PLAN }));
    assert.equal(document.activeElement, composer);
  });

  test('an Enter that went down before the card appeared does not approve it', () => {
    pageFocused(true);
    // The key goes down first (in the chat, e.g. the Enter that sent the prompt), then the card arrives.
    press(document.body, { key: 'Enter' });
    const { root, actions } = render(h(PermissionCard, { item: PERMISSION }));
    const allow = root.querySelector('button')!;
    allow.focus();
    const repeat = press(allow, { key: 'Enter', repeat: true });
    assert.equal(repeat.defaultPrevented, true, 'the repeating Enter is swallowed (no click)');
    press(allow, { key: 'Enter' }, 'keyup');
    const escape = press(allow, { key: 'Escape', repeat: true });
    assert.equal(escape.defaultPrevented, true);
    press(allow, { key: 'Escape' }, 'keyup');
    assert.deepEqual(actions.calls, []);
  });

  test('a held Space released on a button decides nothing; a fresh key press does', () => {
    pageFocused(true);
    press(document.body, { key: ' ' });
    const { root, actions } = render(h(PermissionCard, { item: PERMISSION }));
    const reject = root.querySelectorAll('button')[1]!;
    const release = press(reject, { key: ' ' }, 'keyup');
    assert.equal(release.defaultPrevented, true, 'the keyup of an early Space is swallowed (no click)');
    // A key pressed now, after the card appeared, works: Escape rejects.
    const escape = press(reject, { key: 'Escape' });
    assert.equal(escape.defaultPrevented, true);
    assert.deepEqual(actions.calls, [{ name: 'answerPermission', args: ['p1', 'reject'] }]);
  });

  test('a key whose start the chat never saw (it began in the editor) counts as early', () => {
    pageFocused(true);
    act(() => void document.defaultView?.dispatchEvent(new Event('blur')));
    const { root, actions } = render(h(ElicitationCard, { item: PLAN }));
    const box = root.querySelector('textarea')!;
    press(box, { key: 'Enter', repeat: true });
    assert.equal(actions.calls.length, 0, 'the plan was not approved by a repeating Enter from elsewhere');
    press(box, { key: 'Enter' }, 'keyup');
    press(box, { key: 'Enter' });
    assert.deepEqual(actions.calls.map((c) => c.name), ['answerElicitation'], 'a fresh Enter submits');
  });
});

test('KeyHistory stops observing when told', () => {
  stopObserving();
  const fresh = new KeyHistory();
  const stop = fresh.observe(document);
  press(document.body, { key: 'a' });
  stop();
  const later = new KeyboardEvent('keydown', { key: 'a', code: 'a', repeat: true });
  assert.equal(fresh.startOf(later), -Infinity, 'no start recorded after stop (the map was cleared)');
});
