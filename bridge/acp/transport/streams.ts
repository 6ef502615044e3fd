/**
 * An in-process link between the agent app and a client app: two object streams (no JSON
 * serialization), like the SDK's own in-memory pair, plus an optional tap that sees every message
 * in both directions (protocol trace; the tests validate every outgoing message through it).
 */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { ClientInfo } from './clients.ts';

/**
 * `out`: agent → client (what the bridge sends); `in`: client → agent. `info` is the object given
 * to `connectClient` for this link (tells several in-process clients apart).
 */
export type MessageTap = (direction: 'in' | 'out', message: AnyMessage, info: ClientInfo) => void;

export function linkedStreams(info: ClientInfo, tap?: MessageTap): { agentSide: Stream; clientSide: Stream } {
  const through = (direction: 'in' | 'out'): Transformer<AnyMessage, AnyMessage> | undefined =>
    tap
      ? {
          transform(message, controller) {
            try {
              tap(direction, message, info);
            } catch {
              // A trace must never break the link.
            }
            controller.enqueue(message);
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
