/**
 * Session commands of the palette: new / resume / fork / rewind / compact, goal, steer, mode,
 * thought level, model, cancel turn. Each goes through the bridge's ACP methods.
 *
 * Every command takes optional arguments so that tests (and keybindings) can run it without UI:
 * a missing argument opens the QuickPick / InputBox a user gets from the palette.
 */
import * as vscode from 'vscode';
import type { SessionConfigOption, SessionConfigSelectOption, SessionConfigSelectGroup } from '@agentclientprotocol/sdk';
import { CheckpointsRequest, CompactRequest, GoalRequest, RenameRequest, RetryTurnRequest, RewindRequest, SteerRequest } from '../../bridge/acp/extensionSchemas.ts';
import type { GoalResponse, ParamsOf } from '../../bridge/acp/extensionSchemas.ts';
import type { ZcodeClientHost } from '../acpClient.ts';
import { pickSessionFolder } from '../sessions/folders.ts';
import { chooseAction, pickTarget, rewindTargets, runRewind } from '../rewindChoices.ts';
import type { ChatBinding } from '../sessions/chatBinding.ts';
import type { Feature, ZcodeFeatures } from '../zcodeFeatures.ts';
import type { CommandRunner } from './runner.ts';
import { formatTime, pickFromHistory, type SessionHistoryStore } from './sessionHistory.ts';

/** `{ checkpointId }` or a bare id; `{}` / `{ latest: true }` means the latest checkpoint, no picker. */
export type CheckpointArg = string | { checkpointId?: string; latest?: boolean; cascade?: boolean } | undefined;

type GoalAction = ParamsOf<typeof GoalRequest>['action'];

