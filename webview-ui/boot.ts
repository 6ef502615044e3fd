/**
 * Wires the webview: channel ⇄ store, the ready handshake (and resync when a patch is missing),
 * view state persistence, and the host's attachment pushes. Returns a disposer.
 */
import { h, render } from 'preact';
import {
  DidAttachNotification,
  DidChangeSettingsNotification,
  DidChangeSnapshotNotification,
  DidPatchNotification,
  DidRestoreDraftNotification,
  FocusInputNotification,
  ChatFocusCommand,
  ReadyCommand,
  WebviewLogCommand,
} from './contract.ts';
import type { Attachment } from './viewModel.ts';
import { hostActions } from './actions.ts';
import { App } from './components/App.tsx';
import type { AttachBus } from './components/Composer.tsx';
import { HostChannel, type MessageSource, type VsCodeApi } from './ipc.ts';
import { KeyHistory } from './keyHistory.ts';
import { readL10nBundle, setL10nBundle } from './l10n.ts';
import { ChatStore, type Scheduler } from './store.ts';
import { ViewState } from './viewState.ts';

export function startChat(api: VsCodeApi, source: MessageSource, root: Element, schedule?: Scheduler): () => void {
  const channel = new HostChannel(api, source);
  const store = new ChatStore(schedule);
  const view = new ViewState(api.getState(), (state) => api.setState(state));
  const attachListeners = new Set<(a: Attachment[]) => void>();
  const focusListeners = new Set<() => void>();
  const restoreListeners = new Set<(text: string, attachments: Attachment[]) => void>();
  const bus: AttachBus = {
    subscribe(listener) {
      attachListeners.add(listener);
      return () => attachListeners.delete(listener);
    },
    onFocusRequest(listener) {
      focusListeners.add(listener);
      return () => focusListeners.delete(listener);
    },
    onRestoreDraft(listener) {
      restoreListeners.add(listener);
      return () => restoreListeners.delete(listener);
    },
  };
  const doc = root.ownerDocument;
  setL10nBundle(readL10nBundle(doc));
  let resyncing = false;
  const offSnapshot = channel.on(DidChangeSnapshotNotification, (snapshot) => {
    resyncing = false;
    store.applySnapshot(snapshot);
    view.setSession(snapshot.session.sessionId);
  });
  const offPatch = channel.on(DidPatchNotification, (patch) => {
    if (store.applyPatch(patch) || resyncing) return;
    resyncing = true;
    channel.send(ReadyCommand, { reason: 'resync' });
  });
  const offAttach = channel.on(DidAttachNotification, ({ attachments }) => {
    for (const listener of attachListeners) listener(attachments);
  });
  const offSettings = channel.on(DidChangeSettingsNotification, (settings) => {
    store.applySettings(settings);
    // The chat's font size: a CSS variable the stylesheet reads (CSSOM is allowed by the CSP).
    if (settings.fontSize > 0) doc.documentElement.style.setProperty('--zcode-chat-font-size', `${settings.fontSize}px`);
    else doc.documentElement.style.removeProperty('--zcode-chat-font-size');
  });
  const offFocus = channel.on(FocusInputNotification, () => {
    for (const listener of focusListeners) listener();
  });
  const offRestore = channel.on(DidRestoreDraftNotification, ({ text, attachments }) => {
    for (const listener of restoreListeners) listener(text, attachments);
  });
  // CSP violations and uncaught errors go to the extension's log, where they can be diagnosed.
  const onViolation = (e: Event): void => {
    const v = e as SecurityPolicyViolationEvent;
    channel.send(WebviewLogCommand, { level: 'warn', message: `CSP blocked ${v.blockedURI || 'inline'} (${v.violatedDirective})` });
  };
  const onError = (e: ErrorEvent): void => channel.send(WebviewLogCommand, { level: 'error', message: String(e.message) });
  const win = doc.defaultView;
  const onFocus = (): void => channel.send(ChatFocusCommand, { focused: true });
  const onBlur = (): void => channel.send(ChatFocusCommand, { focused: false });
  win?.addEventListener('focus', onFocus);
  win?.addEventListener('blur', onBlur);
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
    offSettings();
    offFocus();
    offRestore();
    win?.removeEventListener('focus', onFocus);
    win?.removeEventListener('blur', onBlur);
    doc.removeEventListener('securitypolicyviolation', onViolation);
    doc.defaultView?.removeEventListener('error', onError);
    render(null, root);
    stopKeys();
    channel.dispose();
  };
}
