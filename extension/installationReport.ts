/**
 * "ZCode: Check zcode Installation" shows the same report as `zcode-acp --doctor`
 * (bridge/zcode/doctor.ts): written to the ZCode log and, on request, opened as
 * a document. The start itself is the command's own check (LocateUi.check), not a second zcode.
 */
import * as vscode from 'vscode';
import type { LocateOptions } from '../bridge/zcode/backend.ts';
import type { LocateUi } from './locate.ts';

export async function showInstallationReport(locate: LocateUi, options: LocateOptions, log: vscode.LogOutputChannel): Promise<void> {
  // Loaded when asked for: the doctor pulls in the zcode client and its schemas, which activation must not pay for.
  const { formatDoctorReport, runDoctor, withStartOutcome } = await import('../bridge/zcode/doctor.ts');
  let report = await runDoctor({ ...options, env: options.env ?? process.env }, { start: false });
  if (locate.lastCheck && report.zcode.found) report = withStartOutcome(report, locate.lastCheck);
  const text = formatDoctorReport(report);
  log.info(`zcode installation check:\n${text}`);
  const show = vscode.l10n.t('Show Report');
  const summary = vscode.l10n.t('zcode installation: {0}', report.verdict.summary);
  const choice = await (report.verdict.ok ? vscode.window.showInformationMessage(summary, show) : vscode.window.showWarningMessage(summary, show));
  if (choice === show) {
    const doc = await vscode.workspace.openTextDocument({ content: text, language: 'plaintext' });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}
