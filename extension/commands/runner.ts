/**
 * Registers commands with one error policy: a failure is logged with its context and shown to the
 * user in plain words (never "Running the contributed command failed"). "zcode not found" is
 * routed to the locate flow, which offers "Locate zcode…" and install instructions.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../bridge/logger.ts';
import { errorMessage } from '../errorValues.ts';
import { classifyError, describeError } from '../errors.ts';

/** Shows the "zcode was not found" state (locate.ts). */
export interface NotFoundReporter {
  reportNotFound(error: unknown): void;
}

export class CommandRunner {
  /** The last failure shown to the user (what and the message), for diagnostics and tests. */
  lastError: { what: string; message: string } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly notFound: NotFoundReporter,
    private readonly subscriptions: vscode.Disposable[],
  ) {}

  /**
   * Registers `id`. `what` names the action in error messages ("Fork Session"). The handler's
   * result is returned to `executeCommand` callers (tests); on failure they get `undefined`.
   */
  register<A extends unknown[], R>(id: string, what: () => string, handler: (...args: A) => Promise<R> | R): void {
    this.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...(args as A));
        } catch (error) {
          this.report(what(), error);
          return undefined;
        }
      }),
    );
  }

  /**
   * `what` cannot work with the running zcode: says why at once (nothing was sent to zcode).
   * `reason` is the bridge's; an empty one gets a generic sentence.
   */
  refuse(what: string, reason: string): void {
    const message = reason ? vscode.l10n.t('{0} is not available: {1}', what, reason) : vscode.l10n.t('{0} is not available with this zcode build.', what);
    this.lastError = { what, message };
    this.logger.info(message);
    void vscode.window.showWarningMessage(message);
  }

  /** Logs and shows a failure of `what`. */
  report(what: string, error: unknown): void {
    this.logger.error(`${what}: ${errorMessage(error)}`);
    const kind = classifyError(error);
    if (kind === 'cancelled') return;
    if (kind === 'notFound') {
      this.lastError = { what, message: errorMessage(error) };
      this.notFound.reportNotFound(error);
      return;
    }
    const message = describeError(what, error);
    this.lastError = { what, message };
    const showLogs = vscode.l10n.t('Show Logs');
    void vscode.window.showErrorMessage(message, showLogs).then((choice) => {
      if (choice === showLogs) void vscode.commands.executeCommand('zcode.showLogs');
    });
  }
}
