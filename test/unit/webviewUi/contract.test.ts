/** The contract's guards and patch application; the webview store's seq handling; the IPC channel. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  DidPatchNotification,
  ListSessionsRequest,
  ReadyCommand,
  SendPromptCommand,
  toIpcMessage,
} from '../../../webview-ui/contract.ts';
import { emptySessionView, type TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { TERMINAL_TAIL_LIMIT, applyTranscriptOps, itemList } from '../../../webview-ui/transcriptOps.ts';
import { ChatStore } from '../../../webview-ui/store.ts';
import { HostChannel, type MessageSource } from '../../../webview-ui/ipc.ts';

describe('contract', () => {
  test('toIpcMessage accepts only chat messages; is() distinguishes calls and completions', () => {
    assert.equal(toIpcMessage(null), undefined);
    assert.equal(toIpcMessage({ id: 1, method: 'chat/ready' }), undefined);
    assert.equal(toIpcMessage({ id: 'a', method: 'other/ready' }), undefined);
    const ready = toIpcMessage({ id: 'a', method: 'chat/ready', params: {} })!;
    assert.ok(ReadyCommand.is(ready));
    assert.ok(!SendPromptCommand.is(ready));
    const completion = toIpcMessage({ id: 'h1', method: 'chat/session/list/completion', params: { ok: true, value: { sessions: [] } }, completionId: 'w1' })!;
    assert.ok(ListSessionsRequest.isCompletion(completion));
    assert.ok(!ListSessionsRequest.is(completion));
  });

  test('applyTranscriptOps: upsert in place / append / remove / clear; changed items are new objects', () => {
    const a: TranscriptItem = { type: 'agent', id: 'a', text: 'x' };
    const u: TranscriptItem = { type: 'user', id: 'u', text: 'q', attachments: [] };
    const list = itemList([u, a]);
    const before = list.items;
    applyTranscriptOps(list, [{ op: 'append', id: 'a', field: 'text', text: 'y' }, { op: 'append', id: 'gone', field: 'text', text: 'ignored' }]);
    assert.notEqual(list.items, before);
    assert.equal(list.items[0], u, 'untouched items keep their identity');
    assert.deepEqual(list.items[1], { type: 'agent', id: 'a', text: 'xy' });
    applyTranscriptOps(list, [{ op: 'remove', id: 'u' }, { op: 'upsert', item: { type: 'notice', id: 'n', severity: 'info', title: 'hi' } }, { op: 'append', id: 'a', field: 'text', text: 'z' }]);
    assert.deepEqual(list.items.map((i) => i.id), ['a', 'n']);
    assert.equal((list.items[0] as { text: string }).text, 'xyz');
    assert.deepEqual([...list.index], [['a', 0], ['n', 1]]);
    applyTranscriptOps(list, [{ op: 'clear' }, { op: 'upsert', item: a }]);
    assert.deepEqual(list.items, [a]);
  });

  test('terminal output keeps only the tail', () => {
    const tool: TranscriptItem = { type: 'tool', id: 't', toolCallId: 't', title: 'sh', kind: 'execute', status: 'in_progress', content: [], locations: [], terminal: { terminalId: 't', output: '', truncated: false, exited: false } };
    const list = itemList([tool]);
    applyTranscriptOps(list, [{ op: 'append', id: 't', field: 'terminal', text: 'x'.repeat(TERMINAL_TAIL_LIMIT) + 'END' }]);
    const term = (list.items[0] as Extract<TranscriptItem, { type: 'tool' }>).terminal!;
    assert.equal(term.output.length, TERMINAL_TAIL_LIMIT);
    assert.ok(term.output.endsWith('END'));
    assert.equal(term.truncated, true);
  });
});

describe('store', () => {
  test('patches must follow the snapshot seq; a gap asks for a resync; notifications are batched', () => {
    const queued: (() => void)[] = [];
    const store = new ChatStore((cb) => queued.push(cb));
    let renders = 0;
    store.subscribe(() => renders++);
    assert.equal(store.applyPatch({ seq: 1, ops: [] }), false, 'no snapshot yet');
    store.applySnapshot({ seq: 5, session: emptySessionView(), items: [] });
    assert.equal(store.applyPatch({ seq: 5, ops: [] }), true, 'old patch: already in the snapshot');
    assert.equal(store.applyPatch({ seq: 6, ops: [{ op: 'upsert', item: { type: 'agent', id: 'a', text: 'h' } }] }), true);
    assert.equal(store.applyPatch({ seq: 7, ops: [{ op: 'append', id: 'a', field: 'text', text: 'i' }], session: { running: true } }), true);
    assert.equal(store.applyPatch({ seq: 9, ops: [] }), false, 'gap');
    assert.equal(queued.length, 1, 'one scheduled render for several changes');
    queued[0]();
    assert.equal(renders, 1);
    assert.deepEqual(store.current.items, [{ type: 'agent', id: 'a', text: 'hi' }]);
    assert.equal(store.current.session.running, true);
  });
});

describe('ipc channel', () => {
  function fakeWindow() {
    const listeners = new Set<(e: { data: unknown }) => void>();
    const source: MessageSource = { addEventListener: (_t, l) => listeners.add(l), removeEventListener: (_t, l) => listeners.delete(l) };
    return { source, deliver: (data: unknown) => listeners.forEach((l) => l({ data })) };
  }

  test('requests resolve with the host completion, reject on error and timeout; notifications route', async () => {
    const posted: { id: string; method: string; params: unknown }[] = [];
    const win = fakeWindow();
    const channel = new HostChannel({ postMessage: (m) => posted.push(m as never), getState: () => undefined, setState: () => {} }, win.source, 50);
    const ok = channel.request(ListSessionsRequest, {});
    const failing = channel.request(ListSessionsRequest, {});
    const slow = channel.request(ListSessionsRequest, {});
    win.deliver({ id: 'h1', method: ListSessionsRequest.response.method, completionId: posted[0].id, params: { ok: true, value: { sessions: [{ sessionId: 'x' }] } } });
    win.deliver({ id: 'h2', method: ListSessionsRequest.response.method, completionId: posted[1].id, params: { ok: false, error: 'zcode is not running' } });
    assert.deepEqual(await ok, { sessions: [{ sessionId: 'x' }] });
    await assert.rejects(failing, /zcode is not running/);
    await assert.rejects(slow, /timed out/);
    const seen: unknown[] = [];
    channel.on(DidPatchNotification, (p) => seen.push(p.seq));
    win.deliver({ id: 'h3', method: DidPatchNotification.method, params: { seq: 3, ops: [] } });
    win.deliver({ id: 'h4', method: 'not/chat', params: {} });
    assert.deepEqual(seen, [3]);
    channel.dispose();
  });
});
