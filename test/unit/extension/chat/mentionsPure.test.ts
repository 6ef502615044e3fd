/**
 * The vscode-free pieces behind `@` mentions and editor-tab chats: the `.gitignore` matcher, the
 * fuzzy ranking, embedding file text in a prompt, and routing permission prompts to the chat of
 * their session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { gitignoreMatcher } from '../../../../extension/chat/gitignore.ts';
import { fuzzyFilter, fuzzyScore } from '../../../../extension/chat/fuzzyMatch.ts';
import { buildPrompt, fileContents } from '../../../../extension/chat/prompt.ts';
import { ChatUiRouter, type RoutedChat } from '../../../../extension/chat/chatUiRouter.ts';
import type { Attachment } from '../../../../webview-ui/viewModel.ts';

test('gitignore: names at any depth, anchored paths, directories, globs, negation, comments', () => {
  const ignored = gitignoreMatcher(['# build output', 'node_modules/', '/dist', '*.log', '!keep.log', 'docs/**/*.tmp', 'a?c.txt', '\\#hash', ''].join('\n'));
  for (const path of ['node_modules/x/y.js', 'pkg/node_modules/z.js', 'dist/app.js', 'err.log', 'sub/dir/err.log', 'docs/a/b/c.tmp', 'docs/c.tmp', 'abc.txt', '#hash']) {
    assert.equal(ignored(path), true, path);
  }
  for (const path of ['src/dist/app.js', 'keep.log', 'src/a.ts', 'node_modules.txt', 'abbc.txt', 'docs.tmp']) {
    assert.equal(ignored(path), false, path);
  }
  assert.equal(gitignoreMatcher('build/')('build'), false, 'a directory-only pattern does not match a file of that name');
  assert.equal(gitignoreMatcher('')('anything'), false);
});

test('fuzzy: in-order subsequence; runs, word starts and the file name rank first', () => {
  assert.equal(fuzzyScore('xyz', 'src/greet.js'), undefined);
  assert.equal(fuzzyScore('', 'a'), 0);
  const paths = ['src/utils/greeting-helpers.ts', 'test/greet.test.js', 'src/greet.js', 'docs/guide/reference/entries.md'];
  assert.deepEqual(fuzzyFilter('greet', paths, (p) => p, 10), ['src/greet.js', 'test/greet.test.js', 'src/utils/greeting-helpers.ts', 'docs/guide/reference/entries.md'], 'scattered matches last');
  assert.deepEqual(fuzzyFilter('gjs', ['src/greet.js', 'go/main.go'], (p) => p, 10), ['src/greet.js']);
  assert.equal(fuzzyFilter('e', paths, (p) => p, 2).length, 2, 'the limit holds');
});

const file = (uri: string): Attachment => ({ kind: 'file', id: uri, name: uri.split('/').pop()!, uri });

test('prompt: file attachments are embedded when the agent takes embedded context and the text was read, else linked', async () => {
  const attachments = [file('file:///w/a.js'), file('file:///w/big.bin'), file('file:///w/a.js#L2-L3')];
  const read = async (uri: string) => (uri.includes('big') ? undefined : { text: `text of ${uri}`, mimeType: 'text/x-javascript' });
  const on = { image: false, embeddedContext: true };
  const contents = await fileContents(attachments, on, read);
  assert.deepEqual(buildPrompt('see', attachments, on, contents), [
    { type: 'text', text: 'see' },
    { type: 'resource', resource: { uri: 'file:///w/a.js', text: 'text of file:///w/a.js', mimeType: 'text/x-javascript' } },
    { type: 'resource_link', uri: 'file:///w/big.bin', name: 'big.bin' },
    { type: 'resource', resource: { uri: 'file:///w/a.js#L2-L3', text: 'text of file:///w/a.js#L2-L3', mimeType: 'text/x-javascript' } },
  ]);
  const off = { image: false, embeddedContext: false };
  let reads = 0;
  assert.equal((await fileContents(attachments, off, async () => (reads++, { text: 'x' }))).size, 0);
  assert.equal(reads, 0, 'nothing is read for an agent that takes links only');
  assert.deepEqual(buildPrompt('', [file('file:///w/a.js')], off, contents), [{ type: 'resource_link', uri: 'file:///w/a.js', name: 'a.js' }]);
  const failing = await fileContents([file('file:///w/x')], on, async () => Promise.reject(new Error('EACCES')));
  assert.equal(failing.size, 0, 'a read error leaves a link, not a failed prompt');
});

test('router: a prompt goes to the chat showing its session, else the sidebar, else the newest chat', async () => {
  const answered: string[] = [];
  const chat = (name: string, sessionId?: string): RoutedChat => ({
    session: { sessionId },
    requestPermission: async () => (answered.push(name), { outcome: { outcome: 'selected', optionId: name } }),
    createElicitation: async () => (answered.push(name), { action: 'cancel' }),
  });
  let registered = 0;
  const router = new ChatUiRouter(() => (registered++, { dispose: () => registered-- }));
  const ask = (sessionId: string) => router.requestPermission({ sessionId, toolCall: { toolCallId: 't' }, options: [] } as RequestPermissionRequest, new AbortController().signal);
  const panelA = router.add(chat('tab A', 'a'));
  assert.equal(registered, 1, 'registered with the host once a chat exists');
  router.add(chat('sidebar', 's'), true);
  router.add(chat('tab B', 'b'));
  await ask('b');
  await ask('a');
  await ask('unknown');
  assert.deepEqual(answered, ['tab B', 'tab A', 'sidebar']);
  panelA.dispose();
  await ask('a');
  assert.equal(answered.at(-1), 'sidebar', 'a closed tab no longer answers');
  assert.equal(registered, 1);
});
