/**
 * The in-process ACP link's protocol trace: every message between the chat's client and the bridge,
 * written to the ZCode log at trace level ("Developer: Set Log Level…").
 *
 * The level is read before a message is serialised: the link carries every streamed delta, and
 * turning each into JSON only for the log channel to drop it was a cost per delta while nobody
 * traces.
 */

/** VS Code's `LogLevel.Trace` (the enum's value, stable API; read here without importing vscode). */
const TRACE_LEVEL = 1;

/** What the trace needs of a log: VS Code's LogOutputChannel has both; a plain logger has no level. */
export interface TraceLog {
  readonly logLevel?: number;
  trace(message: string): void;
}

/** A tap for the bridge's in-process link (`BridgeOptions.tap`). A log with no level traces everything. */
export function protocolTrace(log: TraceLog): (direction: 'in' | 'out', message: unknown) => void {
  return (direction, message) => {
    if (log.logLevel !== undefined && log.logLevel !== TRACE_LEVEL) return;
    log.trace(`${direction === 'in' ? '→ bridge' : '← bridge'} ${JSON.stringify(message)}`);
  };
}
