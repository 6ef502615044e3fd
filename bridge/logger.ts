/**
 * The logger port every part of the bridge writes to. The bridge never picks where logs go: the
 * extension passes a VS Code LogOutputChannel, `zcode-acp` a stderr logger, the tests a recorder.
 */
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}
