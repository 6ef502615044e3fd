/**
 * Steers zcode holds as queued input (current builds name each `queue_<commandId>`), followed
 * through zcode's legacy events so every client can show what became of them:
 * - `turn.steerQueued` → waiting (the core's signal already says `queued`);
 * - `turn.steerDrained` → the running turn took it in (`drained`, from the core's signal);
 * - the turn ended first (`turn.completed` / `turn.failed` / `turn.terminal`) → `deferred`: zcode
 *   keeps it and, with its auto-drain on (its default), starts it as the next turn by itself. That
 *   turn streams like any turn the bridge did not start (its events reach every client; a cancel
 *   stops it with zcode's v4 stop, v4Commands.ts). Until it starts, `_zcode/session/removeQueued` /
 *   `editQueued` apply.
 * Sent under every alias of the session (`ctx.notifySession` takes the zcode id).
 */
import type { Disposable } from '../../zcode/backend.ts';
import type { ZcodeEvent } from '../../zcode/protocol.ts';
import type { BridgeContext } from '../context.ts';
import { SteerStateNotification } from '../extensions/contractDescriptors.ts';

export class SteerTracker implements Disposable {
  /** zcode session → queued steers the running turn has not taken in yet. */
  private readonly waiting = new Map<string, Set<string>>();
  private readonly subscriptions: Disposable[];

  constructor(private readonly ctx: Pick<BridgeContext, 'backend' | 'notifySession'>) {
    this.subscriptions = [ctx.backend.onEvent((event) => this.onEvent(event)), ctx.backend.onDidExit(() => this.waiting.clear())];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  private onEvent(event: ZcodeEvent): void {
    switch (event.type) {
      case 'turn.steerQueued': {
        const id = event.payload?.pendingInputId;
        if (!id || (event.payload?.delivery !== undefined && event.payload.delivery !== 'guide')) return;
        let set = this.waiting.get(event.sessionId);
        if (!set) this.waiting.set(event.sessionId, (set = new Set()));
        set.add(id);
        return;
      }
      case 'turn.steerDrained':
        for (const id of event.payload?.pendingInputIds ?? []) this.waiting.get(event.sessionId)?.delete(id);
        return;
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.terminal': {
        const set = this.waiting.get(event.sessionId);
        if (!set || set.size === 0) return;
        this.waiting.delete(event.sessionId);
        for (const queueItemId of set) this.ctx.notifySession(event.sessionId, SteerStateNotification, { state: 'deferred', queueItemId });
        return;
      }
      default:
        return;
    }
  }
}
