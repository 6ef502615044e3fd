/**
 * Every ACP client connected to the bridge (in-process, stdio, WebSocket) and the multi-client
 * rules of docs/acp.md "Several clients":
 * - `session/update` and `_zcode/*` notifications go to every initialized client (a client that
 *   never saw a session ignores them);
 * - client capabilities are OR-merged over the connected clients (booleans union, objects merged
 *   recursively, `_meta` shallow-merged) and the merged set drives interaction routing;
 * - interaction requests race (races.ts): sent to every eligible client, first answer wins.
 *
 * The SDK gives request handlers an `AgentContext`, not the connection it came from; the bridge
 * needs the connection to know whose `initialize` it is answering and who just loaded a session.
 * `connectionKey` reads the SDK's per-connection context object (the same object for every
 * request of one connection) — see the note there.
 */
import type { AgentConnection, AgentContext, ClientCapabilities } from '@agentclientprotocol/sdk';
import type { Disposable } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { Emitter } from '../../zcode/emitter.ts';
import { markBroadcast } from './wireGuard.ts';
import type { ResponseOrder } from './responseOrder.ts';

/** Where a client comes from (for logs, GET /status and the lifetime rules). */
export interface ClientInfo {
  kind: 'local' | 'stdio' | 'remote';
  label?: string;
}

export interface ConnectedClient {
  readonly id: number;
  readonly info: ClientInfo;
  readonly connection: AgentConnection;
  /** Set by a successful `initialize`; undefined before. */
  capabilities: ClientCapabilities | undefined;
  /** `clientInfo.name` from its `initialize`, when it gave one. */
  name?: string;
  /**
   * Run `fn` once the successful response to this client's request `requestId` has been written
   * (responseOrder.ts); dropped when that request fails or the client goes away.
   */
  afterResponse(requestId: string | number | null | undefined, fn: () => void): void;
  /** Run `fn` once any response to `requestId` has been written, or the client went away (responseOrder.ts). */
  whenAnswered(requestId: string | number | null | undefined, fn: () => void): void;
}

/**
 * The SDK keeps one `ConnectionContext` per connection and every `AgentContext` of that
 * connection (request handlers', `AgentConnection.client`) points at it through the internal
 * `connectionContext` getter. It is not in the public d.ts, so it is read defensively here, in one
 * place, and a unit test (test/unit/bridge/acp/transport/clients.test.ts) fails if an SDK upgrade removes it.
 */
export function connectionKey(context: AgentContext): object | undefined {
  const key = (context as unknown as { connectionContext?: unknown }).connectionContext;
  return typeof key === 'object' && key !== null ? key : undefined;
}

export class ClientRegistry implements Disposable {
  private nextId = 1;
  private readonly byKey = new WeakMap<object, ConnectedClient>();
  private readonly list: ConnectedClient[] = [];
  private merged: ClientCapabilities = {};
  private readonly changed: Emitter<void>;
  /** Fires after a client connects, initializes or goes away. */
  readonly onDidChange;
  /** Fires when a client goes away (races drop it). */
  private readonly removed: Emitter<ConnectedClient>;
  readonly onDidRemove;

  constructor(private readonly logger: Logger) {
    this.changed = new Emitter<void>('clients.onDidChange', logger);
    this.onDidChange = this.changed.event;
    this.removed = new Emitter<ConnectedClient>('clients.onDidRemove', logger);
    this.onDidRemove = this.removed.event;
  }

  /**
   * Register a connection (from the agent app's onConnect). Removed when it closes. `order` watches
   * the connection's outgoing stream; a connection made without one (`clientApp.connect(bridge.app)`,
   * whose stream the SDK keeps to itself) runs after-response work at once, ahead of the response.
   */
  add(connection: AgentConnection, info: ClientInfo, order?: ResponseOrder): ConnectedClient {
    const now = (_id: unknown, fn: () => void): void => fn();
    const afterResponse = order ? order.afterResponse.bind(order) : now;
    const whenAnswered = order ? order.whenAnswered.bind(order) : now;
    const client: ConnectedClient = { id: this.nextId++, info, connection, capabilities: undefined, afterResponse, whenAnswered };
    const key = connectionKey(connection.client);
    if (key) this.byKey.set(key, client);
    else this.logger.error('the ACP SDK no longer exposes the connection context; client identity is unavailable');
    this.list.push(client);
    this.logger.info(`client #${client.id} connected (${describe(info)})`);
    void connection.closed.then(() => {
      order?.close();
      this.remove(client);
    });
    this.changed.fire();
    return client;
  }

