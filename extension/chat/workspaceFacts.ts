/**
 * What the empty chat's first prompts know about the workspace (firstPrompts.ts): the first
 * folder's project name and test script (its package.json) and the file open in the editor.
 */
import * as vscode from 'vscode';
import * as z from 'zod';
import type { WorkspaceFacts } from './firstPrompts.ts';

/** What the prompts read from package.json; anything else in it is ignored. */
const PackageJson = z.object({
  name: z.string().trim().min(1).optional().catch(undefined),
  scripts: z.object({ test: z.string().optional().catch(undefined) }).optional().catch(undefined),
});

/** What the first workspace folder and the active editor say (never throws: a fact it cannot read is left out). */
export async function readWorkspaceFacts(): Promise<WorkspaceFacts> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return {};
  const facts: WorkspaceFacts = { project: folder.name };
  try {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, 'package.json')));
    const parsed = PackageJson.safeParse(JSON.parse(text));
    if (parsed.success) {
      if (parsed.data.name) facts.project = parsed.data.name;
      if (parsed.data.scripts?.test) facts.testCommand = 'npm test';
    }
  } catch {
    // No package.json (or not JSON): the folder's name stays.
  }
  const open = vscode.window.activeTextEditor?.document.uri;
  if (open?.scheme === 'file' && vscode.workspace.getWorkspaceFolder(open)) facts.openFile = vscode.workspace.asRelativePath(open, false);
  return facts;
}
