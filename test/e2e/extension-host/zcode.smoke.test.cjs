// Smoke checks that also run against the INSTALLED .vsix (label "vsix"): the packaged extension
// activates lazily, talks to zcode (the simulator) through its in-process ACP client, and its
// commands and Background Tasks tree work.
const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, mark, waitFor, waitForReceived, prompt, simProcesses } = require('./zcodeHelpers.cjs');

describe(`ZCode smoke (${process.env.ZCODE_E2E_MODE || 'unknown mode'})`, function () {
  this.timeout(60_000);

  it('activation does not start zcode', async () => {
    const zcode = await api();
    assert.ok(['notStarted', 'ready'].includes(zcode.host.state));
    if (zcode.host.state === 'notStarted') assert.deepEqual(simProcesses(), []);
  });

  it('New Session + a prompt reach zcode; Goal: Set goes through the bridge', async () => {
    const zcode = await api();
    const since = mark();
    const sessionId = await vscode.commands.executeCommand('zcode.newSession');
    assert.equal(typeof sessionId, 'string');
    const response = await prompt(zcode, sessionId, 'smoke [scenario:text]');
    assert.equal(response.stopReason, 'end_turn');
    await waitForReceived('session/send', since);
    await vscode.commands.executeCommand('zcode.goal.set', 'smoke goal');
    await waitForReceived('session/goal', since, (p) => p.objective === 'smoke goal');
  });

  it('the Background Tasks tree shows a background task', async () => {
    const zcode = await api();
    const sessionId = await vscode.commands.executeCommand('zcode.newSession');
    await prompt(zcode, sessionId, 'agent [scenario:subagent-bg]');
    const id = await waitFor(() => zcode.backgroundTasks.getChildren()[0], { message: 'a task' });
    assert.equal(zcode.backgroundTasks.model.get(id).kind, 'agent');
  });
});
