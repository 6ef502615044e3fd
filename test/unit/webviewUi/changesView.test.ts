/**
 * The changes card and the checkpoint actions in happy-dom, through the contract (snapshot in,
 * commands out), like chatView.test.ts.
 */
import { click } from './dom.ts';
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionView, TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { bootChat, stopAll } from './bootChat.ts';

afterEach(stopAll);

const render = (session: Partial<SessionView>, items: TranscriptItem[]) => bootChat({ sessionId: 's1', ...session }, items);

test('the changes card: rows with +/- lines; Review all, a file name, Undo and Undo all send their commands', () => {
  const { root, sent } = render({}, [
    {
      type: 'changes',
      id: 'changes:c1',
      changeSetId: 'c1',
      prompt: 'fix it',
      files: [
        { path: '/w/src/a.ts', status: 'modified', added: 3, removed: 2, undone: false },
        { path: '/w/src/new.ts', status: 'created', added: 6, removed: 0, undone: true },
        { path: '/w/src/odd.ts', status: 'modified', added: 1, removed: 1, undone: false, beforeUnknown: true },
      ],
    },
  ]);
  const rows = [...root.querySelectorAll('li.changed-file')];
  assert.deepEqual(rows.map((r) => r.textContent?.replace(/\s+/g, ' ').trim()), ['a.ts+3 −2', 'new.ts+6 −0Undone', 'odd.ts+1 −1']);
  assert.match(root.querySelector('.card.changes .card-title')?.textContent ?? '', /3 files changed/);
  const odd = rows[2].querySelector('button.undo-file') as HTMLButtonElement;
  assert.equal(odd.disabled, true);
  assert.match(odd.title, /did not say what the file held/);
  click(root.querySelector('button.review-all')!);
  click(rows[0].querySelector('button.changed-path')!);
  click(rows[0].querySelector('button.undo-file')!);
  click(root.querySelector('button.undo-all')!);
  assert.deepEqual(sent('changes/review'), [{ changeSetId: 'c1' }, { changeSetId: 'c1', path: '/w/src/a.ts' }]);
  assert.deepEqual(sent('changes/undo'), [{ changeSetId: 'c1', path: '/w/src/a.ts' }, { changeSetId: 'c1' }]);
});

test('checkpoint actions: active with a checkpoint; inert with the reason otherwise (no checkpoint, a build without rewind)', () => {
  const { root, sent } = render({ checkpointUnavailable: { rewind: 'session/rewind is not supported by this zcode version' } }, [
    { type: 'user', id: 'user:1', text: 'first', attachments: [], checkpointId: 'c1' },
    { type: 'user', id: 'user:2', text: 'failed one', attachments: [] },
  ]);
  const [first, second] = [...root.querySelectorAll('.message.user')];
  const rewind1 = first.querySelector('button.rewind-here') as HTMLButtonElement;
  const fork1 = first.querySelector('button.fork-here') as HTMLButtonElement;
  assert.equal(rewind1.getAttribute('aria-disabled'), 'true');
  assert.match(rewind1.title, /not supported/);
  assert.equal(fork1.getAttribute('aria-disabled'), null);
  assert.match(fork1.title, /Fork from here/);
  assert.match((second.querySelector('button.fork-here') as HTMLButtonElement).title, /no checkpoint for this message/);
  click(rewind1);
  click(second.querySelector('button.fork-here')!);
  click(fork1);
  assert.deepEqual(sent('checkpoint/rewind'), [], 'inert buttons send nothing');
  assert.deepEqual(sent('checkpoint/fork'), [{ itemId: 'user:1' }]);
});

test('zcode rewind actions: Ask again only on the latest prompt, Undo file changes on each; inert with the reason where zcode cannot', () => {
  const items: TranscriptItem[] = [
    { type: 'user', id: 'user:1', text: 'first', attachments: [] },
    { type: 'agent', id: 'agent:1', text: 'done' },
    { type: 'user', id: 'user:2', text: 'second', attachments: [] },
  ];
  const { root, sent } = render({ featureUnavailable: { fileRewind: 'no v4 on this build' } }, items);
  const [first, second] = [...root.querySelectorAll('.message.user')];
  assert.equal(first.querySelector('button.ask-again'), null, 'Ask again offered on an earlier message');
  const askAgain = second.querySelector('button.ask-again') as HTMLButtonElement;
  assert.equal(askAgain.getAttribute('aria-disabled'), null);
  assert.match(askAgain.title, /^Ask again/);
  const undoFiles = first.querySelector('button.undo-turn-files') as HTMLButtonElement;
  assert.equal(undoFiles.getAttribute('aria-disabled'), 'true');
  assert.equal(undoFiles.title, 'Not available: no v4 on this build');
  click(undoFiles);
  click(askAgain);
  assert.deepEqual(sent('message/rewind'), [{ itemId: 'user:2', action: 'askAgain' }], 'inert buttons send nothing');
});

test('zcode rewind actions: a host that reports no availability offers none; a running turn makes them wait', () => {
  const items: TranscriptItem[] = [{ type: 'user', id: 'user:1', text: 'first', attachments: [] }];
  const older = render({}, items);
  assert.equal(older.root.querySelector('button.ask-again, button.undo-turn-files'), null);
  const running = render({ running: true, featureUnavailable: {} }, items);
  const askAgain = running.root.querySelector('button.ask-again') as HTMLButtonElement;
  assert.equal(askAgain.getAttribute('aria-disabled'), 'true');
  assert.match(askAgain.title, /once the turn has ended/);
});
