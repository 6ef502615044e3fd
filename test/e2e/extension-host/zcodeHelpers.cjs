// Helpers for the ZCode extension-host tests (mocha, inside the real VS Code extension host).
// Not a test file itself (the harness runs *.test.cjs only).
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const vscode = require('vscode');

const os = require('node:os');
const path = require('node:path');

const EXTENSION_ID = 'zcode-community.zcode-vscode';
const RECORD = process.env.ZCODE_SIM_RECORD;

// Real zcode keeps its sessions on disk; so must the simulator, or a restarted process forgets them.
// Set before any test starts zcode (the helpers load with the test files).
if (!process.env.ZCODE_SIM_STATE_DIR) process.env.ZCODE_SIM_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'zcode-sim-state-'));

/** The extension's API (`activate()`'s return value), activating it if needed. */
async function api() {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** Every message the simulator received so far (all simulator processes of this run), in order. */
function received() {
  if (!RECORD || !fs.existsSync(RECORD)) return [];
  return fs
    .readFileSync(RECORD, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg)
    .map((entry) => entry.msg);
}

/** A position in the record: messages after it are new. */
function mark() {
  return received().length;
}

async function waitFor(check, { timeout = 15_000, interval = 50, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, interval));
  }
  throw new Error(`timed out waiting for ${message}${last ? `: ${last.message}` : ''}`);
}

/** The first message with `method` the simulator received after `since` (and matching `where`). */
function waitForReceived(method, since, where = () => true, timeout = 15_000) {
  return waitFor(() => received().slice(since).find((m) => m.method === method && where(m.params ?? {})), { timeout, message: `zcode to receive ${method}` });
}

/** Messages with `method` received after `since`. */
function receivedSince(method, since) {
  return received()
    .slice(since)
    .filter((m) => m.method === method);
}

/** Pids of live simulator processes started by this test run (matched by their record file). */
function simProcesses() {
  const pids = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes('zcode-sim.mjs')) continue;
      const environ = fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0');
      if (RECORD && !environ.includes(`ZCODE_SIM_RECORD=${RECORD}`)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie is gone, just not reaped
      pids.push(Number(name));
    } catch {
      // raced with exit, or not ours to read
    }
  }
  return pids;
}

/** A text prompt through the extension's ACP client; resolves with the PromptResponse. */
function prompt(zcode, sessionId, text) {
  return zcode.host.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
}

/** A fresh session made active through the palette command. */
async function newSession() {
  const id = await vscode.commands.executeCommand('zcode.newSession');
  assert.equal(typeof id, 'string', 'zcode.newSession returned no session id');
  return id;
}

/** Sets the user (global) setting `zcode.<key>`; `undefined` removes it again. */
async function setSetting(key, value) {
  await vscode.workspace.getConfiguration('zcode').update(key, value, vscode.ConfigurationTarget.Global);
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

module.exports = { EXTENSION_ID, RECORD, api, received, mark, waitFor, waitForReceived, receivedSince, simProcesses, prompt, newSession, setSetting, portOpen };
