/**
 * The session history QuickPick ("ZCode: Resume Session"): every session of every workspace
 * folder (labelled by folder in a multi-root workspace), filtered as you type (title, folder,
 * time and id), with per-item buttons to rename, open in an editor tab, and remove from the
 * history. Enter resumes the highlighted session; the destructive action is only a button and
 * always asks first (modal), so an accidental Enter can never remove anything.
 *
 * Rename: zcode's legacy methods have no rename ("ZCode: Rename Session" goes through
 * `_zcode/session/rename`, v4's `renameSession` where the build has it), so the title here is the
 * extension's own, kept in the workspace state and shown instead of zcode's. Remove: zcode has no
 * delete either; the bridge closes the session (`session/close`, which also stops a running turn)
 * and the history hides it from then on (zcode keeps its files).
 */
import * as vscode from 'vscode';
import type { SessionInfo } from '@agentclientprotocol/sdk';
import { sessionFolders } from '../sessions/folders.ts';
import type { ChatBinding } from '../sessions/chatBinding.ts';
import type { SessionRegistry } from '../sessions/registry.ts';

const TITLES_KEY = 'zcode.sessionTitles';
const HIDDEN_KEY = 'zcode.hiddenSessions';
const MAX_KEPT = 500;

/** Titles the user gave and sessions the user removed, per workspace. */
export class SessionHistoryStore implements vscode.Disposable {
  private readonly _onDidRemove = new vscode.EventEmitter<string>();
  /** A session was removed from the history (a chat tab showing it closes). */
  readonly onDidRemove = this._onDidRemove.event;

  constructor(private readonly state: vscode.Memento) {}

  dispose(): void {
    this._onDidRemove.dispose();
  }

  title(sessionId: string): string | undefined {
    return this.state.get<Record<string, string>>(TITLES_KEY, {})[sessionId];
  }

  async rename(sessionId: string, title: string | undefined): Promise<void> {
    const titles = { ...this.state.get<Record<string, string>>(TITLES_KEY, {}) };
    delete titles[sessionId];
    if (title) titles[sessionId] = title;
    await this.state.update(TITLES_KEY, Object.fromEntries(Object.entries(titles).slice(-MAX_KEPT)));
  }

  isHidden(sessionId: string): boolean {
    return this.state.get<string[]>(HIDDEN_KEY, []).includes(sessionId);
  }

  async hide(sessionId: string): Promise<void> {
    const hidden = this.state.get<string[]>(HIDDEN_KEY, []).filter((id) => id !== sessionId);
    await this.state.update(HIDDEN_KEY, [...hidden, sessionId].slice(-MAX_KEPT));
    this._onDidRemove.fire(sessionId);
  }
}

/** A listed session with the folder it lives in. */
export interface HistoryEntry {
  info: SessionInfo;
  folder: { name: string; path: string };
}

/** Every session of every folder (hidden ones left out), most recent first; a folder that fails to list is skipped. */
export async function listHistory(registry: SessionRegistry, store: SessionHistoryStore): Promise<HistoryEntry[]> {
  const lists = await Promise.all(
    sessionFolders().map(async (folder) => {
      try {
        return (await registry.listSessions(folder.path)).map((info) => ({ info, folder }));
      } catch (error) {
        if (sessionFolders().length === 1) throw error;
        return [];
      }
    }),
  );
  return lists
    .flat()
    .filter((e) => !store.isHidden(e.info.sessionId))
    .sort((a, b) => (b.info.updatedAt ?? '').localeCompare(a.info.updatedAt ?? ''));
}

/**
 * The history for the chat's session menu: the user's titles, removed sessions left out, and in a
 * multi-root workspace the folder before the title (its folder is remembered, so a load from the
 * menu opens the session in its own folder).
 */
export async function historyForMenu(registry: SessionRegistry, store: SessionHistoryStore): Promise<SessionInfo[]> {
  const multiRoot = sessionFolders().length > 1;
  return (await listHistory(registry, store)).map(({ info, folder }) => {
    if (multiRoot) registry.rememberFolder(info.sessionId, folder.path);
    const title = store.title(info.sessionId) ?? info.title ?? undefined;
    return { ...info, ...(title ? { title: multiRoot ? `${folder.name}: ${title}` : title } : {}) };
  });
}

type Item = vscode.QuickPickItem & { entry: HistoryEntry };

