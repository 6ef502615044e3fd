/**
 * The reading half of the zcode connection: lines (lineCodec.ts `LineFramer`) parsed once and
 * handed to vscode-jsonrpc, or — for notification methods routed to a lane — delivered directly,
 * always in stream order. Nothing here knows any zcode method: lanes are routed by the
 * connection's owner (client.ts routes `session/event`).
 */
import type { Readable } from 'node:stream';
import { AbstractMessageReader, Message } from 'vscode-jsonrpc/node';
import type { DataCallback, Disposable as RpcDisposable } from 'vscode-jsonrpc/node';
import type { Logger } from '../logger.ts';
import { DEFAULT_MAX_LINE_BYTES, LineFramer, preview, toRpcMessage } from './lineCodec.ts';

export interface LineReaderOptions {
  maxLineBytes?: number;
  /**
   * Called whenever the reader stops delivering: everything read so far is delivered (or waits
   * for vscode-jsonrpc), so a burst of events has ended. Never called in the middle of a delivery.
   */
  onIdle?: () => void;
}

/**
 * A notification method the reader delivers itself instead of queueing it in vscode-jsonrpc
 * (`LineMessageReader.routeDirect`). The lane owns validation (the boundary parse) and logging.
 */
export interface NotificationLane {
  /** Deliver (or log and skip) `params`, synchronously. */
  deliver(params: unknown): void;
}

/**
 * Reading yields to the event loop after this many input bytes (a pipe's read): a burst streamed
 * from memory would otherwise hold timers and other clients until it ends. Fairness only: no
 * ordering depends on it.
 */
const BURST_BYTES = 64 * 1024;
/** vscode-jsonrpc's cancellation notification; zcode has no such thing. */
const CANCEL_METHOD = '$/cancelRequest';
/** Fed at the end of the stream, so that an unterminated last line is still delivered. */
const FINAL_NEWLINE = Buffer.from('\n');

/** What became of one line. */
const enum Taken {
  /** Skipped (logged) or delivered; reading goes on. */
  Done,
  /** Not deliverable yet: kept in `parked`, and reading stops behind it until vscode-jsonrpc dispatched the message before it. */
  Parked,
}

type Parked = { lane: NotificationLane; params: unknown; message?: undefined } | { lane?: undefined; params?: undefined; message: Message };

/**
 * Reads newline-delimited JSON from a stream for vscode-jsonrpc's connection.
 *
 * - A line that is not JSON, not an object, or of no known shape is logged and skipped: zcode
 *   (or a wrapper script) may print noise on stdout, and that must never break the bridge.
 * - vscode-jsonrpc classifies messages itself (`toRpcMessage` only makes them acceptable to it).
 *
 * Lanes (`routeDirect`). vscode-jsonrpc dispatches one queued message per event-loop turn (a
 * `setImmediate` each); at tens of thousands of streaming events a second that turn, not the
 * work, is the cost. Notifications of a routed method skip its queue and go to their lane. The
 * order is kept as state, never by counting event-loop turns:
 *
 * 1. Stream order, always. Nothing overtakes anything; reading simply stops behind a message that
 *    cannot go yet (`parked`) and resumes from there.
 * 2. At most one message is in vscode-jsonrpc's queue (`inFlight`), and nothing after it is
 *    delivered until vscode-jsonrpc has dispatched it: the connection reports that through
 *    `messageDispatched()`, and reading resumes right there. A response's effect on what follows
 *    it (a turn zcode accepted, a subscription's starting seq) is applied in the dispatch itself
 *    (connection.ts `onAnswer`), not in a promise continuation that may run later.
 * 3. Lane messages are delivered as their line is read, back to back.
 * 4. After BURST_BYTES of input, reading yields a turn even in the middle of a burst (fairness).
 *
 * While reading is stopped the stream is paused, so a fast producer is held back by the pipe rather
 * than buffered here. Without lanes every message goes to vscode-jsonrpc as soon as it is read.
 */
