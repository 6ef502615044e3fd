/**
 * The composer's `@` picker and file drops in happy-dom, with a recording host (the picker asks
 * it for candidates), plus the pure pieces: the `@word` at the caret and a drop's uri list.
 */
import { document, mount, unmount, setValue, key } from './dom.ts';
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { h } from 'preact';
import { act } from 'preact/test-utils';
import { ActionsContext } from '../../../webview-ui/actions.ts';
import { Composer } from '../../../webview-ui/components/Composer.tsx';
import { droppedUris, mentionAt, uriAttachment } from '../../../webview-ui/components/MentionPicker.tsx';
import { DEFAULT_CHAT_SETTINGS, type MentionCandidate } from '../../../webview-ui/contract.ts';
import { emptySessionView } from '../../../webview-ui/viewModel.ts';
import { ViewState } from '../../../webview-ui/viewState.ts';
import { recordingActions } from './fakeActions.ts';

const FILES: MentionCandidate[] = [
  { kind: 'editor', label: 'math.js', description: 'src/math.js', attachment: { kind: 'file', id: 'x1', name: 'math.js', uri: 'file:///w/src/math.js' } },
  { kind: 'file', label: 'greet.js', description: 'src/greet.js', attachment: { kind: 'file', id: 'x2', name: 'greet.js', uri: 'file:///w/src/greet.js' } },
];

const mounted: HTMLElement[] = [];
afterEach(() => {
  for (const m of mounted.splice(0)) unmount(m);
});

/** A composer whose host "finds" the FILES whose label contains the query. */
function composer() {
  const actions = recordingActions((query) => FILES.filter((f) => f.label.includes(query)));
  const root = mount(h(ActionsContext.Provider, { value: actions }, h(Composer, { session: { ...emptySessionView(), connection: 'ready' }, view: new ViewState(undefined), settings: DEFAULT_CHAT_SETTINGS })));
  mounted.push(root);
  const input = root.querySelector('textarea.prompt-input') as HTMLTextAreaElement;
  return { root, input, actions };
}

/** Lets the host's (promise) answer arrive and re-render. */
const settle = () => act(async () => {});

describe('@ mentions', () => {
  test('mentionAt: the @word before the caret, only at a word start', () => {
    assert.deepEqual(mentionAt('look at @gr', 11), { start: 8, query: 'gr' });
    assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
    assert.equal(mentionAt('mail me@example', 15), undefined, 'an @ inside a word is not a mention');
    assert.equal(mentionAt('@gr done', 8), undefined, 'the caret is past the word');
  });

  test('typing @ lists what the host found; Enter turns the pick into a chip and removes the @word', async () => {
    const { root, input, actions } = composer();
    setValue(input, 'Explain @gre');
    await settle();
    assert.deepEqual(actions.calls.filter((c) => c.name === 'searchMentions').map((c) => c.args[0]), ['gre']);
    const options = [...root.querySelectorAll('.mentions [role="option"]')];
    assert.deepEqual(options.map((o) => o.querySelector('.command-name')?.textContent), ['greet.js']);
    assert.equal(input.getAttribute('aria-activedescendant'), options[0].id);
    const enter = key(input, 'Enter');
    assert.equal(enter.defaultPrevented, true);
    assert.equal(input.value, 'Explain ');
    assert.deepEqual([...root.querySelectorAll('.attachments .chip-text')].map((c) => c.textContent), ['greet.js']);
    assert.equal(root.querySelectorAll('.mentions').length, 0, 'the picker closed');
    assert.equal(actions.calls.filter((c) => c.name === 'sendPrompt').length, 0, 'picking does not send');
    // The chip is removable, and the next Enter sends the file as an attachment.
    key(input, 'Enter');
    const sent = actions.calls.find((c) => c.name === 'sendPrompt');
    assert.deepEqual((sent?.args[1] as { uri: string }[]).map((a) => a.uri), ['file:///w/src/greet.js']);
  });

  test('Escape closes the picker and keeps the text; no match says so', async () => {
    const { root, input } = composer();
    setValue(input, '@zzz');
    await settle();
    assert.match(root.querySelector('.mentions')!.textContent!, /No matching files or symbols/);
    key(input, 'Escape');
    assert.equal(root.querySelectorAll('.mentions').length, 0);
    assert.equal(input.value, '@zzz');
  });

  test('files dropped on the chat (VS Code uri list) become chips', () => {
    const { root } = composer();
    const data = new DataTransfer();
    data.setData('application/vnd.code.uri-list', 'file:///w/src/math.js\r\nfile:///w/My%20Notes.txt');
    const drop = new Event('drop', { bubbles: true, cancelable: true }) as Event & { dataTransfer: DataTransfer };
    Object.defineProperty(drop, 'dataTransfer', { value: data });
    act(() => void document.dispatchEvent(drop));
    assert.equal(drop.defaultPrevented, true);
    assert.deepEqual([...root.querySelectorAll('.attachments .chip-text')].map((c) => c.textContent), ['math.js', 'My Notes.txt']);
  });

  test('droppedUris: text/uri-list comments and non-URIs are skipped; uriAttachment names by the last segment', () => {
    const data = { getData: (type: string) => (type === 'text/uri-list' ? '# a comment\nfile:///a/b.ts\n\nnot a uri\n' : '') };
    assert.deepEqual(droppedUris(data), ['file:///a/b.ts']);
    const a = uriAttachment('file:///a/src/');
    assert.equal(a.name, 'src');
    assert.equal(a.kind, 'file');
  });
});
