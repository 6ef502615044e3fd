/**
 * A tiny typed event emitter (the `_onDidChange` / `onDidChange` pair VS Code's own APIs use).
 *
 * vscode-jsonrpc ships an `Emitter`, but it reports listener exceptions with `console.error`; the
 * bridge never writes to the console (in stdio mode stdout/stderr belong to the ACP client and
 * its log), so listener failures go to the injected logger instead and never reach the emitter.
 *
 * `fire` runs once per zcode event (hundreds of thousands a turn when streaming), so it allocates
 * nothing: the listener list is copied on subscribe/unsubscribe instead, and `fire` iterates
 * whichever list was current when it started.
 */
import type { Disposable } from './backend.ts';
import type { Logger } from '../logger.ts';

export class Emitter<T> implements Disposable {
  /** Replaced, never mutated: a `fire` in progress keeps iterating its own snapshot. */
  private listeners: ReadonlyArray<(value: T) => void> = [];
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
    this.listeners = [...this.listeners, entry];
    return { dispose: () => void (this.listeners = this.listeners.filter((l) => l !== entry)) };
  };

  fire(value: T): void {
    // Snapshot: a listener may unsubscribe (or subscribe) while we iterate.
    const listeners = this.listeners;
    for (let i = 0; i < listeners.length; i++) {
      try {
        listeners[i](value);
      } catch (error) {
        this.logger?.error(`a listener of ${this.name} threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.listeners = [];
  }
}
