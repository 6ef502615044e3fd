/**
 * Remote access through the stdio CLI (`bridge/cli.ts` + `startRemoteFromEnv`): the endpoint comes
 * up from ZCODE_ACP_REMOTE*, remote and stdio clients share sessions, and when the stdio client goes
 * away the process exits — remote clients do not keep it alive — and the port is free again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import type { SessionNotification } from '@agentclientprotocol/sdk';
import { generateToken } from '../../../bridge/remote/auth.ts';
import { SIM_PATH, simLocateOptions, tempDir } from '../../helpers/sim.ts';
import { assertPortFree, remoteClient } from './harness.ts';

const CLI = fileURLToPath(new URL('../../../bridge/cli.ts', import.meta.url));

test('zcode-acp with ZCODE_ACP_REMOTE=1: shared sessions, and the process ends with its stdio client', async () => {
  const tmp = tempDir('zcode-remote-cli-');
  const token = generateToken();
  const env = {
    ...simLocateOptions({ stateDir: tmp.file('sim-state') }).env,
    ZCODE_BIN: SIM_PATH,
    ZCODE_NODE: process.execPath,
    ZCODE_ACP_STORE_DIR: tmp.file('store'),
    ZCODE_ACP_DEBUG: '1',
    ZCODE_ACP_REMOTE: '1',
    ZCODE_ACP_REMOTE_TOKEN: token,
    ZCODE_ACP_REMOTE_PORT: '0',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /remote access: listening on (ws:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`zcode-acp exited before listening:\n${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const stdioUpdates: SessionNotification[] = [];
    const stdio = client({ name: 'editor' })
      .onNotification('session/update', ({ params }) => void stdioUpdates.push(params))
      .connect(ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>));
    await stdio.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });

    const endpoint = await url;
    const port = Number(new URL(endpoint).port);
    const phone = remoteClient(endpoint, { header: token }, { name: 'phone' });
    await phone.initialize();
    const { sessionId } = await phone.agent.request('session/new', { cwd: tmp.dir, mcpServers: [] });
    const response = await phone.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '[scenario:text]' }] });
    assert.equal(response.stopReason, 'end_turn');
    // The editor on stdio saw the phone's turn (over its own stream: the phone's response says
    // nothing about when the editor's copy lands, so wait for the text itself).
    const sawText = (): boolean => stdioUpdates.some((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'agent_message_chunk');
    const deadline = Date.now() + 5000;
    while (!sawText() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(sawText(), 'the editor got the turn\'s text');

    // The editor goes away: the process exits although the phone is still connected.
    child.stdin.end();
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))]);
    assert.notEqual(code, 'hung', 'zcode-acp kept running after its stdio client left');
    await phone.connection.closed;
    await assertPortFree(port);
    assert.ok(!stderr.includes(token), 'the token appeared on stderr');
    assert.deepEqual(phone.tap.violations, []);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    tmp.cleanup();
  }
});
