// activate() is fast and lazy: views, commands and the status bar exist, but neither the bridge nor
// zcode is started until something needs them.
const assert = require('node:assert/strict');
const vscode = require('vscode');
const { api, received, simProcesses } = require('./zcodeHelpers.cjs');

describe('ZCode activation is lazy', () => {
  it('nothing activates the extension before it is used (no "*", no onStartupFinished)', () => {
    const ext = vscode.extensions.getExtension('zcode-community.zcode-vscode');
    const events = ext.packageJSON.activationEvents || [];
    assert.deepEqual(events.filter((e) => e === '*' || e === 'onStartupFinished'), []);
    // This file runs first in the extension host: no ZCode view was opened and no command was run.
    assert.equal(ext.isActive, false, 'the extension activated before anything used it');
  });

  it('activation does not start zcode (no bridge, no simulator process, nothing received)', async () => {
    const zcode = await api();
    assert.equal(zcode.host.state, 'notStarted');
    assert.equal(zcode.host.bridge, undefined, 'the bridge was created during activation');
    assert.deepEqual(simProcesses(), [], 'a zcode process is running after activation');
    assert.equal(received().length, 0, 'zcode received messages during activation');
  });

  it('registers the palette commands of sessions, goals, remote access and background tasks', async () => {
    const commands = new Set(await vscode.commands.getCommands(true));
    const expected = [
      'zcode.newSession', 'zcode.resumeSession', 'zcode.forkSession', 'zcode.rewind', 'zcode.compact',
      'zcode.goal.set', 'zcode.goal.show', 'zcode.goal.replace', 'zcode.goal.clear', 'zcode.goal.pause', 'zcode.goal.resume',
      'zcode.steer', 'zcode.setMode', 'zcode.setThoughtLevel', 'zcode.setModel', 'zcode.cancelTurn', 'zcode.restart',
      'zcode.showLogs', 'zcode.remote.toggle', 'zcode.remote.copyUrl', 'zcode.remote.rotateToken', 'zcode.locate',
      'zcode.backgroundTasks.cancel', 'zcode.backgroundTasks.openOutput',
    ];
    assert.deepEqual(expected.filter((c) => !commands.has(c)), []);
  });

  it('every contributed command is in the "ZCode" category', () => {
    const ext = vscode.extensions.getExtension('zcode-community.zcode-vscode');
    for (const c of ext.packageJSON.contributes.commands) assert.equal(c.category, 'ZCode', c.command);
  });

  it('the status bar says zcode is not started', async () => {
    const zcode = await api();
    assert.match(zcode.statusBar.text, /ZCode/);
    assert.equal(zcode.host.state, 'notStarted');
  });
});
