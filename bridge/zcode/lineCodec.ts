/**
 * Framing for zcode app-server: one JSON object per `\n`-terminated line, JSON-RPC shaped but
 * WITHOUT the `jsonrpc` field (zcode-protocol.md "Framing").
 *
 * This is the transport layer only (design.md rule 1): the reader turns bytes into messages that
 * vscode-jsonrpc's connection can correlate, the writer turns vscode-jsonrpc's messages into lines
 * zcode accepts. Nothing here knows any zcode method.
 */
import type { Readable, Writable } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter, Message } from 'vscode-jsonrpc/node';
import type { DataCallback, Disposable as RpcDisposable, MessageWriter } from 'vscode-jsonrpc/node';
import type { Logger } from './backend.ts';
import { RawMessage } from './protocol.ts';

const NEWLINE = 0x0a;
const CR = 0x0d;

/** Lines larger than this are dropped (and logged) instead of buffered without bound. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

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
 * Reads newline-delimited JSON from a stream.
 *
 * - Partial lines are kept as a list of chunks and joined once when the newline arrives, so a
 *   multi-MB tool-output line split into thousands of chunks costs O(size), not O(size²). A line
 *   that lies whole in one chunk is decoded straight from it (no copy, no concatenation).
 * - Only new bytes are scanned for `\n`; the buffered prefix is never rescanned.
 * - CRLF is accepted; blank lines are ignored.
 * - A line that is not JSON, not an object, or of no known shape is logged and skipped: zcode
 *   (or a wrapper script) may print noise on stdout, and that must never break the bridge.
 * - vscode-jsonrpc's connection classifies messages itself; we add `jsonrpc:"2.0"` only because
 *   its `Message` type declares it, and give id-only responses a `result: null` (its response
 *   check requires `result` or `error`).
 *
 * Direct lanes (`routeDirect`). vscode-jsonrpc dispatches one queued message per event-loop turn
 * (a `setImmediate` each); at tens of thousands of streaming events a second that turn, not the
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
 * than buffered here. Without lanes every message goes to vscode-jsonrpc as it is read.
 */
export class LineMessageReader extends AbstractMessageReader {
  /** Bytes received and not yet framed, oldest first (`offset` into the first). */
  private input: Buffer[] = [];
  private offset = 0;
  /** The line being assembled across chunks. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** true while skipping the rest of an oversized line. */
  private discarding = false;
  private callback: DataCallback | undefined;
  private readonly maxLineBytes: number;
  private readonly lanes = new Map<string, NotificationLane>();
  /** A message read but not deliverable yet; reading stops behind it. */
  private parked: Parked | undefined;
  /** A message handed to vscode-jsonrpc and not dispatched yet (lanes only). */
  private inFlight = false;
  /** Reading resumes in this turn. */
  private resumeAt: NodeJS.Immediate | undefined;
  /** Bytes read since reading last resumed in a turn of its own (lanes only; see TURN_BYTES). */
  private turnBytes = 0;
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
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
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
      // A final line without a trailing newline (the process exited mid-line) is still delivered.
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
    this.input = [];
    this.pending = [];
    this.pendingBytes = 0;
    this.parked = undefined;
    // Keep the pipe draining (to nowhere) so the process is never blocked on a full stdout.
    if (this.sourcePaused) this.readable.resume();
    super.dispose();
  }

  /** Feed one chunk (exposed for tests that drive the reader without a stream). */
  onChunk(chunk: Buffer): void {
    if (this.disposed) return;
    this.input.push(chunk);
    if (!this.stopped && !this.reading) this.read(false);
  }

  /** Reading waits for a parked message or for the next turn. */
  private get stopped(): boolean {
    return this.parked !== undefined || this.resumeAt !== undefined;
  }

  /**
   * Frame and deliver lines until the input is used up or a message has to wait.
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
    while (this.input.length > 0 && !this.disposed) {
      const chunk = this.input[0];
      const start = this.offset;
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.append(start === 0 ? chunk : chunk.subarray(start));
        this.turnBytes += chunk.length - start;
        this.input.shift();
        this.offset = 0;
        continue;
      }
      this.turnBytes += nl + 1 - start;
      if (nl + 1 < chunk.length) {
        this.offset = nl + 1;
      } else {
        this.input.shift();
        this.offset = 0;
      }
      let line: string | undefined;
      if (this.pendingBytes > 0 || this.discarding) {
        this.append(chunk.subarray(start, nl));
        line = this.endLine();
      } else if (nl - start > this.maxLineBytes) {
        this.logger.warn(`zcode sent a line larger than ${this.maxLineBytes} bytes; dropping it`);
      } else {
        const end = nl > start && chunk[nl - 1] === CR ? nl - 1 : nl;
        if (end > start) line = chunk.toString('utf8', start, end);
      }
      if (line === undefined) continue;
      const taken = this.take(line, alone);
      if (taken !== Taken.Done) return this.stop(taken);
      alone = false;
      if (this.turnBytes >= TURN_BYTES && this.lanes.size > 0) return this.stop(Taken.TurnOver);
    }
    if (this.sourcePaused) {
      this.sourcePaused = false;
      this.readable.resume();
    }
    if (this.ended && !this.closed && this.input.length === 0) {
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
    this.turnBytes = 0;
    this.read(true);
  };

  private append(piece: Buffer): void {
    if (piece.length === 0 || this.discarding) return;
    if (this.pendingBytes + piece.length > this.maxLineBytes) {
      this.logger.warn(`zcode sent a line larger than ${this.maxLineBytes} bytes; dropping it`);
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      return;
    }
    // No copy: Node streams hand out a fresh Buffer per 'data' event, and the pieces are joined
    // exactly once in endLine().
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  /** The assembled line (undefined when it was oversized or empty). */
  private endLine(): string | undefined {
    if (this.discarding) {
      this.discarding = false;
      return undefined;
    }
    const parts = this.pending;
    const bytes = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    if (bytes === 0) return undefined;
    let line = parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes);
    if (line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    return line.length > 0 ? line.toString('utf8') : undefined;
  }

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
        // zcode does not speak vscode-jsonrpc's cancellation, and vscode-jsonrpc may consume this
        // one without ever dispatching it, which would hold every later lane message back.
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

