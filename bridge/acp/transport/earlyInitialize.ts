/**
 * `initialize` answered before the bridge is loaded, so a client's first answer
 * does not wait for the whole bridge to load.
 *
 * An editor that spawns `zcode-acp` waits for the `initialize` answer before it shows the agent as
 * ready. The answer is a constant (initializeAnswer.ts), but loading the bridge — the ACP SDK and the
 * zod schemas of every method — takes longer than Node takes to start. So `zcode-acp` (cli.ts) reads
 * the first line itself; when it is a well-formed `initialize` it answers at once and loads the bridge
 * only when the client sends more (an editor that never opens a session never pays for it).
 *
 * The bridge must still see that `initialize` (the SDK refuses every other request before it, and the
 * handler records the client's capabilities), so the request is replayed to it under a private id and
 * the bridge's answer to the replay is dropped, after checking it matches what the client already got.
 *
 * Only what the SDK itself would accept is answered early: a JSON-RPC request whose params are an
 * object with an integer `protocolVersion` in 0…65535 (the SDK's schema lets every other field of
 * `initialize` default on error) and that asks for v1 (a v2 client is answered by the bridge, in v2).
 * Anything else — another method first, a malformed line, an
 * oversized one — goes to the bridge untouched, which answers it as it always did.
 */
import type { AnyMessage, InitializeResponse, Stream } from '@agentclientprotocol/sdk';
import type { Logger } from '../../logger.ts';
import { initializeResponse } from './initializeAnswer.ts';

export interface EarlyInitialize {
  /** What to write to the client now. */
  response: AnyMessage;
  /** The client's request under a private id, for the bridge to see first. */
  replay: AnyMessage;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The early answer to `message`, or undefined when the bridge must answer it. */
export function earlyInitialize(message: AnyMessage): EarlyInitialize | undefined {
  if (!('method' in message) || message.method !== 'initialize' || !('id' in message)) return undefined;
  const { id, params } = message;
  if ((typeof id !== 'string' && typeof id !== 'number') || !isObject(params)) return undefined;
  const version = params.protocolVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0 || version > 65_535) return undefined;
  // A v2 client's answer has another shape (transport/v2/): the bridge gives it.
  if (version >= 2) return undefined;
  // Never written out, so a client cannot pick it except by chance; the random part makes that chance nil.
  const privateId = `zcode-acp:early-initialize:${Math.random().toString(36).slice(2)}`;
  return {
    response: { jsonrpc: '2.0', id, result: initializeResponse() },
    replay: { jsonrpc: '2.0', id: privateId, method: 'initialize', params },
  };
}

/**
 * The bridge's side of an early answer: `stream` with `early.replay` read first and the bridge's
 * answer to it taken out of the output. An answer that differs from the early one is a bridge bug
 * (the client was told something the bridge does not stand by): it is logged as an error.
 */
export function afterEarlyInitialize(stream: Stream, early: EarlyInitialize, logger: Logger): Stream {
  const replayId = 'id' in early.replay ? early.replay.id : undefined;
  const told = JSON.stringify((early.response as { result: InitializeResponse }).result);
  let replayed = false;
  let answered = false;
  const source = stream.readable.getReader();
  const readable = new ReadableStream<AnyMessage>({
    async pull(controller) {
      if (!replayed) {
        replayed = true;
        controller.enqueue(early.replay);
        return;
      }
      const { value, done } = await source.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => source.cancel(reason),
  });
  const sink = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if (!answered && !('method' in message) && 'id' in message && message.id === replayId) {
        answered = true;
        const got = 'result' in message ? JSON.stringify(message.result) : undefined;
        if (got !== told) logger.error(`the bridge answered the replayed initialize with ${JSON.stringify(message)}, but the client was already told ${told}`);
        return;
      }
      return sink.write(message);
    },
    close: () => sink.close(),
    abort: (reason) => sink.abort(reason),
  });
  return { readable, writable };
}
