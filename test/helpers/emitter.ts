/**
 * A minimal event emitter shaped like `vscode.EventEmitter` (`event` to subscribe, `fire` to emit):
 * the fakes of the extension's ports (hosts, session managers) use it where the real code gets VS
 * Code's. Listeners are called in subscription order; one that unsubscribes while firing is safe.
 */
export class Emitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event = (listener: (e: T) => unknown): { dispose(): void } => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
}
