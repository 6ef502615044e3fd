/**
 * Chats in editor tabs ("ZCode: Open Chat in Editor"): each tab is a `WebviewPanel` with its own
 * `ChatController` bound to its own session (a `ChatBinding` that is not remembered), all served by the one in-process
 * bridge. Several can be open side by side. A tab survives a window reload: the webview keeps
 * its session id in its state (viewState.ts) and the serializer re-binds the restored tab to it.
 */
import * as vscode from 'vscode';
import type { PlanQuotaView } from '../../webview-ui/viewModel.ts';
import type { ZcodeClientHost } from '../acpClient.ts';
import { ChatBinding } from '../sessions/chatBinding.ts';
import type { SessionRegistry } from '../sessions/registry.ts';
import { ChatController } from './chatController.ts';
import type { ChatEnvironment } from './chatPorts.ts';
import type { ChatUiRouter } from './chatUiRouter.ts';
import { connectChatWebview, loadChatWebview } from './chatWebview.ts';

export const CHAT_PANEL_TYPE = 'zcode.chatPanel';
export const OPEN_CHAT_IN_EDITOR_COMMAND = 'zcode.chat.openInEditor';

/** One editor-tab chat. */
interface ChatPanel {
  panel: vscode.WebviewPanel;
  controller: ChatController;
  sessions: ChatBinding;
}

export interface ChatPanelsOptions {
  extensionUri: vscode.Uri;
  host: ZcodeClientHost;
  registry: SessionRegistry;
  router: ChatUiRouter;
  environment: ChatEnvironment;
  /** The folder of a new chat's sessions (asks in a multi-root workspace); undefined = cancelled. */
  pickFolder(): Promise<string | undefined>;
  /** The folder of the sidebar's sessions. */
  defaultFolder(): string;
  /** Whether the sidebar chat shows this session. */
  sidebarShows(sessionId: string): boolean;
  /** Shows the sidebar chat. */
  revealSidebar(): void;
  /** A session was removed from the history: its tab closes. */
  onDidRemoveSession?: vscode.Event<string>;
  /** The plan quota a new tab's context meter starts with. */
  planQuota?(): PlanQuotaView | undefined;
  /** A tab stopped showing a session (it showed another, or it closed): sessionRelease.ts may close it. */
  didStopShowing?(): void;
}

export class ChatPanels implements vscode.Disposable {
  private readonly panels = new Set<ChatPanel>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly options: ChatPanelsOptions) {
    this.subscriptions = [
      vscode.window.registerWebviewPanelSerializer(CHAT_PANEL_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const saved = typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : {};
          const sessionId = typeof saved.sessionId === 'string' ? saved.sessionId : undefined;
          const cwd = sessionId ? options.registry.cwdOf(sessionId) : options.defaultFolder();
          options.environment.log('info', `chat tab: restoring ${sessionId ? `session ${sessionId}` : 'a tab without a session'}`);
          // Two restored tabs of one session would share its replay: the second one starts empty.
          this.adopt(panel, sessionId && !this.shownElsewhere(sessionId, undefined) ? sessionId : undefined, cwd);
        },
      }),
      ...(options.onDidRemoveSession
        ? [options.onDidRemoveSession((sessionId) => [...this.panels].find((p) => p.sessions.activeSessionId === sessionId)?.panel.dispose())]
        : []),
      options.registry.onDidChangeTitle(({ sessionId, title }) => {
        for (const p of this.panels) if (p.sessions.activeSessionId === sessionId) p.panel.title = panelTitle(title);
      }),
    ];
  }

  /** Opens a new chat tab (a new session, or `sessionId` when given), beside the active editor. */
  async open(sessionId?: string): Promise<ChatController | undefined> {
    if (sessionId) {
      const existing = [...this.panels].find((p) => p.sessions.activeSessionId === sessionId);
      if (existing) {
        existing.panel.reveal();
        return existing.controller;
      }
      if (this.options.sidebarShows(sessionId)) {
        this.options.revealSidebar();
        return undefined;
      }
    }
    const cwd = sessionId ? this.options.registry.cwdOf(sessionId) : await this.options.pickFolder();
    if (!cwd) return undefined;
    // Beside whatever the active group shows (an editor or another chat tab): chats side by side.
    const group = vscode.window.tabGroups.activeTabGroup;
    const column = group.tabs.length > 0 ? group.viewColumn + 1 : group.viewColumn;
    const panel = vscode.window.createWebviewPanel(CHAT_PANEL_TYPE, panelTitle(sessionId ? this.options.registry.title(sessionId) : undefined), column, {
      enableScripts: true,
      enableCommandUris: false,
    });
    const chat = this.adopt(panel, sessionId, cwd);
    chat.controller.focusInput();
    return chat.controller;
  }

  /** The controllers of the open tabs (tests, e2e diagnostics). */
  get controllers(): ChatController[] {
    return [...this.panels].map((p) => p.controller);
  }

  /** Whether a tab shows `sessionId`. */
  showsSession(sessionId: string): boolean {
    return [...this.panels].some((p) => p.sessions.activeSessionId === sessionId);
  }

  dispose(): void {
    for (const p of [...this.panels]) p.panel.dispose();
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }

  private shownElsewhere(sessionId: string, self: ChatPanel | undefined): boolean {
    return this.options.sidebarShows(sessionId) || [...this.panels].some((p) => p !== self && p.sessions.activeSessionId === sessionId);
  }

  private adopt(panel: vscode.WebviewPanel, sessionId: string | undefined, cwd: string): ChatPanel {
    const { host, router, extensionUri } = this.options;
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'zcode.svg');
    loadChatWebview(panel.webview, extensionUri);
    const self: { chat?: ChatPanel } = {};
    const sessions = new ChatBinding(this.options.registry, {
      ...(sessionId ? { sessionId } : {}),
      cwd: () => cwd,
      shownElsewhere: (id) => this.shownElsewhere(id, self.chat),
      log: (message) => this.options.environment.log('warn', message),
    });
    const controller = new ChatController(host, sessions, this.options.environment);
    controller.setPlanQuota(this.options.planQuota?.());
    const chat: ChatPanel = { panel, controller, sessions };
    self.chat = chat;
    this.panels.add(chat);
    const registration = router.add(controller);
    let visible = panel.visible;
    const subscriptions = [
      connectChatWebview(panel.webview, controller),
      sessions.onDidChangeActiveSession((id) => {
        panel.title = panelTitle(id ? this.options.registry.title(id) : undefined);
        this.options.didStopShowing?.();
      }),
      // Without retained context a hidden tab's webview is torn down; it says `ready` when shown
      // again. Only a change of visibility counts: focus moving between tabs fires this event too,
      // and re-attaching a live webview would stop the stream until its next `ready`.
      panel.onDidChangeViewState(() => {
        if (panel.visible === visible) return;
        visible = panel.visible;
        if (!visible) controller.detach();
        else controller.attach((msg) => void panel.webview.postMessage(msg));
      }),
    ];
    panel.onDidDispose(() => {
      this.panels.delete(chat);
      registration.dispose();
      for (const s of subscriptions) s.dispose();
      controller.dispose();
      sessions.dispose();
      this.options.didStopShowing?.();
    });
    return chat;
  }
}

function panelTitle(title: string | undefined): string {
  return title ? `ZCode: ${title}` : vscode.l10n.t('ZCode Chat');
}
