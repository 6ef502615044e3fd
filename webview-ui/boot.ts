/**
 * Wires the webview: channel ⇄ store, the ready handshake (and resync when a patch is missing),
 * view state persistence, and the host's attachment pushes. Returns a disposer.
 */
import { h, render } from 'preact';
import { DidAttachNotification, DidChangeSnapshotNotification, DidPatchNotification, ReadyCommand, WebviewLogCommand, type Attachment } from './contract.ts';
import { hostActions } from './actions.ts';
import { App } from './components/App.tsx';
import type { AttachBus } from './components/Composer.tsx';
import { HostChannel, type MessageSource, type VsCodeApi } from './ipc.ts';
import { KeyHistory } from './keyHistory.ts';
import { ChatStore, type Scheduler } from './store.ts';
import { ViewState } from './viewState.ts';

export function startChat(api: VsCodeApi, source: MessageSource, root: Element, schedule?: Scheduler): () => void {
  const channel = new HostChannel(api, source);
  const store = new ChatStore(schedule);
  const view = new ViewState(api.getState(), (state) => api.setState(state));
  const attachListeners = new Set<(a: Attachment[]) => void>();
  const bus: AttachBus = {
    subscribe(listener) {
      attachListeners.add(listener);
      return () => attachListeners.delete(listener);
    },
  };
  let resyncing = false;
  const offSnapshot = channel.on(DidChangeSnapshotNotification, (snapshot) => {
    resyncing = false;
    store.applySnapshot(snapshot);
  });
  const offPatch = channel.on(DidPatchNotification, (patch) => {
    if (store.applyPatch(patch) || resyncing) return;
    resyncing = true;
    channel.send(ReadyCommand, { reason: 'resync' });
  });
  const offAttach = channel.on(DidAttachNotification, ({ attachments }) => {
    for (const listener of attachListeners) listener(attachments);
  });
  // CSP violations and uncaught errors go to the extension's log, where they can be diagnosed.
  const onViolation = (e: Event): void => {
    const v = e as SecurityPolicyViolationEvent;
    channel.send(WebviewLogCommand, { level: 'warn', message: `CSP blocked ${v.blockedURI || 'inline'} (${v.violatedDirective})` });
  };
  const onError = (e: ErrorEvent): void => channel.send(WebviewLogCommand, { level: 'error', message: String(e.message) });
  const doc = root.ownerDocument;
  doc.addEventListener('securitypolicyviolation', onViolation);
  doc.defaultView?.addEventListener('error', onError);
  const keys = new KeyHistory();
  const stopKeys = keys.observe(doc);
  render(h(App, { store, actions: hostActions(channel), view, bus, keys }), root);
  channel.send(ReadyCommand, { reason: 'start' });
  // One line per webview start: shows in the log that this reporting path works.
  channel.send(WebviewLogCommand, { level: 'info', message: 'started' });
  return () => {
    offSnapshot();
    offPatch();
    offAttach();
    doc.removeEventListener('securitypolicyviolation', onViolation);
    doc.defaultView?.removeEventListener('error', onError);
    render(null, root);
    stopKeys();
    channel.dispose();
  };
}
