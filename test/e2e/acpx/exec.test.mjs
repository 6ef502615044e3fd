// zcode-acp (dist/cli.js) driven by a third-party ACP client: the real `acpx` from npm, installed by
// .ci/setup-vscode.sh into the toolchain cache and run on its Node 24 (acpx needs Node >= 22.13).
// The bridge runs on this Node with the simulator as zcode, in a scratch HOME and workspace.
//
//   node --test test/e2e/acpx/exec.test.mjs      (needs `node esbuild.mjs` and the toolchain)
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { acpxRunner } from './acpxRunner.mjs';

const acpx = acpxRunner();
after(() => acpx.dispose());

test('acpx exec: one prompt streams the simulator answer and ends the turn', { timeout: 120_000 }, () => {
  const r = acpx.run(['--approve-all', '--format', 'text', 'exec', 'hello from acpx']);
  assert.equal(r.status, 0, r.output);
  assert.match(r.output, /You said: \*\*hello from acpx\*\*/);
  assert.match(r.output, /\[done\] end_turn/);
});

test('acpx exec --deny-all: the denied tool fails, the turn still ends, acpx reports the denial', { timeout: 120_000 }, () => {
  const r = acpx.run(['--deny-all', '--format', 'text', 'exec', '[scenario:permission]']);
  assert.equal(r.status, 5, `acpx's exit code for a denied permission (PERMISSION_DENIED)\n${r.output}`);
  assert.match(r.output, /\[tool\] Run `npm test` \(failed\)/);
  assert.match(r.output, /\[done\] end_turn/);
});

test('acpx exec --approve-all: the approved tool runs and completes', { timeout: 120_000 }, () => {
  const r = acpx.run(['--approve-all', '--format', 'text', 'exec', '[scenario:permission]']);
  assert.equal(r.status, 0, r.output);
  assert.match(r.output, /\[tool\] Run `npm test` \(completed\)/);
  assert.match(r.output, /\[done\] end_turn/);
});
