// Runs last (file order): deactivating the extension leaves no zcode process and no listening socket.
const assert = require('node:assert/strict');
const path = require('node:path');
const vscode = require('vscode');
const { api, waitFor, simProcesses, prompt, newSession, setSetting, portOpen } = require('./zcodeHelpers.cjs');

describe('ZCode lifecycle', function () {
  this.timeout(60_000);

  it('a crash is reported and the next use runs on a fresh process', async () => {
    const zcode = await api();
    const sessionId = await newSession();
    const crashed = new Promise((resolve) => {
      const sub = zcode.host.onDidCrash((info) => {
        sub.dispose();
        resolve(info);
      });
    });
    await prompt(zcode, sessionId, 'crash please [scenario:crash]').catch(() => undefined);
    const info = await crashed;
    assert.equal(info.expected, false);
    await waitFor(() => zcode.host.state === 'crashed', { message: 'the crashed state' });
    await vscode.commands.executeCommand('zcode.restart');
    await waitFor(() => zcode.host.state === 'ready', { message: 'ready after restart' });
    const response = await prompt(zcode, sessionId, 'again [scenario:text]');
    assert.equal(response.stopReason, 'end_turn');
  });

  it('deactivate() kills zcode and closes the remote endpoint', async () => {
    const zcode = await api();
    await setSetting('remote.port', 0);
    await setSetting('remote.enabled', true);
    const { port } = await waitFor(() => zcode.remote.state.url && zcode.remote.state, { message: 'remote listening' });
    await zcode.host.start();
    assert.ok(simProcesses().length > 0, 'zcode is not running before deactivation');
    assert.ok(await portOpen(port));

    // The module the extension host loaded (same path → same cached module instance).
    const ext = vscode.extensions.getExtension('zcode-community.zcode-vscode');
    const main = require(path.join(ext.extensionPath, ext.packageJSON.main));
    await main.deactivate();

    await waitFor(() => simProcesses().length === 0, { message: 'no zcode process', timeout: 10_000 });
    assert.equal(await portOpen(port), false, 'the remote port is still listening');
    assert.equal(zcode.host.bridge, undefined);
    await setSetting('remote.enabled', undefined);
    await setSetting('remote.port', undefined);
  });
});
