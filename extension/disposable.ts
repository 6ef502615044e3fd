/**
 * Lifecycle base for the extension's long-lived objects (explicit lifecycle, CONTRIBUTING.md "House style"): everything an object
 * creates is `register()`ed and torn down, in reverse order, by `dispose()`.
 */
import type * as vscode from 'vscode';

/** Anything with a synchronous `dispose()`. */
export interface DisposableLike {
  dispose(): unknown;
}

export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: DisposableLike[] = [];
  private _isDisposed = false;

  /** true once `dispose()` ran. */
  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Keep `value` until this object is disposed (disposed at once if it already is). */
  protected register<T extends DisposableLike>(value: T): T {
    if (this._isDisposed) {
      value.dispose();
    } else {
      this.disposables.push(value);
    }
    return value;
  }

  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    // Reverse order: later objects may depend on earlier ones.
    while (this.disposables.length) {
      try {
        this.disposables.pop()?.dispose();
      } catch {
        // One failing disposable must not keep the rest alive.
      }
    }
  }
}
