/**
 * The ACP version of one connection, chosen by its first `initialize`: `protocolVersion` 2 or
 * higher gets the draft v2 through a `V2Translator` (v2Translator.ts), anything else v1, untouched.
 * Every transport goes through here (bridge.ts `connect`: stdio, WebSocket and in-process links).
 *
 * Why not the SDK's `agentProtocolRouter().withV1().withV2()`: it routes to a second, v2 agent app,
 * which would duplicate every handler of the bridge in v2 terms, and it answers v1 clients
 * differently from today before `initialize` (it refuses protocol version 0 and rewrites the
 * `initialize` params) and connects the agent only after reading `initialize`, after the bridge has
 * registered the connection. Translating at the stream keeps one set of handlers and leaves a v1
 * connection byte for byte as it was. Until the first `initialize` request every message goes
 * through as it is (the v1 handlers answer a request sent too early, as before); the choice is
 * never revisited.
 */
import { randomUUID } from 'node:crypto';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { V2Translator } from './v2Translator.ts';

/** The first protocol version served through the v2 translator. */
const PROTOCOL_V2 = 2;

/** The version a client's `initialize` selects, or undefined for any other message. */
export function requestedVersion(message: AnyMessage): 1 | 2 | undefined {
  if (!('method' in message) || message.method !== 'initialize' || !('id' in message)) return undefined;
  const version = (message as { params?: { protocolVersion?: unknown } }).params?.protocolVersion;
  return typeof version === 'number' && Number.isInteger(version) && version >= PROTOCOL_V2 ? 2 : 1;
}

/**
 * `stream` as the v1 handlers see it, whatever version its client speaks. `onVersion` is told the
 * version once it is chosen (logs). `newId` names v2 messages (tests pass a counter).
 */
export function negotiatedStream(stream: Stream, onVersion?: (version: 1 | 2) => void, newId: () => string = randomUUID): Stream {
  let translator: V2Translator | undefined;
  let decided = false;
  const sink = stream.writable.getWriter();
  // One writer for both directions' output (the translator's own answers and the handlers'), in call order.
  const write = (messages: readonly AnyMessage[]): Promise<void> => Promise.all(messages.map((m) => sink.write(m))).then(() => undefined);
  const source = stream.readable.getReader();
  const readable = new ReadableStream<AnyMessage>(
    {
      async pull(controller) {
        for (;;) {
          const { value, done } = await source.read();
          if (done) {
            controller.close();
            return;
          }
          if (!decided) {
            const version = requestedVersion(value);
            if (version !== undefined) {
              decided = true;
              if (version === 2) translator = new V2Translator(newId);
              onVersion?.(version);
            }
          }
          if (!translator) {
            controller.enqueue(value);
            return;
          }
          const { toAgent, toClient } = translator.fromClient(value);
          if (toClient.length > 0) await write(toClient).catch(() => undefined);
          if (toAgent) {
            controller.enqueue(toAgent);
            return;
          }
        }
      },
      cancel: (reason) => source.cancel(reason),
    },
    // Nothing read ahead (initializeFirst.ts holds the input after `initialize`).
    { highWaterMark: 0 },
  );
  const writable = new WritableStream<AnyMessage>({
    write: (message) => write(translator ? translator.fromAgent(message) : [message]),
    close: () => sink.close(),
    abort: (reason) => sink.abort(reason),
  });
  return { readable, writable };
}
