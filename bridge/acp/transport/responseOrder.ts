/**
 * "After the response" as connection state: work that must reach a client after the response to
 * one of its requests (the commands after `session/new`, the re-sent dialogs after
 * `session/load`) waits here until that response has been written to the connection's outgoing
 * stream.
 *
 * Why the stream: the SDK writes a handler's response only after the handler's promise has
 * settled and its own awaits have run; a notification sent from inside the handler would overtake
 * it. The SDK's writes are one ordered queue (`Connection.sendMessage`), so whatever is queued once
 * the response has passed the stream follows it: the order is the stream's, not the event loop's.
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

type RequestId = string | number;

export class ResponseOrder {
  /** Work waiting for the (successful) response to a request id. */
  private readonly waiting = new Map<RequestId, Array<() => void>>();
  /** Work waiting for any answer to a request id (a result, an error, or the connection closing). */
  private readonly answered = new Map<RequestId, Array<() => void>>();
  private closed = false;

  /**
   * Run `fn` once the successful response to `requestId` has been written. An error response, or
   * the connection closing first, drops it (nothing follows a request that failed).
   */
  afterResponse(requestId: RequestId | null | undefined, fn: () => void): void {
    if (this.closed || requestId === null || requestId === undefined) return;
    const list = this.waiting.get(requestId);
    if (list) list.push(fn);
    else this.waiting.set(requestId, [fn]);
  }

  /**
   * Run `fn` once any response to `requestId` (result or error) has been written, or when the
   * connection closes first: for work that must always run, such as releasing what waited for it.
   */
  whenAnswered(requestId: RequestId | null | undefined, fn: () => void): void {
    if (this.closed || requestId === null || requestId === undefined) return fn();
    const list = this.answered.get(requestId);
    if (list) list.push(fn);
    else this.answered.set(requestId, [fn]);
  }

  /** How many requests have work waiting (tests, diagnostics). */
  get pending(): number {
    return new Set([...this.waiting.keys(), ...this.answered.keys()]).size;
  }

  /** The same stream, its writes observed: a written response releases the work waiting for it. */
  wrap(stream: Stream): Stream {
    const inner = stream.writable;
    const writable = new WritableStream<AnyMessage>({
      write: async (message) => {
        const writer = inner.getWriter();
        try {
          await writer.write(message);
        } finally {
          writer.releaseLock();
        }
        this.written(message);
      },
      close: () => {
        this.close();
        return inner.close();
      },
      abort: (reason) => {
        this.close();
        return inner.abort(reason);
      },
    });
    return { readable: stream.readable, writable };
  }

  /** The connection is gone: nothing waiting will run. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting.clear();
    const always = [...this.answered.values()].flat();
    this.answered.clear();
    for (const fn of always) fn();
  }

  private written(message: AnyMessage): void {
    if ((this.waiting.size === 0 && this.answered.size === 0) || 'method' in message || !('id' in message)) return;
    const id = message.id;
    if (id === null || id === undefined) return;
    const always = this.answered.get(id);
    this.answered.delete(id);
    const list = this.waiting.get(id);
    this.waiting.delete(id);
    if (list && 'result' in message) for (const fn of list) fn();
    if (always) for (const fn of always) fn();
  }
}