export class LineMessageReader extends AbstractMessageReader {
  private readonly framer: LineFramer;
  private callback: DataCallback | undefined;
  private readonly lanes = new Map<string, NotificationLane>();
  /** A message read but not deliverable yet; reading stops behind it. */
  private parked: Parked | undefined;
  /** Messages the bridge made itself (`deliverLocal`), delivered before the next line. */
  private readonly local: Message[] = [];
  /** A message handed to vscode-jsonrpc and not dispatched yet (lanes only). */
  private inFlight = false;
  /** Reading yields to the event loop mid-burst and resumes here (BURST_BYTES; fairness only). */
  private yieldAt: NodeJS.Immediate | undefined;
  /** `framer.bytesRead` when the current burst began (see BURST_BYTES). */
  private burstStartBytes = 0;
  private sourcePaused = false;
  /** Inside read(): a chunk arriving meanwhile (a listener feeding the stream) only queues. */
  private reading = false;
  private ended = false;
  private closed = false;
  private disposed = false;
  private detach: (() => void) | undefined;

  private readonly onIdle: (() => void) | undefined;

  constructor(
    private readonly readable: Readable,
    private readonly logger: Logger,
    options: LineReaderOptions = {},
  ) {
    super();
    this.framer = new LineFramer(logger, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    this.onIdle = options.onIdle;
  }

  /**
   * Deliver notifications of `method` to `lane` instead of vscode-jsonrpc (see the class comment).
   * Whoever routes a lane must call `messageDispatched()` for every message vscode-jsonrpc
   * dispatches (connection.ts does, through its MessageStrategy), or lane messages that follow a
   * request or response wait forever.
   */
  routeDirect(method: string, lane: NotificationLane): void {
    this.lanes.set(method, lane);
  }

  /**
   * Hand vscode-jsonrpc a message that did not come from zcode, under the same rules as a line
   * (connection.ts: the local answer to a request the bridge stopped waiting for).
   */
  deliverLocal(message: Message): void {
    if (this.disposed) return;
    this.local.push(message);
    if (!this.stopped && !this.reading) this.read();
  }

  /** vscode-jsonrpc dispatched the message this reader last handed it: what waits behind it goes now. */
  messageDispatched(): void {
    this.inFlight = false;
    if (this.reading) return;
    if (this.parked && !this.yieldAt) this.read();
    // What the dispatched message delivered (a notification, replayed events) is a burst too.
    else this.idle();
  }

  listen(callback: DataCallback): RpcDisposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string): void => this.onChunk(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    const onEnd = (): void => {
      // A final line without a trailing newline (the process exited mid-line) is still delivered;
      // close follows the last message.
      this.ended = true;
      this.onChunk(FINAL_NEWLINE);
    };
    const onError = (error: Error): void => this.fireError(error);
    this.readable.on('data', onData);
    this.readable.on('end', onEnd);
    this.readable.on('error', onError);
    this.detach = () => {
      this.detach = undefined;
      this.callback = undefined;
      this.readable.off('data', onData);
      this.readable.off('end', onEnd);
      this.readable.off('error', onError);
    };
    return { dispose: () => this.detach?.() };
  }

