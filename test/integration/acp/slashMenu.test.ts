/**
 * The slash menu beyond the session commands, in-process and over stdio: `/model`,
 * `/mcp` (zcode's `mcp/list` of the session's servers, connected or failed), TUI-only commands
 * answered in one line, and `/words` that are not commands (paths) sent to zcode as text.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildCli, MODES } from './harness.ts';
import { say, sentPrompts, withHarness } from './helpers.ts';
import { testWorkspace } from '../../helpers/workspace.ts';

const T = { timeout: 60_000 };
const CWD = testWorkspace('acp-slash-menu');

before(async () => {
  await buildCli();
});



for (const mode of MODES) {
  describe(`slash menu (${mode})`, () => {
    test('/model, /mcp, a TUI-only command, and a path that is a prompt', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const { sessionId } = await h.agent.request('session/new', {
          cwd: CWD,
          mcpServers: [
            { name: 'files', command: '/usr/bin/mcp-files', args: [], env: [] },
            { name: 'broken-one', command: '/nowhere/mcp', args: [], env: [] },
          ],
        });
        await h.waitFor('the menu', () => h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'));
        const menu = h.updatesOf(sessionId).find((u) => u.sessionUpdate === 'available_commands_update');
        const names = menu?.sessionUpdate === 'available_commands_update' ? menu.availableCommands.map((c) => c.name) : [];
        assert.ok(names.includes('model') && names.includes('mcp'), names.join(','));

        assert.match(await say(h, sessionId, '/model'), /^Model: `GLM-5\.2`\. Choose one of: `GLM-5\.2`/);
        assert.equal(await say(h, sessionId, '/model GLM-4.6'), 'Model set to `GLM-4.6`.');
        const setModel = h.simRecord().received.filter((m) => m.method === 'session/setModel');
        assert.equal(setModel.length, 1);
        assert.ok(h.updatesOf(sessionId).some((u) => u.sessionUpdate === 'config_option_update' && u.configOptions.some((o) => o.id === 'model' && o.currentValue === 'GLM-4.6')));

        const mcp = await say(h, sessionId, '/mcp');
        assert.match(mcp, /✅ `files` — connected \(stdio, 2 tools\)/);
        assert.match(mcp, /❌ `broken-one` — failed \(stdio, 0 tools\): spawn \/nowhere\/mcp ENOENT/);
        const list = h.simRecord().received.find((m) => m.method === 'mcp/list') as { params: { mode: string; mcpServers: unknown[] } };
        assert.equal(list.params.mode, 'status');
        assert.equal(list.params.mcpServers.length, 2);

        assert.match(await say(h, sessionId, '/clear'), /^`\/clear` belongs to zcode's own terminal UI/);
        assert.deepEqual(sentPrompts(h), [], 'no command reached zcode as a prompt');
        await say(h, sessionId, '/etc/hosts [scenario:text]');
        assert.deepEqual(sentPrompts(h), ['/etc/hosts [scenario:text]'], 'a path is a prompt');
      });
    });
  });
}
