/**
 * The whole webview in happy-dom, driven through the contract like the host does: snapshot and
 * patches in, commands out. Covers the composer, slash completion, busy controls, tool cards.
 */
import { document, setValue, key, click, button } from './dom.ts';
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { act } from 'preact/test-utils';
import {
  DidChangeSettingsNotification,
  DidChangeSnapshotNotification,
  FocusInputNotification,
  DidPatchNotification,
  DidRestoreDraftNotification,
  type IpcMessage,
} from '../../../webview-ui/contract.ts';
import { emptySessionView, type ChatSnapshot, type SessionView, type TranscriptItem } from '../../../webview-ui/viewModel.ts';
import type { ChatPatch } from '../../../webview-ui/transcriptOps.ts';
import { startChat } from '../../../webview-ui/boot.ts';
import type { MessageSource } from '../../../webview-ui/ipc.ts';

function harness(initialState?: unknown) {
  const posted: IpcMessage[] = [];
  const listeners = new Set<(e: { data: unknown }) => void>();
  const source: MessageSource = { addEventListener: (_t, l) => listeners.add(l), removeEventListener: (_t, l) => listeners.delete(l) };
  let saved: unknown = initialState;
  const root = document.createElement('div');
  document.body.appendChild(root);
  let stop: () => void = () => {};
  act(() => {
    stop = startChat({ postMessage: (m) => posted.push(m as IpcMessage), getState: () => saved, setState: (s) => (saved = s) }, source, root, (cb) => cb());
  });
  let n = 0;
  const deliver = (method: string, params: unknown) => act(() => listeners.forEach((l) => l({ data: { id: `h${++n}`, method, params } })));
  const snapshot = (session: Partial<SessionView>, items: TranscriptItem[] = [], seq = 1) =>
    deliver(DidChangeSnapshotNotification.method, { seq, session: { ...emptySessionView(), connection: 'ready', sessionId: 's1', ...session }, items } satisfies ChatSnapshot);
  const patch = (p: ChatPatch) => deliver(DidPatchNotification.method, p);
  const deliverCompletion = (requestId: string, value: unknown) =>
    listeners.forEach((l) => l({ data: { id: `h${++n}`, method: 'chat/session/list/completion', completionId: requestId, params: { ok: true, value } } }));
  const commands = (method?: string) => posted.filter((m) => !method || m.method === `chat/${method}`);
  return { root, posted, snapshot, patch, commands, deliver, deliverCompletion, saved: () => saved, stop: () => (act(() => stop()), root.remove()) };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function open(initialState?: unknown) {
  const h = harness(initialState);
  cleanups.push(h.stop);
  return h;
}

describe('chat webview', () => {
  test('says ready on start and after a missed patch; renders snapshot and streamed patches', () => {
    const h = open();
    assert.deepEqual(h.commands('ready').map((m) => m.params), [{ reason: 'start' }]);
    h.snapshot({ title: 'Fix login' }, [{ type: 'user', id: 'u1', text: 'hi', attachments: [] }]);
    assert.equal(h.root.querySelector('h1')?.textContent, 'Fix login');
    h.patch({ seq: 2, ops: [{ op: 'upsert', item: { type: 'agent', id: 'a1', text: '**Hel' } }], session: { running: true } });
    h.patch({ seq: 3, ops: [{ op: 'append', id: 'a1', field: 'text', text: 'lo**' }] });
    assert.equal(h.root.querySelector('.message.agent strong')?.textContent, 'Hello');
    h.patch({ seq: 5, ops: [] });
    assert.deepEqual(h.commands('ready').map((m) => m.params), [{ reason: 'start' }, { reason: 'resync' }]);
  });

  test('Enter sends, Shift+Enter does not; the draft clears', () => {
    const h = open();
    h.snapshot({});
    const input = h.root.querySelector('textarea.prompt-input')!;
    setValue(input, 'line one');
    const shift = key(input, 'Enter', { shiftKey: true });
    assert.equal(shift.defaultPrevented, false, 'Shift+Enter keeps the newline');
    assert.equal(h.commands('prompt/send').length, 0);
    setValue(input, 'Explain this');
    key(input, 'Enter');
    assert.deepEqual(h.commands('prompt/send').map((m) => m.params), [{ text: 'Explain this', attachments: [] }]);
    assert.equal((h.root.querySelector('textarea.prompt-input') as HTMLTextAreaElement).value, '');
  });

  test('slash completion from available commands: filter, arrow, Tab accepts', () => {
    const h = open();
    h.snapshot({ commands: [{ name: 'compact', description: 'Compact the conversation' }, { name: 'goal', description: 'Set a goal' }, { name: 'fork', description: 'Fork' }] });
    const input = h.root.querySelector('textarea.prompt-input')!;
    setValue(input, '/');
    assert.equal(h.root.querySelectorAll('[role="option"]').length, 3);
    setValue(input, '/go');
    const options = [...h.root.querySelectorAll('[role="option"]')];
    assert.deepEqual(options.map((o) => o.querySelector('.command-name')?.textContent), ['/goal']);
    assert.equal(input.getAttribute('aria-activedescendant'), options[0].id);
    key(input, 'Tab');
    assert.equal((h.root.querySelector('textarea.prompt-input') as HTMLTextAreaElement).value, '/goal ');
    assert.equal(h.root.querySelectorAll('[role="option"]').length, 0);
    assert.equal(h.commands('prompt/send').length, 0, 'accepting a completion does not send');
  });

  test('while a turn runs: Stop cancels, Enter queues, Alt+Enter steers; chips show queue and steer state', () => {
    const h = open();
    h.snapshot({ running: true, queue: [{ id: 'q1', text: 'later', attachments: [] }], steer: 'queued' });
    click(button(h.root, 'Stop'));
    assert.equal(h.commands('turn/cancel').length, 1);
    const input = h.root.querySelector('textarea.prompt-input')!;
    setValue(input, 'use vitest');
    assert.ok(button(h.root, 'Steer') && button(h.root, 'Queue'));
    assert.match((input as HTMLTextAreaElement).placeholder, /Enter queues .* Alt\+Enter steers/);
    key(input, 'Enter', { altKey: true });
    assert.deepEqual(h.commands('prompt/steer').map((m) => m.params), [{ text: 'use vitest' }]);
    setValue(input, 'then deploy');
    key(input, 'Enter');
    assert.deepEqual(h.commands('prompt/send').map((m) => m.params), [{ text: 'then deploy', attachments: [] }]);
    assert.equal(h.commands('prompt/steer').length, 1, 'the plain send key never steers');
    assert.match(h.root.querySelector('.queue')!.textContent!, /later/);
    assert.match(h.root.querySelector('.steer-chip')!.textContent!, /Steer queued/);
    click(h.root.querySelector('[aria-label="Remove queued prompt: later"]'));
    assert.deepEqual(h.commands('prompt/removeQueued').map((m) => m.params), [{ id: 'q1' }]);
  });

  test("another client's waiting prompt: a chip with its sender and no Remove, after this chat's own", () => {
    const h = open();
    h.snapshot({ running: true, queue: [{ id: 'q1', text: 'mine', attachments: [] }, { id: 'other:1:', text: 'theirs', attachments: [], from: 'toad' }] });
    const chips = [...h.root.querySelectorAll('.chips.queue .chip')];
    assert.deepEqual(chips.map((c) => c.querySelector('.chip-text')?.textContent), ['mine', 'theirs']);
    assert.equal(chips[1].querySelector('.chip-from')?.textContent, 'from toad');
    assert.equal(chips[1].querySelector('button'), null, "another client's prompt cannot be removed here");
    assert.ok(chips[0].querySelector('[aria-label="Remove queued prompt: mine"]'));
  });

  test('zcode.chat.sendKey = ctrlEnter: Enter is a new line, Ctrl+Enter sends; the font size follows the setting', () => {
    const h = open();
    h.snapshot({});
    h.deliver(DidChangeSettingsNotification.method, { sendKey: 'ctrlEnter', fontSize: 17 });
    const input = h.root.querySelector('textarea.prompt-input') as HTMLTextAreaElement;
    assert.match(input.placeholder, /Ctrl\+Enter sends, Enter for a new line/);
    setValue(input, 'two');
    assert.equal(key(input, 'Enter').defaultPrevented, false, 'Enter keeps its newline');
    assert.equal(h.commands('prompt/send').length, 0);
    key(input, 'Enter', { ctrlKey: true });
    assert.deepEqual(h.commands('prompt/send').map((m) => m.params), [{ text: 'two', attachments: [] }]);
    assert.equal(document.documentElement.style.getPropertyValue('--zcode-chat-font-size'), '17px');
    h.deliver(DidChangeSettingsNotification.method, { sendKey: 'enter', fontSize: 0 });
    assert.equal(document.documentElement.style.getPropertyValue('--zcode-chat-font-size'), '');
  });

  test('screen readers: the transcript is not a live region; a finished answer and a new card are announced once', () => {
    const h = open();
    const pending: TranscriptItem = { type: 'permission', id: 'p0', title: 'old', options: [], state: 'pending' };
    h.snapshot({ running: true }, [pending, { type: 'agent', id: 'a1', text: '' }]);
    const transcript = h.root.querySelector('.transcript')!;
    assert.equal(transcript.getAttribute('aria-live'), null);
    assert.notEqual(transcript.getAttribute('role'), 'log', 'role=log is an implicit polite live region');
    const announcer = h.root.querySelector('.announcer')!;
    assert.equal(announcer.getAttribute('aria-live'), 'polite');
    assert.equal(announcer.textContent, '', 'cards already there when the view starts are not announced again');
    h.patch({ seq: 2, ops: [{ op: 'append', id: 'a1', field: 'text', text: 'Half of the ans' }] });
    assert.equal(announcer.textContent, '', 'streamed deltas are not announced');
    h.patch({ seq: 3, ops: [{ op: 'append', id: 'a1', field: 'text', text: 'wer.' }], session: { running: false } });
    assert.equal(announcer.textContent, 'zcode finished: Half of the answer.');
    h.patch({ seq: 4, ops: [{ op: 'upsert', item: { type: 'permission', id: 'p1', title: 'rm -rf build', options: [], state: 'pending' } }] });
    assert.equal(announcer.textContent, 'Permission needed: rm -rf build');
  });

  test('copy: a message copies its markdown from its hover button; Copy All asks the host', () => {
    const h = open();
    h.snapshot({}, [{ type: 'agent', id: 'a1', text: 'Use **vitest**.' }]);
    const message = h.root.querySelector('.message.agent')!;
    assert.deepEqual(JSON.parse(message.getAttribute('data-vscode-context')!), { webviewSection: 'message', itemId: 'a1', preventDefaultContextMenuItems: true });
    click(message.querySelector('button.copy-message'));
    assert.deepEqual(h.commands('clipboard/copy').map((m) => m.params), [{ text: 'Use **vitest**.' }]);
    click(h.root.querySelector('button.copy-all'));
    assert.equal(h.commands('transcript/copy').length, 1);
  });

  test('"Focus Chat Input" moves the keyboard to the composer', () => {
    const h = open();
    h.snapshot({});
    h.deliver(FocusInputNotification.method, {});
    assert.equal(document.activeElement, h.root.querySelector('textarea.prompt-input'));
  });

  test('edit card: compact diff and Open Diff; terminal tail with expand; status shown', () => {
    const h = open();
    const lines = Array.from({ length: 30 }, (_, i) => `\x1b[32mline ${i + 1}\x1b[0m`).join('\n');
    h.snapshot({}, [
      {
        type: 'tool',
        id: 'tool:e1',
        toolCallId: 'e1',
        title: 'Edit src/a.ts',
        kind: 'edit',
        status: 'completed',
        content: [{ type: 'diff', index: 0, path: '/w/src/a.ts', isNew: false, added: 1, removed: 1, truncated: false, lines: [{ t: '-', text: 'old' }, { t: '+', text: 'new' }] }],
        locations: [],
      },
      {
        type: 'tool',
        id: 'tool:b1',
        toolCallId: 'b1',
        title: 'npm test',
        kind: 'execute',
        status: 'in_progress',
        content: [{ type: 'terminal', terminalId: 'b1' }],
        locations: [],
        terminal: { terminalId: 'b1', output: lines, truncated: false, exited: false },
      },
    ]);
    const [edit, shell] = [...h.root.querySelectorAll('section.tool')];
    assert.match(edit.getAttribute('aria-label')!, /Edit src\/a\.ts: Done/);
    assert.deepEqual([...edit.querySelectorAll('.diff-line')].map((l) => l.className), ['diff-line del', 'diff-line add']);
    click(button(edit, 'Open Diff'));
    assert.deepEqual(h.commands('diff/open').map((m) => m.params), [{ toolCallId: 'e1', index: 0 }]);
    const out = () => shell.querySelector('.terminal-output')!.textContent!;
    assert.equal(out().split('\n').length, 12, 'tail only');
    assert.ok(out().endsWith('line 30'));
    assert.ok(!out().includes('\x1b'), 'escape codes never reach the DOM');
    assert.equal(shell.querySelector('.ansi-fg-2')?.textContent, 'line 19');
    click(button(shell, /Show all 30 lines/));
    assert.equal(out().split('\n').length, 30);
  });

  test('thoughts are collapsed by default and expand on click', () => {
    const h = open();
    h.snapshot({}, [{ type: 'thought', id: 'th', text: 'secret reasoning' }]);
    assert.ok(!h.root.textContent!.includes('secret reasoning'));
    const toggle = h.root.querySelector('.thought .section-toggle')!;
    assert.equal(toggle.getAttribute('aria-expanded'), 'false');
    click(toggle);
    assert.ok(h.root.textContent!.includes('secret reasoning'));
  });

  test('errors offer Retry; the code block copy button copies through the host', () => {
    const h = open();
    h.snapshot({}, [
      { type: 'agent', id: 'a', text: '```sh\nnpm test\n```' },
      { type: 'error', id: 'e', message: 'zcode is not running.', retryable: true },
    ]);
    click(button(h.root, 'Retry'));
    assert.deepEqual(h.commands('turn/retry').map((m) => m.params), [{ itemId: 'e' }]);
    click(h.root.querySelector('[data-action="copy-code"]'));
    assert.deepEqual(h.commands('clipboard/copy').map((m) => m.params), [{ text: 'npm test\n' }]);
  });

  test('config pickers and the context meter', () => {
    const h = open();
    h.snapshot({
      usage: { used: 150000, size: 200000 },
      configOptions: [
        { id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: 'glm-5', options: [{ value: 'glm-5', name: 'GLM-5' }, { value: 'glm-5-air', name: 'GLM-5 Air' }] },
        { id: 'mode', name: 'Mode', category: 'mode', type: 'select', currentValue: 'plan', options: [{ value: 'plan', name: 'Plan' }, { value: 'build', name: 'Build' }] },
      ],
    });
    const pickers = [...h.root.querySelectorAll('select.picker')];
    assert.deepEqual(pickers.map((p) => p.getAttribute('aria-label')), ['Mode', 'Model'], 'mode first, then model');
    setValue(pickers[1], 'glm-5-air', 'change');
    assert.deepEqual(h.commands('config/set').map((m) => m.params), [{ configId: 'model', value: 'glm-5-air' }]);
    const meter = h.root.querySelector('[role="meter"]')!;
    assert.equal(meter.getAttribute('aria-valuenow'), '150000');
    assert.match(meter.textContent!, /150k \/ 200k/);
  });

  test('the plan quota beside the context meter: what is left, when it resets, stale marked', () => {
    const h = open();
    h.snapshot({ planQuota: { label: '5-hour window', remainingPercent: 8, resetsAt: '2026-12-02T09:00:00.000Z', stale: true } });
    const meter = h.root.querySelector('.plan-quota[role="meter"]')!;
    assert.ok(meter, 'the plan meter is shown even before any context usage');
    assert.equal(meter.getAttribute('aria-valuenow'), '8');
    assert.match(meter.getAttribute('aria-label')!, /5-hour window: 8% left · resets .+ · stale/);
    assert.ok(meter.classList.contains('high') && meter.classList.contains('stale'));
    assert.match(meter.textContent!, /8%\?/);
  });

  test('session menu: new, fork, and resume from the list the host returns', async () => {
    const h = open();
    h.snapshot({});
    click(h.root.querySelector('[aria-haspopup="menu"]'));
    const request = h.commands('session/list')[0];
    assert.ok(request, 'the menu asks the host for the sessions');
    await act(async () => {
      h.deliverCompletion(request.id, { sessions: [{ sessionId: 'old-1', title: 'Earlier work', updatedAt: new Date(Date.now() - 7200_000).toISOString() }] });
      await new Promise((r) => setTimeout(r, 0));
    });
    const entry = h.root.querySelector('.session-entry')!;
    assert.match(entry.textContent!, /Earlier work/);
    assert.match(entry.textContent!, /2 h ago/);
    click(entry);
    assert.deepEqual(h.commands('session/load').map((m) => m.params), [{ sessionId: 'old-1' }]);
    assert.equal(h.root.querySelector('[role="menu"]'), null, 'the menu closes');
    click(h.root.querySelector('[aria-haspopup="menu"]'));
    click(button(h.root, 'Fork this session'));
    click(h.root.querySelector('[aria-label="New session"]'));
    assert.equal(h.commands('session/fork').length, 1);
    assert.equal(h.commands('session/new').length, 1);
  });

  test('long transcripts render the last pages only, a page a frame; "Show earlier" adds a page', async () => {
    const h = open();
    const items: TranscriptItem[] = Array.from({ length: 200 }, (_, i) => ({ type: 'user', id: `u${i}`, text: `message ${i}`, attachments: [] }));
    h.snapshot({}, items);
    const ids = () => [...h.root.querySelectorAll('[data-item-id]')].map((e) => e.getAttribute('data-item-id'));
    assert.deepEqual([ids().length, ids()[0]], [20, 'u180'], 'the first frame holds the last page');
    for (let frame = 0; frame < 10 && ids().length < 60; frame++) await act(() => new Promise<void>((r) => requestAnimationFrame(() => r())));
    assert.equal(ids().length, 60);
    assert.equal(ids()[0], 'u140');
    assert.equal(h.root.querySelectorAll('.page').length, 3);
    click(button(h.root, 'Show 20 earlier items'));
    assert.equal(ids().length, 80);
    assert.equal(ids()[0], 'u120');
    h.patch({ seq: 2, ops: [{ op: 'upsert', item: { type: 'user', id: 'u200', text: 'new', attachments: [] } }] });
    assert.equal(ids().at(-1), 'u200');
  });

  test('once the window shows everything, the top asks the host for earlier history; a prepended page shows at once', async () => {
    const h = open();
    const items: TranscriptItem[] = Array.from({ length: 30 }, (_, i) => ({ type: 'user', id: `u${i}`, text: `message ${i}`, attachments: [] }));
    h.snapshot({ earlier: 'available' }, items);
    for (let frame = 0; frame < 10 && h.root.querySelectorAll('[data-item-id]').length < 30; frame++) await act(() => new Promise<void>((r) => requestAnimationFrame(() => r())));
    const ids = () => [...h.root.querySelectorAll('[data-item-id]')].map((e) => e.getAttribute('data-item-id'));
    assert.equal(ids().length, 30);
    click(button(h.root, 'Show earlier messages'));
    assert.equal(h.commands('transcript/loadEarlier').length, 1);
    h.patch({ seq: 2, ops: [], session: { earlier: 'loading' } });
    assert.equal(h.root.querySelector('.load-earlier[role="status"]')?.textContent, 'Loading earlier messages…');
    const page: TranscriptItem[] = Array.from({ length: 25 }, (_, i) => ({ type: 'user', id: `e${i}`, text: `earlier ${i}`, attachments: [] }));
    h.patch({ seq: 3, ops: [{ op: 'prepend', items: page }], session: { earlier: 'none' } });
    assert.deepEqual([ids().length, ids()[0], ids()[25]], [55, 'e0', 'u0'], 'the page goes in front, all of it shown');
    assert.equal(h.root.querySelector('.load-earlier'), null, 'the start of the history: no affordance');
    h.patch({ seq: 4, ops: [{ op: 'upsert', item: { type: 'user', id: 'u30', text: 'new', attachments: [] } }] });
    assert.deepEqual([ids().length, ids().at(-1)], [56, 'u30']);
  });

  test('while the local window has more, it pages first; no earlier history, no affordance', () => {
    const h = open();
    const items: TranscriptItem[] = Array.from({ length: 100 }, (_, i) => ({ type: 'user', id: `u${i}`, text: `message ${i}`, attachments: [] }));
    h.snapshot({ earlier: 'available' }, items);
    assert.deepEqual([...h.root.querySelectorAll('.load-earlier')].map((e) => e.textContent), ['Show 20 earlier items']);
    h.snapshot({ earlier: 'none' }, [{ type: 'user', id: 'x1', text: 'only', attachments: [] }], 2);
    assert.equal(h.root.querySelector('.load-earlier'), null);
  });

  test('the draft survives a reload of the webview (view state only)', async () => {
    const first = open();
    first.snapshot({});
    setValue(first.root.querySelector('textarea.prompt-input'), 'half-written thought');
    await new Promise((r) => setTimeout(r, 350));
    const saved = first.saved();
    assert.deepEqual((saved as { draft: string }).draft, 'half-written thought');
    const second = open(saved);
    second.snapshot({});
    assert.equal((second.root.querySelector('textarea.prompt-input') as HTMLTextAreaElement).value, 'half-written thought');
  });

  test('tool titles show `code` spans as code, never as HTML', () => {
    const h = open();
    h.snapshot({}, [{ type: 'tool', id: 't', toolCallId: 't', title: 'Run `npm test` <b>x</b>', kind: 'execute', status: 'pending', content: [], locations: [] }]);
    const title = h.root.querySelector('.card-title')!;
    assert.equal(title.querySelector('code')?.textContent, 'npm test');
    assert.equal(title.querySelector('b'), null);
    assert.match(title.textContent!, /<b>x<\/b>/);
  });

  test('pasting an image attaches it only when the agent takes images', async () => {
    const paste = (root: HTMLElement) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array([137, 80, 78, 71])], 'shot.png', { type: 'image/png' }));
      const event = new ClipboardEvent('paste', { bubbles: true, cancelable: true, clipboardData: data });
      act(() => void root.querySelector('textarea.prompt-input')!.dispatchEvent(event));
      return event;
    };
    const without = open();
    without.snapshot({ promptCapabilities: { image: false, embeddedContext: false } });
    assert.equal(paste(without.root).defaultPrevented, true);
    assert.match(without.root.querySelector('.composer-hint')!.textContent!, /does not accept images/);
    const withImages = open();
    withImages.snapshot({ promptCapabilities: { image: true, embeddedContext: false } });
    paste(withImages.root);
    // the webview reads the file with FileReader (asynchronous): wait for the chip it adds, not for a fixed time
    let chip: Element | null = null;
    for (let i = 0; i < 200 && !chip; i++) {
      await act(async () => {
        await new Promise((r) => setTimeout(r, 10));
      });
      chip = withImages.root.querySelector('.attachments .chip');
    }
    assert.ok(chip, 'the pasted image became an attachment chip');
    assert.match(chip.textContent!, /shot\.png/);
    assert.match(chip.querySelector('img')!.getAttribute('src')!, /^data:image\/png;base64,iVBORw==$/);
    setValue(withImages.root.querySelector('textarea.prompt-input'), 'what is this?');
    key(withImages.root.querySelector('textarea.prompt-input'), 'Enter');
    assert.deepEqual(withImages.commands('prompt/send').map((m) => m.params), [
      { text: 'what is this?', attachments: [{ kind: 'image', id: (withImages.commands('prompt/send')[0].params as { attachments: { id: string }[] }).attachments[0].id, name: 'shot.png', mimeType: 'image/png', data: 'iVBORw==' }] },
    ]);
  });

  test('a zcode that cannot steer: the Steer button says why; the steer key shows it and keeps the text', () => {
    const h = open();
    h.snapshot({ running: true, featureUnavailable: { steer: 'update zcode to steer' } });
    const input = h.root.querySelector('textarea.prompt-input') as HTMLTextAreaElement;
    setValue(input, 'use vitest');
    const steer = button(h.root, 'Steer')!;
    assert.equal(steer.getAttribute('aria-disabled'), 'true');
    assert.equal(steer.title, 'Steering is not available: update zcode to steer');
    key(input, 'Enter', { altKey: true });
    click(steer);
    assert.equal(h.commands('prompt/steer').length, 0);
    assert.equal(input.value, 'use vitest');
    assert.match(h.root.querySelector('.composer-hint')!.textContent!, /Steering is not available: update zcode to steer/);
  });

  test('steer outcomes: delivered; deferred offers Remove; the host gives back a steer that did not reach zcode', () => {
    const h = open();
    h.snapshot({ running: true, steer: 'drained' });
    assert.match(h.root.querySelector('.steer-chip')!.textContent!, /Steer delivered: added to the running turn/);
    h.patch({ seq: 2, ops: [], session: { running: false, steer: 'deferred' } });
    assert.match(h.root.querySelector('.steer-chip')!.textContent!, /next turn's input/);
    click(h.root.querySelector('.steer-chip button.remove-steer')!);
    assert.equal(h.commands('prompt/removeSteer').length, 1);
    h.patch({ seq: 3, ops: [], session: { steer: 'none' } });
    assert.equal(h.root.querySelector('.steer-chip'), null);
    const input = h.root.querySelector('textarea.prompt-input') as HTMLTextAreaElement;
    setValue(input, 'typed meanwhile');
    h.deliver(DidRestoreDraftNotification.method, { text: 'keep the API', attachments: [] });
    assert.equal(input.value, 'keep the API\ntyped meanwhile');
  });
});
