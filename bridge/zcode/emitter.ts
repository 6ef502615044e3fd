/**
 * A tiny typed event emitter (the `_onDidChange` / `onDidChange` pair of design.md rule 9).
 *
 * vscode-jsonrpc ships an `Emitter`, but it reports listener exceptions with `console.error`; the
 * bridge never writes to the console (in stdio mode stdout/stderr belong to the ACP client and
 * its log), so listener failures go to the injected logger instead and never reach the emitter.
 */
import type { Disposable, Logger } from './backend.ts';

export class Emitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();
  private disposed = false;

  constructor(
    private readonly name: string,
    private readonly logger?: Logger,
  ) {}

  /** Subscribe; the returned Disposable unsubscribes. */
  readonly event = (listener: (value: T) => void): Disposable => {
    if (this.disposed) return { dispose: () => {} };
    // Wrap so that subscribing the same function twice yields two independent subscriptions.
    const entry = (value: T): void => listener(value);
    this.listeners.add(entry);
    return { dispose: () => void this.listeners.delete(entry) };
  };

  fire(value: T): void {
    // Snapshot: a listener may unsubscribe (or subscribe) while we iterate.
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.logger?.error(`a listener of ${this.name} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners.clear();
  }
}
