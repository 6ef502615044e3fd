/**
 * The extension host's cost per streamed delta, without code-server: a bridge on a fake zcode, the
 * official SDK client in process (as the extension runs it), and the chat's host side
 * (`ChatController` → transcript → `PatchStream`) posting to a webview stand-in that serialises each
 * message, as VS Code's `postMessage` does. Events are paced at a fixed rate, like a model streaming.
 *
 * Rows: the main thread's busy time (`performance.eventLoopUtilization().active`: the extension host's
 * JavaScript thread, without GC helper threads or a loader worker) for the whole path, and for the same
 * stream to a client that only counts (the bridge + SDK alone, the floor), measured in the same run;
 * the difference per delta is the chat's own cost. The VS Code bench measures the same path with code-server's
 * relay and the webview on top.
 *
 * Standalone: `node --import tsx test/bench/chatHost.ts` (`--cpu-prof` to see where it goes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { client } from '@agentclientprotocol/sdk';
import type { PromptResponse, SessionConfigOption, SessionInfo, SessionNotification } from '@agentclientprotocol/sdk';
import { createBridge } from '../../bridge/acp/bridge.ts';
import { callExtension } from '../../bridge/acp/extensions/contractSchemas.ts';
import type { ExtensionRequest, ParamsOf, ResultOf } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { Logger } from '../../bridge/logger.ts';
import { createZcodeBackend } from '../../bridge/zcode/client.ts';
import { ChatController } from '../../extension/chat/chatController.ts';
import type { ChatEnvironment, ChatHost, ChatSessions } from '../../extension/chat/chatPorts.ts';
import { ReadyCommand, SendPromptCommand } from '../../webview-ui/contract.ts';
import type { IpcMessage } from '../../webview-ui/contract.ts';
import { eventLine, FakeZcode } from './fakeZcode.ts';
import type { TurnPlayer } from './fakeZcode.ts';
import type { Row } from './row.ts';
import { Emitter } from '../helpers/emitter.ts';

const silent: Logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const RATES = [1_000, 5_000];
const SECONDS = 2;
const PAIRS = 3;

/**
 * A stream of `count` one-word deltas at about `rate` per second: each millisecond timer writes the
 * deltas due by then, one write per event (as a pipe delivers them). Timers, not a busy-wait, so the
 * CPU measured is the bridge's and the chat's, not the pacing's.
 */
function paced(rate: number, count: number): TurnPlayer {
  return async (write) => {
    await write(eventLine(1, 'turn.started', { turnId: 'turn_chat' }));
    const start = performance.now();
    let sent = 0;
    while (sent < count) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const due = Math.min(count, Math.floor(((performance.now() - start) * rate) / 1000));
      for (; sent < due; sent++) await write(eventLine(sent + 2, 'model.streaming', { kind: 'text_delta', delta: 'word ', messageId: 'msg_chat' }));
    }
    await write(eventLine(count + 2, 'turn.completed', { resultType: 'success' }));
  };
}

interface Run {
  cpuMs: number;
  wallMs: number;
  posted: number;
  postedBytes: number;
}