const FINAL_NEWLINE = Buffer.from('\n');
/**
 * Inline delivery never runs more than this many input bytes (a pipe's read) in one go without
 * giving the event loop a turn: a burst streamed from memory would otherwise hold timers, other
 * clients and the update sink's progress flushes (bridge/acp/updateSink.ts) until it ends.
 */
const TURN_BYTES = 64 * 1024;
/** vscode-jsonrpc's cancellation notification. */
const CANCEL_METHOD = '$/cancelRequest';

/** A plain object (not null, not an array), as z.object() means it. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Classify one parsed line (zcode-protocol.md: id+method request, method only notification,
 * id only response). Returns undefined for lines that are logged and skipped.
 */
export function toRpcMessage(value: unknown, logger: Logger, text = ''): Message | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    logger.warn(`skipping a JSON line from zcode that is not an object: ${preview(text || JSON.stringify(value))}`);
    return undefined;
  }
  const parsed = RawMessage.safeParse(value);
  if (!parsed.success) {
    const id = (value as { id?: unknown }).id;
    const method = (value as { method?: unknown }).method;
    // A response with a usable id but a broken body: fail that one request now rather than let it
    // wait for its timeout.
    if (method === undefined && (typeof id === 'number' || typeof id === 'string')) {
      logger.warn(`zcode sent a malformed response for id ${id}: ${preview(text || JSON.stringify(value))}`);
      return { jsonrpc: '2.0', id, error: { code: -32603, message: 'zcode sent a malformed response' } } as Message;
    }
    logger.warn(`skipping a message of unknown shape from zcode: ${preview(text || JSON.stringify(value))}`);
    return undefined;
  }
  const msg = parsed.data;
  if (msg.method !== undefined) {
    // Request (with id) or notification (without): vscode-jsonrpc tells them apart by `id`.
    return { ...msg, jsonrpc: '2.0' } as Message;
  }
  if (msg.id !== undefined) {
    if (msg.error === undefined && msg.result === undefined) return { ...msg, jsonrpc: '2.0', result: null } as Message;
    return { ...msg, jsonrpc: '2.0' } as Message;
  }
  logger.warn(`skipping a message with neither id nor method from zcode: ${preview(text || JSON.stringify(value))}`);
  return undefined;
}

/**
 * Writes one JSON object per line. It NEVER emits `jsonrpc`: zcode rejects a message carrying it
 * with -32600 (zcode-protocol.md "Framing"), and vscode-jsonrpc always sets it.
 */
export class LineMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(private readonly writable: Writable) {
    super();
    writable.on('error', (error: Error) => this.fireError(error));
    writable.on('close', () => this.fireClose());
  }

  write(msg: Message): Promise<void> {
    const line = encodeLine(msg);
    return new Promise<void>((resolve, reject) => {
      if (this.writable.destroyed || this.writable.writableEnded) {
        const error = new Error('zcode stdin is closed');
        this.fireError(error, msg, ++this.errorCount);
        reject(error);
        return;
      }
      // Ordering is the stream's: writes are queued in call order. The callback fires once the
      // data is handed to the OS (or with the error that prevented it).
      this.writable.write(line, 'utf8', (error) => {
        if (error) {
          this.fireError(error, msg, ++this.errorCount);
          reject(error);
        } else {
          this.errorCount = 0;
          resolve();
        }
      });
    });
  }

  end(): void {
    if (!this.writable.writableEnded) this.writable.end();
  }
}

/** One message as a zcode line: no `jsonrpc`, `\n`-terminated. */
export function encodeLine(msg: Message | Record<string, unknown>): string {
  const { jsonrpc: _jsonrpc, ...rest } = msg as { jsonrpc?: unknown } & Record<string, unknown>;
  return JSON.stringify(rest) + '\n';
}

function preview(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
