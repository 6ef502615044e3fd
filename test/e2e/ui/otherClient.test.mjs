// Another ACP client in the chat's session, in the real VS Code (code-server + Chromium, the extension
// from the source tree, the real bridge, the simulator as zcode). Remote access is turned on from the
// palette; an official SDK client connects over WebSocket with the copied URL's token, calls itself
// "toad-like", loads the chat's session and sends prompts into it:
//   - its long prompt runs in the chat, which did not start it: its text shows as a user message (the
//     bridge's echo) and the chat shows the turn running, with Stop;
//   - its second prompt waits behind it: the chat shows it as a chip "from toad-like", without Remove;
//   - Stop in the chat cancels the session: the remote client's running and waiting prompts both
//     answer `cancelled`, the chat's Stop and the chip go.
// Every message the bridge sends that client is checked against ACP's schema.
// Screenshots: $ARTIFACTS/ui/other-*.png.
//
//   node --test test/e2e/ui/otherClient.test.mjs        (after `npm run build`)
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { tsImport } from 'tsx/esm/api';
import { log, openViewContainer, openWorkbench, roomForTheChat, runCommand, screenshot, step, waitUntil, webviewFrame } from './harness.mjs';

/** The remote test client of the integration tests: SDK `client()`, the SDK's ws stream, a schema-checking tap. */
const { remoteClient } = await tsImport('../../integration/remote/harness.ts', import.meta.url);

const T = { timeout: 180_000 };
const NAME = 'toad-like';
/** A turn that outlasts the test's actions (40 rounds, each held >= 250 ms by the simulator even at speed 0). */
const LONG = '[scenario:long:40]';
const LONG_END = 'All 40 modules are done';
const CHAT_PROMPT = '[scenario:text] hello from the chat';
const REMOTE_LONG = `${LONG} remote long turn`;
const REMOTE_WAITING = 'remote waiting prompt';

let wb;
let chat;
/** The remote client (set once it connected). */
let remote;
/** Where the remote endpoint listens, from the copied URL. */
let endpoint;

before(async () => {
  // Port 0: any free port (parallel runs never collide); the copied URL names the one in use.
  wb = await openWorkbench({ name: 'other', settings: { 'zcode.remote.port': 0 } });
  // Copy Remote Access URL writes through the browser's clipboard; the test reads it there.
  await wb.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: wb.cs.origin });
  await openViewContainer(wb.page, 'ZCode');
  await roomForTheChat(wb.page, 160);
  chat = webviewFrame(wb.page);
  await chat.locator('textarea.prompt-input').waitFor({ timeout: 60_000 });
  log('other: chat ready');
});

after(async () => {
  await remote?.close();
  await wb?.close();
});

/**
 * Settles with `promise`, or rejects after `ms`: waits on the remote client's requests are bounded.
 * The timer goes as soon as the promise settles.
 */
function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A remote `session/prompt`, tracked: `settled` turns true when it is answered. */
function remotePrompt(sessionId, text) {
  const tracked = { settled: false };
  tracked.answer = remote.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }).finally(() => {
    tracked.settled = true;
  });
  // Asserted later; never an unhandled rejection meanwhile.
  tracked.answer.catch(() => {});
  return tracked;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (a round trip, not a wait). */
