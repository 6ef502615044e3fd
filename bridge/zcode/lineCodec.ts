/**
 * Framing for zcode app-server: one JSON object per `\n`-terminated line, JSON-RPC shaped but
 * WITHOUT the `jsonrpc` field (zcode-protocol.md "Framing").
 *
 * This is the transport layer only (design.md rule 1): the reader turns bytes into messages that
 * vscode-jsonrpc's connection can correlate, the writer turns vscode-jsonrpc's messages into lines
 * zcode accepts. Nothing here knows any zcode method.
 */
import type { Readable, Writable } from 'node:stream';
import { AbstractMessageReader, AbstractMessageWriter } from 'vscode-jsonrpc/node';
import type { DataCallback, Disposable as RpcDisposable, Message, MessageWriter } from 'vscode-jsonrpc/node';
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
 * Reads newline-delimited JSON from a stream.
 *
 * - Partial lines are kept as a list of chunks and joined once when the newline arrives, so a
 *   multi-MB tool-output line split into thousands of chunks costs O(size), not O(size²).
 * - Only the new chunk is scanned for `\n`; the buffered prefix is never rescanned.
 * - CRLF is accepted; blank lines are ignored.
 * - A line that is not JSON, not an object, or of no known shape is logged and skipped: zcode
 *   (or a wrapper script) may print noise on stdout, and that must never break the bridge.
 * - vscode-jsonrpc's connection classifies messages itself; we add `jsonrpc:"2.0"` only because
 *   its `Message` type declares it, and give id-only responses a `result: null` (its response
 *   check requires `result` or `error`).
 */
export class LineMessageReader extends AbstractMessageReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** true while skipping the rest of an oversized line. */
  private discarding = false;
  private callback: DataCallback | undefined;
  private readonly maxLineBytes: number;

  constructor(
    private readonly readable: Readable,
    private readonly logger: Logger,
    options: LineReaderOptions = {},
  ) {
    super();
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  listen(callback: DataCallback): RpcDisposable {
    this.callback = callback;
    const onData = (chunk: Buffer | string): void => this.onChunk(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    const onEnd = (): void => {
      this.flushTail();
      this.fireClose();
    };
    const onError = (error: Error): void => this.fireError(error);
    this.readable.on('data', onData);
    this.readable.on('end', onEnd);
    this.readable.on('error', onError);
    return {
      dispose: () => {
        this.callback = undefined;
        this.readable.off('data', onData);
        this.readable.off('end', onEnd);
        this.readable.off('error', onError);
      },
    };
  }

  /** Feed one chunk (exposed for tests that drive the reader without a stream). */
  onChunk(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) break;
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

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

  private endLine(): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    const parts = this.pending;
    const bytes = this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    if (bytes === 0) return;
    let line = parts.length === 1 ? parts[0] : Buffer.concat(parts, bytes);
    if (line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    this.handleLine(line.toString('utf8'));
  }

  /** A final line without a trailing newline (the process exited mid-line) is still delivered. */
  private flushTail(): void {
    if (this.pendingBytes > 0) this.endLine();
  }

  private handleLine(text: string): void {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.logger.warn(`skipping a non-JSON line from zcode: ${preview(text)}`);
      return;
    }
    const message = toRpcMessage(value, this.logger, text);
    if (message && this.callback) this.callback(message);
  }
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
