/**
 * The GLM Coding Plan quota in the status bar tooltip: `_zcode/account/usage` after
 * zcode becomes ready, after each turn and every few minutes, handed to the status bar. The bridge
 * reads the figures from the provider (zcode does not report plan quota) and marks old ones stale.
 */
import * as vscode from 'vscode';
import { AccountUsageRequest } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { AccountUsageResponse } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { HostState, ZcodeClientHost } from './acpClient.ts';
import { Disposable } from './disposable.ts';
import type { StatusBar } from './statusBar.ts';

const REFRESH_MS = 5 * 60_000;

export class QuotaStatus extends Disposable {
  private last: HostState;
  private readonly changed = new vscode.EventEmitter<AccountUsageResponse>();
  /** New figures (the chats' context meters follow them). */
  readonly onDidChange = this.changed.event;
  /** The last figures read, if any. */
  current: AccountUsageResponse | undefined;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly host: ZcodeClientHost,
    private readonly statusBar: StatusBar,
  ) {
    super();
    this.register(this.changed);
    this.last = host.state;
    this.register(
      host.onDidChangeState(() => {
        const before = this.last;
        this.last = host.state;
        // Ready after starting or after a turn: the figures may have moved.
        if (host.state === 'ready' && before !== 'ready') void this.refresh();
      }),
    );
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.register({ dispose: () => clearInterval(this.timer) });
    if (host.state === 'ready') void this.refresh();
  }

  /** Ask the bridge now (`refresh` skips its one-minute cache); failures leave the last figures. */
  async refresh(refresh = false): Promise<AccountUsageResponse | undefined> {
    if (this.host.state !== 'ready' && this.host.state !== 'turnRunning') return undefined;
    try {
      const usage = await this.host.call(AccountUsageRequest, refresh ? { refresh } : {});
      this.statusBar.setQuota(usage);
      this.current = usage;
      this.changed.fire(usage);
      return usage;
    } catch (error) {
      vscode.window.setStatusBarMessage(vscode.l10n.t('ZCode: could not read the plan quota: {0}', error instanceof Error ? error.message : String(error)), 5_000);
      return undefined;
    }
  }
}
