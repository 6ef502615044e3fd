/**
 * Correlation layer: requests/responses matched by id, with a timeout on every request and prompt
 * rejection of everything pending when the connection goes away: nothing waits forever.
 *
 * Built on vscode-jsonrpc's `createMessageConnection` over the line codec. It knows no zcode
 * method: the typed methods live in client.ts, server requests are routed by the owner.
 *
 * Notification lanes (`ZcodeConnectionOptions.lanes`) are delivered by the line reader itself,
 * around vscode-jsonrpc's one-message-per-turn queue; the connection tells the reader when
 * vscode-jsonrpc dispatches each message, which is what keeps lane messages in stream order with
 * responses and requests (lineReader.ts, `LineMessageReader`).
 */
import { CancellationReceiverStrategy, CancellationTokenSource, createMessageConnection, ErrorCodes, ResponseError, Trace } from 'vscode-jsonrpc/node';
import { Message } from 'vscode-jsonrpc/node';
import type { CancellationStrategy, MessageConnection, MessageWriter, ResponseMessage } from 'vscode-jsonrpc/node';
import { BackendErrorCode, ZcodeError } from './backend.ts';
import type { Logger } from '../logger.ts';
import type { LineMessageReader, NotificationLane } from './lineReader.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Answers one request from zcode. Throw a `ZcodeError` to answer with that error code. */
export type ServerRequestHandler = (method: string, params: unknown) => Promise<unknown>;
export type ServerNotificationHandler = (method: string, params: unknown) => void;

/** zcode's answer to one request, as it stands in the stream. */
export type Answer = { result: unknown; error?: undefined } | { result?: undefined; error: { code: number; message: string; data?: unknown } };

export interface RequestOptions {
  /** Default: the connection's `requestTimeoutMs`. */
  timeoutMs?: number;
  /**
   * Called with zcode's answer at its place in the stream: before any message that follows it is
   * delivered (lane or vscode-jsonrpc), which a promise continuation is not. State the events after
   * the answer depend on (a turn zcode accepted, a subscription's starting seq) is set here. Not
   * called when the request times out or the connection closes first. Must not throw.
   */
  onAnswer?: (answer: Answer) => void;
}

export interface ZcodeConnectionOptions {
  logger: Logger;
  /** Default timeout for `request()`; per-call override possible. */
  requestTimeoutMs?: number;
  onRequest: ServerRequestHandler;
  /** Notifications that have no lane. */
  onNotification: ServerNotificationHandler;
  /** Notification methods delivered straight from the reader, in stream order (see above). */
  lanes?: ReadonlyMap<string, NotificationLane>;
  /** vscode-jsonrpc's own message trace (verbose), for diagnostics and tests; nothing is sent to zcode. */
  trace?: (line: string) => void;
}

/**
 * A timed-out request leaves vscode-jsonrpc's pending map the way vscode-jsonrpc itself removes
 * an entry: its response is dispatched. zcode has no `$/cancelRequest` (a message it does not know
 * is answered with an error at best), so cancelling writes nothing to zcode: the reader delivers a
 * local `RequestCancelled` response in its place (`LineMessageReader.deliverLocal`), in stream
 * order with everything else. A late answer from zcode then finds no entry and is dropped by
 * vscode-jsonrpc ("without active response promise").
 */
/** LSP's RequestCancelled (vscode-jsonrpc's ErrorCodes stops at the JSON-RPC ones); it never reaches the wire. */
const REQUEST_CANCELLED = -32800;

function localCancellation(reader: LineMessageReader, onRequest: (id: number | string) => void): CancellationStrategy {
  return {
    receiver: CancellationReceiverStrategy.Message,
    sender: {
      // vscode-jsonrpc calls this synchronously inside sendRequest, with the id it gave the request.
      enableCancellation: (request) => {
        if (request.id !== null) onRequest(request.id);
      },
      sendCancellation: (_connection, id) => {
        const cancelled: Message = { jsonrpc: '2.0', id, error: { code: REQUEST_CANCELLED, message: 'the bridge stopped waiting (timeout)' } } as Message;
        reader.deliverLocal(cancelled);
        return Promise.resolve();
      },
      cleanup: () => {},
    },
  };
}

interface Pending {
  method: string;
  reject(error: ZcodeError): void;
}

export class ZcodeConnection {
  private readonly rpc: MessageConnection;
  private readonly pending = new Set<Pending>();
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private closedWith: ZcodeError | undefined;
  /** `onAnswer` hooks by the id vscode-jsonrpc gave their request. */
  private readonly answerHooks = new Map<number | string, (answer: Answer) => void>();
  /** The id of the request vscode-jsonrpc is sending right now (see localCancellation). */
  private sendingId: number | string | undefined;