  /** The client a request handler's context belongs to. */
  of(context: AgentContext): ConnectedClient | undefined {
    const key = connectionKey(context);
    return key ? this.byKey.get(key) : undefined;
  }

  /** Record a client's `initialize` and recompute the merged capabilities. */
  initialized(client: ConnectedClient, capabilities: ClientCapabilities | undefined, name?: string): void {
    client.capabilities = capabilities ?? {};
    if (name) client.name = name;
    this.recompute();
    this.changed.fire();
  }

  get all(): readonly ConnectedClient[] {
    return this.list;
  }

  /** Clients that completed `initialize` (the only ones that get notifications and requests). */
  get ready(): ConnectedClient[] {
    return this.list.filter((c) => c.capabilities !== undefined);
  }

  /** The OR-merge of every connected, initialized client's capabilities. */
  get capabilities(): ClientCapabilities {
    return this.merged;
  }

  /** Send a notification to every initialized client. Never throws (a closed client is skipped). */
  broadcast(method: string, params: unknown): void {
    markBroadcast(method, params);
    for (const client of this.list) {
      if (client.capabilities === undefined) continue;
      client.connection.client.notify(method, params).catch((error: unknown) => {
        this.logger.debug(`client #${client.id}: ${method} not delivered: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }

  /**
   * A notification whose params depend on the client (what it declared it can show): `paramsFor`
   * builds them per initialized client. Params shared by several clients are serialised once.
   */
  broadcastEach(method: string, paramsFor: (client: ConnectedClient) => unknown): void {
    for (const client of this.list) {
      if (client.capabilities === undefined) continue;
      const params = paramsFor(client);
      markBroadcast(method, params);
      client.connection.client.notify(method, params).catch((error: unknown) => {
        this.logger.debug(`client #${client.id}: ${method} not delivered: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }

  /** `broadcast` to every initialized client but one (the one whose action it reports). */
  broadcastExcept(except: ConnectedClient | undefined, method: string, params: unknown): void {
    for (const client of this.list) {
      if (client === except || client.capabilities === undefined) continue;
      client.connection.client.notify(method, params).catch((error: unknown) => {
        this.logger.debug(`client #${client.id}: ${method} not delivered: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }

  /** Close every connection (bridge dispose). */
  dispose(): void {
    for (const client of [...this.list]) client.connection.close();
    this.changed.dispose();
    this.removed.dispose();
  }

  private remove(client: ConnectedClient): void {
    const index = this.list.indexOf(client);
    if (index === -1) return;
    this.list.splice(index, 1);
    this.logger.info(`client #${client.id} disconnected (${describe(client.info)})`);
    this.recompute();
    this.removed.fire(client);
    this.changed.fire();
  }

  private recompute(): void {
    this.merged = mergeCapabilities(this.list.flatMap((c) => (c.capabilities ? [c.capabilities] : [])));
  }
}

/**
 * OR-merge capability objects: booleans are unioned, nested objects merged recursively (so
 * `elicitation: {form: {}}` from any client enables forms), `_meta` objects shallow-merged (a later
 * client's key replaces an earlier one's), `null` means "not declared".
 */
export function mergeCapabilities(list: readonly ClientCapabilities[]): ClientCapabilities {
  let result: Record<string, unknown> = {};
  for (const caps of list) result = mergeObjects(result, caps as Record<string, unknown>);
  return result as ClientCapabilities;
}

function mergeObjects(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prev = out[key];
    if (value === null || value === undefined) {
      if (!(key in out)) out[key] = value;
    } else if (key === '_meta' && isRecord(value)) {
      out[key] = { ...(isRecord(prev) ? prev : {}), ...value };
    } else if (typeof value === 'boolean') {
      out[key] = prev === true || value;
    } else if (isRecord(value)) {
      out[key] = mergeObjects(isRecord(prev) ? prev : {}, value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Does this (merged or single) capability set declare form elicitation? (`{}` means yes.) */
export function supportsForms(caps: ClientCapabilities | undefined): boolean {
  const form = caps?.elicitation?.form;
  return form !== undefined && form !== null;
}

/** Does it declare ACP session notices (`session.notices`, `{}` means yes)? Only then may it get a `notice` update. */
export function supportsNotices(caps: ClientCapabilities | undefined): boolean {
  const notices = caps?.session?.notices;
  return notices !== undefined && notices !== null;
}

/** Does it declare the terminal-output `_meta` extension (terminal cards for zcode's own Bash)? */
export function supportsTerminalOutput(caps: ClientCapabilities | undefined): boolean {
  return caps?._meta?.['terminal_output'] === true;
}

function describe(info: ClientInfo): string {
  return info.label ? `${info.kind}: ${info.label}` : info.kind;
}
