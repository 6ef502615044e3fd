/**
 * The vscode side of per-turn changes: the file system (`workspace.fs`), the read-only documents of
 * the content before the turn and of what it left (`zcode-turn:` URIs keeping the file's path, so
 * the language is detected), VS Code's multi-file diff editor (`vscode.changes`) for Review, and
 * the warning (with a diff) when Undo is refused.
 */
import * as vscode from 'vscode';
import type { ChangeSet } from './changeSet.ts';
import { ChangeStore, type FilePort } from './changeStore.ts';
import { ChangeTracker, type ChangesUi, type UndoConflict } from './changeTracker.ts';

export const TURN_SCHEME = 'zcode-turn';

const baseNameOf = (path: string): string => path.split(/[\\/]/).pop() || path;

/** `workspace.fs` as the tracker's file port (works for remote workspaces too). */
export const workspaceFiles: FilePort = {
  async read(path) {
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(path)));
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return null;
      throw error;
    }
  },
  async write(path, text) {
    const uri = vscode.Uri.file(path);
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  },
  async delete(path) {
    await vscode.workspace.fs.delete(vscode.Uri.file(path), { useTrash: false });
  },
  unsaved(path) {
    const document = vscode.workspace.textDocuments.find((d) => d.isDirty && d.uri.scheme === 'file' && d.uri.fsPath === vscode.Uri.file(path).fsPath);
    return document?.getText();
  },
  async list(dir) {
    try {
      return (await vscode.workspace.fs.readDirectory(vscode.Uri.file(dir))).filter(([, type]) => type === vscode.FileType.File).map(([name]) => name);
    } catch {
      return [];
    }
  },
};

/** `empty`: a blank document (the right side for a file that no longer exists). */
function turnUri(set: ChangeSet, path: string, side: 'before' | 'after' | 'empty'): vscode.Uri {
  return vscode.Uri.from({ scheme: TURN_SCHEME, path: vscode.Uri.file(path).path, query: new URLSearchParams({ set: set.id, side, file: path }).toString() });
}

class TurnDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly tracker: () => ChangeTracker) {}
  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    if (q.get('side') === 'empty') return Promise.resolve('');
    return this.tracker().content(q.get('set') ?? '', q.get('file') ?? '', q.get('side') === 'after' ? 'after' : 'before');
  }
}

class VscodeChangesUi implements ChangesUi {
  async review(set: ChangeSet, path?: string): Promise<void> {
    const files = set.files.filter((f) => path === undefined || f.path === path);
    const t = vscode.l10n.t;
    if (files.length === 1 && path !== undefined) {
      const f = files[0];
      const right = f.after === null ? turnUri(set, f.path, 'empty') : vscode.Uri.file(f.path);
      await vscode.commands.executeCommand('vscode.diff', turnUri(set, f.path, 'before'), right, t('{0} (before the turn ⇄ now)', baseNameOf(f.path)), { preview: true });
      return;
    }
    // [label, original, modified]: the original is the content before the turn, the modified the
    // file itself (live), or the empty "after" document for a file the turn deleted.
    const resources = files.map((f) => {
      const file = vscode.Uri.file(f.path);
      return [file, turnUri(set, f.path, 'before'), f.after === null ? turnUri(set, f.path, 'empty') : file];
    });
    await vscode.commands.executeCommand('vscode.changes', t('zcode: {0}', set.prompt || t('changes of a turn')), resources);
  }

  async refused(conflicts: UndoConflict[], all: boolean): Promise<void> {
    const t = vscode.l10n.t;
    const names = conflicts.map((c) => baseNameOf(c.file.path)).join(', ');
    const message = !all
        ? t('Not undone: {0} changed after this turn (by you or a later turn). Undoing would lose those changes.', names)
        : t('Nothing was undone: {0} changed after this turn (by you or a later turn). Undoing would lose those changes.', names);
    const show = t('Show Differences');
    if ((await vscode.window.showWarningMessage(message, show)) !== show) return;
    // What the turn left ⇄ the file now: the changes Undo would throw away.
    if (conflicts.length === 1) {
      const { set, file, current } = conflicts[0];
      const right = current === null ? turnUri(set, file.path, 'empty') : vscode.Uri.file(file.path);
      await vscode.commands.executeCommand('vscode.diff', turnUri(set, file.path, 'after'), right, t('{0} (after the turn ⇄ now)', baseNameOf(file.path)));
      return;
    }
    const resources = conflicts.map(({ set, file, current }) => [vscode.Uri.file(file.path), turnUri(set, file.path, 'after'), current === null ? turnUri(set, file.path, 'empty') : vscode.Uri.file(file.path)]);
    await vscode.commands.executeCommand('vscode.changes', t('Changed since the turn'), resources);
  }
}

/**
 * The tracker for the chat (its sets stored in the workspace's storage, else the global one) and
 * the `zcode-turn:` document provider.
 */
export function registerTurnChanges(context: vscode.ExtensionContext, log: (message: string) => void): { tracker: ChangeTracker; disposable: vscode.Disposable } {
  const base = context.storageUri ?? context.globalStorageUri;
  const store = new ChangeStore(workspaceFiles, vscode.Uri.joinPath(base, 'turn-changes').fsPath, log);
  const tracker = new ChangeTracker(workspaceFiles, store, new VscodeChangesUi(), log);
  const disposable = vscode.workspace.registerTextDocumentContentProvider(TURN_SCHEME, new TurnDocuments(() => tracker));
  return { tracker, disposable };
}
