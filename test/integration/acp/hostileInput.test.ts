/**
 * Hostile input over the real `zcode-acp` process: a line over 32 MiB, a 5,000-deep
 * message without `jsonrpc` (the SDK's -32600 echo used to overflow JSON.stringify and end the
 * bridge), and a flood of stray responses. Each is answered (or dropped) while the bridge keeps
 * serving, and stderr stays bounded.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SIM_PATH, simLocateOptions } from '../../helpers/sim.ts';
import { buildCli } from './harness.ts';

const T = { timeout: 60_000 };

/** The CLI as a raw byte pipe: tests write arbitrary bytes and wait for the answer with a given id. */
class RawCli {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  private stdoutRest = '';
  private readonly answers = new Map<unknown, (message: Record<string, unknown>) => void>();
  readonly received: Record<string, unknown>[] = [];
  readonly exited: Promise<number | null>;

  constructor(cli: string, storeDir: string) {
    this.child = spawn(process.execPath, [cli], {
      env: { ...simLocateOptions({ speed: 0 }).env, ZCODE_BIN: SIM_PATH, ZCODE_NODE: process.execPath, ZCODE_ACP_STORE_DIR: storeDir },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      const lines = (this.stdoutRest + d).split('\n');
      this.stdoutRest = lines.pop() ?? '';
      for (const line of lines) {
        const message = JSON.parse(line) as Record<string, unknown>;
        assert.equal(message.jsonrpc, '2.0', 'stdout carries only JSON-RPC');
        this.received.push(message);
        this.answers.get(message.id)?.(message);
      }
    });
  }

  /** The next message with `id` (registered before the request is written). */
  answer(id: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.answers.set(id, resolve);
      void this.exited.then((code) => reject(new Error(`the bridge exited (${code}) before answering ${String(id)}; stderr:\n${this.stderr}`)));
    });
  }

  write(text: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(text, (error) => (error ? reject(error) : resolve())));
  }

  async request(id: number, method: string, params: object): Promise<Record<string, unknown>> {
    const answer = this.answer(id);
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  }
}

describe('hostile ACP input on stdio', () => {
  let cli = '';
  let storeDir = '';
  let bridge: RawCli;
  before(async () => {
    cli = await buildCli();
    storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-hostile-'));
    bridge = new RawCli(cli, storeDir);
    const init = await bridge.request(1, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    assert.ok(init.result);
  });
  after(async () => {
    bridge.child.stdin.end();
    await bridge.exited;
    rmSync(storeDir, { recursive: true, force: true });
  });

  test('a 33 MiB line gets -32600 with its id, streamed through without buffering it whole; the bridge keeps serving', T, async () => {
    const answer = bridge.answer(5);
    await bridge.write('{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"');
    const mib = Buffer.alloc(1 << 20, 'z');
    for (let i = 0; i < 33; i++) await bridge.write(mib);
    await bridge.write('"}}\n');
    const error = (await answer).error as { code: number; message: string };
    assert.equal(error.code, -32600);
    assert.match(error.message, /exceeds 33554432 bytes/);
    const next = await bridge.request(6, 'session/new', { cwd: '/tmp', mcpServers: [] });
    assert.ok((next.result as { sessionId: string }).sessionId);
    // Peak memory of the bridge: the 33 MiB line is never held whole on top of the 32 MiB limit.
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${bridge.child.pid}/status`, 'utf8'))?.[1] ?? 0);
    if (peakKb > 0) assert.ok(peakKb < 200 * 1024, `peak RSS ${peakKb} kB`);
  });

  test('a 5,000-deep message without jsonrpc gets -32600 for its id (no echo); the bridge keeps serving', T, async () => {
    const depth = 5000;
    const answer = bridge.answer(7);
    await bridge.write(`{"id":7,"method":"x","params":${'['.repeat(depth)}${']'.repeat(depth)}}\n`);
    const reply = await answer;
    assert.deepEqual(reply.error, { code: -32600, message: 'Invalid Request: the message nests deeper than 256 levels' });
    const deepWithEnvelope = bridge.answer('deep');
    await bridge.write(`{"jsonrpc":"2.0","id":"deep","method":"session/new","params":{"cwd":"/tmp","mcpServers":[],"_meta":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}\n`);
    assert.equal(((await deepWithEnvelope).error as { code: number }).code, -32600);
    const next = await bridge.request(8, 'session/new', { cwd: '/tmp', mcpServers: [] });
    assert.ok(next.result);
  });

  test('malformed lines, batches and non-envelopes are answered without echoing the input', T, async () => {
    const parse = bridge.answer(null);
    await bridge.write('{"jsonrpc":"2.0","id":9,"method"\n');
    assert.equal(((await parse).error as { code: number }).code, -32700);
    const noEnvelope = bridge.answer(10);
    await bridge.write(`${JSON.stringify({ id: 10, method: 'initialize', params: { secret: 'x'.repeat(1000) } })}\n`);
    const reply = await noEnvelope;
    assert.equal((reply.error as { code: number }).code, -32600);
    assert.ok(!JSON.stringify(reply).includes('xxxxxxxx'), 'the input is not echoed');
  });

  test('a flood of stray responses and malformed lines writes a bounded number of log lines', T, async () => {
    const before = bridge.stderr.split('\n').length;
    for (let i = 0; i < 200; i++) await bridge.write(`{"jsonrpc":"2.0","id":${1000 + i},"result":{}}\n{"jsonrpc":"2.0","id":null,"method"\n`);
    const next = await bridge.request(11, 'session/new', { cwd: '/tmp', mcpServers: [] });
    assert.ok(next.result);
    const lines = bridge.stderr.split('\n').slice(before - 1);
    assert.equal(lines.filter((l) => l.includes('Got response to unknown request')).length, 0, 'the SDK never sees stray responses');
    const stray = lines.filter((l) => l.includes('a response to no request')).length;
    const malformed = lines.filter((l) => l.includes('malformed JSON')).length;
    assert.ok(stray >= 1 && stray <= 5, `stray-response lines: ${stray}`);
    assert.ok(malformed >= 1 && malformed <= 5, `malformed lines: ${malformed}`);
  });
});
