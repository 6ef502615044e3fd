/**
 * Going back in a conversation, as the user chooses it: the palette's Rewind and the chat's hover
 * actions both end here. The points come from `_zcode/session/rewindTargets`; each says what it
 * allows, and the choice names which kind of rewind it is:
 * - on the latest prompt, "Ask again" (the prompt may be edited first), optionally "and restore
 *   the files this turn changed";
 * - on an earlier message, "Fork from here" (a new session; the original is kept, and we say so);
 * - "Undo this turn's file changes" (files only, the conversation stays).
 * Every guard the bridge reports (`blocked`, `staleGaveUp`) becomes a message naming the files.
 */
import * as vscode from 'vscode';
import { RewindTargetsRequest, RewindToRequest } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { ExtensionRequest, ParamsOf, ResultOf, RewindAction, RewindFile, RewindTarget, RewindToResponse } from '../bridge/acp/extensions/contractDescriptors.ts';

/** What the rewind needs of `ZcodeClientHost`. */
export interface RewindHost {
  call<D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>): Promise<ResultOf<D>>;
}

/** What the user chose: a point, what to do there and (asking again) the prompt's text. */
export interface RewindChoice {
  target: RewindTarget;
  action: RewindAction;
  text?: string;
}

const t = vscode.l10n.t;
const MAX_LABEL = 80;

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_LABEL ? `${line.slice(0, MAX_LABEL - 1)}…` : line;
}

/** The words for each kind of rewind (QuickPick label and detail). */
function describe(action: RewindAction, target: RewindTarget): { label: string; detail: string } {
  switch (action) {
    case 'askAgain':
      return { label: `$(refresh) ${t('Ask again')}`, detail: t('Remove this prompt and everything after it, then ask it again (you can edit it first). Files stay as they are.') };
    case 'askAgainRestoreFiles':
      return {
        label: `$(discard) ${t('Ask again and restore the files this turn changed')}`,
        detail: target.fileCount ? t('Also puts back the {0} file(s) this turn changed.', target.fileCount) : t('Also puts back the files this turn changed.'),
      };
    case 'forkHere':
      return { label: `$(repo-forked) ${t('Fork from here')}`, detail: t('A new session with the conversation before this message. This session is kept unchanged.') };
    case 'filesOnly':
      return { label: `$(history) ${t("Undo this turn's file changes")}`, detail: t('Restore the files this turn changed. The conversation stays as it is.') };
  }
}

const REWIND_ACTIONS_IN_ORDER: readonly RewindAction[] = ['askAgain', 'askAgainRestoreFiles', 'forkHere', 'filesOnly'];

/** The kinds of rewind `target` allows, in the order they are offered. */
export function offeredActions(target: RewindTarget): RewindAction[] {
  return REWIND_ACTIONS_IN_ORDER.filter((action) => target.actions.includes(action));
}

/** The session's rewind targets, newest first (a picker shows the latest prompt on top). */
export async function rewindTargets(host: RewindHost, sessionId: string): Promise<RewindTarget[]> {
  return [...(await host.call(RewindTargetsRequest, { sessionId })).targets].reverse();
}

/** QuickPick of the points to go back to. Undefined: dismissed. */
export async function pickTarget(targets: readonly RewindTarget[]): Promise<RewindTarget | undefined> {
  type Item = vscode.QuickPickItem & { target: RewindTarget };
  const items: Item[] = targets
    .filter((target) => offeredActions(target).length > 0)
    .map((target) => ({
      label: shorten(target.text) || t('(attachments only)'),
      description: target.kind === 'latestPrompt' ? t('latest prompt') : undefined,
      detail: target.fileCount ? t('changed {0} file(s)', target.fileCount) : undefined,
      target,
    }));
  if (items.length === 0) throw new Error(t('There is nothing to go back to in this session.'));
  const picked = await vscode.window.showQuickPick(items, { title: t('Rewind: go back to which message?'), placeHolder: t('Pick a message of this session') });
  return picked?.target;
}

/**
 * QuickPick of what to do at `target` (only `only` when given), then, for "Ask again", the prompt
 * to edit. Undefined: dismissed.
 */
