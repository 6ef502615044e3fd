// Remote access follows `zcode.remote.enabled` live: the port opens and closes without a reload; an
// official SDK client with the token connects over WebSocket, one without it is refused; Copy URL
// puts URL + token on the clipboard; Rotate Token drops connected clients.
const assert = require('node:assert/strict');
const path = require('node:path');
const vscode = require('vscode');
const { api, waitFor, setSetting, portOpen } = require('./zcodeHelpers.cjs');

const repoRoot = process.env.ZCODE_E2E_REPO_ROOT;
const WebSocket = require(path.join(repoRoot, 'node_modules/ws'));

/** An ACP Stream over a `ws` WebSocket (one JSON-RPC message per text frame). */
function wsStream(ws) {
  const readable = new ReadableStream({
    start(controller) {
      ws.on('message', (data) => controller.enqueue(JSON.parse(String(data))));
      ws.on('close', () => {
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
  });
  const writable = new WritableStream({
    write(message) {
      ws.send(JSON.stringify(message));
    },
    close() {
      ws.close();
    },
  });
  return { readable, writable };
}

/** Opens a WebSocket; resolves with it, or rejects with the HTTP status of a refused upgrade. */
function open(url, token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

describe('ZCode remote access', function () {
  this.timeout(60_000);
  let zcode;
  let acp;

  before(async () => {
    zcode = await api();
    acp = await import('@agentclientprotocol/sdk');
    // Port 0: any free port, so parallel runs never collide (the default is 8378).
    await setSetting('remote.port', 0);
  });

  after(async () => {
    await setSetting('remote.enabled', false);
    await setSetting('remote.port', undefined);
  });

  it('is off by default: no port, context key off', async () => {
    assert.equal(zcode.remote.state.enabled, false);
    assert.equal(zcode.remote.state.url, undefined);
  });

  it('turning the setting on opens the port; an SDK client with the token connects, one without is refused', async () => {
    await setSetting('remote.enabled', true);
    const state = await waitFor(() => zcode.remote.state.url && zcode.remote.state, { message: 'the endpoint to listen' });
    assert.ok(await portOpen(state.port), 'the port is not open');
    assert.match(zcode.statusBar.text, /\$\(broadcast\) 0/);

    await assert.rejects(open(state.url), (error) => error.status === 401);
    await assert.rejects(open(state.url, 'not-the-token-at-all-0123456789'), (error) => error.status === 401);

    const token = await zcode.remote.token();
    const ws = await open(state.url, token);
    const client = acp.client({ name: 'remote-test' });
    const connection = client.connect(wsStream(ws));
    const init = await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.protocolVersion, 1);
    await waitFor(() => zcode.remote.state.clientCount === 1, { message: 'one remote client' });
    assert.match(zcode.statusBar.text, /\$\(broadcast\) 1/);

    // The remote client sees the same sessions as the window.
    const list = await connection.agent.request('session/list', { cwd: vscode.workspace.workspaceFolders[0].uri.fsPath });
    assert.ok(Array.isArray(list.sessions));
    ws.close();
    await waitFor(() => zcode.remote.state.clientCount === 0, { message: 'the remote client to go' });
  });

  it('Copy Remote Access URL puts the URL with its token on the clipboard', async () => {
    await vscode.commands.executeCommand('zcode.remote.copyUrl');
    const copied = await vscode.env.clipboard.readText();
    const token = await zcode.remote.token();
    assert.ok(copied.startsWith(zcode.remote.state.url), copied.replace(token, '<token>'));
    assert.ok(copied.includes(encodeURIComponent(token)), 'the token is not in the copied URL');
  });

  it('Rotate Token drops connected clients; only the new token is accepted', async () => {
    const url = zcode.remote.state.url;
    const oldToken = await zcode.remote.token();
    const ws = await open(url, oldToken);
    await waitFor(() => zcode.remote.state.clientCount === 1, { message: 'one remote client' });
    const closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
    await vscode.commands.executeCommand('zcode.remote.rotateToken');
    assert.equal(await closed, 4001);
    const newToken = await zcode.remote.token();
    assert.notEqual(newToken, oldToken);
    await assert.rejects(open(url, oldToken), (error) => error.status === 401);
    const again = await open(url, newToken);
    again.close();
  });

  it('turning the setting off closes the port and every remote connection', async () => {
    const { port, url } = zcode.remote.state;
    const ws = await open(url, await zcode.remote.token());
    const closed = new Promise((resolve) => ws.once('close', resolve));
    await setSetting('remote.enabled', false);
    await waitFor(() => zcode.remote.state.url === undefined, { message: 'the endpoint to stop' });
    await closed;
    assert.equal(await portOpen(port), false, 'the port is still open');
  });

  it('Toggle Remote Access turns it on and off again', async () => {
    await vscode.commands.executeCommand('zcode.remote.toggle', true);
    await waitFor(() => zcode.remote.state.url, { message: 'listening' });
    assert.equal(vscode.workspace.getConfiguration('zcode').get('remote.enabled'), true);
    await vscode.commands.executeCommand('zcode.remote.toggle', false);
    await waitFor(() => zcode.remote.state.url === undefined, { message: 'stopped' });
  });
});
