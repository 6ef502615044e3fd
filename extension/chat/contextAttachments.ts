/**
 * Editor context → composer attachments: the active selection (with its text, for agents that take
 * embedded context), the active file, or files picked in a dialog.
 */
import * as vscode from 'vscode';
import type { Attachment } from '../../webview-ui/viewModel.ts';

let counter = 0;
const nextId = (): string => `ctx-${Date.now()}-${++counter}`;

function baseName(uri: vscode.Uri): string {
  return uri.path.split('/').pop() || uri.path;
}

/** The selection of the active editor (empty selection → nothing). */
export function selectionAttachment(editor: vscode.TextEditor | undefined): Attachment[] {
  if (!editor || editor.selection.isEmpty) return [];
  const { document, selection } = editor;
  const startLine = selection.start.line + 1;
  // A selection ending at column 0 of a line does not include that line.
  const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line : selection.end.line + 1;
  return [
    {
      kind: 'selection',
      id: nextId(),
      name: `${baseName(document.uri)}:${startLine}${endLine !== startLine ? `-${endLine}` : ''}`,
      uri: document.uri.toString(),
      startLine,
      endLine,
      text: document.getText(selection),
      languageId: document.languageId,
    },
  ];
}

function fileAttachment(uri: vscode.Uri): Attachment {
  return { kind: 'file', id: nextId(), name: baseName(uri), uri: uri.toString() };
}

export async function attachContext(source: 'selection' | 'activeFile' | 'pickFiles'): Promise<Attachment[]> {
  // A chat in an editor tab is itself the active editor: then the editor beside it counts.
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  switch (source) {
    case 'selection':
      return selectionAttachment(editor);
    case 'activeFile':
      return editor ? [fileAttachment(editor.document.uri)] : [];
    case 'pickFiles': {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: true,
        openLabel: vscode.l10n.t('Attach'),
        defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
      });
      return (picked ?? []).map(fileAttachment);
    }
  }
}
