/**
 * Which workspace folder a session lives in. A single-folder workspace needs no choice; in a
 * multi-root workspace New Session asks, and the history lists the sessions of every folder,
 * labelled by folder.
 */
import { homedir } from 'node:os';
import * as vscode from 'vscode';

export interface SessionFolder {
  name: string;
  /** Absolute path (the ACP `cwd`). */
  path: string;
}

/** The workspace folders (none: the home directory, as sessions then live there). */
export function sessionFolders(): SessionFolder[] {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) return [{ name: '~', path: homedir() }];
  return folders.map((f) => ({ name: f.name, path: f.uri.fsPath }));
}

/** The folder of sessions started without a choice: the first workspace folder, else home. */
export function defaultSessionFolder(): string {
  return sessionFolders()[0].path;
}

/** The folder for a new session: asks in a multi-root workspace. Undefined = dismissed. */
export async function pickSessionFolder(): Promise<string | undefined> {
  const folders = sessionFolders();
  if (folders.length === 1) return folders[0].path;
  const picked = await vscode.window.showQuickPick(
    folders.map((f) => ({ label: `$(root-folder) ${f.name}`, description: f.path, path: f.path })),
    { title: vscode.l10n.t('New ZCode session'), placeHolder: vscode.l10n.t('Which folder should the session work in?') },
  );
  return picked?.path;
}
