/**
 * zcode's process as the user sees it: not started → starting → ready (→ a turn running) →
 * crashed, for the status bar, the `zcode.turnRunning` context key and the crash notice; and
 * Start / Restart. It follows the bridge's declared process port (`Bridge.process`,
 * bridge/acp/bridge.ts), never the zcode client itself: sessions and turns go through ACP
 * (acpClient.ts), which also says whether a turn runs.
 */
import * as vscode from 'vscode';
import type { ZcodeProcess } from '../bridge/acp/bridge.ts';
import type { ExitInfo } from '../bridge/zcode/backend.ts';
import { Disposable } from './disposable.ts';

/** zcode's state as the user sees it (status bar, context keys). */
export type HostState = 'notStarted' | 'starting' | 'ready' | 'turnRunning' | 'crashed';

export class ZcodeProcessState extends Disposable {
  private readonly _onDidChangeState = this.register(new vscode.EventEmitter<HostState>());
  /** Fires whenever `state` changes. */
  readonly onDidChangeState = this._onDidChangeState.event;

  private readonly _onDidCrash = this.register(new vscode.EventEmitter<ExitInfo>());
  /** zcode exited without being asked to. */
  readonly onDidCrash = this._onDidCrash.event;

  private readonly _onDidRestart = this.register(new vscode.EventEmitter<void>());
  /** A fresh zcode process is up after `restart()` (session owners resume their sessions). */
  readonly onDidRestart = this._onDidRestart.event;

  private _state: HostState = 'notStarted';
  private process: ZcodeProcess | undefined;
  private subscriptions: { dispose(): void } | undefined;

  /**
   * @param turnRunning whether a `session/prompt` of this window runs (acpClient.ts counts them)
   * @param onExit the process exited (the ACP client forgets its running prompts)
   */
  constructor(
    private readonly turnRunning: () => boolean,
    private readonly onExit: () => void,
  ) {
    super();
  }

  get state(): HostState {
    return this._state;
  }

  /** Follows a new bridge's zcode process (the previous one is let go). */
  follow(process: ZcodeProcess): void {
    this.subscriptions?.dispose();
    this.process = process;
    const subscriptions = [
      process.onDidChangeState(() => this.update()),
      process.onDidExit((info) => {
        if (this.process !== process) return;
        this.onExit();
        this.update();
        if (!info.expected) this._onDidCrash.fire(info);
      }),
    ];
    this.subscriptions = { dispose: () => subscriptions.forEach((d) => d.dispose()) };
    this.update();
  }

  /** The bridge is gone (reset or shut down): no process to follow. */
  forget(): void {
    this.subscriptions?.dispose();
    this.subscriptions = undefined;
    this.process = undefined;
    this.update();
  }

  /** Starts zcode now (surfaces "zcode not found" / "too old" early). */
  async start(): Promise<void> {
    await this.require().start();
  }

  /** Stops zcode and starts a fresh process; then fires `onDidRestart` so open sessions resume. */
  async restart(): Promise<void> {
    const process = this.require();
    await process.restart();
    await process.start();
    this._onDidRestart.fire();
  }

  /** Computes the state again (the process changed, or a turn started or ended). */
  update(): void {
    if (this.isDisposed) return;
    const next = this.compute();
    if (next === this._state) return;
    this._state = next;
    this._onDidChangeState.fire(next);
  }

  override dispose(): void {
    this.subscriptions?.dispose();
    this.subscriptions = undefined;
    super.dispose();
  }

  private compute(): HostState {
    const process = this.process;
    if (!process) return 'notStarted';
    switch (process.state) {
      case 'stopped':
        return 'notStarted';
      case 'starting':
        return 'starting';
      case 'crashed':
        return 'crashed';
      case 'ready':
        return this.turnRunning() ? 'turnRunning' : 'ready';
    }
  }

  private require(): ZcodeProcess {
    if (!this.process) throw new Error(vscode.l10n.t('ZCode is shutting down.'));
    return this.process;
  }
}
