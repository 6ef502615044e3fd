/**
 * The in-process ACP link's protocol trace: every message between the chat's client and the bridge,
 * written to the ZCode log at trace level ("Developer: Set Log Level…").
 *
 * The level is read before a message is serialised: the link carries every streamed delta, and
 * turning each into JSON only for the log channel to drop it was a cost per delta while nobody
 * traces.
 */

/** What the trace needs of a log: VS Code's LogOutputChannel has both; a plain logger has no level. */
export interface TraceLog {
  readonly logLevel?: number;
  trace(message: string): void;
}

/**
 * A tap for the bridge's in-process link (`BridgeOptions.tap`): writes while the log's level is
 * `traceLevel` (VS Code's `LogLevel.Trace`, passed in so this file needs no vscode). A log with no
 * level traces everything.
 */
export function protocolTrace(log: TraceLog, traceLevel: number): (direction: 'in' | 'out', message: unknown) => void {
  return (direction, message) => {
    if (log.logLevel !== undefined && log.logLevel !== traceLevel) return;
    log.trace(`${direction === 'in' ? '→ bridge' : '← bridge'} ${JSON.stringify(message)}`);
  };
}