export function registerSessionCommands(runner: CommandRunner, host: ZcodeClientHost, sessions: ChatBinding, history: SessionHistoryStore, features?: ZcodeFeatures): void {
  const t = vscode.l10n.t;
  /**
   * The palette disables what the running zcode cannot do (package.json `enablement`); a caller
   * that still gets here (a keybinding, another extension) is told why at once, zcode is not asked.
   */
  const refused = (what: string, ...needs: Feature[]): boolean => {
    const reasons = needs.map((feature) => features?.blocked(feature));
    if (reasons.some((reason) => reason === undefined)) return false;
    runner.refuse(what, reasons[0] ?? '');
    return true;
  };

  runner.register('zcode.newSession', () => t('New Session'), async () => {
    // A multi-root workspace: the user says which folder the session works in.
    const cwd = await pickSessionFolder();
    if (!cwd) return undefined;
    const id = await sessions.newSession(cwd);
    await revealChat();
    return id;
  });

  runner.register('zcode.resumeSession', () => t('Resume Session'), async (sessionId?: string) => {
    const picked = sessionId ? undefined : await pickFromHistory(sessions, history);
    const id = sessionId ?? picked?.info.sessionId;
    if (!id) return undefined;
    await sessions.loadSession(id, picked?.folder.path);
    await revealChat();
    return id;
  });

  runner.register('zcode.renameSession', () => t('Rename Session'), async (title?: string) => {
    const sessionId = sessions.requireActive();
    const next =
      title ??
      (await vscode.window.showInputBox({
        title: t('Rename session'),
        value: history.title(sessionId) ?? sessions.title(sessionId) ?? '',
        prompt: t('The title this workspace shows for the session (empty: zcode\'s own title)'),
        ignoreFocusOut: true,
      }));
    if (next === undefined) return undefined;
    const chosen = next.trim();
    // This workspace's title first (it shows whatever the build); then the bridge's rename: in
    // zcode where the build can (every client and the desktop app see it), in the bridge otherwise.
    await history.rename(sessionId, chosen || undefined);
    if (chosen) await host.call(RenameRequest, { sessionId, title: chosen });
    return chosen;
  });

  runner.register('zcode.forkSession', () => t('Fork Session'), async (arg?: CheckpointArg) => {
    const sessionId = sessions.requireActive();
    const target = arg === undefined ? await pickCheckpoint(host, sessionId, t('Fork from which checkpoint?')) : checkpointOf(arg);
    if (target === undefined) return undefined;
    const forked = await sessions.fork(target.checkpointId);
    void vscode.window.showInformationMessage(t('Forked into a new session. The fork is now the active session.'));
    return forked;
  });

  runner.register('zcode.rewind', () => t('Rewind'), async (arg?: CheckpointArg) => {
    if (refused(t('Rewind'), 'rewindLatestPrompt', 'rewindEarlier', 'fileRewind')) return undefined;
    const sessionId = sessions.requireActive();
    // zcode's own rewind points (current builds): the user picks a message, then which kind of rewind.
    if (arg === undefined && features?.capabilities.v4) {
      const target = await pickTarget(await rewindTargets(host, sessionId));
      const choice = target && (await chooseAction(target));
      if (!choice) return undefined;
      const result = await runRewind(host, sessionId, choice);
      if (result?.forked) await sessions.loadSession(result.sessionId, result.cwd);
      else if (result?.historyChanged) await sessions.loadSession(sessionId);
      return result;
    }
    const target = arg === undefined ? await pickCheckpoint(host, sessionId, t('Rewind to which checkpoint?')) : checkpointOf(arg);
    if (target === undefined) return undefined;
    const cascade = typeof arg === 'object' && arg?.cascade !== undefined ? arg.cascade : undefined;
    const params: ParamsOf<typeof RewindRequest> = { sessionId };
    if (target.checkpointId) params.checkpointId = target.checkpointId;
    if (cascade !== undefined) params.cascade = cascade;
    const result = await host.call(RewindRequest, params);
    // Show what zcode now holds: the load replays the shortened history (the chat starts afresh).
    await sessions.loadSession(sessionId);
    void vscode.window.showInformationMessage(t('The session was rewound.'));
    return result;
  });

  runner.register('zcode.retryTurn', () => t('Retry Last Turn'), async () => {
    if (refused(t('Retry Last Turn'), 'retryTurn')) return undefined;
    // zcode runs the latest turn again in place (its history keeps one copy of the prompt); every
    // chat showing the session reloads it on the bridge's history-changed notice.
    return host.call(RetryTurnRequest, { sessionId: sessions.requireActive() });
  });

  runner.register('zcode.forkFromReply', () => t('Fork from Latest Reply'), async () => {
    if (refused(t('Fork from Latest Reply'), 'forkAssistant')) return undefined;
    // The conversation up to the latest reply, in a new session; the files are left as they are.
    const forked = await sessions.forkAndShow({ kind: 'assistant' });
    void vscode.window.showInformationMessage(t('Forked the conversation up to the latest reply into a new session (files unchanged). The original session is kept.'));
    return forked;
  });

  runner.register('zcode.compact', () => t('Compact Conversation'), async () => {
    const sessionId = sessions.requireActive();
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: t('Compacting the conversation…'), cancellable: false },
      () => host.call(CompactRequest, { sessionId }),
    );
    void vscode.window.showInformationMessage(t('Compaction finished: {0}', result.outcome));
    return result;
  });

  const goal = (action: GoalAction, what: () => string, needsObjective: boolean): void => {
    runner.register(`zcode.goal.${action}`, what, async (objective?: string) => {
      const sessionId = sessions.requireActive();
      let text = objective;
      if (needsObjective && !text) {
        text = await vscode.window.showInputBox({
          title: what(),
          prompt: t('The objective zcode should work towards'),
          placeHolder: t('e.g. Make every test in test/unit pass'),
          ignoreFocusOut: true,
          validateInput: (v) => (v.trim() ? undefined : t('Enter an objective.')),
        });
        if (!text) return undefined;
      }
      const result = await host.call(GoalRequest, needsObjective ? { sessionId, action, objective: text } : { sessionId, action });
      void vscode.window.showInformationMessage(describeGoal(action, result));
      return result;
    });
  };
  goal('set', () => t('Goal: Set'), true);
  goal('show', () => t('Goal: Show'), false);
  goal('replace', () => t('Goal: Replace'), true);
  goal('clear', () => t('Goal: Clear'), false);
  goal('pause', () => t('Goal: Pause'), false);
  goal('resume', () => t('Goal: Resume'), false);

  runner.register('zcode.steer', () => t('Steer Running Turn'), async (content?: string) => {
    if (refused(t('Steer Running Turn'), 'steer')) return undefined;
    const sessionId = sessions.requireActive();
    const text =
      content ??
      (await vscode.window.showInputBox({
        title: t('Steer the running turn'),
        prompt: t('Extra instructions, added to the turn that is running now'),
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : t('Enter the instructions.')),
      }));
    if (!text) return undefined;
    return host.call(SteerRequest, { sessionId, content: text });
  });

  const configCommand = (id: string, category: string, what: () => string, placeHolder: () => string, none: () => string): void => {
    runner.register(id, what, async (value?: string) => {
      const sessionId = sessions.requireActive();
      const find = (options: readonly SessionConfigOption[]) => options.find((o) => o.category === category && o.type === 'select');
      const option = find(await sessions.registry.fetchConfigOptions(sessionId)) ?? find(await sessions.registry.fetchConfigOptions(sessionId, true));
      if (!option || option.type !== 'select') throw new Error(none());
      const chosen = value ?? (await pickConfigValue(option, placeHolder()));
      if (chosen === undefined) return undefined;
      return sessions.setConfigOption(sessionId, option.id, chosen);
    });
  };
  configCommand('zcode.setMode', 'mode', () => t('Set Mode'), () => t('Pick the mode for this session'), () => t('This session offers no choice of mode.'));
  configCommand('zcode.setThoughtLevel', 'thought_level', () => t('Set Thought Level'), () => t('Pick how much the model thinks'), () => t('This session offers no choice of thought level.'));
  configCommand('zcode.setModel', 'model', () => t('Set Model'), () => t('Pick the model for this session'), () => t('This session offers no choice of model.'));

  runner.register('zcode.cancelTurn', () => t('Cancel Turn'), async () => {
    await host.cancelTurn(sessions.requireActive());
  });
}

