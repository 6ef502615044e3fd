/**
 * The `zcode.chat` webview view. Serves the HTML (strict CSP, resources only from dist/ and
 * media/), connects the webview to the `ChatController`, and registers the chat with the
 * interactive-UI router while the view exists (permission cards and native forms answer the
 * bridge). Also registers the chats in editor tabs (chatPanels.ts) that share its pieces.
 *
 * The controller outlives the webview: hiding, moving or reloading the view loses nothing; the
 * new webview sends `ready` and receives a snapshot. `retainContextWhenHidden` is therefore off
 * (a 2k-item transcript snapshot renders fast enough: see test/bench/webviewRender.ts).
 */
import * as vscode from 'vscode';
import type { ZcodeClientHost } from '../acpClient.ts';
import { historyForMenu, type SessionHistoryStore } from '../commands/sessionHistory.ts';
import type { ChatBinding } from '../sessions/chatBinding.ts';
import type { AccountUsageResponse } from '../../bridge/acp/extensions/contractDescriptors.ts';
import { registerTurnChanges } from '../changes/changesUi.ts';
import { planQuotaView } from '../planQuota.ts';
import { defaultSessionFolder, pickSessionFolder } from '../sessions/folders.ts';
import { ChatAttention } from './chatAttention.ts';
import { ChatController, type ChatEnvironment } from './chatController.ts';
import { firstPrompts } from './firstPrompts.ts';
import { readWorkspaceFacts } from './workspaceFacts.ts';
import { confirmRewind, sharedChatEnvironment } from './chatEnvironment.ts';
import type { ChatFeatures } from './chatFeatures.ts';
import { rewindFromChat } from '../rewindChoices.ts';
import { ChatPanels, OPEN_CHAT_IN_EDITOR_COMMAND } from './chatPanels.ts';
import { ChatUiRouter } from './chatUiRouter.ts';
import { connectChatWebview, loadChatWebview } from './chatWebview.ts';
import { selectionAttachment } from './contextAttachments.ts';
import { DiffDocuments } from './diffDocuments.ts';
import { MentionSource } from './mentions.ts';
import { SessionRelease } from '../sessions/sessionRelease.ts';

const CHAT_VIEW_ID = 'zcode.chat';
/** Editor command: put the selection into the chat composer. */
const ATTACH_SELECTION_COMMAND = 'zcode.chat.attachSelection';
const FOCUS_INPUT_COMMAND = 'zcode.chat.focusInput';
const EXPORT_TRANSCRIPT_COMMAND = 'zcode.chat.exportTranscript';
const COPY_ALL_COMMAND = 'zcode.chat.copyAll';
/** Webview context menu: `args` is the `data-vscode-context` of the message (`{ itemId }`). */
const COPY_MESSAGE_COMMAND = 'zcode.chat.copyMessage';

type Logger = Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error'>;

