/**
 * The vscode side effects every chat shares (sidebar and editor tabs): diffs, opening files, the
 * clipboard, editor context, the `@` picker, embedding files, logging and settings. Each chat
 * adds how it reveals itself and what it tells the user while hidden.
 */
import * as vscode from 'vscode';
import { ZCODE_INSTALL_URL } from '../../bridge/zcode/locateZcode.ts';
import { DEFAULT_CHAT_SETTINGS, type ChatSettings } from '../../webview-ui/contract.ts';
import { errorMessage } from '../errorValues.ts';
import type { ChatEnvironment } from './chatPorts.ts';
import { attachContext } from './contextAttachments.ts';
import type { DiffDocuments } from './diffDocuments.ts';
import { fileContentForPrompt, type MentionSource } from './mentions.ts';

type Logger = Pick<vscode.LogOutputChannel, 'info' | 'warn' | 'error'>;

/** Everything but the attention hooks. */
export function sharedChatEnvironment(diffs: DiffDocuments, mentions: MentionSource, log: Logger | undefined): ChatEnvironment {
  return {
    openDiff: (source) => diffs.open(source),
    openLocation: async (path, line) => {
      const uri = /^[a-z][a-z0-9+.-]+:/i.test(path) && !/^[a-z]:[\\/]/i.test(path) ? vscode.Uri.parse(path) : vscode.Uri.file(path);
      const position = line && line > 0 ? new vscode.Position(line - 1, 0) : undefined;
      await vscode.window.showTextDocument(uri, { preview: true, ...(position ? { selection: new vscode.Range(position, position) } : {}) });
    },
    copy: async (text) => vscode.env.clipboard.writeText(text),
    attachContext,
    searchMentions: (query) => mentions.search(query),
    fileContent: fileContentForPrompt,
    log: (level, message) => log?.[level](message),
    errorMessage,
    settings: readChatSettings,
    setupAction: (action) => {
      if (action === 'locate') void vscode.commands.executeCommand('zcode.locate');
      else if (action === 'openSettings') void vscode.commands.executeCommand('workbench.action.openSettings', 'zcode.path');
      else void vscode.commands.executeCommand('zcode.showInstallInstructions');
    },
    errorAction: (action) => {
      // The desktop app signs in, passes captchas and keeps the provider keys; the editor can only point there.
      if (action === 'openDesktop') void vscode.env.openExternal(vscode.Uri.parse(ZCODE_INSTALL_URL));
      else if (action === 'checkApiKey') void vscode.commands.executeCommand('zcode.checkInstallation');
      else void vscode.commands.executeCommand('zcode.showLogs');
    },
  };
}

/** Asks before a rewind from the transcript (modal: it removes messages from zcode's history). */
export async function confirmRewind(): Promise<boolean> {
  const rewind = vscode.l10n.t('Rewind');
  const detail = vscode.l10n.t('zcode keeps this message and its answer and removes everything after it. Files are not changed: undo edits with the changed-files cards.');
  return (await vscode.window.showWarningMessage(vscode.l10n.t('Rewind the conversation to this message?'), { modal: true, detail }, rewind)) === rewind;
}

/** `zcode.chat.sendKey` and `zcode.chat.fontSize`, with bad values replaced by the defaults. */
function readChatSettings(): ChatSettings {
  const config = vscode.workspace.getConfiguration('zcode.chat');
  const sendKey = config.get<string>('sendKey');
  const fontSize = config.get<number>('fontSize');
  return {
    sendKey: sendKey === 'ctrlEnter' ? 'ctrlEnter' : DEFAULT_CHAT_SETTINGS.sendKey,
    fontSize: typeof fontSize === 'number' && fontSize >= 6 && fontSize <= 48 ? fontSize : DEFAULT_CHAT_SETTINGS.fontSize,
  };
}