function portOpen(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The text of a `session/update` content block, '' for anything else. */
const textOf = (content) => (content?.type === 'text' ? content.text : '');

test("another client's prompts in the chat's session: its turn runs with Stop, its waiting prompt is a chip; Stop cancels both", T, () =>
  step(wb, 'other-client', async (page) => {
    // 1. The chat's own prompt: its session exists in zcode, with one turn.
    const input = chat.locator('textarea.prompt-input');
    await input.fill(CHAT_PROMPT);
    await input.press('Enter');
    await chat.locator('.message.user', { hasText: 'hello from the chat' }).waitFor({ timeout: 30_000 });
    await chat.locator('.message.agent h1, .message.agent h2, .message.agent h3').first().waitFor({ timeout: 30_000 });
    await chat.locator('button.send').waitFor({ timeout: 30_000 });

    // 2. Remote access on; the URL with its token from the clipboard.
    await runCommand(page, 'ZCode: Toggle Remote Access');
    await runCommand(page, 'ZCode: Copy Remote Access URL');
    const copied = await waitUntil(async () => {
      const text = await page.evaluate(() => navigator.clipboard.readText()).catch(() => '');
      return text.startsWith('ws://') && text;
    }, { timeout: 20_000, what: 'the remote URL on the clipboard' });
    endpoint = new URL(copied);
    const token = endpoint.searchParams.get('token');
    assert.ok(token, 'the copied URL carries the token');
    endpoint.searchParams.delete('token');
    log(`other: remote access at ${endpoint}`);

    // The token goes in the Authorization header (the preferred way), not in the URL.
    remote = remoteClient(endpoint.toString(), { header: token }, { name: NAME });
    await within(remote.initialize(), 15_000, 'initialize');
    const { sessions } = await within(remote.agent.request('session/list', { cwd: wb.folder }), 15_000, 'session/list');
    assert.ok(sessions.length >= 1, `the remote client sees the chat's session: ${JSON.stringify(sessions)}`);
    const newest = sessions.reduce((a, b) => (String(b.updatedAt ?? '') > String(a.updatedAt ?? '') ? b : a));
    const sessionId = newest.sessionId;
    await within(remote.agent.request('session/load', { sessionId, cwd: wb.folder, mcpServers: [] }), 30_000, 'session/load');
    assert.ok(
      remote.updates.some((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'user_message_chunk' && textOf(n.update.content).includes('hello from the chat')),
      "the loaded session is the chat's: its history holds the chat's prompt",
    );

    // 3. The remote client's long prompt: the chat shows it as a user message and the turn running.
    const long = remotePrompt(sessionId, REMOTE_LONG);
    await chat.locator('.message.user', { hasText: 'remote long turn' }).waitFor({ timeout: 30_000 });
    await chat.locator('button.stop').waitFor({ timeout: 30_000 });
    await chat.locator('.message.agent', { hasText: 'Step 1.' }).last().waitFor({ timeout: 30_000 });
    await screenshot(page, 'other-1-remote-turn-running');

    // 4. Its second prompt waits: a chip named after the client, with no Remove.
    const waiting = remotePrompt(sessionId, REMOTE_WAITING);
    const chip = chat.locator('.chips.queue .chip.other', { hasText: REMOTE_WAITING });
    await chip.waitFor({ timeout: 15_000 });
    assert.equal(await chip.locator('.chip-from').innerText(), `from ${NAME}`, 'the chip names the client that sent it');
    assert.equal(await chip.locator('button').count(), 0, "another client's chip has no Remove");
    assert.equal(await chat.locator('.chips.queue .chip').count(), 1, 'one chip: the waiting prompt');
    await screenshot(page, 'other-2-chip-from-remote');

    // 5. Stop in the chat: both remote prompts answer cancelled; the Stop and the chip go.
    assert.equal(long.settled, false, 'the long turn was answered before Stop: the test did not stop it');
    assert.equal(await chat.locator('.message.agent', { hasText: LONG_END }).count(), 0, 'the long turn ended by itself before Stop');
    await chat.locator('button.stop').click();
    assert.equal((await within(long.answer, 30_000, 'the long prompt to answer')).stopReason, 'cancelled', 'the running remote prompt answers cancelled');
    assert.equal((await within(waiting.answer, 30_000, 'the waiting prompt to answer')).stopReason, 'cancelled', 'the waiting remote prompt answers cancelled');
    await chat.locator('button.send').waitFor({ timeout: 30_000 });
    assert.equal(await chat.locator('button.stop').count(), 0, 'the Stop button went');
    await chip.waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await chat.locator('.chips.queue .chip').count(), 0, 'no chip is left');
    assert.equal(await chat.locator('.message.user', { hasText: REMOTE_WAITING }).count(), 0, 'the cancelled waiting prompt never became a message');
    await screenshot(page, 'other-3-stopped');

    assert.deepEqual(remote.tap.violations, [], 'every message the bridge sent the remote client follows the ACP schema');

    // 6. The remote client leaves; remote access off again closes the port.
    await remote.close();
    remote = undefined;
    await runCommand(page, 'ZCode: Toggle Remote Access');
    await waitUntil(async () => !(await portOpen(Number(endpoint.port))), { timeout: 20_000, what: 'the remote port to close' });
  }));
