// Runs inside the real VS Code extension host (mocha bdd, see .vscode-test.mjs). `*.smoke.test.cjs`
// files run twice: against the source tree (label "source") and against the installed .vsix ("vsix").
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');

const EXTENSION_ID = 'zcode-community.zcode-vscode';
const mode = process.env.ZCODE_E2E_MODE;
const repoRoot = process.env.ZCODE_E2E_REPO_ROOT;

describe(`ZCode activation smoke (${mode || 'unknown mode'})`, () => {
  it('the extension is present and its manifest never activates on "*"', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    assert.equal(ext.packageJSON.displayName, 'ZCode');
    // activation only on use (views/commands), never on startup ('*')
    assert.ok(!(ext.packageJSON.activationEvents || []).includes('*'), 'activationEvents must not contain "*"');
  });

  it(mode === 'vsix' ? 'is the INSTALLED .vsix, not the source tree' : 'is loaded from the source tree', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    const extPath = fs.realpathSync(ext.extensionPath);
    if (mode === 'vsix') {
      assert.notEqual(extPath, fs.realpathSync(repoRoot), 'the extension was loaded from the repository, not the .vsix');
      assert.ok(!fs.existsSync(path.join(extPath, 'extension')), 'sources (extension/) must not ship in the .vsix');
      assert.ok(!fs.existsSync(path.join(extPath, 'node_modules')), 'node_modules must not ship in the .vsix');
      assert.ok(fs.existsSync(path.join(extPath, 'dist/extension.js')), 'dist/extension.js missing from the installed .vsix');
    } else if (repoRoot) {
      assert.equal(extPath, fs.realpathSync(repoRoot));
    }
  });

  it('contributes the ZCode view container, Background Tasks view and Show Logs command', () => {
    const { contributes } = vscode.extensions.getExtension(EXTENSION_ID).packageJSON;
    assert.ok(contributes.viewsContainers.activitybar.some((c) => c.id === 'zcode'), 'view container "zcode" missing');
    assert.ok(contributes.views.zcode.some((v) => v.id === 'zcode.backgroundTasks'), 'view zcode.backgroundTasks missing');
    assert.ok(contributes.commands.some((c) => c.command === 'zcode.showLogs'), 'command zcode.showLogs missing');
  });

  it('"ZCode: Show Logs" activates the extension and runs without error', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    await vscode.commands.executeCommand('zcode.showLogs');
    assert.equal(ext.isActive, true, 'the extension is not active after running zcode.showLogs');
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('zcode.showLogs'), 'zcode.showLogs is not registered after activation');
  });

  it('gets the test settings (simulator as zcode, Node 24)', () => {
    const cfg = vscode.workspace.getConfiguration('zcode');
    const simPath = cfg.get('path');
    assert.equal(typeof simPath, 'string');
    assert.match(simPath, /zcode-sim\.mjs$/);
    assert.equal(process.env.ZCODE_SIM_SPEED, '0');
    assert.ok(process.env.ZCODE_SIM_RECORD, 'ZCODE_SIM_RECORD is not set');
  });
});
