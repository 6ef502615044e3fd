/**
 * Remote-access load check (`npm run bench`): 8 WebSocket clients share the bridge while zcode (the simulator, speed 0) streams a 1000-delta turn and, concurrently on a second
 * session, asks for permissions turn after turn (3 rounds). Every client answers every permission
 * after a random 0–20 ms, so the first-answer-wins race is contested each time.
 *
 * Checked (a failed check throws): every session/update the bridge wrote to a connection reached
 * that client; every client saw the same broadcast; all deltas arrived at every client; every
 * client was asked every permission; zcode received exactly one answer per permission request.
 *
 * Reported: delivery latency — from the zcode event reaching the bridge to the frame arriving at
 * each client's socket, across processes on one clock — with the part from the bridge's socket
 * write on; and the RSS of the bridge's process. The bridge runs in a child process (this same file
 * with ZCODE_REMOTE_LOAD_HOST=1) so the clients' memory and CPU are not counted as the bridge's.
 * The deltas arrive in one burst, so the tail latency is the time the bridge needs to fan the
 * whole burst out to 8 sockets, not the cost of one update.
 *
 * Standalone: `node --import tsx test/bench/remoteLoad.ts`.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type {
  AnyMessage,
  InitializeResponse,
  NewSessionResponse,
  PromptResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  Stream,
} from '@agentclientprotocol/sdk';
import { WebSocket } from 'ws';

/** One line of the bench table. */
export interface Row {
  name: string;
  value: string;
  /** The target, when the issue sets one. */
  target?: string;
  ok?: boolean;
}

const CLIENTS = 8;
const DELTAS = 1000;
const ROUNDS = 3;
const HOST_ENV = 'ZCODE_REMOTE_LOAD_HOST';
/** The tail a user feels when 8 clients watch one stream. */
const P99_TARGET_MS = 10;

/** Wall-clock milliseconds with sub-ms precision, comparable across processes on one machine. */
const now = (): number => performance.timeOrigin + performance.now();

// ── messages between the bench and its bridge host ──────────────────────────────────────────────

type HostRequest = { type: 'stats' } | { type: 'stop' };
type HostMessage =
  | { type: 'ready'; url: string; token: string; cwd: string; rss: number }
  | { type: 'stats'; rss: number; maxRss: number; deltaTimes: Record<string, number[]>; sentUpdates: number[]; writeTimes: Record<string, number[]>[]; interactionReplies: number; distinctReplyIds: number; simViolations: number };

// ── the bridge host (child process) ─────────────────────────────────────────────────────────────