export async function chooseAction(target: RewindTarget, only?: readonly RewindAction[]): Promise<RewindChoice | undefined> {
  const actions = offeredActions(target).filter((action) => !only || only.includes(action));
  if (actions.length === 0) throw new Error(t('zcode cannot go back to this message.'));
  type Item = vscode.QuickPickItem & { action: RewindAction };
  const items: Item[] = actions.map((action) => ({ ...describe(action, target), action }));
  const picked =
    items.length === 1 && only
      ? items[0]
      : await vscode.window.showQuickPick(items, { title: t('Rewind to "{0}"', shorten(target.text)), placeHolder: t('What should happen?') });
  if (!picked) return undefined;
  if (picked.action !== 'askAgain' && picked.action !== 'askAgainRestoreFiles') return { target, action: picked.action };
  const text = await vscode.window.showInputBox({
    title: t('Ask again'),
    prompt: t('The prompt to ask again (edit it or keep it)'),
    value: target.text,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : t('Enter the prompt.')),
  });
  if (text === undefined) return undefined;
  return { target, action: picked.action, ...(text.trim() !== target.text.trim() ? { text: text.trim() } : {}) };
}

function fileList(files: readonly RewindFile[] | undefined): string {
  return (files ?? []).map((file) => (file.reason ? `• ${file.path} (${file.reason})` : `• ${file.path}`)).join('\n');
}

/**
 * Runs the choice and tells the user what happened. A refused restore of files names the files
 * and offers to ask again without restoring them. Returns the bridge's answer of the rewind that
 * happened (undefined: none did).
 */
export async function runRewind(host: RewindHost, sessionId: string, choice: RewindChoice): Promise<RewindToResponse | undefined> {
  const params: ParamsOf<typeof RewindToRequest> = { sessionId, targetId: choice.target.targetId, action: choice.action, ...(choice.text ? { text: choice.text } : {}) };
  const result = await host.call(RewindToRequest, params);
  switch (result.outcome) {
    case 'done':
      if (result.forked) void vscode.window.showInformationMessage(t('Forked into a new session from that message. The original session is kept unchanged.'));
      else if (choice.action === 'filesOnly') void vscode.window.showInformationMessage(t("Restored the files this turn changed ({0}). The conversation is unchanged.", (result.restoredFiles ?? []).length));
      return result;
    case 'staleGaveUp':
      void vscode.window.showWarningMessage(t('The session kept changing (a turn is running?). Nothing was changed: try again once it is idle.'));
      return undefined;
    case 'blocked': {
      const files = [fileList(result.unsafeFiles), fileList(result.ignoredFiles)].filter(Boolean).join('\n');
      const detail = files ? `${result.message}\n\n${t('Files that cannot be restored safely:')}\n${files}` : result.message;
      if (choice.action !== 'askAgainRestoreFiles' || !choice.target.actions.includes('askAgain')) {
        void vscode.window.showWarningMessage(t('zcode did not rewind: nothing was changed.'), { modal: true, detail });
        return undefined;
      }
      const without = t('Ask again without restoring files');
      const answer = await vscode.window.showWarningMessage(t('zcode cannot restore the files of this turn: nothing was changed.'), { modal: true, detail }, without);
      return answer === without ? runRewind(host, sessionId, { ...choice, action: 'askAgain' }) : undefined;
    }
  }
}

/**
 * The chat's hover action on a user message: its rewind point (the latest prompt, or the newest
 * earlier message with the same text), the user's choice among what `action` covers, then the rewind.
 */
export async function rewindFromChat(
  host: RewindHost,
  sessionId: string,
  message: { text: string; latest: boolean; action: 'askAgain' | 'filesOnly' },
): Promise<RewindToResponse | undefined> {
  const targets = await rewindTargets(host, sessionId);
  const same = (target: RewindTarget): boolean => target.text.trim() === message.text.trim();
  const target = message.latest ? targets.find((candidate) => candidate.kind === 'latestPrompt') : targets.find((candidate) => candidate.kind === 'earlier' && same(candidate));
  if (!target) throw new Error(t('zcode has no rewind point for this message.'));
  const choice = await chooseAction(target, message.action === 'askAgain' ? ['askAgain', 'askAgainRestoreFiles'] : ['filesOnly']);
  return choice ? runRewind(host, sessionId, choice) : undefined;
}
