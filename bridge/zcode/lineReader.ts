/**
 * The reading half of the zcode connection: lines (lineCodec.ts `LineFramer`) parsed once and
 * handed to vscode-jsonrpc, or — for notification methods routed to a lane — delivered directly,
 * in an order that stays the one vscode-jsonrpc alone would have produced wherever the bridge can
 * tell the difference. Nothing here knows any zcode method: lanes are routed by the connection's
 * owner (client.ts routes `session/event`).
 */
import type { Readable } from 'node:stream';
import { AbstractMessageReader, Message } from 'vscode-jsonrpc/node';
import type { DataCallback, Disposable as RpcDisposable } from 'vscode-jsonrpc/node';
import type { Logger } from './backend.ts';
import { DEFAULT_MAX_LINE_BYTES, LineFramer, preview, toRpcMessage } from './lineCodec.ts';

export interface LineReaderOptions {
  maxLineBytes?: number;
}

/**
 * A notification method the reader delivers itself instead of queueing it in vscode-jsonrpc
 * (`LineMessageReader.routeDirect`). The lane owns validation (the boundary parse) and logging.
 */
export interface NotificationLane {
  /**
   * Deliver `params` now and return true if it is of the hot kind that may share an event-loop
   * turn with the messages around it; otherwise return false and do nothing.
   */
  deliverInline(params: unknown): boolean;
  /** Deliver (or log and skip) `params`; the reader calls this in an event-loop turn of its own. */
  deliver(params: unknown): void;
}

/**
 * Inline delivery never runs through more than this many input bytes (a pipe's read) without
 * giving the event loop a turn: a burst streamed from memory would otherwise hold timers, other
 * clients and the update sink's progress flushes (bridge/acp/updateSink.ts) until it ends.
 */
const TURN_BYTES = 64 * 1024;
/** vscode-jsonrpc's cancellation notification; zcode has no such thing. */
const CANCEL_METHOD = '$/cancelRequest';
/** Fed at the end of the stream, so that an unterminated last line is still delivered. */
const FINAL_NEWLINE = Buffer.from('\n');

