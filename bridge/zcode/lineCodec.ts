/**
 * Framing for zcode app-server: one JSON object per `\n`-terminated line, JSON-RPC shaped but
 * WITHOUT the `jsonrpc` field (docs/zcode-protocol.md "Framing").
 *
 * This is the transport layer only (framing, correlation and typed methods live in separate files): `LineFramer` turns bytes into lines,
 * `toRpcMessage` turns a parsed line into a message vscode-jsonrpc's connection can correlate, the
 * writer turns vscode-jsonrpc's messages into lines zcode accepts. The reader that puts these
 * together, and decides when each message is delivered, is lineReader.ts. Nothing here knows any
 * zcode method.
 */
import type { Writable } from 'node:stream';
import { AbstractMessageWriter } from 'vscode-jsonrpc/node';
import type { Message, MessageWriter } from 'vscode-jsonrpc/node';
import type { Logger } from '../logger.ts';
import { RawMessage } from './protocol.ts';

const NEWLINE = 0x0a;
const CR = 0x0d;

/** Lines larger than this are dropped (and logged) instead of buffered without bound. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits bytes into lines. Pull-based (`push` bytes, `next()` lines) so that its reader can stop
 * between any two lines and carry on later from the same place.
 *
 * - Partial lines are kept as a list of chunks and joined once when the newline arrives, so a
 *   multi-MB tool-output line split into thousands of chunks costs O(size), not O(size²). A line
 *   that lies whole in one chunk is decoded straight from it (no copy, no concatenation).
 * - Only new bytes are scanned for `\n`; the buffered prefix is never rescanned. A chunk boundary
 *   inside a multi-byte character is harmless: bytes are decoded per whole line, and `\n` never
 *   occurs inside a UTF-8 sequence.
 * - CRLF is accepted; empty lines are skipped; a line over `maxLineBytes` is dropped (logged).
 */
export class LineFramer {
  /** Bytes pushed and not yet framed, oldest first (`offset` into the first). */
  private input: Buffer[] = [];
  private offset = 0;
  /** The line being assembled across chunks. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** true while skipping the rest of an oversized line. */
  private discarding = false;
  /** Bytes framed so far (a running total). */
  bytesRead = 0;

  constructor(
    private readonly logger: Logger,
    private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  /** No copy: Node streams hand out a fresh Buffer per 'data' event. */
  push(chunk: Buffer): void {
    if (chunk.length > 0) this.input.push(chunk);
  }

  /** Whether pushed bytes are still waiting for `next()`. */
  get hasInput(): boolean {
    return this.input.length > 0;
  }

  /** The next complete line without its line ending, or undefined when the input holds none. */
  next(): string | undefined {
    while (this.input.length > 0) {
      const chunk = this.input[0];
      const start = this.offset;
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.append(start === 0 ? chunk : chunk.subarray(start));
        this.bytesRead += chunk.length - start;
        this.input.shift();
        this.offset = 0;
        continue;
      }
      this.bytesRead += nl + 1 - start;
      if (nl + 1 < chunk.length) {
        this.offset = nl + 1;
      } else {
        this.input.shift();
        this.offset = 0;
      }
      if (this.pendingBytes > 0 || this.discarding) {
        this.append(chunk.subarray(start, nl));
        const line = this.endLine();
        if (line !== undefined) return line;
      } else if (nl - start > this.maxLineBytes) {
        this.logger.warn(`zcode sent a line larger than ${this.maxLineBytes} bytes; dropping it`);
      } else {
        const end = nl > start && chunk[nl - 1] === CR ? nl - 1 : nl;
        if (end > start) return chunk.toString('utf8', start, end);
      }
    }
    return undefined;
  }

  /** Forget everything buffered. */
  clear(): void {
    this.input = [];
    this.offset = 0;
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
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
    // Joined exactly once, in endLine().
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
}

/**
 * Classify one parsed line (docs/zcode-protocol.md "Framing": id+method request, method only notification,
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
 * with -32600 (docs/zcode-protocol.md "Framing"), and vscode-jsonrpc always sets it.
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

/** The start of a long line, for log messages. */
export function preview(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
