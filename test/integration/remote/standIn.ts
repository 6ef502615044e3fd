/**
 * A minimal ACP agent from the SDK's `agent()`, used only while developing the transport before the
 * real bridge existed and by the wsStream tests that need no zcode. Semantics tests use the real
 * bridge with the simulator.
 */
import { agent } from '@agentclientprotocol/sdk';
import type { RemoteHost } from '../../../bridge/remote/server.ts';

export function standInHost(): RemoteHost & { connections: number } {
  let sessions = 0;
  const host = {
    connections: 0,
    connect(stream: Parameters<RemoteHost['connect']>[0]) {
      host.connections++;
      const app = agent({ name: 'stand-in' })
        .onRequest('initialize', () => ({ protocolVersion: 1, agentCapabilities: {} }))
        .onRequest('session/new', () => ({ sessionId: `s${++sessions}` }))
        .onRequest('session/prompt', async ({ params, client }) => {
          await client.notify('session/update', {
            sessionId: params.sessionId,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hello' } },
          });
          return { stopReason: 'end_turn' as const };
        });
      const connection = app.connect(stream);
      void connection.closed.finally(() => host.connections--);
      return connection;
    },
  };
  return host;
}
