/**
 * The host → webview half of the contract's sync protocol: changes are buffered and sent as
 * numbered patches at most every `FLUSH_MS`, the first after a pause at once (consecutive text
 * deltas to one item merged, so a burst of 10k deltas becomes ~one patch per frame); a snapshot resets the numbering. Nothing is
 * sent while the webview is not listening: the snapshot it gets on `ready` already holds it all.
 */
import {
  DidChangeSnapshotNotification,
  DidPatchNotification,
  type IpcMessage,
  type IpcNotification,
} from '../../webview-ui/contract.ts';
import type { ChatSnapshot } from '../../webview-ui/viewModel.ts';
import type { Change } from './transcript.ts';

/** Patches are sent at most this often (ms); deltas in between are merged. */
export const FLUSH_MS = 16;

export class PatchStream {
  private seq = 0;
  private buffer: Change = { ops: [] };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private post: ((msg: IpcMessage) => void) | undefined;
  private listening = false;
  private counter = 0;
  /** When the last patch went out (Date.now()). */
  private lastFlush = 0;

  /** A webview appeared (not listening until it says `ready`). */
  attach(post: (msg: IpcMessage) => void): void {
    this.post = post;
    this.listening = false;
  }

  detach(): void {
    this.post = undefined;
    this.listening = false;
  }

  get isListening(): boolean {
    return this.listening;
  }

  /** The webview said `ready`: it gets `snapshot` now and patches from then on. */
  ready(snapshot: (seq: number) => ChatSnapshot): void {
    this.listening = true;
    this.sendSnapshot(snapshot);
  }

  /** Replaces the webview's whole state (session switch, resync). */
  sendSnapshot(snapshot: (seq: number) => ChatSnapshot): void {
    this.cancelTimer();
    this.buffer = { ops: [] };
    this.seq += 1;
    if (this.listening) this.send(DidChangeSnapshotNotification, snapshot(this.seq));
  }

  /** Buffers a change for the next patch. */
  queue(change: Change): void {
    if (change.ops.length === 0 && !change.session) return;
    const ops = this.buffer.ops;
    for (const op of change.ops) {
      const last = ops[ops.length - 1];
      if (op.op === 'append' && last?.op === 'append' && last.id === op.id && last.field === op.field) {
        ops[ops.length - 1] = { ...last, text: last.text + op.text };
      } else if (op.op === 'upsert' && last?.op === 'upsert' && last.item.id === op.item.id) {
        ops[ops.length - 1] = op;
      } else {
        ops.push(op);
      }
    }
    if (change.session) this.buffer.session = { ...this.buffer.session, ...change.session };
    // At most one patch per FLUSH_MS, but the first change after a quiet spell goes out in the next
    // task (changes queued in the same task still share it), not a whole window later: the first
    // token of an answer reaches the screen a frame sooner.
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, this.lastFlush + FLUSH_MS - Date.now()));
  }

  /** Sends the buffered changes now. */
  flush(): void {
    this.cancelTimer();
    this.lastFlush = Date.now();
    const change = this.buffer;
    this.buffer = { ops: [] };
    if ((change.ops.length === 0 && !change.session) || !this.listening) return;
    this.seq += 1;
    this.send(DidPatchNotification, { seq: this.seq, ops: change.ops, ...(change.session ? { session: change.session } : {}) });
  }

  /** Any other notification (request completions carry the request's id). */
  send<P>(notification: IpcNotification<P>, params: P, completionId?: string): void {
    this.counter += 1;
    this.post?.({ id: `h${this.counter}`, method: notification.method, params, ...(completionId ? { completionId } : {}) });
  }

  dispose(): void {
    this.cancelTimer();
    this.post = undefined;
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
