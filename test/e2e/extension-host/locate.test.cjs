// zcode cannot be found → the not-found state (welcome view context key, status bar, the tree's
// message with what was tried) and "Locate zcode…" writing `zcode.path`; zcode older than 0.14.8 →
// a clear "too old" message.
const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, waitFor, prompt, newSession, setSetting } = require('./zcodeHelpers.cjs');

describe('ZCode locating zcode', function () {
  this.timeout(60_000);
  let zcode;
  let simPath;

  before(async () => {
    zcode = await api();
    simPath = vscode.workspace.getConfiguration('zcode').get('path');
    assert.match(simPath, /zcode-sim\.mjs$/);
  });

  after(async () => {
    await setSetting('path', simPath);
  });

  it('a missing zcode.path shows the not-found state with what was tried', async () => {
    const missing = '/nonexistent/zcode-for-test';
    await setSetting('path', missing);
    const ok = await vscode.commands.executeCommand('zcode.checkInstallation');
    assert.equal(ok, false);
    const message = await waitFor(() => zcode.locate.message, { message: 'the not-found state' });
    assert.ok(message.includes(missing), `the message does not say what was tried: ${message}`);
    assert.match(zcode.statusBar.text, /warning/);
    // The Background Tasks view offers the ways out as items (its message says what was tried).
    assert.deepEqual(zcode.backgroundTasks.getChildren(), ['zcode-setup:locate', 'zcode-setup:install', 'zcode-setup:check']);
    assert.equal(zcode.backgroundTasks.getTreeItem('zcode-setup:locate').command.command, 'zcode.locate');
    assert.equal(zcode.host.state, 'notStarted');

    // A command that needs zcode lands in the same state instead of a bare error.
    await vscode.commands.executeCommand('zcode.newSession');
    assert.ok(zcode.locate.message);
  });

  it('"Locate zcode…" writes zcode.path, leaves the not-found state and starts zcode', async () => {
    const located = await vscode.commands.executeCommand('zcode.locate', simPath);
    assert.equal(located, simPath);
    assert.equal(vscode.workspace.getConfiguration('zcode').get('path'), simPath);
    await waitFor(() => zcode.locate.message === undefined, { message: 'the not-found state to clear' });
    assert.ok(!zcode.backgroundTasks.getChildren().some((id) => id.startsWith('zcode-setup:')));
    await waitFor(() => zcode.host.state === 'ready', { message: 'zcode ready' });
    const sessionId = await newSession();
    const response = await prompt(zcode, sessionId, 'hi [scenario:text]');
    assert.equal(response.stopReason, 'end_turn');
  });

  it('zcode older than 0.14.8 gets a clear "too old" message', async () => {
    const profile = process.env.ZCODE_SIM_PROFILE;
    process.env.ZCODE_SIM_PROFILE = '0.14.6';
    try {
      await vscode.commands.executeCommand('zcode.restart');
      zcode.commands.lastError = undefined;
      await vscode.commands.executeCommand('zcode.newSession');
      // The first real use (creating the zcode session and subscribing) finds out.
      await vscode.commands.executeCommand('zcode.goal.show');
      const error = await waitFor(() => zcode.commands.lastError, { message: 'an error to be reported' });
      assert.match(error.message, /0\.14\.8 or newer/);
    } finally {
      if (profile === undefined) delete process.env.ZCODE_SIM_PROFILE;
      else process.env.ZCODE_SIM_PROFILE = profile;
      await vscode.commands.executeCommand('zcode.restart');
    }
  });
});

describe('ZCode on a zcode build without rewind (0.16)', function () {
  this.timeout(60_000);

  it('Rewind says plainly that this zcode version does not support it', async () => {
    const zcode = await api();
    const profile = process.env.ZCODE_SIM_PROFILE;
    process.env.ZCODE_SIM_PROFILE = '0.16';
    try {
      await vscode.commands.executeCommand('zcode.restart');
      const sessionId = await newSession();
      assert.equal((await prompt(zcode, sessionId, 'hi [scenario:text]')).stopReason, 'end_turn');
      // What this build can do is probed once zcode runs: Rewind is then refused before the click,
      // with the reason, and nothing is sent to zcode.
      await waitFor(() => zcode.features.capabilities.probed && !zcode.features.capabilities.v4, { message: 'the 0.16 build probed' });
      zcode.commands.lastError = undefined;
      const result = await vscode.commands.executeCommand('zcode.rewind', { latest: true });
      assert.equal(result, undefined);
      const error = await waitFor(() => zcode.commands.lastError, { message: 'an error to be reported' });
      assert.equal(error.what, 'Rewind');
      assert.match(error.message, /^Rewind is not available: this zcode build has no v4 commands/);
    } finally {
      if (profile === undefined) delete process.env.ZCODE_SIM_PROFILE;
      else process.env.ZCODE_SIM_PROFILE = profile;
      await vscode.commands.executeCommand('zcode.restart');
    }
  });
});