  constructor(reader: LineMessageReader, writer: MessageWriter, options: ZcodeConnectionOptions) {
    this.logger = options.logger;
    this.timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const log = this.logger;
    for (const [method, lane] of options.lanes ?? []) reader.routeDirect(method, lane);
    this.rpc = createMessageConnection(
      reader,
      writer,
      {
        error: (m) => log.error(`jsonrpc: ${m}`),
        warn: (m) => log.warn(`jsonrpc: ${m}`),
        info: (m) => log.debug(`jsonrpc: ${m}`),
        log: (m) => log.trace(`jsonrpc: ${m}`),
      },
      {
        cancellationStrategy: localCancellation(reader, (id) => (this.sendingId = id)),
        messageStrategy: {
          // Called as vscode-jsonrpc takes each message off its queue; the reader delivers nothing
          // after this message until it returns (`messageDispatched`). The handler's promise is
          // returned so vscode-jsonrpc still logs its failures.
          handleMessage: (message, next) => {
            try {
              if (Message.isResponse(message)) this.answered(message);
              return next(message);
            } finally {
              reader.messageDispatched();
            }
          },
        },
      },
    );
    this.rpc.onRequest(async (method: string, params: unknown) => {
      log.trace(`← request ${method}`);
      try {
        return await options.onRequest(method, params);
      } catch (error) {
        // vscode-jsonrpc turns a ResponseError into an error reply; anything else becomes -32603.
        if (error instanceof ZcodeError) throw new ResponseError(error.code, error.message, error.data);
        log.error(`answering ${method} failed: ${error instanceof Error ? error.message : String(error)}`);
        throw new ResponseError(ErrorCodes.InternalError, `bridge failed to answer ${method}`);
      }
    });
    this.rpc.onNotification((method: string, params: unknown) => {
      log.trace(`← notification ${method}`);
      options.onNotification(method, params);
    });
    this.rpc.onError(([error]) => log.warn(`zcode connection error: ${error.message}`));
    const trace = options.trace;
    if (trace) void this.rpc.trace(Trace.Verbose, { log: (message: string, data?: string) => trace(data ? `${message} ${data}` : message) }, false);
  }

  listen(): void {
    this.rpc.listen();
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  /**
   * Send a request and wait for its result. Rejects with `ZcodeError`: zcode's own error
   * (`fromWire`, code and message kept), `Timeout`, or whatever `close()` was given.
   */
  request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const { onAnswer } = options;
    const started = Date.now();
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const cancellation = new CancellationTokenSource();
      /** The id vscode-jsonrpc gives the request (known once it is sent, below). */
      const sent: { id?: number | string } = {};
      const entry: Pending = {
        method,
        reject: (error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (sent.id !== undefined) this.answerHooks.delete(sent.id);
          cancellation.dispose();
          this.pending.delete(entry);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.logger.warn(`zcode did not answer ${method} within ${timeoutMs} ms`);
        // Leaves vscode-jsonrpc's pending map; nothing is sent to zcode (localCancellation).
        cancellation.cancel();
        entry.reject(new ZcodeError(`zcode did not answer ${method} within ${timeoutMs} ms`, BackendErrorCode.Timeout, method));
      }, timeoutMs);
      this.pending.add(entry);
      this.logger.trace(`→ request ${method}`);
      this.sendingId = undefined;
      const answer = this.rpc.sendRequest(method, params, cancellation.token);
      sent.id = this.sendingId;
      if (onAnswer) {
        if (sent.id === undefined) this.logger.error(`vscode-jsonrpc did not report the id of ${method}; its answer cannot be placed in the stream`);
        else this.answerHooks.set(sent.id, onAnswer);
      }
      answer.then(
        (result) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          cancellation.dispose();
          this.pending.delete(entry);
          this.logger.trace(`← result ${method} (${Date.now() - started} ms)`);
          resolve(result);
        },
        (error: unknown) => entry.reject(this.toZcodeError(method, error)),
      );
    });
  }

  /** Fire-and-forget notification (e.g. `session/stop`). A failed write is logged, not thrown. */
  notify(method: string, params: unknown): void {
    if (this.closedWith) {
      this.logger.debug(`not sending ${method}: ${this.closedWith.message}`);
      return;
    }
    this.logger.trace(`→ notification ${method}`);
    this.rpc.sendNotification(method, params).catch((error: unknown) => {
      this.logger.warn(`sending ${method} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** Reject everything pending with `reason` and stop reading/writing. Idempotent. */
  close(reason: ZcodeError): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    this.answerHooks.clear();
    for (const entry of [...this.pending]) entry.reject(reason);
    this.rpc.dispose();
  }

  /** Run the `onAnswer` hook of the request `response` answers, if it has one. */
  private answered(response: ResponseMessage): void {
    const id = response.id;
    if (id === null) return;
    const hook = this.answerHooks.get(id);
    if (!hook) return;
    this.answerHooks.delete(id);
    const answer: Answer = response.error ? { error: response.error } : { result: response.result };
    try {
      hook(answer);
    } catch (error) {
      this.logger.error(`handling the answer to request ${id} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }

  private toZcodeError(method: string, error: unknown): ZcodeError {
    if (this.closedWith) return this.closedWith;
    if (error instanceof ResponseError) {
      if (error.code === ErrorCodes.MessageWriteError || error.code === ErrorCodes.PendingResponseRejected) {
        return new ZcodeError(`could not reach zcode for ${method}: ${error.message}`, BackendErrorCode.ProcessExited, method);
      }
      return ZcodeError.fromWire(method, { code: error.code, message: error.message, data: error.data });
    }
    if (error instanceof ZcodeError) return error;
    return new ZcodeError(`${method} failed: ${error instanceof Error ? error.message : String(error)}`, BackendErrorCode.ProcessExited, method);
  }
}
