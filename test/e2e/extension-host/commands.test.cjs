// Each palette command does what it says: asserted on what the simulator (as zcode) received.
// Commands take optional arguments so they run here without QuickPicks / InputBoxes.
const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, mark, waitFor, waitForReceived, receivedSince, prompt, newSession } = require('./zcodeHelpers.cjs');

describe('ZCode palette commands', function () {
  this.timeout(60_000);
  let zcode;
  let sessionId;
  /** The zcode session id behind the active ACP session (learned from what zcode received). */
  let zcodeSessionId;

  before(async () => {
    zcode = await api();
  });

  it('New Session creates the active session; the first prompt creates it in zcode', async () => {
    const since = mark();
    sessionId = await newSession();
    assert.equal(zcode.sessions.activeSessionId, sessionId);
    const response = await prompt(zcode, sessionId, 'hello [scenario:text]');
    assert.equal(response.stopReason, 'end_turn');
    const create = await waitForReceived('session/create', since);
    assert.equal(create.params.workspace.workspacePath, vscode.workspace.workspaceFolders[0].uri.fsPath);
    const send = await waitForReceived('session/send', since);
    zcodeSessionId = send.params.sessionId;
    assert.match(JSON.stringify(send.params.content), /hello/);
  });

  it('Set Mode / Set Thought Level / Set Model go to zcode', async () => {
    // Refreshed: a lazy session/new knows no model yet; zcode created the session in the test above.
    const options = await zcode.registry.fetchConfigOptions(sessionId, true);
    const pickOther = (category) => {
      const option = options.find((o) => o.category === category);
      assert.ok(option, `no ${category} config option in ${JSON.stringify(options)}`);
      const values = option.options.flatMap((o) => ('options' in o ? o.options : [o])).map((o) => o.value);
      return values.find((v) => v !== option.currentValue);
    };
    const mode = pickOther('mode');
    let since = mark();
    await vscode.commands.executeCommand('zcode.setMode', mode);
    await waitForReceived('session/setMode', since, (p) => p.mode === mode);
    const level = pickOther('thought_level');
    since = mark();
    await vscode.commands.executeCommand('zcode.setThoughtLevel', level);
    await waitForReceived('session/setThoughtLevel', since, (p) => p.thoughtLevel === level);
    const model = pickOther('model');
    since = mark();
    await vscode.commands.executeCommand('zcode.setModel', model);
    await waitForReceived('session/setModel', since, (p) => p.modelId === model);
    const after = zcode.sessions.configOptions(sessionId);
    assert.equal(after.find((o) => o.category === 'mode').currentValue, mode);
  });

  it('Goal: Set / Show / Pause / Resume / Replace / Clear', async () => {
    const since = mark();
    await vscode.commands.executeCommand('zcode.goal.set', 'make the tests pass');
    await waitForReceived('session/goal', since, (p) => p.action === 'set' && p.objective === 'make the tests pass');
    const shown = await vscode.commands.executeCommand('zcode.goal.show');
    assert.match(JSON.stringify(shown), /make the tests pass/);
    await waitForReceived('session/goal', since, (p) => p.action === 'show');
    await vscode.commands.executeCommand('zcode.goal.pause');
    await waitForReceived('session/goal', since, (p) => p.action === 'pause');
    await vscode.commands.executeCommand('zcode.goal.resume');
    await waitForReceived('session/goal', since, (p) => p.action === 'resume');
    await vscode.commands.executeCommand('zcode.goal.replace', 'ship it');
    await waitForReceived('session/goal', since, (p) => p.action === 'replace' && p.objective === 'ship it');
    await vscode.commands.executeCommand('zcode.goal.clear');
    await waitForReceived('session/goal', since, (p) => p.action === 'clear');
  });

  it('Steer Running Turn reaches the running turn; Cancel Turn stops it', async () => {
    const since = mark();
    const turn = prompt(zcode, sessionId, 'work for a while [scenario:long]');
    await waitFor(() => zcode.host.state === 'turnRunning', { message: 'turn running' });
    await waitForReceived('session/send', since);
    await vscode.commands.executeCommand('zcode.steer', 'also update the changelog');
    await waitForReceived('session/steer', since, (p) => p.content === 'also update the changelog');
    await vscode.commands.executeCommand('zcode.cancelTurn');
    await waitForReceived('session/stop', since);
    const response = await turn;
    assert.equal(response.stopReason, 'cancelled');
    await waitFor(() => zcode.host.state === 'ready', { message: 'ready after the turn' });
  });

  it('Compact Conversation waits for the outcome', async () => {
    const since = mark();
    const result = await vscode.commands.executeCommand('zcode.compact');
    assert.ok(result, 'compact reported no outcome (see the logs)');
    await waitForReceived('session/compact', since);
  });

  it('Fork Session forks from the latest checkpoint and makes the fork active', async () => {
    const since = mark();
    const forked = await vscode.commands.executeCommand('zcode.forkSession', { latest: true });
    assert.equal(typeof forked, 'string');
    assert.notEqual(forked, sessionId);
    assert.equal(zcode.sessions.activeSessionId, forked);
    const fork = await waitForReceived('session/fork', since);
    assert.equal(fork.params.sessionId, zcodeSessionId);
    assert.deepEqual(fork.params.target, { kind: 'latestCheckpoint' });
  });

  it('Resume Session loads a session by id (history replayed from zcode)', async () => {
    const since = mark();
    const resumed = await vscode.commands.executeCommand('zcode.resumeSession', sessionId);
    assert.equal(resumed, sessionId);
    assert.equal(zcode.sessions.activeSessionId, sessionId);
    await waitForReceived('session/messages', since);
  });

  it('Rewind goes to a picked checkpoint', async () => {
    const { checkpoints } = await zcode.host.request('_zcode/session/checkpoints', { sessionId });
    assert.ok(checkpoints.length > 0, 'no checkpoints');
    const first = checkpoints[0].checkpointId;
    const since = mark();
    const result = await vscode.commands.executeCommand('zcode.rewind', first);
    assert.ok(result, 'rewind failed (see the logs)');
    const rewind = await waitForReceived('session/rewind', since);
    assert.deepEqual(rewind.params.target, { kind: 'checkpoint', checkpointId: first });
  });

  it('Restart zcode starts a fresh process and the open session resumes on it', async () => {
    const since = mark();
    await vscode.commands.executeCommand('zcode.restart');
    await waitFor(() => zcode.host.state === 'ready', { message: 'ready after restart' });
    await waitForReceived('session/resume', since, (p) => p.sessionId === zcodeSessionId);
    const response = await prompt(zcode, sessionId, 'still there? [scenario:text]');
    assert.equal(response.stopReason, 'end_turn');
    assert.ok(receivedSince('session/send', since).length >= 1);
  });
});