  /** Nothing is read or delivered after this (vscode-jsonrpc calls it when the connection is disposed). */
  override dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.detach?.();
    this.callback = undefined;
    if (this.yieldAt) clearImmediate(this.yieldAt);
    this.yieldAt = undefined;
    this.framer.clear();
    this.parked = undefined;
    this.local.length = 0;
    // Keep the pipe draining (to nowhere) so the process is never blocked on a full stdout.
    if (this.sourcePaused) this.readable.resume();
    super.dispose();
  }

  /** Feed one chunk (exposed for tests that drive the reader without a stream). */
  onChunk(chunk: Buffer): void {
    if (this.disposed) return;
    this.framer.push(chunk);
    if (!this.stopped && !this.reading) this.read();
  }

  /** Reading waits for vscode-jsonrpc to dispatch a message, or for the end of a fairness yield. */
  private get stopped(): boolean {
    return this.parked !== undefined || this.yieldAt !== undefined;
  }

  /** Deliver lines until the input is used up or a message has to wait. */
  private read(): void {
    this.reading = true;
    try {
      this.readLines();
    } finally {
      this.reading = false;
    }
    this.idle();
  }

  private idle(): void {
    if (this.disposed || !this.onIdle) return;
    try {
      this.onIdle();
    } catch (error) {
      this.logger.error(`a zcode reader idle listener failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private readLines(): void {
    const parked = this.parked;
    if (parked) {
      this.parked = undefined;
      const taken = parked.lane ? this.offerToLane(parked.lane, parked.params) : this.offerToRpc(parked.message);
      if (taken === Taken.Parked) return this.pauseSource();
    }
    for (let message = this.local.shift(); message; message = this.local.shift()) {
      if (this.offerToRpc(message) === Taken.Parked) return this.pauseSource();
    }
    const sequenced = this.lanes.size > 0;
    for (let line = this.framer.next(); line !== undefined && !this.disposed; line = this.framer.next()) {
      if (this.take(line) === Taken.Parked) return this.pauseSource();
      if (sequenced && this.framer.bytesRead - this.burstStartBytes >= BURST_BYTES) {
        this.yieldAt = setImmediate(this.resumeAfterYield);
        return this.pauseSource();
      }
    }
    this.burstStartBytes = this.framer.bytesRead;
    if (this.sourcePaused) {
      this.sourcePaused = false;
      this.readable.resume();
    }
    if (this.ended && !this.closed && !this.framer.hasInput) {
      this.closed = true;
      this.fireClose();
    }
  }

  /** Reading stopped: hold the producer back by the pipe rather than buffer here. */
  private pauseSource(): void {
    if (!this.sourcePaused && this.detach) {
      this.sourcePaused = true;
      this.readable.pause();
    }
  }

  private readonly resumeAfterYield = (): void => {
    this.yieldAt = undefined;
    this.burstStartBytes = this.framer.bytesRead;
    if (!this.parked) this.read();
  };

  /** Parse one line (once) and route it. */
  private take(text: string): Taken {
    if (!this.callback) return Taken.Done;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (text.trim() !== '') this.logger.warn(`skipping a non-JSON line from zcode: ${preview(text)}`);
      return Taken.Done;
    }
    if (this.lanes.size > 0 && isRecord(value)) {
      // The common case, checked by hand: a notification RawMessage accepts as it is (a string
      // method, no id, no error). Anything unusual takes the full path below.
      const { method } = value;
      if (typeof method === 'string' && value.id === undefined && value.error === undefined) {
        const lane = this.lanes.get(method);
        if (lane) return this.offerToLane(lane, value.params);
      }
    }
    const message = toRpcMessage(value, this.logger, text);
    if (!message) return Taken.Done;
    if (this.lanes.size > 0 && Message.isNotification(message)) {
      const lane = this.lanes.get(message.method);
      if (lane) return this.offerToLane(lane, message.params);
    }
    return this.offerToRpc(message);
  }

  private offerToLane(lane: NotificationLane, params: unknown): Taken {
    if (this.inFlight) {
      this.parked = { lane, params };
      return Taken.Parked;
    }
    try {
      lane.deliver(params);
    } catch (error) {
      // A lane logs what it skips and its listeners are guarded; this is the last line of defence
      // (vscode-jsonrpc guards its handlers the same way).
      this.logger.error(`delivering a zcode notification failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    return Taken.Done;
  }

  private offerToRpc(message: Message): Taken {
    if (this.lanes.size > 0) {
      if (Message.isNotification(message) && message.method === CANCEL_METHOD) {
        // vscode-jsonrpc may consume this one without ever dispatching it, which would hold every
        // later lane message back; and zcode has no cancellation to send.
        this.logger.warn(`skipping ${CANCEL_METHOD} from zcode (not part of its protocol)`);
        return Taken.Done;
      }
      if (this.inFlight) {
        this.parked = { message };
        return Taken.Parked;
      }
      this.inFlight = true;
    }
    this.callback?.(message);
    return Taken.Done;
  }
}

/** A plain object (not null, not an array), as z.object() means it. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
