/**
 * Tells the user when the chat needs them while they look elsewhere: a notification with a Show
 * action when a turn ends, fails or asks for input while the chat is hidden or the window is not
 * focused (setting `zcode.notifications`: off / whenHidden / always), and the number of waiting
 * requests as a badge on the chat view and "needs input" in the status bar. What is owed once the
 * chat hides (a request kept quiet because the chat looked visible) is decided in attentionRules.ts.
 */
import * as vscode from 'vscode';
import { AttentionMemory, summaryLine, type NotificationsSetting } from './attentionRules.ts';
import type { ChatAttentionEvent } from './chatPorts.ts';

export interface ChatAttentionTarget {
  /** The chat view is on screen. */
  chatVisible(): boolean;
  /** Shows the chat and gives it focus (the user asked: the Show action). */
  showChat(): void;
  /** The badge on the chat view (0 = none). */
  setBadge(count: number, tooltip: string): void;
  /** "needs input" in the status bar (0 = normal). */
  setNeedsInput(count: number): void;
}

export class ChatAttention {
  private readonly memory = new AttentionMemory();

  constructor(private readonly target: ChatAttentionTarget) {}

  notify(event: ChatAttentionEvent): void {
    const context = { setting: setting(), chatVisible: this.target.chatVisible(), windowFocused: vscode.window.state.focused };
    if (this.memory.arrived(event, context)) this.show(event);
  }

  pendingChanged(count: number): void {
    this.memory.pendingChanged(count);
    this.target.setBadge(count, vscode.l10n.t('{0} request(s) waiting for your answer', count));
    this.target.setNeedsInput(count);
  }

  /** The chat webview gained or lost the keyboard. */
  chatFocused(focused: boolean): void {
    if (focused) this.memory.chatSeen();
  }

  /** The chat view stopped being visible (its onDidChangeVisibility). */
  chatHidden(): void {
    const owed = this.memory.chatHidden(setting());
    if (owed) this.show(owed);
  }

  private show(event: ChatAttentionEvent): void {
    const show = vscode.l10n.t('Show');
    let shown: Thenable<string | undefined>;
    switch (event.kind) {
      case 'turnEnded': {
        const summary = summaryLine(event.summary);
        shown = vscode.window.showInformationMessage(summary ? vscode.l10n.t('zcode finished: {0}', summary) : vscode.l10n.t('zcode finished the turn.'), show);
        break;
      }
      case 'turnFailed':
        shown = vscode.window.showErrorMessage(vscode.l10n.t('The zcode turn failed: {0}', summaryLine(event.message)), show);
        break;
      case 'needsInput': {
        const title = summaryLine(event.title);
        shown = vscode.window.showWarningMessage(title ? vscode.l10n.t('zcode needs your input: {0}', title) : vscode.l10n.t('zcode needs your input.'), show);
        break;
      }
    }
    void shown.then((choice) => {
      if (choice === show) this.target.showChat();
    });
  }
}

function setting(): NotificationsSetting {
  return vscode.workspace.getConfiguration('zcode').get<NotificationsSetting>('notifications', 'whenHidden');
}
