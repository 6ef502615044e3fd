/**
 * The real bridge (createBridge + the zcode simulator as a child process) behind the real remote
 * endpoint, plus factories for SDK clients over WebSockets and one in-process client. `close()`
 * tears everything down and fails the test if any message the bridge sent did not validate against
 * the ACP schema, or if the simulator saw a malformed reply.
 */
import type { ClientCapabilities, ContentBlock } from '@agentclientprotocol/sdk';
import { createBridge } from '../../../bridge/acp/bridge.ts';
import type { Bridge } from '../../../bridge/acp/bridge.ts';
import { generateToken } from '../../../bridge/remote/auth.ts';
import { startRemoteServer } from '../../../bridge/remote/server.ts';
import type { RemoteServer, RemoteServerOptions } from '../../../bridge/remote/server.ts';
import { readSimRecord, simLocateOptions, tempDir } from '../../helpers/sim.ts';
import type { SimRecord } from '../../helpers/sim.ts';
import { captureLogger, inProcessStreams, remoteClient, tapClientStream, TestClient } from './harness.ts';
import type { CapturedLogger, TokenCarrier } from './harness.ts';

export interface HarnessOptions {
  server?: Partial<RemoteServerOptions>;
  quirks?: string[];
  profile?: string;
}

export interface Harness {
  bridge: Bridge;
  server: RemoteServer;
  token: string;
  logger: CapturedLogger;
  /** The workspace every session is created in (a temp dir). */
  cwd: string;
  /** An initialized SDK client over a real WebSocket. */
  remote(name: string, capabilities?: ClientCapabilities, auth?: TokenCarrier): Promise<TestClient>;
  /** An initialized SDK client connected in-process (like the VS Code extension). */
  local(name: string, capabilities?: ClientCapabilities): Promise<TestClient>;
  /** A connected but not yet initialized remote client. */
  remoteUninitialized(name: string, auth?: TokenCarrier): TestClient;
  newSession(client: TestClient): Promise<string>;
  simRecord(): SimRecord;
  /** Closes clients, endpoint and bridge; throws on schema or simulator violations. */
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const tmp = tempDir('zcode-remote-');
  const logger = captureLogger();
  const recordFile = tmp.file('sim-record.jsonl');
  const bridge = createBridge({
    locate: simLocateOptions({ recordFile, stateDir: tmp.file('sim-state'), quirks: options.quirks, profile: options.profile }),
    logger,
    storageDir: tmp.file('store'),
  });
  const token = generateToken();
  const server = await startRemoteServer({ bridge, token, logger, port: 0, ...options.server });
  const clients: TestClient[] = [];
  const track = (c: TestClient): TestClient => (clients.push(c), c);
  const remoteUninitialized = (name: string, auth: TokenCarrier = { header: token }): TestClient =>
    track(remoteClient(server.url, auth, { name }));
  let closed = false;

  return {
    bridge,
    server,
    token,
    logger,
    cwd: tmp.dir,
    remoteUninitialized,
    async remote(name, capabilities = {}, auth) {
      const c = remoteUninitialized(name, auth);
      await c.initialize(capabilities);
      return c;
    },
    async local(name, capabilities = {}) {
      const { agentSide, clientSide } = inProcessStreams();
      const c = track(new TestClient(name, tapClientStream(clientSide), { name }));
      bridge.connect(agentSide, { kind: 'local', label: name });
      await c.initialize(capabilities);
      return c;
    },
    async newSession(client) {
      const { sessionId } = await client.agent.request('session/new', { cwd: tmp.dir, mcpServers: [] });
      return sessionId;
    },
    simRecord: () => readSimRecord(recordFile),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await Promise.all(clients.map((c) => c.close()));
        await server.close();
        await bridge.dispose();
        const violations = clients.flatMap((c) => c.tap.violations.map((v) => `${c.name}: ${v}`));
        if (violations.length > 0) throw new Error(`the bridge sent messages that violate the ACP schema:\n${violations.join('\n')}`);
        const sim = readSimRecord(recordFile).violations;
        if (sim.length > 0) throw new Error(`the simulator saw protocol violations:\n${sim.map((v) => JSON.stringify(v)).join('\n')}`);
      } finally {
        tmp.cleanup();
      }
    },
  };
}

/** Text of the `agent_message_chunk` updates a client received for a session, concatenated. */
export function agentText(client: TestClient, sessionId: string): string {
  return client.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk')
    .map((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? n.update.content.text : ''))
    .join('');
}

export function promptText(text: string): ContentBlock[] {
  return [{ type: 'text', text }];
}

/** Run `body` against a fresh harness and close it afterwards, whatever `body` does. */
export async function withHarness(options: HarnessOptions, body: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startHarness(options);
  try {
    await body(h);
  } finally {
    await h.close();
  }
}
