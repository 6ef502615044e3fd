/**
 * What of this window keeps a session in use, counted where it happens (the ACP client,
 * acpClient.ts): a `session/prompt` on its way (running, or waiting in the bridge's per-session
 * queue: the bridge answers each prompt once it ran or was cancelled), a permission prompt or form
 * the user has not answered, a `session/load`. The one answer to "is this session busy" (the
 * registry and the session release ask it) and to "does a turn run" (zcode's state, zcodeProcess.ts).
 */
import * as vscode from 'vscode';
import { Disposable } from '../disposable.ts';

export class SessionActivity extends Disposable {
  private readonly _onDidSettle = this.register(new vscode.EventEmitter<void>());
  /**
   * Fires when something that keeps a session in use ends: a `session/prompt`, a permission
   * prompt or form (answered or withdrawn), a `session/load` (session release).
   */
  readonly onDidSettle = this._onDidSettle.event;

  private readonly _onDidChangePrompts = this.register(new vscode.EventEmitter<void>());
  /** A `session/prompt` started or ended (zcode's state follows whether one runs). */
  readonly onDidChangePrompts = this._onDidChangePrompts.event;

  private readonly prompts = new Map<string, number>();
  /** Sessions with a permission prompt or form of the bridge waiting for this window's answer. */
  private readonly asking = new Map<string, number>();
  private loads = 0;

  /** Whether a `session/prompt`, or a permission prompt or form, of `sessionId` is in flight. */
  isBusy(sessionId: string): boolean {
    return this.prompts.has(sessionId) || this.asking.has(sessionId);
  }

  /** Whether any `session/prompt` of this window is in flight. */
  get promptRunning(): boolean {
    return this.prompts.size > 0;
  }

  /** A `session/load` is on its way (the session shown before it comes back if it fails). */
  get loading(): boolean {
    return this.loads > 0;
  }

  /** Counts `run` as a prompt of `sessionId` (or a load) until it settles. */
  async track<R>(what: { prompt: string } | 'load', run: () => Promise<R>): Promise<R> {
    if (what === 'load') this.loads++;
    else this.count(this.prompts, what.prompt, +1);
    if (what !== 'load') this._onDidChangePrompts.fire();
    try {
      return await run();
    } finally {
      if (what === 'load') this.loads--;
      else {
        this.count(this.prompts, what.prompt, -1);
        this._onDidChangePrompts.fire();
      }
      this._onDidSettle.fire();
    }
  }

  /** Counts a permission prompt or form of `sessionId` while the user has it. */
  async asked<R>(sessionId: string | undefined, ask: () => Promise<R>): Promise<R> {
    if (!sessionId) return ask();
    this.count(this.asking, sessionId, +1);
    try {
      return await ask();
    } finally {
      this.count(this.asking, sessionId, -1);
      this._onDidSettle.fire();
    }
  }

  /** zcode went away (exit, a new bridge): no prompt of the old one runs any more. */
  forgetPrompts(): void {
    this.prompts.clear();
  }

  private count(counts: Map<string, number>, sessionId: string, delta: number): void {
    const next = (counts.get(sessionId) ?? 0) + delta;
    if (next > 0) counts.set(sessionId, next);
    else counts.delete(sessionId);
  }
}
