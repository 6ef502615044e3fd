import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('ZCode', { log: true });
  context.subscriptions.push(log, vscode.commands.registerCommand('zcode.showLogs', () => log.show()));
}

export function deactivate(): void {}
