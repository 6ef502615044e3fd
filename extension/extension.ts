/**
 * Entry point. `activate()` only registers views, commands and listeners: the bridge is created
 * on first use and zcode starts on the first request that needs it (design: "activate does
 * nothing slow"). `deactivate()` closes the remote endpoint and disposes the bridge, which kills
 * zcode: no process and no listening socket are left behind.
 */
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import type * as BridgeModule from '../bridge/acp/bridge.ts';
import type { LocateOptions } from '../bridge/zcode/backend.ts';
import { ZcodeClientHost } from './acpClient.ts';
import { loadSdk } from './lazyModules.ts';
import type { HostState } from './acpClient.ts';
import { BackgroundTasksTree } from './backgroundTasks/treeProvider.ts';
import { registerChatView } from './chat/chatViewProvider.ts';
import { registerAppCommands } from './commands/appCommands.ts';
import { CommandRunner } from './commands/runner.ts';
import { SessionHistoryStore } from './commands/sessionHistory.ts';
import { registerSessionCommands } from './commands/sessionCommands.ts';
import { QuickPickInteractiveUi } from './fallbackUi.ts';
import { LocateUi } from './locate.ts';
import { RemoteAccess } from './remote.ts';
import { ChatBinding } from './sessions/chatBinding.ts';
import { SessionRegistry } from './sessions/registry.ts';
import { QuotaStatus } from './quotaStatus.ts';
import { StatusBar } from './statusBar.ts';
import { contextKeys, ZcodeFeatures } from './zcodeFeatures.ts';

/** What `activate()` returns (the extension's API, used by tests and by other extensions). */
export interface ZcodeExtensionApi {
  readonly host: ZcodeClientHost;
  /** Every session of this window (new, load, options, folders, titles). */
  readonly registry: SessionRegistry;
  /** The session the sidebar chat shows, which the palette's commands act on. */
  readonly sessions: ChatBinding;
  readonly backgroundTasks: BackgroundTasksTree;
  readonly remote: RemoteAccess;
  readonly statusBar: StatusBar;
  readonly quota: QuotaStatus;
  readonly locate: LocateUi;
  readonly commands: CommandRunner;
  readonly features: ZcodeFeatures;
}

