/**
 * Client MCP servers (issue 15 item 2), in-process and over stdio: the servers of `session/new`
 * reach zcode's `session/create` in zcode's own shape, a load after a bridge restart re-sends the
 * load's servers with `session/resume`, and `initialize` advertises http and sse.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import type { McpServer } from '@agentclientprotocol/sdk';
import { buildCli, MODES } from './harness.ts';
import { prompt, sessionCreates, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-mcp');

const ACP_SERVERS: McpServer[] = [
  { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/tmp'], env: [{ name: 'TOKEN', value: 't' }], _meta: { client: 'x' } },
  { type: 'http', name: 'docs', url: 'https://mcp.example.com/docs', headers: [{ name: 'Authorization', value: 'Bearer b' }] },
  { type: 'sse', name: 'events', url: 'https://mcp.example.com/sse', headers: [] },
];
/** The same servers as zcode's session/create takes them (strict keys, no `_meta`). */
const ZCODE_SERVERS = [
  { name: 'files', command: '/usr/bin/mcp-files', args: ['--root', '/tmp'], env: [{ name: 'TOKEN', value: 't' }] },
  { name: 'docs', type: 'http', url: 'https://mcp.example.com/docs', headers: [{ name: 'Authorization', value: 'Bearer b' }] },
  { name: 'events', type: 'sse', url: 'https://mcp.example.com/sse', headers: [] },
];

before(async () => {
  await buildCli();
});

for (const mode of MODES) {
  describe(`client MCP servers (${mode})`, () => {
    test('new → session/create carries them in zcode’s shape; a load after a restart re-sends them with session/resume', T, async () => {
      const storeDir = mkdtempSync(path.join(tmpdir(), 'zcode-acp-store-'));
      const stateDir = mkdtempSync(path.join(tmpdir(), 'zcode-sim-state-'));
      try {
        const sessionId = await withHarness(mode, { storeDir, sim: { stateDir }, initialize: false }, async (h) => {
          const init = (await h.initialize()) as { agentCapabilities: { mcpCapabilities: unknown } };
          assert.deepEqual(init.agentCapabilities.mcpCapabilities, { http: true, sse: true });
          const { sessionId: id } = await h.agent.request('session/new', { cwd: CWD, mcpServers: ACP_SERVERS });
          assert.equal((await prompt(h, id, '[scenario:text] hi')).stopReason, 'end_turn');
          const create = sessionCreates(h)[0] as { params: { mcpServers?: unknown } };
          assert.deepEqual(create.params.mcpServers, ZCODE_SERVERS);
          return id;
        });
        await withHarness(mode, { storeDir, sim: { stateDir } }, async (h) => {
          await h.agent.request('session/load', { sessionId, cwd: CWD, mcpServers: ACP_SERVERS.slice(0, 1) });
          const resume = h.simRecord().received.find((m) => m.method === 'session/resume') as { params: { mcpServers?: unknown } };
          assert.deepEqual(resume.params.mcpServers, ZCODE_SERVERS.slice(0, 1), 'the servers of this load');
        });
      } finally {
        rmSync(storeDir, { recursive: true, force: true });
        rmSync(stateDir, { recursive: true, force: true });
      }
    });
  });
}
