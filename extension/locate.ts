/**
 * "zcode was not found" as a state the UI shows, not just an error toast: the `zcode.notFound`
 * context key drives the welcome view (package.json `viewsWelcome`) and the status bar; the
 * Background Tasks view's message and a notification say exactly what discovery tried (the
 * message of bridge/zcode/locateZcode.ts). "Locate zcode…" picks the CLI and writes `zcode.path`.
 * Once zcode runs, which zcode it is (`zcode --version`) goes to the same views: the empty chat names it.
 */
import * as vscode from 'vscode';
import { locateZcode, ZCODE_INSTALL_URL } from '../bridge/zcode/locateZcode.ts';
import { readZcodeVersion } from '../bridge/zcode/versionProbe.ts';
import { resolveLocale } from '../bridge/l10n/messages.ts';
import type { LocateOptions } from '../bridge/zcode/backend.ts';
import type { ZcodeClientHost } from './acpClient.ts';
import { Disposable } from './disposable.ts';
import { errorMessage } from './errorValues.ts';
import { classifyError } from './errors.ts';

/** Where the not-found state is shown besides the context key. */
export interface NotFoundView {
  setNotFound(message: string | undefined): void;
  /** Which zcode runs (its version), undefined while not known. */
  setZcodeVersion?(version: string | undefined): void;
}

const WALKTHROUGH_ID = 'zcode-community.zcode-vscode#zcode.gettingStarted';

export class LocateUi extends Disposable {
  private _message: string | undefined;
  private version: string | undefined;
  /** Bumped when the zcode in use may have changed: an older probe's answer is dropped. */
  private probeGeneration = 0;
  private probing = false;

  constructor(
    private readonly host: ZcodeClientHost,
    private readonly views: NotFoundView[],
  ) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration('zcode.path') || event.affectsConfiguration('zcode.nodePath')) {
          this.clear();
          this.setVersion(undefined);
        }
      }),
    );
    this.register(
      host.onDidChangeState((state) => {
        if (state === 'ready' || state === 'turnRunning') this.clear();
      }),
    );
  }

  /** What discovery tried, when zcode was not found; undefined otherwise. */
  get message(): string | undefined {
    return this._message;
  }

  /** Enter the not-found state and tell the user, with "Locate zcode…" and install instructions. */
  reportNotFound(error: unknown): void {
    const message = errorMessage(error);
    this.set(message);
    const locate = vscode.l10n.t('Locate zcode…');
    const install = vscode.l10n.t('Install Instructions');
    void vscode.window.showErrorMessage(message, locate, install).then((choice) => {
      if (choice === locate) void vscode.commands.executeCommand('zcode.locate');
      else if (choice === install) void vscode.commands.executeCommand('zcode.showInstallInstructions');
    });
  }

  /**
   * File picker for the zcode CLI (or `path`, for tests); writes `zcode.path` to the user settings
   * and starts zcode to check it. A `.js/.cjs/.mjs` script runs with `zcode.nodePath` / `node`.
   */
  async locate(path?: string): Promise<string | undefined> {
    let file = path;
    if (!file) {
      const picked = await vscode.window.showOpenDialog({
        title: vscode.l10n.t('Locate the zcode CLI'),
        openLabel: vscode.l10n.t('Use this zcode'),
        canSelectFiles: true,
        canSelectFolders: false,
        canSelectMany: false,
      });
      file = picked?.[0]?.fsPath;
    }
    if (!file) return undefined;
    await vscode.workspace.getConfiguration('zcode').update('path', file, vscode.ConfigurationTarget.Global);
    this.clear();
    await this.check();
    return file;
  }

  /** The outcome of the last `check()` (for the installation report). */
  lastCheck: { ok: boolean; error?: string; ms: number } | undefined;

  /** Starts zcode and reports the outcome (the walkthrough's "Check" link, and after Locate). */
  async check(): Promise<boolean> {
    const started = Date.now();
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting zcode…') }, () => this.host.start());
      this.lastCheck = { ok: true, ms: Date.now() - started };
      this.clear();
      void vscode.window.showInformationMessage(vscode.l10n.t('zcode is ready.'));
      return true;
    } catch (error) {
      this.lastCheck = { ok: false, error: errorMessage(error), ms: Date.now() - started };
      if (classifyError(error) === 'notFound') {
        this.reportNotFound(error);
      } else {
        void vscode.window.showErrorMessage(vscode.l10n.t('zcode could not start: {0}', errorMessage(error)));
      }
      return false;
    }
  }

  /** The walkthrough step with install instructions (and a link to the download page). */
  async showInstallInstructions(): Promise<void> {
    try {
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', { category: WALKTHROUGH_ID, step: 'zcode.gettingStarted.install' }, false);
    } catch {
      await vscode.env.openExternal(vscode.Uri.parse(ZCODE_INSTALL_URL));
    }
  }

  /**
   * Looks for zcode without starting it (a few file checks) and enters the not-found state
   * quietly: the empty chat and the Background Tasks view say it before the first prompt fails.
   */
  lookQuietly(options: LocateOptions): void {
    try {
      // The explanation in VS Code's display language (the places tried stay as they are).
      locateZcode({ ...options, locale: () => resolveLocale(vscode.env.language) });
    } catch (error) {
      if (classifyError(error) === 'notFound') this.set(errorMessage(error));
    }
  }

  /**
   * Once zcode runs, asks it which version it is (`zcode --version`, launched as the bridge launches
   * it: bridge/zcode/versionProbe.ts), once per zcode in use, and tells the views.
   */
  watchVersion(readOptions: () => LocateOptions): void {
    this.register(
      this.host.onDidChangeState((state) => {
        if (state !== 'ready' || this.version !== undefined || this.probing) return;
        this.probing = true;
        const generation = this.probeGeneration;
        void readZcodeVersion(readOptions()).then((version) => {
          this.probing = false;
          if (generation === this.probeGeneration && version) this.setVersion(version);
        });
      }),
    );
  }

  /** Another place that shows the not-found state (a chat); it gets the current state at once. */
  addView(view: NotFoundView): vscode.Disposable {
    this.views.push(view);
    view.setNotFound(this._message);
    view.setZcodeVersion?.(this.version);
    return new vscode.Disposable(() => {
      const at = this.views.indexOf(view);
      if (at >= 0) this.views.splice(at, 1);
    });
  }

  private setVersion(version: string | undefined): void {
    if (version === undefined) this.probeGeneration += 1;
    if (this.version === version) return;
    this.version = version;
    for (const view of this.views) view.setZcodeVersion?.(version);
  }

  private clear(): void {
    if (this._message !== undefined) this.set(undefined);
  }

  private set(message: string | undefined): void {
    this._message = message;
    void vscode.commands.executeCommand('setContext', 'zcode.notFound', message !== undefined);
    for (const view of this.views) view.setNotFound(message);
  }
}
