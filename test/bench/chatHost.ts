/**
 * The extension host's cost per streamed delta, without code-server: a bridge on a fake zcode, the
 * official SDK client in process (as the extension runs it), and the chat's host side
 * (`ChatController` → transcript → `PatchStream`) posting to a webview stand-in that serialises each
 * message, as VS Code's `postMessage` does. Events are paced at a fixed rate, like a model streaming.
 *
 * Rows: the process's CPU time (`process.cpuUsage()`, user + system, all threads: on a loaded machine
 * the event loop's busy time also counts the time the thread waited for a core) for the whole path, and
 * for the same stream to a client that only counts (the bridge + SDK alone, the floor), measured in the
 * same run; the difference per delta is the chat's own cost. Then the same with each delta its own read
 * and no pacing (the path's cost per update and nothing else), and the chat alone, fed updates
 * directly, in a fresh session and in one of 1,000 items. The VS Code bench measures the same path with
 * code-server's relay and the webview on top.
 *
 * Standalone: `node --import tsx test/bench/chatHost.ts` (`--cpu-prof` to see where it goes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { client } from '@agentclientprotocol/sdk';
import type { PromptResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { createBridge } from '../../bridge/acp/bridge.ts';
import { callExtension, parseNotification } from '../../bridge/acp/extensions/contractSchemas.ts';
import type { ExtensionRequest, ParamsOf, ResultOf } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { Logger } from '../../bridge/logger.ts';
import { createZcodeBackend } from '../../bridge/zcode/client.ts';
import { BridgeInbox, type PromptAnswer } from '../../extension/bridgeInbox.ts';
import { ChatController } from '../../extension/chat/chatController.ts';
import type { ChatHost } from '../../extension/chat/chatPorts.ts';
import { fixedSessions, quietEnv } from '../helpers/chatOnLink.ts';
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

/**
 * `count` one-word deltas, each written in a macrotask of its own (as separate pipe reads arrive), with
 * no pacing: the CPU is the path's cost per update and nothing else.
 */