async function runHost(): Promise<void> {
  const [{ createBridge }, { generateToken }, { startRemoteServer }, sim] = await Promise.all([
    import('../../bridge/acp/bridge.ts'),
    import('../../bridge/remote/auth.ts'),
    import('../../bridge/remote/server.ts'),
    import('../helpers/sim.ts'),
  ]);
  const tmp = sim.tempDir('zcode-remote-bench-');
  const recordFile = tmp.file('sim.jsonl');
  const logger = {
    trace() {},
    debug() {},
    info() {},
    warn: (m: unknown) => process.stderr.write(`[bench host] warn ${String(m)}\n`),
    error: (m: unknown) => process.stderr.write(`[bench host] error ${m instanceof Error ? m.stack : String(m)}\n`),
  };
  const bridge = createBridge({ locate: sim.simLocateOptions({ recordFile, stateDir: tmp.file('state'), speed: 0 }), logger, storageDir: tmp.file('store') });
  /** Arrival time of every zcode text delta, per zcode session. */
  const deltaTimes: Record<string, number[]> = {};
  bridge.backend.onEvent((event) => {
    if (event.type === 'model.streaming' && event.payload.kind === 'text_delta') (deltaTimes[event.sessionId] ??= []).push(now());
  });
  // Count what the bridge writes to each remote connection, to prove every update arrived.
  const sentUpdates: number[] = [];
  /** Write time of every agent_message_chunk character, per connection, per ACP session. */
  const writeTimes: Record<string, number[]>[] = [];
  const host = {
    connect(stream: Stream, info: { kind: 'remote'; label?: string }) {
      const index = sentUpdates.push(0) - 1;
      const chunkTimes: Record<string, number[]> = (writeTimes[index] = {});
      const writer = stream.writable.getWriter();
      const counted: Stream = {
        readable: stream.readable,
        writable: new WritableStream<AnyMessage>({
          write(message) {
            if ('method' in message && message.method === 'session/update') {
              sentUpdates[index]++;
              const chunk = chunkOf(message.params);
              if (chunk) pushPerCharacter((chunkTimes[chunk.sessionId] ??= []), now(), chunk.length);
            }
            return writer.write(message);
          },
          close: () => writer.close(),
          abort: (reason) => writer.abort(reason),
        }),
      };
      return bridge.connect(counted, info);
    },
    onDidDispose: (listener: () => void) => bridge.onDidDispose(listener),
  };
  const token = generateToken();
  const server = await startRemoteServer({ bridge: host, token, logger, port: 0 });
  const send = (m: HostMessage): void => void process.send?.(m);
  process.on('message', (m: HostRequest) => {
    if (m.type === 'stats') {
      const record = sim.readSimRecord(recordFile);
      const replies = record.received.filter((r) => typeof r.id === 'string' && r.id.startsWith('server-') && !('method' in r) && isDecision(r.result));
      send({
        type: 'stats',
        rss: process.memoryUsage().rss,
        maxRss: process.resourceUsage().maxRSS * 1024,
        deltaTimes,
        sentUpdates,
        interactionReplies: replies.length,
        distinctReplyIds: new Set(replies.map((r) => r.id)).size,
        simViolations: record.violations.length,
        writeTimes,
      });
    } else if (m.type === 'stop') {
      void (async () => {
        await server.close();
        await bridge.dispose();
        rmSync(tmp.dir, { recursive: true, force: true });
        process.exit(0);
      })();
    }
  });
  // Start zcode now so the baseline RSS includes a running bridge, not only a loaded one.
  await bridge.backend.start();
  send({ type: 'ready', url: server.url, token, cwd: tmp.dir, rss: process.memoryUsage().rss });
}

/**
 * The session and text length of an `agent_message_chunk` notification's params, else undefined.
 * The bridge merges consecutive deltas of one message into one chunk, so delivery is tracked per
 * character: the `deltas:N` scenario sends N deltas of one character ("x") each.
 */
function chunkOf(params: unknown): { sessionId: string; length: number } | undefined {
  if (typeof params !== 'object' || params === null || !('sessionId' in params) || !('update' in params)) return undefined;
  const { sessionId, update } = params;
  if (typeof sessionId !== 'string' || typeof update !== 'object' || update === null) return undefined;
  if (!('sessionUpdate' in update) || update.sessionUpdate !== 'agent_message_chunk' || !('content' in update)) return undefined;
  const content = update.content;
  const text = typeof content === 'object' && content !== null && 'text' in content && typeof content.text === 'string' ? content.text : '';
  return { sessionId, length: text.length };
}

/** Record `at` once per delivered character (one per zcode delta). */
function pushPerCharacter(times: number[], at: number, length: number): void {
  for (let i = 0; i < length; i++) times.push(at);
}

function isDecision(result: unknown): boolean {
  return typeof result === 'object' && result !== null && 'decision' in result;
}

// ── the bench (parent) ──────────────────────────────────────────────────────────────────────────

/**
 * A minimal ACP client over `ws`: JSON-RPC by hand, no schema validation. Eight official SDK
 * clients in this one process spend their time in the SDK's parsing and validation, and on a small
 * machine that — not the bridge — dominated the measured latency (p50 15–47 ms against 0.2–1.2 ms
 * with these). The SDK clients' behaviour over the same endpoint is proven by the integration tests
 * (test/integration/remote/semantics.test.ts); here only the bridge's delivery is measured.
 * Like an SDK client, it answers a withdrawn permission request (`$/cancel_request`) `cancelled`.
 */
