/**
 * The status bar item: zcode's state (not started / starting / ready / turn running / crashed)
 * and, when remote access is on, how many remote clients are connected. Clicking it opens a menu
 * (show logs, restart zcode, remote access actions). While permission prompts or forms wait for
 * the user it says "needs input" and clicking it shows the chat.
 */
import * as vscode from 'vscode';
import type { AccountUsageResponse } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { HostState, ZcodeClientHost } from './acpClient.ts';
import { Disposable } from './disposable.ts';
import type { RemoteAccess, RemoteState } from './remote.ts';

export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('zcode.status', vscode.StatusBarAlignment.Left, 50));
  private notFound = false;
  private needsInput = 0;
  private quota: AccountUsageResponse | undefined;

  constructor(
    private readonly host: ZcodeClientHost,
    private readonly remote: RemoteAccess,
  ) {
    super();
    this.item.name = vscode.l10n.t('ZCode');
    this.item.command = 'zcode.statusMenu';
    this.register(host.onDidChangeState(() => this.update()));
    this.register(remote.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  /** zcode could not be located (shown until the setting changes or a start succeeds). */
  setNotFound(message: string | undefined): void {
    this.notFound = message !== undefined;
    this.update();
  }

  /** `count` permission prompts / forms wait for the user (0 = none). */
  setNeedsInput(count: number): void {
    this.needsInput = count;
    this.update();
  }

  /** The plan quota for the tooltip (quotaStatus.ts); undefined hides it. */
  setQuota(usage: AccountUsageResponse | undefined): void {
    this.quota = usage;
    this.update();
  }

  /** The tooltip's markdown currently shown (for tests). */
  get tooltipText(): string {
    const tip = this.item.tooltip;
    return typeof tip === 'string' ? tip : (tip?.value ?? '');
  }

  /** The text currently shown (for tests). */
  get text(): string {
    return this.item.text;
  }

  private update(): void {
    const state = this.host.state;
    const remote = this.remote.state;
    const { icon, label } = this.notFound && state === 'notStarted' ? { icon: 'warning', label: vscode.l10n.t('zcode not found') } : describeState(state);
    let text = `$(${icon}) ZCode`;
    if (this.needsInput > 0) {
      const needs = vscode.l10n.t('needs input');
      this.item.text = `$(bell-dot) ZCode: ${needs}${this.needsInput > 1 ? ` (${this.needsInput})` : ''}`;
      this.item.tooltip = vscode.l10n.t('{0} request(s) waiting for your answer', this.needsInput);
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.item.accessibilityInformation = { label: vscode.l10n.t('ZCode: {0}', needs) };
      this.item.command = 'zcode.chat.focus';
      return;
    }
    this.item.command = 'zcode.statusMenu';
    if (state !== 'ready' || this.notFound) text += `: ${label}`;
    if (remote.enabled) text += remote.error ? '  $(broadcast) $(warning)' : `  $(broadcast) ${remote.clientCount}`;
    this.item.text = text;
    this.item.tooltip = tooltip(label, remote, this.quota);
    this.item.backgroundColor = state === 'crashed' || this.notFound ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('ZCode: {0}', label) };
  }
}

function describeState(state: HostState): { icon: string; label: string } {
  switch (state) {
    case 'notStarted':
      return { icon: 'circle-outline', label: vscode.l10n.t('not started') };
    case 'starting':
      return { icon: 'loading~spin', label: vscode.l10n.t('starting') };
    case 'ready':
      return { icon: 'check', label: vscode.l10n.t('ready') };
    case 'turnRunning':
      return { icon: 'sync~spin', label: vscode.l10n.t('turn running') };
    case 'crashed':
      return { icon: 'error', label: vscode.l10n.t('crashed') };
  }
}

function tooltip(label: string, remote: RemoteState, usage: AccountUsageResponse | undefined): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown('**ZCode** — ').appendText(label);
  const quota = usage?.quota;
  if (quota) {
    md.appendMarkdown('\n\n$(dashboard) ').appendText(quota.plan ? vscode.l10n.t('GLM Coding Plan ({0}):', quota.plan) : vscode.l10n.t('GLM Coding Plan:'));
    for (const w of quota.windows) {
      const reset = w.resetsAt ? new Date(w.resetsAt).toLocaleString() : undefined;
      md.appendMarkdown('\n- ').appendText(reset ? vscode.l10n.t('{0}% left of the {1}, resets {2}', w.remainingPercent, w.label, reset) : vscode.l10n.t('{0}% left of the {1}', w.remainingPercent, w.label));
    }
    if (quota.stale) md.appendMarkdown('\n\n$(warning) ').appendText(vscode.l10n.t('Stale: figures from {0}; the last refresh failed ({1})', new Date(quota.fetchedAt).toLocaleString(), quota.staleReason ?? ''));
  } else if (usage?.unavailable && usage.unavailable.reason !== 'no_key') {
    md.appendMarkdown('\n\n$(dashboard) ').appendText(vscode.l10n.t('Plan quota unavailable: {0}', usage.unavailable.message));
  }
  if (remote.enabled) {
    md.appendMarkdown('\n\n$(broadcast) ');
    if (remote.error) md.appendText(vscode.l10n.t('Remote access is on but not listening: {0}', remote.error));
    else md.appendText(vscode.l10n.t('Remote access on {0}: {1} client(s) connected', remote.url ?? '', remote.clientCount));
  }
  md.appendMarkdown('\n\n').appendText(vscode.l10n.t('Click for actions'));
  return md;
}