function oneReadEach(count: number): TurnPlayer {
  return async (write) => {
    await write(eventLine(1, 'turn.started', { turnId: 'turn_chat' }));
    for (let sent = 0; sent < count; sent++) {
      await new Promise((resolve) => setImmediate(resolve));
      await write(eventLine(sent + 2, 'model.streaming', { kind: 'text_delta', delta: 'word ', messageId: 'msg_chat' }));
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

/**
 * The chat's host side as the extension builds it, on a stand-in host and session manager that
 * forward to `request` (the SDK client's agent side) and report the prompt's answer.
 */
/** What the extension's host hands the chat, in wire order (extension/bridgeInbox.ts). */
interface Feed {
  updates: Emitter<SessionNotification>;
  ext: Emitter<{ method: string; params: unknown }>;
  answers: Emitter<PromptAnswer>;
}

const feed = (): Feed => ({ updates: new Emitter(), ext: new Emitter(), answers: new Emitter() });

function chatOn(sessionId: string, { updates, ext, answers }: Feed, request: (method: string, params: unknown) => Promise<unknown>, answered: (r: PromptResponse) => void): ChatController {
  const host: ChatHost = {
    state: 'ready',
    ready: async () => {},
    request: async <T>(method: string, params: unknown): Promise<T> => {
      const answer = (await request(method, params)) as T;
      if (method === 'session/prompt') answered(answer as PromptResponse);
      return answer;
    },
    call: <D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>): Promise<ResultOf<D>> => callExtension((m, p) => request(m, p) as never, descriptor, params),
    cancelTurn: async () => {},
    onSessionUpdate: updates.event,
    onExtNotification: ext.event,
    onPromptAnswered: answers.event,
    onDidChangeState: new Emitter<string>().event,
  };
  return new ChatController(host, fixedSessions(sessionId), quietEnv());
}

/** One paced turn through the bridge to the SDK client and, with `chat`, through the chat's host side. */
async function runOnce(rate: number, chat: boolean, player: (count: number) => TurnPlayer = (count) => paced(rate, count)): Promise<Run> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zcode-bench-chat-'));
  const fake = new FakeZcode();
  const backend = createZcodeBackend({ logger: silent }, { locate: () => ({ command: 'fake-zcode', args: [], tried: [] }), startProcess: async () => fake });
  const bridge = createBridge({ locate: {}, logger: silent, storageDir: dir, backend });
  const chatFeed = feed();
  let counted = 0;
  let failure: Error | undefined;
  // The chat gets the bridge's messages as the extension's host does: from the link, in wire order;
  // the floor as any SDK client does.
  const inbox = new BridgeInbox({
    sessionUpdate: (notification) => {
      counted++;
      chatFeed.updates.fire(notification);
    },
    notification: (method, params) => {
      const notification = parseNotification({ method, params });
      if (notification) chatFeed.ext.fire(notification);
    },
    promptAnswered: (answer) => chatFeed.answers.fire(answer),
    failed: (what, error) => void (failure ??= new Error(`${what}: ${String(error)}`)),
  });
  const app = chat ? client({ name: 'bench-chat' }) : client({ name: 'bench-chat' }).onNotification('session/update', () => void counted++);
  const connection = bridge.connectClient(app, { kind: 'local', label: 'bench-chat' }, chat ? inbox.observe : undefined);
  await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await connection.agent.request('session/new', { cwd: dir, mcpServers: [] });

  const count = rate * SECONDS;
  fake.player = player(count);
  let posted = 0;
  let postedBytes = 0;
  let finished!: (r: PromptResponse) => void;
  const done = new Promise<PromptResponse>((resolve) => (finished = resolve));
  let controller: ChatController | undefined;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  if (chat) {
    controller = chatOn(sessionId, chatFeed, (method, params) => connection.agent.request(method, params as never), (answer) => finished(answer));
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
  const used = process.cpuUsage(cpu0);
  const busyMs = (used.user + used.system) / 1000;
  const wallMs = performance.now() - wall0;
  controller?.dispose();
  connection.close();
  await bridge.dispose();
  rmSync(dir, { recursive: true, force: true });
  if (failure) throw failure;
  if (counted < 2) throw new Error('no updates reached the client');
  return { cpuMs: busyMs, wallMs, posted, postedBytes };
}

/**
 * The chat alone: `updates` one-word text chunks of one message handed to the chat as the SDK client
 * delivers them (no bridge, no timers), in a session that already shows `items` transcript items, with
 * a patch sent every `perPatch` updates (a 16 ms frame at the stream's rate). CPU time of the loop
 * (it is synchronous: nothing else runs meanwhile) per update.
 */
function chatAlone(items: number, updates: number, perPatch: number): { usPerUpdate: number; bytesPerPatch: number } {
  const sessionId = 'ses_alone';
  const alone = feed();
  const controller = chatOn(sessionId, alone, async () => ({}), () => {});
  let posted = 0;
  let bytes = 0;
  controller.attach((m: IpcMessage) => {
    posted++;
    bytes += JSON.stringify(m).length;
  });
  controller.receive({ id: 'r', method: ReadyCommand.method, params: { reason: 'start' } });
  for (let i = 0; i < items; i++) {
    alone.updates.fire({ sessionId, update: { sessionUpdate: 'tool_call', toolCallId: `call_${i}`, title: `Read transcript${i}.ts`, kind: 'read', status: 'completed' } });
  }
  controller.flush();
  const chunk = (k: number): SessionNotification => ({ sessionId, update: { sessionUpdate: 'agent_message_chunk', messageId: 'msg_alone', content: { type: 'text', text: ` s${k}@1764700000000.0` } } });
  posted = 0;
  bytes = 0;
  const cpu0 = process.cpuUsage();
  for (let k = 0; k < updates; k++) {
    alone.updates.fire(chunk(k));
    if ((k + 1) % perPatch === 0) controller.flush();
  }
  controller.flush();
  const cpu = process.cpuUsage(cpu0);
  controller.dispose();
  return { usPerUpdate: (cpu.user + cpu.system) / updates, bytesPerPatch: bytes / Math.max(1, posted) };
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
      { name: `chat host: ${rate / 1000}k deltas/s for ${SECONDS} s — process CPU, bridge + SDK client only (floor), median of ${PAIRS}`, value: `${floor.toFixed(0)} ms = ${((floor * 1000) / deltas).toFixed(0)} µs per delta (runs: ${floors.map((f) => f.toFixed(0)).join(', ')})` },
      { name: `chat host: the same through the chat (controller, transcript, patches, serialised posts)`, value: `${whole.toFixed(0)} ms (runs: ${wholes.map((w) => w.cpuMs.toFixed(0)).join(', ')}); ${sample.posted} messages, ${(sample.postedBytes / 1024).toFixed(0)} KB posted` },
      { name: `chat host: the chat's own CPU time per delta at ${rate / 1000}k/s (chat − floor)`, value: `${perDelta.toFixed(1)} µs`, target: '≤ 30 µs', ok: perDelta <= 30 },
    );
  }
  // Each delta its own read (what 1k/s from a child process looks like), unpaced: the path's CPU per
  // update with nothing else in it, bridge + SDK alone and through the chat.
  {
    const count = 10_000;
    const floors: number[] = [];
    const wholes: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      floors.push((await runOnce(count / SECONDS, false, oneReadEach)).cpuMs);
      wholes.push((await runOnce(count / SECONDS, true, oneReadEach)).cpuMs);
    }
    const us = (ms: number): string => `${((ms * 1000) / count).toFixed(1)} µs`;
    rows.push({
      name: `chat host: ${count.toLocaleString('en-US')} deltas, each its own read, unpaced — process CPU per update: bridge + SDK only / through the chat, median of ${PAIRS}`,
      value: `${us(median(floors))} / ${us(median(wholes))} (runs: ${floors.map(us).join(', ')} / ${wholes.map(us).join(', ')})`,
    });
  }
  // The chat's own cost without the bridge's noise: a fresh session and one of 1,000 items, a patch
  // per 16 ms frame at 1k/s (16 updates) and at 5k/s (80).
  chatAlone(0, 20_000, 16); // warm-up
  for (const items of [0, 1_000]) {
    const figures = [16, 80].map((perPatch) => ({ perPatch, ...chatAlone(items, 20_000, perPatch) }));
    rows.push({
      name: `chat host: the chat alone (no bridge), per text update, in a session of ${items.toLocaleString('en-US')} items, a patch per 16 / 80 updates (1k / 5k per s)`,
      value: figures.map((f) => `${f.usPerUpdate.toFixed(1)} µs`).join(' / ') + `; ${figures.map((f) => `${(f.bytesPerPatch / 1024).toFixed(1)} KB`).join(' / ')} per patch`,
      target: '≤ 30 µs',
      ok: figures.every((f) => f.usPerUpdate <= 30),
    });
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await benchChatHost();
  for (const row of rows) console.log(`${row.ok === false ? '✗' : row.ok ? '✓' : ' '} ${row.name}: ${row.value}${row.target ? ` (target ${row.target})` : ''}`);
}