/** What became of one line. */
const enum Taken {
  /** Skipped (logged) or delivered; reading goes on. */
  Done,
  /** Reading stops until the next turn (a message that needs a turn to itself, or the turn's budget is spent). */
  TurnOver,
  /** Not deliverable yet: kept in `parked`, and reading stops behind it. */
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
 * work, is the cost. Notifications of a routed method skip its queue and go to their lane, under
 * rules that keep every ordering the rest of the bridge can observe:
 *
 * 1. Stream order, always. Nothing overtakes anything; reading simply stops behind a message that
 *    cannot go yet (`parked`) and resumes from there.
 * 2. At most one message is in vscode-jsonrpc's queue, and no lane message is delivered until
 *    vscode-jsonrpc has dispatched it (the connection reports that through `messageDispatched()`)
 *    and a turn has passed: a response's awaiters (`await send()` → `turn.sent = true`,
 *    `await subscribe()` → `lastSeq`) have run before the events that followed it are seen, exactly
 *    as when every message went through vscode-jsonrpc.
 * 3. A lane's hot messages (`deliverInline`: streaming deltas) go out as soon as their line is read,
 *    back to back. Any other lane message gets a turn of its own, as vscode-jsonrpc would have
 *    given it: it waits for the next turn (so the promise continuations of what came before have
 *    run) and nothing follows it in that turn (so its own continuations run before the next
 *    message — a turn's end settles the prompt before anything after it is seen).
 * 4. After TURN_BYTES of input, reading yields a turn even in the middle of a burst.
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
  /** Reading resumes in this turn. */
  private resumeAt: NodeJS.Immediate | undefined;
  /** `framer.bytesRead` when reading last resumed in a turn of its own (see TURN_BYTES). */
  private turnStartBytes = 0;
  private sourcePaused = false;
  /** Inside read(): a chunk arriving meanwhile (a listener feeding the stream) only queues. */
  private reading = false;
  private ended = false;
  private closed = false;
  private disposed = false;
  private detach: (() => void) | undefined;

  constructor(
    private readonly readable: Readable,
    private readonly logger: Logger,
    options: LineReaderOptions = {},
  ) {
    super();
    this.framer = new LineFramer(logger, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
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
    if (!this.stopped && !this.reading) this.read(false);
  }

  /** vscode-jsonrpc dispatched the message this reader last handed it. */
  messageDispatched(): void {
    this.inFlight = false;
    // The dispatched message's continuations run first: resume in the next turn, not now.
    if (this.parked) this.resumeNextTurn();
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
    if (this.resumeAt) clearImmediate(this.resumeAt);
    this.resumeAt = undefined;
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
    if (!this.stopped && !this.reading) this.read(false);
  }

  /** Reading waits for a parked message or for the next turn. */
  private get stopped(): boolean {
    return this.parked !== undefined || this.resumeAt !== undefined;
  }

  /**
   * Deliver lines until the input is used up or a message has to wait.
   * @param fresh this call begins a turn of its own: nothing has been delivered in it yet.
   */
  private read(fresh: boolean): void {
    this.reading = true;
    try {
      this.readLines(fresh);
    } finally {
      this.reading = false;
    }
  }

  private readLines(fresh: boolean): void {
    let alone = fresh;
    const parked = this.parked;
    if (parked) {
      this.parked = undefined;
      const taken = parked.lane ? this.offerToLane(parked.lane, parked.params, alone) : this.offerToRpc(parked.message);
      if (taken !== Taken.Done) return this.stop(taken);
      alone = false;
    }
    for (let message = this.local.shift(); message; message = this.local.shift()) {
      const taken = this.offerToRpc(message);
      if (taken !== Taken.Done) return this.stop(taken);
      alone = false;
    }
    const sequenced = this.lanes.size > 0;
    for (let line = this.framer.next(); line !== undefined && !this.disposed; line = this.framer.next()) {
      const taken = this.take(line, alone);
      if (taken !== Taken.Done) return this.stop(taken);
      alone = false;
      if (sequenced && this.framer.bytesRead - this.turnStartBytes >= TURN_BYTES) return this.stop(Taken.TurnOver);
    }
    if (this.sourcePaused) {
      this.sourcePaused = false;
      this.readable.resume();
    }
    if (this.ended && !this.closed && !this.framer.hasInput) {
      this.closed = true;
      this.fireClose();
    }
  }

  /** Reading stops: until the next turn, or (a message waiting for vscode-jsonrpc) until it is dispatched. */
  private stop(taken: Taken): void {
    if (taken === Taken.TurnOver || !this.inFlight) this.resumeNextTurn();
    if (!this.sourcePaused && this.detach) {
      this.sourcePaused = true;
      this.readable.pause();
    }
  }

  private resumeNextTurn(): void {
    if (this.resumeAt || this.disposed) return;
    this.resumeAt = setImmediate(this.resume);
  }

  private readonly resume = (): void => {
    this.resumeAt = undefined;
    this.turnStartBytes = this.framer.bytesRead;
    this.read(true);
  };

  /** Parse one line (once) and route it. */
  private take(text: string, alone: boolean): Taken {
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
        if (lane) return this.offerToLane(lane, value.params, alone);
      }
    }
    const message = toRpcMessage(value, this.logger, text);
    if (!message) return Taken.Done;
    if (this.lanes.size > 0 && Message.isNotification(message)) {
      const lane = this.lanes.get(message.method);
      if (lane) return this.offerToLane(lane, message.params, alone);
    }
    return this.offerToRpc(message);
  }

  private offerToLane(lane: NotificationLane, params: unknown, alone: boolean): Taken {
    if (this.inFlight) {
      this.parked = { lane, params };
      return Taken.Parked;
    }
    try {
      if (lane.deliverInline(params)) return Taken.Done;
      if (!alone) {
        this.parked = { lane, params };
        return Taken.Parked;
      }
      lane.deliver(params);
    } catch (error) {
      // A lane logs what it skips and its listeners are guarded; this is the last line of defence
      // (vscode-jsonrpc guards its handlers the same way).
      this.logger.error(`delivering a zcode notification failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    return Taken.TurnOver;
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
