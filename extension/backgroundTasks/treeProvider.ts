/**
 * The "Background Tasks" tree: a view of `BackgroundTasksModel` (model.ts) for the active session.
 *
 * Elements are task ids (stable strings), so a change refreshes exactly the items that changed;
 * the list is refreshed only when tasks appear or disappear or the active session changes. While
 * the view is visible and tasks run, their elapsed time ticks once a second (those items only).
 */
import * as vscode from 'vscode';
import { BackgroundTasksNotification, CancelBackgroundTaskRequest, notificationOf } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { ExtNotification, ZcodeClientHost } from '../acpClient.ts';
import { Disposable } from '../disposable.ts';
import { errorMessage } from '../errorValues.ts';
import type { ChatBinding } from '../sessions/chatBinding.ts';
import { BackgroundTasksModel, formatElapsed, isRunning } from './model.ts';
import type { BackgroundTask, ModelChange } from './model.ts';

const BACKGROUND_TASKS_VIEW = 'zcode.backgroundTasks';
const TICK_MS = 1000;

/** The actions the tree offers while zcode cannot be found (ids cannot clash with zcode task ids). */
const SETUP_ITEMS = [
  { id: 'zcode-setup:locate', label: () => vscode.l10n.t('Locate zcode…'), icon: 'search', command: 'zcode.locate' },
  { id: 'zcode-setup:install', label: () => vscode.l10n.t('Install Instructions'), icon: 'book', command: 'zcode.showInstallInstructions' },
  { id: 'zcode-setup:check', label: () => vscode.l10n.t('Check Again'), icon: 'refresh', command: 'zcode.checkInstallation' },
] as const;

/** The arguments VS Code passes to inline / context-menu commands of this tree: the element (a task id). */
export type TaskCommandArg = string | { sessionId?: string; taskId?: string; id?: string } | undefined;

export class BackgroundTasksTree extends Disposable implements vscode.TreeDataProvider<string> {
  private readonly _onDidChangeTreeData = this.register(new vscode.EventEmitter<string | string[] | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;

  readonly model: BackgroundTasksModel;
  private readonly view: vscode.TreeView<string>;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private notFoundMessage: string | undefined;

  constructor(
    private readonly host: ZcodeClientHost,
    private readonly sessions: ChatBinding,
    now: () => number = Date.now,
  ) {
    super();
    this.model = new BackgroundTasksModel(now);
    this.model.setActiveSession(sessions.activeSessionId);
    this.view = this.register(vscode.window.createTreeView(BACKGROUND_TASKS_VIEW, { treeDataProvider: this, showCollapseAll: false }));
    this.register(host.onExtNotification((n) => this.onNotification(n)));
    this.register(sessions.onDidChangeActiveSession((id) => this.refresh(this.model.setActiveSession(id))));
    this.register(this.view.onDidChangeVisibility(() => this.updateTicker()));
    this.register({ dispose: () => this.stopTicker() });
    this.updateBadge();
  }

  /**
   * zcode was not found: the view's message says exactly what discovery tried, and the tree shows
   * the ways out (Locate zcode…, Install Instructions, Check Again) as items. (A tree view with a
   * message does not show its welcome content, so the actions cannot be welcome buttons here.)
   * Undefined leaves that state.
   */
  setNotFound(message: string | undefined): void {
    if (this.notFoundMessage === message) return;
    this.notFoundMessage = message;
    this.view.message = message;
    this._onDidChangeTreeData.fire(undefined);
  }

  getChildren(element?: string): string[] {
    if (element) return [];
    if (this.notFoundMessage !== undefined) return SETUP_ITEMS.map((item) => item.id);
    return this.model.tasks().map((t) => t.id);
  }

  getTreeItem(id: string): vscode.TreeItem {
    const setup = SETUP_ITEMS.find((item) => item.id === id);
    if (setup) {
      const item = new vscode.TreeItem(setup.label(), vscode.TreeItemCollapsibleState.None);
      item.id = id;
      item.iconPath = new vscode.ThemeIcon(setup.icon);
      item.command = { command: setup.command, title: setup.label() };
      item.contextValue = 'zcodeSetup';
      return item;
    }
    const task = this.model.get(id);
    if (!task) return new vscode.TreeItem(id);
    const item = new vscode.TreeItem(task.description, vscode.TreeItemCollapsibleState.None);
    item.id = `${task.sessionId}/${task.id}`;
    item.description = `${statusLabel(task.status)} · ${formatElapsed(this.model.elapsedMs(task))}`;
    item.iconPath = taskIcon(task);
    item.tooltip = this.tooltip(task);
    item.contextValue = `backgroundTask:${isRunning(task.status) ? 'running' : task.status}${task.outputPath ? ':output' : ''}`;
    item.accessibilityInformation = { label: vscode.l10n.t('{0}, {1}, {2}', kindLabel(task.kind), task.description, statusLabel(task.status)) };
    if (task.outputPath) item.command = { command: 'zcode.backgroundTasks.openOutput', title: vscode.l10n.t('Open Output'), arguments: [task.id] };
    return item;
  }

  /**
   * Cancels a running task of the active session (`CancelBackgroundTaskRequest`); the
   * item shows "cancelling" until the answer, then "cancelled".
   */
  async cancel(arg: TaskCommandArg): Promise<void> {
    const { sessionId, taskId } = this.resolve(arg);
    const task = this.model.get(taskId);
    if (task && !isRunning(task.status)) return;
    this.refresh(this.model.setStatus(sessionId, taskId, 'cancelling'));
    try {
      const { cancelled } = await this.host.call(CancelBackgroundTaskRequest, { sessionId, taskId });
      if (!cancelled) {
        this.refresh(this.model.setStatus(sessionId, taskId, 'running'));
        void vscode.window.showWarningMessage(vscode.l10n.t('zcode could not cancel "{0}": it may have finished already.', task?.description ?? taskId));
        return;
      }
      this.refresh(this.model.setStatus(sessionId, taskId, 'cancelled'));
    } catch (error) {
      this.refresh(this.model.setStatus(sessionId, taskId, 'running'));
      throw new Error(vscode.l10n.t('Could not cancel the background task: {0}', errorMessage(error)), { cause: error });
    }
  }

  /** Opens a task's output file in an editor. */
  async openOutput(arg: TaskCommandArg): Promise<void> {
    const { taskId } = this.resolve(arg);
    const task = this.model.get(taskId);
    if (!task?.outputPath) {
      void vscode.window.showInformationMessage(vscode.l10n.t('This background task has no output file.'));
      return;
    }
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(task.outputPath));
    await vscode.window.showTextDocument(document, { preview: true });
  }