class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private uiRegistration: { dispose(): unknown } | undefined;
  private readonly viewSubscriptions: vscode.Disposable[] = [];
  private badge: vscode.ViewBadge | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly router: ChatUiRouter,
    readonly controller: ChatController,
    /** The view stopped being visible (the attention may owe a notification then). */
    private readonly onHidden: () => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.disposeView();
    this.view = view;
    view.badge = this.badge;
    loadChatWebview(view.webview, this.extensionUri);
    this.uiRegistration = this.router.add(this.controller, true);
    this.viewSubscriptions.push(
      connectChatWebview(view.webview, this.controller),
      // Without retained context a hidden webview is torn down; it says `ready` when shown again.
      view.onDidChangeVisibility(() => {
        if (view.visible) {
          this.controller.attach((msg) => void view.webview.postMessage(msg));
        } else {
          setChatFocused(false);
          this.controller.detach();
          this.onHidden();
        }
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.disposeView();
      }),
    );
  }

  /**
   * Shows the view (and so creates it if needed). `preserveFocus` keeps the keyboard where the user
   * is typing: a request that reveals the chat must never move focus (an Enter meant for the editor
   * would land in the chat). The view's focus command takes `{ preserveFocus }` (VS Code ≥ 1.89).
   */
  reveal(preserveFocus: boolean): void {
    if (this.view) this.view.show(preserveFocus);
    else void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`, { preserveFocus });
  }

  get visible(): boolean {
    return this.view?.visible === true;
  }

  /** The pending-request badge (kept for a view created later). */
  setBadge(count: number, tooltip: string): void {
    this.badge = count > 0 ? { value: count, tooltip } : undefined;
    if (this.view) this.view.badge = this.badge;
  }

  private disposeView(): void {
    this.controller.detach();
    this.uiRegistration?.dispose();
    this.uiRegistration = undefined;
    for (const d of this.viewSubscriptions.splice(0)) d.dispose();
    this.view = undefined;
  }

  dispose(): void {
    this.disposeView();
    this.controller.dispose();
  }
}

/**
 * Registers the chat view (`zcode.chat`, contributed as a webview view in the ZCode container),
 * the Open Diff document provider and the "attach selection" editor command.
 */
export function registerChatView(
  context: vscode.ExtensionContext,
  host: ZcodeClientHost,
  sessions: ChatBinding,
  log?: Logger,
  statusBar?: { setNeedsInput(count: number): void },
  history?: SessionHistoryStore,
  quota?: { readonly onDidChange: vscode.Event<AccountUsageResponse>; readonly current: AccountUsageResponse | undefined },
  locate?: { addView(view: { setNotFound(message: string | undefined): void; setZcodeVersion(version: string | undefined): void }): vscode.Disposable },
  features?: ChatFeatures,
): vscode.Disposable {
  const diffs = new DiffDocuments();
  const turnChanges = registerTurnChanges(context, (message) => log?.warn(message));
  const mentions = new MentionSource();
  const router = new ChatUiRouter((ui) => host.setInteractiveUi(ui));
  // Every chat (sidebar and editor tabs) records its turns' changes in the one tracker.
  const shared = {
    ...sharedChatEnvironment(diffs, mentions, log),
    changes: turnChanges.tracker,
    confirm: confirmRewind,
    rewindMessage: (sessionId: string, message: { text: string; latest: boolean; action: 'askAgain' | 'filesOnly' }) => rewindFromChat(host, sessionId, message),
    ...(features ? { features } : {}),
    // The chat's session menu shows the history as the palette does: every folder, the user's titles.
    ...(history ? { listSessions: () => historyForMenu(sessions.registry, history) } : {}),
  };
  // The attention (badge, Show) reaches the view through the provider, created right after it; the chat never reveals itself.
  const view: { provider?: ChatViewProvider } = {};
  const attention = new ChatAttention({
    chatVisible: () => view.provider?.visible === true,
    showChat: () => view.provider?.reveal(false),
    setBadge: (count, tooltip) => view.provider?.setBadge(count, tooltip),
    setNeedsInput: (count) => statusBar?.setNeedsInput(count),
  });
  const env: ChatEnvironment = {
    ...shared,
    focusChanged: (focused) => {
      setChatFocused(focused);
      attention.chatFocused(focused);
    },
    notify: (event) => attention.notify(event),
    pendingChanged: (count) => attention.pendingChanged(count),
  };
  const controller = new ChatController(host, sessions, env);
  const provider = new ChatViewProvider(context.extensionUri, router, controller, () => attention.chatHidden());
  view.provider = provider;
  const release: { sessions?: SessionRelease } = {};
  const panels = new ChatPanels({
    extensionUri: context.extensionUri,
    host,
    registry: sessions.registry,
    router,
    environment: shared,
    pickFolder: () => pickSessionFolder(),
    defaultFolder: defaultSessionFolder,
    sidebarShows: (sessionId) => controller.session.sessionId === sessionId,
    revealSidebar: () => provider.reveal(false),
    ...(history ? { onDidRemoveSession: history.onDidRemove } : {}),
    planQuota: () => planQuotaView(quota?.current),
    didStopShowing: () => release.sessions?.sweep(),
  });
  // After the sidebar's controller: on a switch of the active session it has moved on already.
  const registry = sessions.registry;
  release.sessions = new SessionRelease(
    host,
    {
      get openSessions() {
        return registry.openSessions;
      },
      onDidChangeActiveSession: sessions.onDidChangeActiveSession,
      closeSession: (id) => registry.closeSession(id),
    },
    (id) => sessions.activeSessionId === id || controller.session.sessionId === id || panels.showsSession(id),
    (message) => log?.warn(message),
  );
  controller.setPlanQuota(planQuotaView(quota?.current));
  const suggest = (): void => void readWorkspaceFacts().then((facts) => controller.setFirstPrompts(firstPrompts(facts, vscode.l10n.t)));
  suggest();
  return vscode.Disposable.from(
    vscode.window.onDidChangeActiveTextEditor((editor) => editor && suggest()),
    locate?.addView({ setNotFound: (message) => controller.setNotFound(message), setZcodeVersion: (version) => controller.setZcodeVersion(version) }) ?? { dispose() {} },
    diffs.register(),
    turnChanges.disposable,
    quota?.onDidChange((usage) => {
      const view = planQuotaView(usage);
      for (const chat of [controller, ...panels.controllers]) chat.setPlanQuota(view);
    }) ?? { dispose() {} },
    mentions,
    panels,
    release.sessions,
    vscode.commands.registerCommand(OPEN_CHAT_IN_EDITOR_COMMAND, (sessionId?: unknown) => panels.open(typeof sessionId === 'string' ? sessionId : undefined)),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, provider),
    vscode.commands.registerCommand(ATTACH_SELECTION_COMMAND, () => {
      provider.reveal(false);
      controller.pushAttachments(selectionAttachment(vscode.window.activeTextEditor));
    }),
    vscode.commands.registerCommand(FOCUS_INPUT_COMMAND, () => {
      provider.reveal(false);
      controller.focusInput();
    }),
    vscode.commands.registerCommand(EXPORT_TRANSCRIPT_COMMAND, async () => {
      const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: controller.transcriptMarkdown() });
      await vscode.window.showTextDocument(document, { preview: false });
    }),
    vscode.commands.registerCommand(COPY_ALL_COMMAND, () => vscode.env.clipboard.writeText(controller.transcriptMarkdown())),
    vscode.commands.registerCommand(COPY_MESSAGE_COMMAND, (args: unknown) => {
      const itemId = typeof args === 'object' && args !== null ? (args as Record<string, unknown>).itemId : undefined;
      const text = typeof itemId === 'string' ? controller.itemMarkdown(itemId) : undefined;
      if (text !== undefined) return vscode.env.clipboard.writeText(text);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('zcode.chat')) controller.pushSettings();
    }),
    provider,
  );
}

/** The `zcode.chatFocused` context key of the chat's keybindings (see ChatFocusCommand). */
function setChatFocused(focused: boolean): void {
  void vscode.commands.executeCommand('setContext', 'zcode.chatFocused', focused);
}