let shutdown: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): ZcodeExtensionApi {
  const log = vscode.window.createOutputChannel('ZCode', { log: true });
  context.subscriptions.push(log);

  const host = new ZcodeClientHost({
    createBridge: async (options) => (await loadBridge()).createBridge(options),
    logger: log,
    storageDir: context.globalStorageUri.fsPath,
    locate: readLocateOptions,
    defaultMode: () => vscode.workspace.getConfiguration('zcode').get<string>('defaultMode') || undefined,
    locale: vscode.env.language,
    fallbackUi: new QuickPickInteractiveUi(),
    // Never moves focus: a request must not catch keys meant for the editor (see useCardFocus.ts).
    revealUi: () => vscode.commands.executeCommand('zcode.chat.focus', { preserveFocus: true }),
    clientInfo: { name: 'zcode-vscode', version: String(context.extension.packageJSON.version ?? '0.0.0') },
  });
  const registry = new SessionRegistry(host, context.workspaceState, workspaceCwd);
  const sessions = new ChatBinding(registry, { cwd: workspaceCwd, memento: context.workspaceState, log: (message) => log.warn(message) });
  const remote = new RemoteAccess(host, context.secrets, log);
  const tree = new BackgroundTasksTree(host, sessions);
  const statusBar = new StatusBar(host, remote);
  const quota = new QuotaStatus(host, statusBar);
  const locate = new LocateUi(host, [tree, statusBar]);
  locate.watchVersion(readLocateOptions);
  const features = new ZcodeFeatures(host, {
    notStartedReason: vscode.l10n.t('zcode has not been started yet'),
    stoppedReason: vscode.l10n.t('zcode is not running'),
    noReason: vscode.l10n.t('this zcode build does not support it'),
    log: (message) => log.warn(message),
  });
  context.subscriptions.push(host, registry, sessions, remote, tree, statusBar, quota, locate, features);

  const history = new SessionHistoryStore(context.workspaceState);
  context.subscriptions.push(history, registerChatView(context, host, sessions, log, statusBar, history, quota, locate, features));

  const runner = new CommandRunner(log, locate, context.subscriptions);
  registerSessionCommands(runner, host, sessions, history, features);
  registerAppCommands(runner, { host, remote, tree, locate, log, locateOptions: readLocateOptions });

  // Context keys for `when` clauses: only those package.json reads (zcode.notFound: locate.ts,
  // zcode.chatFocused: chatViewProvider.ts; zcode.can.*: what the running zcode supports).
  const setContext = (key: string, value: unknown): void => void vscode.commands.executeCommand('setContext', key, value);
  const onFeatures = (): void => {
    for (const [key, value] of Object.entries(contextKeys(features.capabilities))) setContext(key, value);
  };
  onFeatures();
  const onState = (state: HostState): void => setContext('zcode.turnRunning', state === 'turnRunning');
  onState(host.state);
  setContext('zcode.hasSession', sessions.activeSessionId !== undefined);
  setContext('zcode.remoteEnabled', remote.state.enabled);
  context.subscriptions.push(
    host.onDidChangeState(onState),
    features.onDidChange(onFeatures),
    sessions.onDidChangeActiveSession((id) => setContext('zcode.hasSession', id !== undefined)),
    remote.onDidChange((state) => setContext('zcode.remoteEnabled', state.enabled)),
  );

  // A crash: say so, offer Restart (open sessions resume on the fresh process) and the logs.
  context.subscriptions.push(
    host.onDidCrash((info) => {
      const how = info.signal ? vscode.l10n.t('signal {0}', info.signal) : vscode.l10n.t('exit code {0}', String(info.code));
      const tail = info.stderrTail.trim().split('\n').slice(-1)[0];
      const restart = vscode.l10n.t('Restart');
      const showLogs = vscode.l10n.t('Show Logs');
      const message = tail ? vscode.l10n.t('zcode stopped unexpectedly ({0}): {1}', how, tail) : vscode.l10n.t('zcode stopped unexpectedly ({0}).', how);
      void vscode.window.showErrorMessage(message, restart, showLogs).then((choice) => {
        if (choice === restart) void vscode.commands.executeCommand('zcode.restart');
        else if (choice === showLogs) log.show(true);
      });
    }),
  );

  // The bridge reads the zcode location when it is created: a new location needs a new bridge.
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('zcode.path') && !event.affectsConfiguration('zcode.nodePath')) return;
      void host.resetBridge();
      locate.lookQuietly(readLocateOptions());
    }),
  );

  // Remote access follows its settings from now on; if it is on, the endpoint opens now.
  void remote.reconcile();

  shutdown = async () => {
    await remote.shutdown();
    await host.shutdown();
  };

  // Load the bridge and the SDK once activation is over, while the chat webview boots in the
  // renderer: activation stays cheap and the first request does not wait for them.
  // Whether zcode can be found at all is known then too (file checks, zcode is not started): the
  // empty chat and the Background Tasks view say so before a first prompt fails.
  setTimeout(() => {
    locate.lookQuietly(readLocateOptions());
    void loadBridge().then(loadSdk, (error: unknown) => log.error(`loading the bridge failed: ${String(error)}`));
  }, 0);

  return { host, registry, sessions, backgroundTasks: tree, remote, statusBar, quota, locate, commands: runner, features };
}

/** Closes the remote endpoint and disposes the bridge (killing zcode). VS Code awaits it. */
export async function deactivate(): Promise<void> {
  const run = shutdown;
  shutdown = undefined;
  await run?.();
}

/** Settings → locate options (discovery fills the gaps: bridge/zcode/locateZcode.ts). */
function readLocateOptions(): LocateOptions {
  const config = vscode.workspace.getConfiguration('zcode');
  const zcodePath = config.get<string>('path')?.trim();
  const nodePath = config.get<string>('nodePath')?.trim();
  return {
    ...(zcodePath ? { zcodePath } : {}),
    ...(nodePath ? { nodePath } : {}),
    cwd: workspaceCwd(),
  };
}

/** The folder sessions live in: the first workspace folder, else the home directory. */
function workspaceCwd(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? homedir();
}

let bridgeModule: Promise<typeof BridgeModule> | undefined;

/** bridge/acp/bridge.ts, loaded after activation (its zcode schemas and the ACP SDK's cost ~50 ms to build). */
function loadBridge(): Promise<typeof BridgeModule> {
  return (bridgeModule ??= import('../bridge/acp/bridge.ts'));
}
