/**
 * An in-process link between the agent app and a client app: two object streams (no JSON
 * serialization), like the SDK's own in-memory pair, plus taps that see every message in both
 * directions, synchronously and in order, before the other side reads it (the protocol trace; the
 * tests validate every outgoing message through one; the extension's client reads the bridge's
 * messages in wire order through one, extension/bridgeInbox.ts).
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { ClientInfo } from './clients.ts';

/**
 * `out`: agent → client (what the bridge sends); `in`: client → agent. `info` is the object given
 * to `connectClient` for this link (tells several in-process clients apart).
 *
 * A tap that hands a notification to its own reader may answer `'delivered'`: the link then does
 * not pass that notification on to the other side's SDK, which would only validate again, with
 * zod, what the bridge built in the same process (most of the zod time in the extension host's
 * profile while the chat streams).
 * Requests and responses always go on: the SDK settles its promises and answers from them. Every
 * other transport (stdio, WebSocket, `connect`) keeps the SDK's checks, and so do the tests' links.
 */
export type MessageTap = (direction: 'in' | 'out', message: AnyMessage, info: ClientInfo) => void | 'delivered';

const isNotification = (message: AnyMessage): boolean => 'method' in message && !('id' in message);

export function linkedStreams(info: ClientInfo, taps: readonly (MessageTap | undefined)[] = []): { agentSide: Stream; clientSide: Stream } {
  const present = taps.filter((tap) => tap !== undefined);
  const through = (direction: 'in' | 'out'): Transformer<AnyMessage, AnyMessage> | undefined =>
    present.length > 0
      ? {
          transform(message, controller) {
            let delivered = false;
            for (const tap of present) {
              try {
                if (tap(direction, message, info) === 'delivered') delivered = true;
              } catch {
                // A tap must never break the link.
              }
            }
            if (!delivered || !isNotification(message)) controller.enqueue(message);
          },
        }
      : undefined;
  const toClient = new TransformStream<AnyMessage, AnyMessage>(through('out'));
  const toAgent = new TransformStream<AnyMessage, AnyMessage>(through('in'));
  return {
    agentSide: { readable: toAgent.readable, writable: toClient.writable },
    clientSide: { readable: toClient.readable, writable: toAgent.writable },
  };
}
