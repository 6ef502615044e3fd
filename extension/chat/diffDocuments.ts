/**
 * "Open Diff" for edit cards: the old and new text of a tool call's diff become two read-only
 * virtual documents (`zcode-diff:` URIs that keep the file's path, so the language is detected),
 * opened side by side in VS Code's own diff editor (`vscode.diff`).
 */
import * as vscode from 'vscode';
import type { DiffSource } from './toolView.ts';

const DIFF_SCHEME = 'zcode-diff';

/** Diffs kept for re-opening; older ones are dropped (their documents then show empty). */
const MAX_ENTRIES = 100;

export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  register(): vscode.Disposable {
    return vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** The two URIs for a diff (exported for tests of the extension host). */
  urisFor(source: DiffSource): { left: vscode.Uri; right: vscode.Uri } {
    const id = ++this.counter;
    const path = vscode.Uri.file(source.path).path;
    const left = vscode.Uri.from({ scheme: DIFF_SCHEME, path, query: `edit=${id}&side=before` });
    const right = vscode.Uri.from({ scheme: DIFF_SCHEME, path, query: `edit=${id}&side=after` });
    this.remember(left.toString(), source.oldText ?? '');
    this.remember(right.toString(), source.newText);
    return { left, right };
  }

  async open(source: DiffSource): Promise<void> {
    const { left, right } = this.urisFor(source);
    const name = source.path.split(/[\\/]/).pop() ?? source.path;
    const title = source.oldText == null ? vscode.l10n.t('{0} (new file, zcode)', name) : vscode.l10n.t('{0} (zcode edit)', name);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  private remember(key: string, text: string): void {
    this.texts.set(key, text);
    while (this.texts.size > MAX_ENTRIES * 2) {
      const oldest = this.texts.keys().next().value;
      if (oldest === undefined) break;
      this.texts.delete(oldest);
    }
  }
}