/**
 * Shows the history; resolves with the session to resume (and its folder), or undefined when
 * dismissed. Rename, open-in-editor and remove happen from the item buttons, the list stays open.
 */
export async function pickFromHistory(sessions: ChatBinding, store: SessionHistoryStore): Promise<HistoryEntry | undefined> {
  const t = vscode.l10n.t;
  const multiRoot = sessionFolders().length > 1;
  const rename: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: t('Rename') };
  const openInEditor: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('link-external'), tooltip: t('Open in an editor tab') };
  const remove: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: t('Remove from history…') };
  const quickPick = vscode.window.createQuickPick<Item>();
  quickPick.title = t('Resume a ZCode session');
  quickPick.placeholder = t('Loading sessions…');
  quickPick.busy = true;
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  const toItem = (entry: HistoryEntry): Item => {
    const id = entry.info.sessionId;
    const title = store.title(id) || entry.info.title || t('Untitled session');
    const when = formatTime(entry.info.updatedAt ?? undefined);
    return {
      label: title,
      description: [multiRoot ? `$(root-folder) ${entry.folder.name}` : undefined, when].filter(Boolean).join(' · '),
      detail: id === sessions.activeSessionId ? t('{0} (active)', id) : id,
      buttons: [rename, openInEditor, remove],
      entry,
    };
  };
  let entries: HistoryEntry[] = [];
  const refresh = (): void => {
    const active = quickPick.activeItems[0]?.entry.info.sessionId;
    quickPick.items = entries.map(toItem);
    const keep = quickPick.items.find((i) => i.entry.info.sessionId === active);
    if (keep) quickPick.activeItems = [keep];
    quickPick.placeholder = entries.length ? t('Type to filter; Enter resumes the session') : t('No sessions in this workspace yet');
  };
  try {
    return await new Promise<HistoryEntry | undefined>((resolve) => {
      let modal = false;
      quickPick.onDidAccept(() => {
        const picked = quickPick.selectedItems[0] ?? quickPick.activeItems[0];
        if (picked) resolve(picked.entry);
      });
      // A modal dialog (remove) hides the QuickPick for a moment: that is not a dismissal.
      quickPick.onDidHide(() => {
        if (!modal) resolve(undefined);
      });
      quickPick.onDidTriggerItemButton(async ({ button, item }) => {
        const id = item.entry.info.sessionId;
        if (button === rename) {
          modal = true;
          const title = await vscode.window.showInputBox({
            title: t('Rename session'),
            value: item.label,
            prompt: t('The title this workspace shows for the session (empty: zcode\'s own title)'),
            ignoreFocusOut: true,
          });
          modal = false;
          if (title !== undefined) await store.rename(id, title.trim() || undefined);
          refresh();
          quickPick.show();
        } else if (button === openInEditor) {
          resolve(undefined);
          void vscode.commands.executeCommand('zcode.chat.openInEditor', id);
        } else if (button === remove) {
          modal = true;
          const confirm = t('Remove');
          const answer = await vscode.window.showWarningMessage(
            t('Remove "{0}" from the history?', item.label),
            { modal: true, detail: t('The session is closed (a running turn stops) and no longer listed here. zcode keeps its files.') },
            confirm,
          );
          modal = false;
          if (answer === confirm) {
            await closeSession(sessions, id);
            await store.hide(id);
            entries = entries.filter((e) => e.info.sessionId !== id);
          }
          refresh();
          quickPick.show();
        }
      });
      quickPick.show();
      listHistory(sessions.registry, store).then(
        (list) => {
          entries = list;
          quickPick.busy = false;
          refresh();
        },
        (error: unknown) => {
          quickPick.busy = false;
          quickPick.placeholder = t('Could not list the sessions: {0}', error instanceof Error ? error.message : String(error));
        },
      );
    });
  } finally {
    quickPick.dispose();
  }
}

/** `session/close` on the bridge (a session it no longer knows is closed already); the chat showing it lets go. */
async function closeSession(sessions: ChatBinding, sessionId: string): Promise<void> {
  await sessions.registry.forgetSession(sessionId);
  if (sessions.activeSessionId === sessionId) await sessions.setActive(undefined);
}

export function formatTime(value: string | number | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const date = new Date(typeof value === 'number' ? value : Number.isFinite(Number(value)) ? Number(value) : value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}
