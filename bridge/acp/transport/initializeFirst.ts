/**
 * A client may send its next requests right behind `initialize`, without waiting for the answer
 * (a script piping a whole conversation into `zcode-acp`, or cli.ts replaying an `initialize` it
 * answered early, earlyInitialize.ts). The SDK refuses any request that reaches it before
 * `initialize` has been answered (-32600 "must be initialized"), and it reads and dispatches
 * messages without waiting for handlers, so whether such a request passed used to depend on how
 * the input happened to be chunked. Here the rule is explicit: after an `initialize` request, the
 * connection reads nothing more until the answer to it has been written.
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

type Id = string | number;

const initializeId = (message: AnyMessage): Id | undefined =>
  'method' in message && message.method === 'initialize' && 'id' in message && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : undefined;

const responseId = (message: AnyMessage): unknown => (!('method' in message) && 'id' in message ? message.id : undefined);

/** `stream`, with its input held from each `initialize` request until that request's answer has gone out. */
export function answerInitializeFirst(stream: Stream): Stream {
  let awaited: { id: Id; release: () => void } | undefined;
  let held: Promise<void> = Promise.resolve();
  const source = stream.readable.getReader();
  const readable = new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        await held;
        const { value, done } = await source.read();
        if (done) {
          controller.close();
          return;
        }
        const id = initializeId(value);
        if (id !== undefined) held = new Promise<void>((release) => (awaited = { id, release }));
        controller.enqueue(value);
      },
      cancel: (reason) => source.cancel(reason),
    },
    // Nothing read ahead: the next message is read only when the connection asks for it.
    { highWaterMark: 0 },
  );
  const sink = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      // Released once the answer is queued on the output, not once it is flushed: whatever the
      // next requests produce is written after it anyway, and a slow reader must not stall input.
      const written = sink.write(message);
      if (awaited && responseId(message) === awaited.id) {
        const { release } = awaited;
        awaited = undefined;
        release();
      }
      return written;
    },
    close: () => sink.close(),
    abort: (reason) => sink.abort(reason),
  });
  return { readable, writable };
}