/** One paced turn through the bridge to the SDK client and, with `chat`, through the chat's host side. */
async function runOnce(rate: number, chat: boolean): Promise<Run> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zcode-bench-chat-'));
  const fake = new FakeZcode();
  const backend = createZcodeBackend({ logger: silent }, { locate: () => ({ command: 'fake-zcode', args: [], tried: [] }), startProcess: async () => fake });
  const bridge = createBridge({ locate: {}, logger: silent, storageDir: dir, backend });
  const updates = new Emitter<SessionNotification>();
  let counted = 0;
  const app = client({ name: 'bench-chat' }).onNotification('session/update', ({ params }) => {
    counted++;
    if (chat) updates.fire(params);
  });
  const connection = bridge.connectClient(app, { kind: 'local', label: 'bench-chat' });
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request('session/new', { cwd: dir, mcpServers: [] });

  const count = rate * SECONDS;
  fake.player = paced(rate, count);
  let posted = 0;
  let postedBytes = 0;
  let finished!: (r: PromptResponse) => void;
  const done = new Promise<PromptResponse>((resolve) => (finished = resolve));
  let controller: ChatController | undefined;
  const elu0 = performance.eventLoopUtilization();
  const wall0 = performance.now();
  if (chat) {
    const host: ChatHost = {
      state: 'ready',
      ready: async () => {},
      request: async <T>(method: string, params: unknown): Promise<T> => {
        const answer = (await connection.agent.request(method, params as never)) as T;
        if (method === 'session/prompt') finished(answer as PromptResponse);
        return answer;
      },
      call: <D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>): Promise<ResultOf<D>> => callExtension((m, p) => connection.agent.request(m, p as never), descriptor, params),
      cancelTurn: async () => {},
      onSessionUpdate: updates.event,
      onExtNotification: new Emitter<{ method: string; params: unknown }>().event,
      onDidChangeState: new Emitter<string>().event,
    };
    const never = <T>() => new Emitter<T>().event;
    const sessions: ChatSessions = {
      activeSessionId: sessionId,
      onDidChangeActiveSession: never<string | undefined>(),
      onWillLoadSession: never<string>(),
      onDidChangeConfigOptions: never<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>(),
      configOptions: () => undefined,
      title: () => undefined,
      newSession: async () => sessionId,
      loadSession: async () => {},
      listSessions: async (): Promise<SessionInfo[]> => [],
      setConfigOption: async () => [],
      fork: async () => sessionId,
      restore: async () => sessionId,
    };
    const env: ChatEnvironment = {
      openDiff: async () => {},
      openLocation: async () => {},
      copy: async () => {},
      attachContext: async () => [],
      log: () => {},
      errorMessage: (e: unknown) => String(e),
    };
    controller = new ChatController(host, sessions, env);
    // VS Code serialises every postMessage: count that cost here too.
    controller.attach((m: IpcMessage) => {
      posted++;
      postedBytes += JSON.stringify(m).length;
    });
    controller.receive({ id: 'r', method: ReadyCommand.method, params: { reason: 'start' } });
    controller.receive({ id: 'p', method: SendPromptCommand.method, params: { text: 'stream', attachments: [] } });
    const response = await done;
    if (response.stopReason !== 'end_turn') throw new Error(`chat run ended ${response.stopReason}`);
  } else {
    const response = await connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'stream' }] });
    if (response.stopReason !== 'end_turn') throw new Error(`floor run ended ${response.stopReason}`);
  }
  controller?.flush();
  const busyMs = performance.eventLoopUtilization(elu0).active;
  const wallMs = performance.now() - wall0;
  controller?.dispose();
  connection.close();
  await bridge.dispose();
  rmSync(dir, { recursive: true, force: true });
  if (counted < 2) throw new Error('no updates reached the client');
  return { cpuMs: busyMs, wallMs, posted, postedBytes };
}

/** The middle of an odd number of figures. */
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The bench section. The pacing and the bridge cost the same in both runs; the difference is the
 * chat. Runs alternate (floor, chat) `PAIRS` times and the medians are compared: one 2-second pair is
 * at the mercy of whatever else the machine does.
 */
export async function benchChatHost(): Promise<Row[]> {
  const rows: Row[] = [];
  await runOnce(1_000, true); // warm-up: JIT and first-use allocations
  for (const rate of RATES) {
    const floors: number[] = [];
    const wholes: Run[] = [];
    for (let i = 0; i < PAIRS; i++) {
      floors.push((await runOnce(rate, false)).cpuMs);
      wholes.push(await runOnce(rate, true));
    }
    const deltas = rate * SECONDS;
    const floor = median(floors);
    const whole = median(wholes.map((w) => w.cpuMs));
    const sample = wholes[0];
    const perDelta = ((whole - floor) * 1000) / deltas;
    rows.push(
      { name: `chat host: ${rate / 1000}k deltas/s for ${SECONDS} s — main thread busy, bridge + SDK client only (floor), median of ${PAIRS}`, value: `${floor.toFixed(0)} ms = ${((floor * 1000) / deltas).toFixed(0)} µs per delta (runs: ${floors.map((f) => f.toFixed(0)).join(', ')})` },
      { name: `chat host: the same through the chat (controller, transcript, patches, serialised posts)`, value: `${whole.toFixed(0)} ms (runs: ${wholes.map((w) => w.cpuMs.toFixed(0)).join(', ')}); ${sample.posted} messages, ${(sample.postedBytes / 1024).toFixed(0)} KB posted` },
      { name: `chat host: the chat's own main-thread time per delta at ${rate / 1000}k/s (chat − floor)`, value: `${perDelta.toFixed(1)} µs`, target: '≤ 30 µs', ok: perDelta <= 30 },
    );
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await benchChatHost();
  for (const row of rows) console.log(`${row.ok === false ? '✗' : row.ok ? '✓' : ' '} ${row.name}: ${row.value}${row.target ? ` (target ${row.target})` : ''}`);
}