class LoadClient {
  private nextId = 1;
  private readonly pending = new Map<number, (message: JsonRpcResponse) => void>();
  /** Open permission requests: JSON-RPC id → withdraw (answer `cancelled` now). */
  private readonly openPermissions = new Map<string, () => void>();
  /** session/update notifications received, per session, and how many were not the per-client command list. */
  readonly updateCounts = new Map<string, number>();
  broadcastCount = 0;
  /** Prompts of another client shown to this one (`user_message_chunk` with `_meta.zcode.sentBy`). */
  echoedPrompts = 0;
  /** Socket arrival time of every agent_message_chunk character of the watched session (one per zcode delta). */
  readonly chunkFrames: number[] = [];
  permissionsAsked = 0;
  permissionsWithdrawn = 0;

  private constructor(
    readonly name: string,
    private readonly ws: WebSocket,
    private readonly watched: { session?: string },
  ) {
    ws.on('message', (data: Buffer) => this.onFrame(now(), data));
  }

  static async connect(url: string, token: string, name: string, watched: { session?: string }): Promise<LoadClient> {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new LoadClient(name, ws, watched);
  }

  async request<R>(method: string, params: unknown): Promise<R> {
    const id = this.nextId++;
    const response = await new Promise<JsonRpcResponse>((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
    if (response.error) throw new Error(`${method} failed: ${response.error.code} ${response.error.message}`);
    return response.result as R;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }

  private onFrame(at: number, data: Buffer): void {
    const message = JSON.parse(data.toString('utf8')) as IncomingMessage;
    if (message.method === undefined) {
      if (typeof message.id === 'number') this.pending.get(message.id)?.(message as JsonRpcResponse);
      this.pending.delete(message.id as number);
      return;
    }
    switch (message.method) {
      case 'session/update': {
        const { sessionId, update } = message.params as SessionNotification;
        this.updateCounts.set(sessionId, (this.updateCounts.get(sessionId) ?? 0) + 1);
        // A prompt is echoed to every client but its sender: counted apart, checked below.
        if (update.sessionUpdate === 'user_message_chunk') this.echoedPrompts++;
        else if (update.sessionUpdate !== 'available_commands_update') this.broadcastCount++;
        const chunk = chunkOf(message.params);
        if (chunk && chunk.sessionId === this.watched.session) pushPerCharacter(this.chunkFrames, at, chunk.length);
        return;
      }
      case 'session/request_permission':
        this.onPermission(message.id, message.params as RequestPermissionRequest);
        return;
      case '$/cancel_request':
        this.openPermissions.get(JSON.stringify((message.params as { requestId: unknown }).requestId))?.();
        return;
      default:
        if (message.id !== undefined) this.reply(message.id, undefined, { code: -32601, message: `Method not found: ${message.method}` });
    }
  }

  /** Answer after 0–20 ms unless the request is withdrawn first (another client won). */
  private onPermission(id: unknown, params: RequestPermissionRequest): void {
    this.permissionsAsked++;
    const key = JSON.stringify(id);
    const timer = setTimeout(() => {
      this.openPermissions.delete(key);
      const allow = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0];
      this.reply(id, { outcome: { outcome: 'selected', optionId: allow.optionId } } satisfies RequestPermissionResponse);
    }, Math.random() * 20);
    this.openPermissions.set(key, () => {
      clearTimeout(timer);
      this.openPermissions.delete(key);
      this.permissionsWithdrawn++;
      this.reply(id, { outcome: { outcome: 'cancelled' } } satisfies RequestPermissionResponse);
    });
  }

  private reply(id: unknown, result: unknown, error?: { code: number; message: string }): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify(error ? { jsonrpc: '2.0', id, error } : { jsonrpc: '2.0', id, result: result ?? null }));
  }
}

interface JsonRpcResponse {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

interface IncomingMessage {
  id?: unknown;
  method?: string;
  params?: unknown;
}

function request<T>(child: ChildProcess, message: HostRequest, type: HostMessage['type']): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: HostMessage): void => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`bench host exited (${code})`)));
    child.send(message);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/**
 * Runs the load check `ZCODE_BENCH_RUNS` times (default 5: one run's p99 swings ±50 % on a shared
 * 2-core machine) and reports the run with the median p99, with every run's p99. Throws when a
 * delivery check fails.
 */
