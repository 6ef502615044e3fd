/**
 * `session/stop` to one zcode process: as a request (current builds drop notifications and answer
 * `{}`); a seed build that refuses the request (-32601 / -32600) gets the notification it expects,
 * and every later stop of that process goes as a notification at once.
 */
import { ZcodeError } from '../backend.ts';
import type { Logger } from '../../logger.ts';
import type { ZcodeConnection } from '../connection.ts';

/** The process a stop goes to: its connection, and what it has shown it accepts. */
export interface StopTarget {
  readonly conn: ZcodeConnection;
  stopAsNotification?: boolean;
}

export function sendStop(inc: StopTarget, sessionId: string, how: { logger: Logger; noteOnce(key: string, message: string): void; isCurrent(): boolean }): void {
  const params = { sessionId };
  if (inc.stopAsNotification) {
    inc.conn.notify('session/stop', params);
    return;
  }
  inc.conn.request('session/stop', params).then(
    () => undefined,
    (error: unknown) => {
      const code = error instanceof ZcodeError ? error.code : undefined;
      if (code === -32601 || code === -32600) {
        inc.stopAsNotification = true;
        how.noteOnce('stop', `zcode refused session/stop as a request (${code}); sending it as a notification to this process`);
        if (how.isCurrent()) inc.conn.notify('session/stop', params);
        return;
      }
      how.logger.warn(`session/stop failed: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
}