  private resolve(arg: TaskCommandArg): { sessionId: string; taskId: string } {
    if (typeof arg === 'string') return { sessionId: this.sessions.requireActive(), taskId: arg };
    const taskId = arg?.taskId ?? arg?.id;
    if (!taskId) throw new Error(vscode.l10n.t('Pick a background task in the Background Tasks view.'));
    return { sessionId: arg?.sessionId ?? this.sessions.requireActive(), taskId };
  }

  private onNotification(notification: ExtNotification): void {
    const params = notificationOf(BackgroundTasksNotification, notification);
    if (params) this.refresh(this.model.apply(params));
  }

  private refresh(change: ModelChange): void {
    switch (change.kind) {
      case 'none':
        return;
      case 'all':
        this._onDidChangeTreeData.fire(undefined);
        break;
      case 'items':
        this._onDidChangeTreeData.fire(change.ids);
        break;
    }
    this.updateBadge();
    this.updateTicker();
  }

  private updateTicker(): void {
    const needed = this.view.visible && this.model.runningIds().length > 0;
    if (needed && !this.ticker) {
      this.ticker = setInterval(() => {
        const ids = this.model.runningIds();
        if (ids.length) this._onDidChangeTreeData.fire(ids);
        else this.stopTicker();
      }, TICK_MS);
    } else if (!needed) {
      this.stopTicker();
    }
  }

  private stopTicker(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  /** The view's badge: how many tasks run. */
  private updateBadge(): void {
    const running = this.model.tasks().filter((t) => isRunning(t.status)).length;
    this.view.badge = running ? { value: running, tooltip: vscode.l10n.t('{0} background task(s) running', running) } : undefined;
  }

  private tooltip(task: BackgroundTask): vscode.MarkdownString {
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`$(${kindIconId(task.kind)}) **`).appendText(kindLabel(task.kind)).appendMarkdown('**\n\n');
    md.appendText(task.description).appendMarkdown('\n\n');
    md.appendMarkdown('| | |\n|---|---|\n');
    const row = (label: string, value: string): void => {
      md.appendMarkdown(`| ${label} | `).appendText(value.replace(/\|/g, '/')).appendMarkdown(' |\n');
    };
    row(vscode.l10n.t('Status'), statusLabel(task.status));
    row(vscode.l10n.t('Elapsed'), formatElapsed(this.model.elapsedMs(task)));
    if (task.startedAt !== undefined) row(vscode.l10n.t('Started'), new Date(task.startedAt).toLocaleTimeString());
    row(vscode.l10n.t('Task id'), task.id);
    if (task.toolCallId) row(vscode.l10n.t('Tool call'), task.toolCallId);
    if (task.outputPath) row(vscode.l10n.t('Output'), task.outputPath);
    return md;
  }
}

function kindIconId(kind: string): string {
  return kind === 'agent' ? 'hubot' : kind === 'bash' ? 'terminal' : 'gear';
}

function kindLabel(kind: string): string {
  return kind === 'agent' ? vscode.l10n.t('Sub-agent') : kind === 'bash' ? vscode.l10n.t('Shell command') : kind;
}

/** Icon by kind, coloured (and for final states, badged) by status. */
function taskIcon(task: BackgroundTask): vscode.ThemeIcon {
  switch (task.status) {
    case 'running':
      return new vscode.ThemeIcon(kindIconId(task.kind), new vscode.ThemeColor('charts.blue'));
    case 'cancelling':
      return new vscode.ThemeIcon('loading~spin');
    case 'completed':
      return new vscode.ThemeIcon(task.kind === 'agent' ? 'hubot' : 'terminal', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
    default:
      return new vscode.ThemeIcon(kindIconId(task.kind));
  }
}

function statusLabel(status: string): string {
  switch (status) {
    case 'running':
      return vscode.l10n.t('running');
    case 'cancelling':
      return vscode.l10n.t('cancelling…');
    case 'completed':
      return vscode.l10n.t('completed');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'cancelled':
      return vscode.l10n.t('cancelled');
    default:
      return status;
  }
}
