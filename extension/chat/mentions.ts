/**
 * The host side of the composer's `@` picker and of embedding mentioned files in a prompt.
 *
 * Files: `workspace.findFiles` over every file with the default excludes, which are the
 * `files.exclude` setting (not `search.exclude`), then filtered by each folder's root `.gitignore` (gitignore.ts;
 * `findFiles` has no `.gitignore` option outside the proposed `findFiles2`). The list is cached
 * and dropped when a file is created or deleted, a `.gitignore` changes, `files.exclude` changes
 * or the folders change. Open editors come from the tab groups, symbols from
 * `vscode.executeWorkspaceSymbolProvider` (queries of two characters or more, bounded in time: a
 * language server still starting must not stall the picker).
 */
import * as vscode from 'vscode';
import type { MentionCandidate } from '../../webview-ui/contract.ts';
import { fuzzyFilter } from './fuzzyMatch.ts';
import { gitignoreMatcher } from './gitignore.ts';
import { rangeUri } from './prompt.ts';

/** Enough for large repositories; a bigger one is searched in its first this-many files. */
const MAX_FILES = 20_000;
const MAX_FILE_RESULTS = 30;
const MAX_EDITOR_RESULTS = 8;
const MAX_SYMBOL_RESULTS = 12;
const SYMBOL_TIMEOUT_MS = 1_500;
/** Files larger than this are linked, never embedded, whatever the agent accepts. */
const MAX_EMBED_CHARS = 100_000;

interface FileEntry {
  uri: vscode.Uri;
  /** Relative to its workspace folder (prefixed with the folder name in a multi-root workspace). */
  path: string;
}

let counter = 0;
const nextId = (): string => `mention-${Date.now()}-${++counter}`;
const baseName = (uri: vscode.Uri): string => uri.path.split('/').pop() || uri.path;
const relative = (uri: vscode.Uri): string => vscode.workspace.asRelativePath(uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);

export class MentionSource implements vscode.Disposable {
  private files: Promise<FileEntry[]> | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private watching = false;

  /** Candidates for `query` (the text after `@`): open editors, then files, then symbols. */
  async search(query: string): Promise<MentionCandidate[]> {
    const symbols = query.length >= 2 ? this.symbols(query) : Promise.resolve([]);
    const editors = fuzzyFilter(query, this.openEditors(), (e) => e.path, MAX_EDITOR_RESULTS);
    const shown = new Set(editors.map((e) => e.uri.toString()));
    const files = fuzzyFilter(query, (await this.fileList()).filter((f) => !shown.has(f.uri.toString())), (f) => f.path, MAX_FILE_RESULTS);
    return [...editors.map((e) => candidate('editor', e)), ...files.map((f) => candidate('file', f)), ...(await symbols)];
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
    this.files = undefined;
  }

  private openEditors(): FileEntry[] {
    const seen = new Map<string, FileEntry>();
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      const uri = tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
      if (uri && !seen.has(uri.toString())) seen.set(uri.toString(), { uri, path: relative(uri) });
    }
    return [...seen.values()];
  }

  private fileList(): Promise<FileEntry[]> {
    this.watch();
    this.files ??= listFiles().catch((error: unknown) => {
      this.files = undefined;
      throw error;
    });
    return this.files;
  }

  /** Drop the cached list whenever it may have changed (first use only: activation stays cheap). */
  private watch(): void {
    if (this.watching) return;
    this.watching = true;
    const stale = (): void => {
      this.files = undefined;
    };
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    this.subscriptions.push(
      watcher,
      watcher.onDidCreate(stale),
      watcher.onDidDelete(stale),
      watcher.onDidChange((uri) => {
        if (uri.path.endsWith('/.gitignore')) stale();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(stale),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('files.exclude')) stale();
      }),
    );
  }

  private async symbols(query: string): Promise<MentionCandidate[]> {
    const found = vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query).then(
      (list) => list ?? [],
      () => [],
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<vscode.SymbolInformation[]>((resolve) => (timer = setTimeout(() => resolve([]), SYMBOL_TIMEOUT_MS)));
    const list = await Promise.race([found, late]);
    clearTimeout(timer);
    return fuzzyFilter(query, list, (s) => s.name, MAX_SYMBOL_RESULTS).map((s) => {
      const start = s.location.range.start.line + 1;
      const end = s.location.range.end.line + 1;
      return {
        kind: 'symbol',
        label: s.name,
        description: `${relative(s.location.uri)}:${start}`,
        attachment: { kind: 'file', id: nextId(), name: `${s.name} (${baseName(s.location.uri)}:${start})`, uri: rangeUri(s.location.uri.toString(), start, end) },
      } satisfies MentionCandidate;
    });
  }
}

function candidate(kind: 'file' | 'editor', entry: FileEntry): MentionCandidate {
  return { kind, label: baseName(entry.uri), description: entry.path, attachment: { kind: 'file', id: nextId(), name: baseName(entry.uri), uri: entry.uri.toString() } };
}

async function listFiles(): Promise<FileEntry[]> {
  // `undefined` excludes = the `files.exclude` setting applies (`null` would switch it off).
  const uris = await vscode.workspace.findFiles('**/*', undefined, MAX_FILES);
  const ignores = new Map<string, (path: string) => boolean>();
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, '.gitignore')));
      ignores.set(folder.uri.toString(), gitignoreMatcher(text));
    } catch {
      // no .gitignore in this folder
    }
  }
  const entries: FileEntry[] = [];
  for (const uri of uris) {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const ignored = folder ? ignores.get(folder.uri.toString()) : undefined;
    if (ignored && folder && ignored(vscode.workspace.asRelativePath(uri, false))) continue;
    entries.push({ uri, path: relative(uri) });
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The text of a file attachment for an embedded `resource` (a `#L3-L9` fragment selects lines),
 * as the editor has it (unsaved changes included). Undefined for what should stay a link: too big,
 * binary or unreadable.
 */
export async function fileContentForPrompt(uri: string): Promise<{ text: string; mimeType?: string } | undefined> {
  const parsed = vscode.Uri.parse(uri);
  const range = /^L(\d+)(?:-L(\d+))?$/.exec(parsed.fragment);
  let document: vscode.TextDocument;
  try {
    document = await vscode.workspace.openTextDocument(parsed.with({ fragment: '' }));
  } catch {
    return undefined;
  }
  const text = range
    ? document.getText(new vscode.Range(Number(range[1]) - 1, 0, Number(range[2] ?? range[1]), 0))
    : document.getText();
  if (text.length > MAX_EMBED_CHARS) return undefined;
  return { text, mimeType: document.languageId === 'plaintext' ? 'text/plain' : `text/x-${document.languageId}` };
}
