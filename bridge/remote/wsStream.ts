/**
 * Framing: one ACP JSON-RPC message per WebSocket text frame, exposed as the SDK's `Stream`
 * (`{readable, writable}` of `AnyMessage`) so the bridge connects a remote client exactly like the
 * in-process or stdio one.
 *
 * Inbound: a text frame passes the same boundary as a stdio line (`checkIncoming`): invalid JSON
 * and binary frames get a JSON-RPC -32700, too-deep nesting, batches and non-messages get -32600
 * (with the request's id when readable), responses to nothing the bridge asked are dropped; the
 * connection stays up. Oversized frames never reach this code: `ws` stops reading at its
 * `maxPayload` (bounded memory) and closes that socket with 1009, logged as a socket error; other
 * clients and the bridge carry on.
 *
 * Outbound: `send` is not awaited per message (that would serialize the bridge's broadcast on the
 * slowest socket); once the socket holds more than `highWaterMark` unsent bytes the write waits
 * for that frame to flush, and a client that lets `maxBufferedBytes` pile up is disconnected
 * (1008) rather than growing the bridge's memory without bound.
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import type { Logger } from '../logger.ts';
import { LogThrottle } from '../zcode/logThrottle.ts';
import { checkIncoming, errorResponse, ResponseCorrelation, serialise } from '../acp/transport/wireGuard.ts';
import type { ErrorResponse } from '../acp/transport/wireGuard.ts';

export interface WebSocketStreamOptions {
  logger: Logger;
  /** Identifies the peer in log lines (remote address; never a URL that could carry a token). */
  label: string;
  /** Unsent bytes above which a write waits for its frame to flush. Default 1 MiB. */
  highWaterMark?: number;
  /** Unsent bytes above which the peer is considered stuck and disconnected. Default 64 MiB. */
  maxBufferedBytes?: number;
}

/** Close code used when a client stops reading (RFC 6455 1008, policy violation). */
export const CLOSE_SLOW_CONSUMER = 1008;

/** Adapts an open `ws` socket to an ACP `Stream`. Closing either side closes the socket. */
export function webSocketStream(socket: WebSocket, options: WebSocketStreamOptions): Stream {
  const { logger, label } = options;
  const highWaterMark = options.highWaterMark ?? 1024 * 1024;
  const maxBufferedBytes = options.maxBufferedBytes ?? 64 * 1024 * 1024;
  let controller: ReadableStreamDefaultController<AnyMessage> | undefined;
  let readableClosed = false;
  const closeReadable = (): void => {
    if (readableClosed) return;
    readableClosed = true;
    try {
      controller?.close();
    } catch {
      // Already closed or cancelled by the reader.
    }
  };

  const log = new LogThrottle(logger);
  const correlation = new ResponseCorrelation();
  const sendResponse = (response: ErrorResponse): void => {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(JSON.stringify(response));
  };

  const onMessage = (data: RawData, isBinary: boolean): void => {
    if (readableClosed) return;
    if (isBinary) {
      log.log('debug', `ws-binary:${label}`, `remote ${label}: binary frame refused`);
      sendResponse(errorResponse(null, -32700, 'Parse error: binary frames are not supported; send one JSON-RPC message per text frame'));
      return;
    }
    // Depth and envelope are checked on the text before anything parses deeply or echoes it.
    const checked = checkIncoming(rawDataToString(data));
    if (!checked.ok) {
      log.log('warn', `ws-reject:${label}:${checked.reason}`, `remote ${label}: frame refused (${checked.reason}); answered ${checked.response.error.code}`);
      sendResponse(checked.response);
      return;
    }
    if (!correlation.acceptIncoming(checked.message)) {
      log.log('warn', `ws-stray:${label}`, `remote ${label}: dropped a response to no request the bridge sent`);
      return;
    }
    controller?.enqueue(checked.message);
  };

  socket.on('message', onMessage);
  socket.on('close', closeReadable);
  socket.on('error', (error) => {
    logger.warn(`remote ${label}: socket error: ${error.message}`);
    closeReadable();
  });

  const readable = new ReadableStream<AnyMessage>({
    start(c) {
      controller = c;
      if (socket.readyState !== WebSocket.OPEN) closeReadable();
    },
    cancel() {
      readableClosed = true;
      socket.close(1000);
    },
  });

  const writable = new WritableStream<AnyMessage>({
    write(message) {
      // A message written while the socket closes is dropped: the readable side is ending too,
      // which closes the ACP connection and rejects whatever waited for an answer.
      if (socket.readyState !== WebSocket.OPEN) return;
      if (socket.bufferedAmount > maxBufferedBytes) {
        logger.warn(`remote ${label}: client is not reading (${socket.bufferedAmount} bytes unsent); disconnecting`);
        socket.close(CLOSE_SLOW_CONSUMER, 'client too slow');
        // The close frame waits behind everything unsent; do not hold that memory for ws's 30 s close timeout.
        setTimeout(() => socket.terminate(), 1000).unref();
        return;
      }
      correlation.noteOutgoing(message);
      const text = serialise(message, log);
      if (text === undefined) return;
      if (socket.bufferedAmount < highWaterMark) {
        socket.send(text);
        return;
      }
      return new Promise<void>((resolve) => {
        // Resolve on error too: a failed send surfaces as the socket's close.
        socket.send(text, () => resolve());
      });
    },
    close() {
      socket.close(1000);
    },
    abort() {
      socket.close(1001);
    },
  });

  return { readable, writable };
}

function rawDataToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
