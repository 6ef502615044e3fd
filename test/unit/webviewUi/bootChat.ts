/**
 * The chat webview booted in happy-dom with one snapshot from a fake host: what the view tests of
 * this folder render through the contract (snapshot in, commands out). `stopAll()` in `afterEach`.
 */
import { document } from './dom.ts';
import { act } from 'preact/test-utils';
import { DidChangeSnapshotNotification, type IpcMessage } from '../../../webview-ui/contract.ts';
import { emptySessionView, type ChatSnapshot, type SessionView, type TranscriptItem } from '../../../webview-ui/viewModel.ts';
import { startChat } from '../../../webview-ui/boot.ts';
import type { MessageSource } from '../../../webview-ui/ipc.ts';

const stops: (() => void)[] = [];

/** Stops every chat booted since the last call. */
export function stopAll(): void {
  for (const s of stops.splice(0)) s();
}

/** Boots the chat, runs `afterBoot` (e.g. a test's l10n bundle), then delivers the snapshot. */
export function bootChat(session: Partial<SessionView>, items: TranscriptItem[] = [], afterBoot?: () => void) {
  const posted: IpcMessage[] = [];
  const listeners = new Set<(e: { data: unknown }) => void>();
  const source: MessageSource = { addEventListener: (_t, l) => listeners.add(l), removeEventListener: (_t, l) => listeners.delete(l) };
  const root = document.createElement('div');
  document.body.appendChild(root);
  let stop: () => void = () => {};
  act(() => {
    stop = startChat({ postMessage: (m) => posted.push(m as IpcMessage), getState: () => undefined, setState: () => {} }, source, root, (cb) => cb());
  });
  afterBoot?.();
  const snapshot: ChatSnapshot = { seq: 1, session: { ...emptySessionView(), connection: 'ready', ...session }, items };
  act(() => listeners.forEach((l) => l({ data: { id: 'h1', method: DidChangeSnapshotNotification.method, params: snapshot } })));
  stops.push(() => (act(() => stop()), root.remove()));
  return { root, sent: (method: string) => posted.filter((m) => m.method === `chat/${method}`).map((m) => m.params) };
}
