/**
 * ACP over stdio: one JSON-RPC message per line, like the SDK's `ndJsonStream`, but a hostile or
 * broken line never ends the connection.
 *
 * The SDK's framing errors the whole input stream on a line over its 32 MiB limit, which closes
 * the connection and ends `zcode-acp` with exit code 0 and no answer. Here:
 * - A line over `maxMessageBytes` is answered with -32600 (carrying the request id when its first
 *   bytes show one) as soon as the limit is crossed, and the rest of it is discarded as it
 *   arrives: memory stays at the limit, never the whole line.
 * - Every line passes `checkIncoming` (depth, JSON, envelope) before the SDK sees it.
 * - Responses to requests the agent never sent are dropped (see `ResponseCorrelation`).
 * - A message that cannot be serialised is logged and dropped (a response becomes a short -32603)
 *   instead of failing the write and with it the output stream.
 * Every rejection is logged through a `LogThrottle`.
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { Logger } from '../../logger.ts';
import { LogThrottle } from '../../zcode/logThrottle.ts';
import { checkIncoming, MAX_MESSAGE_BYTES, MAX_NESTING_DEPTH, oversizedResponse, ResponseCorrelation, serialise } from './wireGuard.ts';

export interface GuardedNdJsonOptions {
  logger: Logger;
  /** Default 32 MiB, the SDK's own limit. */
  maxMessageBytes?: number;
  maxDepth?: number;
}

const NEWLINE = 0x0a;
/** Bytes of an oversized line kept to read its id from. */
const PREFIX_BYTES = 4096;

type LineEvent = { kind: 'line'; bytes: Uint8Array } | { kind: 'oversized'; prefix: Uint8Array };

/** Splits bytes into LF-terminated lines, holding at most `maxBytes` of one line. */
export class BoundedLineSplitter {
  private parts: Uint8Array[] = [];
  private length = 0;
  /** Inside an oversized line that was already reported: drop bytes until its newline. */
  private skipping = false;

  constructor(private readonly maxBytes: number) {}

  /** Bytes of the current line held in memory (never more than `maxBytes`). */
  get bufferedBytes(): number {
    return this.length;
  }

  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start <= chunk.byteLength) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.byteLength : newline;
      if (this.skipping) {
        if (newline === -1) break;
        this.skipping = false;
      } else {
        const segment = chunk.subarray(start, end);
        // A trailing CR (CRLF framing) does not count against the limit.
        const counted = this.length + segment.byteLength - (newline !== -1 && segment[segment.byteLength - 1] === 0x0d ? 1 : 0);
        if (counted > this.maxBytes) {
          events.push({ kind: 'oversized', prefix: concat([...this.parts, segment], PREFIX_BYTES) });
          this.reset();
          if (newline === -1) {
            this.skipping = true;
            break;
          }
        } else if (newline === -1) {
          if (segment.byteLength > 0) {
            this.parts.push(segment);
            this.length += segment.byteLength;
          }
          break;
        } else {
          events.push({ kind: 'line', bytes: concat([...this.parts, segment]) });
          this.reset();
        }
      }
      start = newline + 1;
    }
    return events;
  }

  /** The unterminated last line at end of input, if any. */
  flush(): Uint8Array | undefined {
    const rest = this.skipping || this.length === 0 ? undefined : concat(this.parts);
    this.reset();
    this.skipping = false;
    return rest;
  }

  private reset(): void {
    this.parts = [];
    this.length = 0;
  }
}

function concat(parts: Uint8Array[], limit = Number.POSITIVE_INFINITY): Uint8Array {
  if (parts.length === 1 && parts[0].byteLength <= limit) return parts[0];
  const total = Math.min(
    limit,
    parts.reduce((n, p) => n + p.byteLength, 0),
  );
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    if (at >= total) break;
    const take = part.subarray(0, total - at);
    out.set(take, at);
    at += take.byteLength;
  }
  return out;
}

/** An ACP `Stream` over byte streams (stdin / stdout), guarded as described above. */
export function guardedNdJsonStream(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>, options: GuardedNdJsonOptions): Stream {
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const maxDepth = options.maxDepth ?? MAX_NESTING_DEPTH;
  const log = new LogThrottle(options.logger);
  const correlation = new ResponseCorrelation();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let writes: Promise<void> = Promise.resolve();

  const writeMessage = (message: AnyMessage): Promise<void> => {
    const text = serialise(message, log);
    if (text === undefined) return Promise.resolve();
    const write = writes.then(async () => {
      const writer = output.getWriter();
      try {
        await writer.write(encoder.encode(text + '\n'));
      } finally {
        writer.releaseLock();
      }
    });
    writes = write.catch(() => undefined);
    return write;
  };

  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;
  const readable = new ReadableStream<AnyMessage>({
    async start(controller) {
      const lines = new BoundedLineSplitter(maxBytes);
      const deliver = async (bytes: Uint8Array): Promise<void> => {
        const text = decoder.decode(bytes).trim();
        if (!text) return;
        const checked = checkIncoming(text, maxDepth);
        if (!checked.ok) {
          log.log('warn', `stdio-reject:${checked.reason}`, `ACP input refused (${checked.reason}); answered ${checked.response.error.code}`);
          await writeMessage(checked.response as AnyMessage).catch(() => undefined);
          return;
        }
        if (!correlation.acceptIncoming(checked.message)) {
          log.log('warn', 'stdio-stray-response', 'ACP input dropped: a response to no request the bridge sent');
          return;
        }
        controller.enqueue(checked.message);
      };
      reader = input.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (cancelled) return;
          if (done) break;
          if (!value) continue;
          for (const event of lines.push(value)) {
            if (event.kind === 'line') {
              await deliver(event.bytes);
            } else {
              log.log('warn', 'stdio-oversized', `ACP input line over ${maxBytes} bytes: answering -32600 and discarding the rest of the line`);
              await writeMessage(oversizedResponse(decoder.decode(event.prefix), maxBytes) as AnyMessage).catch(() => undefined);
            }
            if (cancelled) return;
          }
        }
        const last = lines.flush();
        if (last) await deliver(last);
        controller.close();
      } catch (error) {
        if (!cancelled) controller.error(error);
      } finally {
        reader.releaseLock();
      }
    },
    cancel(reason) {
      cancelled = true;
      return reader?.cancel(reason);
    },
  });

  const writable = new WritableStream<AnyMessage>({
    write(message) {
      correlation.noteOutgoing(message);
      return writeMessage(message);
    },
  });
  return { readable, writable };
}