export async function benchRemoteLoad(): Promise<Row[]> {
  const runs = Math.max(1, Number(process.env.ZCODE_BENCH_RUNS) || 5);
  const results: Array<{ p99: number; rows: Row[] }> = [];
  for (let i = 0; i < runs; i++) results.push(await loadOnce());
  const byP99 = [...results].sort((a, b) => a.p99 - b.p99);
  const median = byP99[Math.floor(byP99.length / 2)];
  const all = results.map((r) => r.p99.toFixed(1)).join(', ');
  return median.rows.map((row) => (row.name.includes('p99 (zcode event') ? { ...row, value: `median ${row.value} (runs: ${all} ms)` } : row));
}

async function loadOnce(): Promise<{ p99: number; rows: Row[] }> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, [HOST_ENV]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const clients: LoadClient[] = [];
  try {
    const ready = await new Promise<Extract<HostMessage, { type: 'ready' }>>((resolve, reject) => {
      child.once('message', (m: HostMessage) => (m.type === 'ready' ? resolve(m) : reject(new Error('unexpected host message'))));
      child.once('exit', (code) => reject(new Error(`bench host exited (${code})`)));
    });
    const watched: { session?: string } = {};
    for (let i = 0; i < CLIENTS; i++) clients.push(await LoadClient.connect(ready.url, ready.token, `c${i}`, watched));
    await Promise.all(clients.map((c) => c.request<InitializeResponse>('initialize', { protocolVersion: 1, clientCapabilities: {} })));
    const driver = clients[0];
    const newSession = async (): Promise<string> => (await driver.request<NewSessionResponse>('session/new', { cwd: ready.cwd, mcpServers: [] })).sessionId;
    const prompt = (sessionId: string, text: string): Promise<PromptResponse> =>
      driver.request<PromptResponse>('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    const streamSession = await newSession();
    const askSession = await newSession();
    watched.session = streamSession;

    let permissionTurns = 0;
    const started = now();
    for (let round = 0; round < ROUNDS; round++) {
      let streaming = true;
      const deltas = prompt(streamSession, `[scenario:deltas:${DELTAS}]`).finally(() => (streaming = false));
      // Permission turns on the other session while the deltas stream (at least two per round).
      const asks = (async () => {
        for (let n = 0; streaming || n < 2; n++) {
          const r = await prompt(askSession, '[scenario:permission]');
          if (r.stopReason !== 'end_turn') throw new Error(`permission turn ended ${r.stopReason}`);
          permissionTurns++;
        }
      })();
      const [d] = await Promise.all([deltas, asks]);
      if (d.stopReason !== 'end_turn') throw new Error(`deltas turn ended ${d.stopReason}`);
    }
    const elapsedMs = now() - started;
    // Let the last notifications land.
    await new Promise((r) => setTimeout(r, 200));
    const stats = await request<Extract<HostMessage, { type: 'stats' }>>(child, { type: 'stats' }, 'stats');

    // ── checks ──
    const failures: string[] = [];
    const totals = clients.map((c) => [...c.updateCounts.values()].reduce((a, b) => a + b, 0));
    const sent = [...stats.sentUpdates].sort((a, b) => a - b);
    const received = [...totals].sort((a, b) => a - b);
    if (JSON.stringify(sent) !== JSON.stringify(received)) failures.push(`updates written per connection ${JSON.stringify(sent)} ≠ received per client ${JSON.stringify(received)}`);
    // The command list goes only to the client that created or loaded a session; the rest is broadcast.
    const broadcast = clients.map((c) => c.broadcastCount);
    if (new Set(broadcast).size !== 1) failures.push(`clients saw different broadcast update counts: ${JSON.stringify(broadcast)}`);
    const prompts = ROUNDS + permissionTurns;
    const echoes = clients.map((c) => c.echoedPrompts);
    if (echoes[0] !== 0 || echoes.slice(1).some((n) => n !== prompts)) failures.push(`prompt echoes per client ${JSON.stringify(echoes)}, expected 0 for the sender and ${prompts} for each other client`);
    const chunkCounts = clients.map((c) => c.chunkFrames.length);
    if (chunkCounts.some((n) => n !== ROUNDS * DELTAS)) failures.push(`characters of agent text per client ${JSON.stringify(chunkCounts)}, expected ${ROUNDS * DELTAS} (one per delta)`);
    // The streaming session is the zcode session with the most deltas (the permission turns have a few).
    const deltaTimes = Object.values(stats.deltaTimes).sort((a, b) => b.length - a.length)[0] ?? [];
    if (deltaTimes.length !== ROUNDS * DELTAS) failures.push(`zcode sent ${deltaTimes.length} deltas on the streaming session, expected ${ROUNDS * DELTAS}`);
    if (stats.interactionReplies !== permissionTurns || stats.distinctReplyIds !== permissionTurns) {
      failures.push(`zcode got ${stats.interactionReplies} permission answers (${stats.distinctReplyIds} distinct) for ${permissionTurns} requests`);
    }
    const asked = clients.map((c) => c.permissionsAsked);
    if (asked.some((n) => n !== permissionTurns)) failures.push(`permission requests per client ${JSON.stringify(asked)}, expected ${permissionTurns} each`);
    const withdrawn = clients.reduce((n, c) => n + c.permissionsWithdrawn, 0);
    if (stats.simViolations > 0) failures.push(`the simulator reported ${stats.simViolations} protocol violations`);
    if (failures.length > 0) throw new Error(`remote load check failed:\n  ${failures.join('\n  ')}`);

    // ── latency: the k-th zcode delta ↔ the k-th agent_message_chunk at each client ──
    const firstWrite = deltaTimes.map((_, k) => Math.min(...stats.writeTimes.map((w) => w[streamSession]?.[k] ?? Infinity)));
    const delivery: number[] = [];
    const transport: number[] = [];
    for (const c of clients) {
      c.chunkFrames.forEach((at, k) => {
        delivery.push(at - deltaTimes[k]);
        transport.push(at - firstWrite[k]);
      });
    }
    for (const list of [delivery, transport]) list.sort((a, b) => a - b);
    const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;
    const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
    const all = totals.reduce((a, b) => a + b, 0);
    const rows: Row[] = [
      { name: 'remote: load', value: `${CLIENTS} WebSocket clients × ${ROUNDS} turns of ${DELTAS} deltas, ${permissionTurns} concurrent permission turns` },
      { name: 'remote: every update delivered to every client', value: `${broadcast[0]} broadcast updates per client, ${all} in all, none lost`, ok: true },
      { name: 'remote: every permission answered exactly once', value: `${permissionTurns}/${permissionTurns} (${withdrawn} losing dialogs withdrawn)`, ok: true },
      { name: 'remote: delivery latency p50 (zcode event → client socket)', value: fmt(percentile(delivery, 50)) },
      { name: `remote: delivery latency p99 (zcode event → client socket), ${CLIENTS} clients`, value: fmt(percentile(delivery, 99)), target: `≤ ${P99_TARGET_MS} ms`, ok: percentile(delivery, 99) <= P99_TARGET_MS },
      { name: 'remote: delivery latency max', value: fmt(delivery[delivery.length - 1]) },
      { name: 'remote: of which bridge socket write → client socket p50 / p99', value: `${fmt(percentile(transport, 50))} / ${fmt(percentile(transport, 99))}` },
      { name: 'remote: throughput', value: `${Math.round((all / elapsedMs) * 1000)} updates/s delivered` },
      { name: 'remote: bridge process RSS before → after (peak)', value: `${mb(ready.rss)} → ${mb(stats.rss)} (${mb(stats.maxRss)})` },
    ];
    return { p99: percentile(delivery, 99), rows };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    if (child.connected) child.send({ type: 'stop' } satisfies HostRequest);
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => (clearTimeout(timer), resolve()));
    });
  }
}

if (process.env[HOST_ENV] === '1') {
  void runHost();
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchRemoteLoad().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
