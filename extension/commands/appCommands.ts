/**
 * Commands about zcode itself and the extension's surfaces: restart, logs, remote access, locate,
 * the status bar menu, and the Background Tasks tree's item actions.
 */
import * as vscode from 'vscode';
import type { ZcodeClientHost } from '../acpClient.ts';
import type { BackgroundTasksTree, TaskCommandArg } from '../backgroundTasks/treeProvider.ts';
import type { LocateUi } from '../locate.ts';
import type { RemoteAccess } from '../remote.ts';
import type { CommandRunner } from './runner.ts';
import type { LocateOptions } from '../../bridge/zcode/backend.ts';
import { showInstallationReport } from '../installationReport.ts';

export interface AppCommandDeps {
  host: ZcodeClientHost;
  remote: RemoteAccess;
  tree: BackgroundTasksTree;
  locate: LocateUi;
  log: vscode.LogOutputChannel;
  /** The current `zcode.path` / `zcode.nodePath` as locate options (the installation report). */
  locateOptions?: () => LocateOptions;
}

export function registerAppCommands(runner: CommandRunner, deps: AppCommandDeps): void {
  const t = vscode.l10n.t;
  const { host, remote, tree, locate, log } = deps;

  runner.register('zcode.showLogs', () => t('Show Logs'), () => log.show(true));

  runner.register('zcode.restart', () => t('Restart zcode'), async () => {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: t('Restarting zcode…') }, () => host.restart());
  });

  runner.register('zcode.remote.toggle', () => t('Toggle Remote Access'), async (enable?: boolean) => {
    await remote.toggle(typeof enable === 'boolean' ? enable : undefined);
    const state = remote.state;
    if (state.enabled && state.url) {
      const copy = t('Copy URL and Token');
      void vscode.window.showInformationMessage(t('Remote access is on: {0}', state.url), copy).then((choice) => {
        if (choice === copy) void vscode.commands.executeCommand('zcode.remote.copyUrl');
      });
    } else if (!state.enabled) {
      void vscode.window.showInformationMessage(t('Remote access is off.'));
    }
    return state;
  });

  runner.register('zcode.remote.copyUrl', () => t('Copy Remote Access URL'), async () => {
    await remote.copyUrl();
    void vscode.window.showInformationMessage(t('The remote access URL, including its token, is on the clipboard. Treat it like a password.'));
  });

  runner.register('zcode.remote.rotateToken', () => t('Rotate Remote Access Token'), async () => {
    await remote.rotateToken();
    void vscode.window.showInformationMessage(t('A new remote access token is in use; connected remote clients were disconnected.'));
  });

  runner.register('zcode.locate', () => t('Locate zcode'), (path?: string) => locate.locate(typeof path === 'string' ? path : undefined));
  runner.register('zcode.checkInstallation', () => t('Check zcode Installation'), async () => {
    const ok = await locate.check();
    // The same report as `zcode-acp --doctor`; not awaited: the command answers with the check.
    if (deps.locateOptions) void showInstallationReport(locate, deps.locateOptions(), log).catch((error: unknown) => log.warn(`installation report failed: ${String(error)}`));
    return ok;
  });
  runner.register('zcode.showInstallInstructions', () => t('Install Instructions'), () => locate.showInstallInstructions());

  runner.register('zcode.backgroundTasks.cancel', () => t('Cancel Background Task'), (arg?: TaskCommandArg) => tree.cancel(arg));
  runner.register('zcode.backgroundTasks.openOutput', () => t('Open Output'), (arg?: TaskCommandArg) => tree.openOutput(arg));

  runner.register('zcode.statusMenu', () => t('ZCode'), async () => {
    type Item = vscode.QuickPickItem & { command: string; args?: unknown[] };
    const remoteOn = remote.state.enabled;
    const items: Item[] = [];
    if (locate.message !== undefined) items.push({ label: `$(search) ${t('Locate zcode…')}`, detail: locate.message, command: 'zcode.locate' });
    items.push(
      { label: `$(output) ${t('Show Logs')}`, command: 'zcode.showLogs' },
      { label: `$(debug-restart) ${t('Restart zcode')}`, command: 'zcode.restart' },
      { label: '', kind: vscode.QuickPickItemKind.Separator, command: '' },
      {
        label: remoteOn ? `$(debug-disconnect) ${t('Turn Remote Access Off')}` : `$(broadcast) ${t('Turn Remote Access On')}`,
        description: remoteOn && remote.state.url ? t('{0} · {1} client(s)', remote.state.url, remote.state.clientCount) : undefined,
        command: 'zcode.remote.toggle',
        args: [!remoteOn],
      },
    );
    if (remoteOn) {
      items.push(
        { label: `$(copy) ${t('Copy Remote Access URL')}`, command: 'zcode.remote.copyUrl' },
        { label: `$(key) ${t('Rotate Remote Access Token')}`, command: 'zcode.remote.rotateToken' },
      );
    }
    const picked = await vscode.window.showQuickPick(items, { title: t('ZCode'), placeHolder: t('Pick an action') });
    if (picked?.command) await vscode.commands.executeCommand(picked.command, ...(picked.args ?? []));
  });
}
