// The Background Tasks tree lists the active session's background tasks (from the bridge's
// `_zcode/session/backgroundTasks` notifications) and Cancel reaches zcode.
const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, mark, waitFor, waitForReceived, prompt, newSession } = require('./zcodeHelpers.cjs');

describe('ZCode background tasks tree', function () {
  this.timeout(60_000);
  let zcode;
  let speed;

  before(async () => {
    zcode = await api();
    // At ZCODE_SIM_SPEED=0 a background task finishes at once; slow the simulator down so there is
    // a running task to cancel (a fresh zcode process picks the environment up).
    speed = process.env.ZCODE_SIM_SPEED;
    process.env.ZCODE_SIM_SPEED = '4';
    await vscode.commands.executeCommand('zcode.restart');
  });

  after(async () => {
    process.env.ZCODE_SIM_SPEED = speed;
    await vscode.commands.executeCommand('zcode.restart');
  });

  it('lists a running shell task with its description, then Cancel reaches zcode and the item turns cancelled', async () => {
    const sessionId = await newSession();
    const tree = zcode.backgroundTasks;
    const since = mark();
    const turn = prompt(zcode, sessionId, 'build it in the background [scenario:bash-bg]');
    const taskId = await waitFor(() => tree.getChildren()[0], { message: 'a task in the tree' });
    const item = tree.getTreeItem(taskId);
    assert.equal(item.label, 'Build the project');
    assert.match(String(item.description), /running/);
    assert.equal(item.iconPath.id, 'terminal');
    assert.match(item.contextValue, /^backgroundTask:running/);
    assert.ok(item.tooltip.value.replace(/\\/g, '').includes(taskId), 'the tooltip shows the task id');

    await vscode.commands.executeCommand('zcode.backgroundTasks.cancel', taskId);
    const cancel = await waitForReceived('session/cancelBackgroundTask', since);
    assert.equal(cancel.params.taskId, taskId);
    await waitFor(() => tree.model.get(taskId)?.status === 'cancelled', { message: 'the item to turn cancelled' });
    assert.match(String(tree.getTreeItem(taskId).description), /cancelled/);
    assert.doesNotMatch(tree.getTreeItem(taskId).contextValue, /running/, 'no Cancel action on a cancelled task');
    await turn;
  });

  it('lists a sub-agent task with the agent icon and opens its output', async () => {
    const sessionId = await newSession();
    const tree = zcode.backgroundTasks;
    await prompt(zcode, sessionId, 'look for TODOs [scenario:subagent-bg]');
    const taskId = await waitFor(() => tree.getChildren()[0], { message: 'a sub-agent task in the tree' });
    const task = tree.model.get(taskId);
    assert.equal(task.kind, 'agent');
    assert.equal(tree.getTreeItem(taskId).iconPath.id === 'hubot' || task.status !== 'running', true);
    if (task.outputPath) {
      await waitFor(() => require('node:fs').existsSync(task.outputPath), { message: 'the output file' });
      await vscode.commands.executeCommand('zcode.backgroundTasks.openOutput', taskId);
      await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === task.outputPath, { message: 'the output file to open' });
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  it('switching the active session shows that session\'s tasks only', async () => {
    const tree = zcode.backgroundTasks;
    await newSession();
    assert.deepEqual(tree.getChildren(), []);
  });
});
