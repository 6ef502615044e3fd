/**
 * Which one action a failed turn's error line offers, from the ACP error the prompt answered with:
 * the bridge puts zcode's cause and whether retrying can help under `data.zcode`
 * (bridge/acp/turns/turnState.ts `turnFailedError`). Retry only where retrying can help; a captcha or a
 * plan the editor cannot use needs the ZCode desktop app, a rejected key the provider's settings,
 * anything else the logs. Pure.
 */
import type { ErrorAction } from '../../webview-ui/viewModel.ts';

const record = (value: unknown): Record<string, unknown> | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

export function failureAction(error: unknown): ErrorAction {
  const zcode = record(record(record(error)?.data)?.zcode);
  switch (zcode?.cause) {
    case 'captcha':
    case 'blocked':
    case 'headers_not_applied':
    case 'quota':
      return 'openDesktop';
    case 'auth_failed':
    case 'provider_not_configured':
      return 'checkApiKey';
    default:
      // Without zcode's verdict (a transport error, an older bridge) a retry may help; zcode's "not retryable" sends to the logs.
      if (!zcode || zcode.retryable === undefined) return 'retry';
      return zcode.retryable === true ? 'retry' : 'showLogs';
  }
}