async function revealChat(): Promise<void> {
  // The chat view is contributed by extension/chat; focusing it is best effort.
  try {
    await vscode.commands.executeCommand('zcode.chat.focus');
  } catch {
    // no chat view in this build
  }
}

function checkpointOf(arg: CheckpointArg): { checkpointId?: string } {
  if (typeof arg === 'string') return { checkpointId: arg };
  return { checkpointId: arg?.checkpointId };
}

/** QuickPick of the session's checkpoints, "Latest checkpoint" first. Undefined = dismissed. */
async function pickCheckpoint(host: ZcodeClientHost, sessionId: string, title: string): Promise<{ checkpointId?: string } | undefined> {
  const t = vscode.l10n.t;
  type Item = vscode.QuickPickItem & { checkpointId?: string };
  const latest: Item = { label: `$(history) ${t('Latest checkpoint')}`, description: t('the most recent one') };
  const items: Item[] = [latest];
  try {
    const list = (await host.call(CheckpointsRequest, { sessionId })).checkpoints;
    if (list.length) items.push({ label: t('Checkpoints'), kind: vscode.QuickPickItemKind.Separator });
    for (const checkpoint of [...list].reverse()) {
      items.push({ label: checkpoint.label || checkpoint.checkpointId, description: formatTime(checkpoint.createdAt), detail: checkpoint.checkpointId, checkpointId: checkpoint.checkpointId });
    }
  } catch {
    // Builds without a checkpoint list still fork/rewind from the latest checkpoint.
  }
  const picked = await vscode.window.showQuickPick(items, { title, placeHolder: t('Pick a checkpoint'), matchOnDetail: true });
  return picked ? { checkpointId: picked.checkpointId } : undefined;
}

async function pickConfigValue(option: SessionConfigOption & { type: 'select' }, placeHolder: string): Promise<string | undefined> {
  const items: (vscode.QuickPickItem & { value?: string })[] = [];
  const add = (o: SessionConfigSelectOption): void => {
    items.push({ label: o.name, description: o.value === option.currentValue ? vscode.l10n.t('current') : undefined, detail: o.description ?? undefined, value: o.value });
  };
  for (const entry of option.options as (SessionConfigSelectOption | SessionConfigSelectGroup)[]) {
    if ('options' in entry) {
      items.push({ label: entry.name, kind: vscode.QuickPickItemKind.Separator });
      entry.options.forEach(add);
    } else {
      add(entry);
    }
  }
  const picked = await vscode.window.showQuickPick(items, { title: option.name, placeHolder });
  return picked?.value;
}

function describeGoal(action: GoalAction, result: GoalResponse): string {
  const t = vscode.l10n.t;
  const objective = result.goal?.objective || undefined;
  const status = result.goal?.status;
  switch (action) {
    case 'show':
      if (!objective) return t('No goal is set for this session.');
      return status ? t('Goal ({0}): {1}', status, objective) : t('Goal: {0}', objective);
    case 'set':
    case 'replace':
      return objective ? t('Goal set: {0}', objective) : t('Goal set.');
    case 'clear':
      return t('Goal cleared.');
    case 'pause':
      return t('Goal paused.');
    case 'resume':
      return t('Goal resumed.');
  }
}
