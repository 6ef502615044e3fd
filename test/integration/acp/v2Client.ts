/**
 * ACP v2 (draft) clients of the bridge for the tests: the official SDK's `experimental/v2` client
 * app over any stream, and a raw JSON-RPC line client of a `zcode-acp` process. Both validate every
 * message the bridge sends against the v2 schema (schema/v2/schema.json, through acpSchema.ts):
 * requests and notifications by method, answers by the method of the request they answer.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client } from '@agentclientprotocol/sdk/experimental/v2';
import type * as V2 from '@agentclientprotocol/sdk/experimental/v2';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { validateOutgoing } from '../../helpers/acpSchema.ts';
import { SIM_PATH, simLocateOptions } from '../../helpers/sim.ts';
import { tapClientStream } from '../remote/harness.ts';
import type { Tap } from '../remote/harness.ts';

type Msg = Record<string, unknown>;

/** Wait until `predicate` holds (polling; the bound keeps a broken test from hanging). */
export async function until(what: string, predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The v2 `initialize` params of a test client. */
export function v2Initialize(name: string, capabilities: V2.ClientCapabilities = { elicitation: { form: {} } }): V2.InitializeRequest {
  return { protocolVersion: 2, info: { name, version: '1.0.0' }, capabilities };
}

/** The official SDK's v2 client app on `stream`, with what it received. */
export class V2SdkClient {
  readonly updates: V2.UpdateSessionNotification[] = [];
  readonly notifications: Array<{ method: string; params: unknown }> = [];
  readonly permissions: V2.RequestPermissionRequest[] = [];
  readonly forms: V2.CreateElicitationRequest[] = [];
  readonly tap: Tap;
  readonly agent;
  private readonly connection;

  constructor(stream: Stream) {
    this.tap = tapClientStream(stream, 2);
    const app = client({ name: 'acp-v2-test' })
      .onNotification('session/update', ({ params }) => void this.updates.push(params))
      .onNotification('*', ({ method, params }) => void this.notifications.push({ method, params }))
      .onRequest('session/request_permission', ({ params }) => {
        this.permissions.push(params);
        const allow = params.options.find((o) => o.kind.startsWith('allow')) ?? params.options[0];
        return { outcome: { outcome: 'selected', optionId: allow.optionId } };
      })
      .onRequest('elicitation/create', ({ params }) => {
        this.forms.push(params);
        return { action: 'decline' };
      });
    this.connection = app.connect(this.tap.stream as unknown as V2.Stream);
    this.agent = this.connection.agent;
  }

  /** Updates of one session, in order. */
  of(sessionId: string): V2.SessionUpdate[] {
    return this.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  /** The session's idle `state_update`s received so far. */
  idles(sessionId: string): Msg[] {
    return this.of(sessionId).filter((u) => u.sessionUpdate === 'state_update' && (u as Msg).state === 'idle') as Msg[];
  }

  /** Wait for the session's `n`-th idle state (the end of its `n`-th turn, counting resume snapshots). */
  async idle(sessionId: string, n: number): Promise<Msg> {
    await until(`idle #${n} of ${sessionId}`, () => this.idles(sessionId).length >= n);
    return this.idles(sessionId)[n - 1];
  }

  close(): void {
    this.connection.close();
  }
}

/** `zcode-acp` (the built CLI) as a child process on the simulator, with the SDK's line framing on its stdio. */
export function spawnCli(cli: string, storeDir: string): { child: ChildProcess; stream: Stream; stderr: () => string } {
  const child = spawn(process.execPath, [cli], {
    env: { ...simLocateOptions({ speed: 0 }).env, ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_ACP_STORE_DIR: storeDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
  return { child, stream, stderr: () => stderr };
}

/** A raw JSON-RPC client on a stream: sends objects, keeps every message received, validates each against v2. */
export class RawV2Client {
  readonly received: Msg[] = [];
  readonly violations: string[] = [];
  private readonly asked = new Map<unknown, string>();
  private readonly writer: WritableStreamDefaultWriter<AnyMessage>;

  constructor(stream: Stream) {
    this.writer = stream.writable.getWriter();
    void (async () => {
      for await (const message of stream.readable as unknown as AsyncIterable<AnyMessage>) this.receive(message as unknown as Msg);
    })().catch(() => undefined);
  }

  send(message: Msg): Promise<void> {
    if ('id' in message && 'method' in message) this.asked.set(message.id, message.method as string);
    return this.writer.write({ jsonrpc: '2.0', ...message } as AnyMessage);
  }

  /** Send a request and wait for its answer. */
  async request(id: number | string, method: string, params: unknown): Promise<Msg> {
    await this.send({ id, method, params });
    return this.answer(id);
  }

  async answer(id: unknown): Promise<Msg> {
    await until(`the answer to ${String(id)}`, () => this.received.some((m) => m.id === id && !('method' in m)));
    return this.received.find((m) => m.id === id && !('method' in m)) as Msg;
  }

  /** The updates of one session received so far. */
  updates(sessionId: string): Msg[] {
    return this.received.filter((m) => m.method === 'session/update' && (m.params as Msg).sessionId === sessionId).map((m) => (m.params as Msg).update as Msg);
  }

  async waitUpdate(what: string, predicate: (update: Msg) => boolean, sessionId: string): Promise<Msg> {
    await until(what, () => this.updates(sessionId).some(predicate));
    return this.updates(sessionId).find(predicate) as Msg;
  }

  private receive(message: Msg): void {
    this.received.push(message);
    try {
      if (typeof message.method === 'string') validateOutgoing(message.method, message.params ?? {}, 'id' in message ? 'request' : 'notification', 2);
      else if ('result' in message) {
        const method = this.asked.get(message.id);
        if (method) validateOutgoing(method, message.result ?? {}, 'response', 2);
      }
    } catch (error) {
      this.violations.push(error instanceof Error ? error.message : String(error));
    }
  }
}
