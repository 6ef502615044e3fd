// A model picked on the command line on a fresh install (no earlier session, an empty store, a new HOME signed in
// with a Coding Plan key): `acpx --model X exec` needs the agent to announce its models at `session/new`, before any
// prompt. The bridge reads them from a zcode draft it closes again; the prompt must run on X, and zcode must keep
// exactly one session, the prompted one (the draft is never listed nor saved).
//
//   node --test test/e2e/acpx/model.test.mjs      (needs `node esbuild.mjs` and the toolchain)
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { acpxRunner } from './acpxRunner.mjs';

const acpx = acpxRunner();
after(() => acpx.dispose());

// Signed in: a GLM Coding Plan key in zcode's own configuration (made up; the simulator never checks it).
const config = join(acpx.dir, 'home', '.zcode', 'v2', 'config.json');
mkdirSync(join(config, '..'), { recursive: true });
writeFileSync(config, JSON.stringify({ provider: { 'builtin:zai-coding-plan': { enabled: true, options: { apiKey: 'cp-acpx-fresh-install-fake' } } } }));

/** The sessions zcode saved (the simulator's state dir): id and the models its turns ran on. */
function savedSessions() {
  let files = [];
  try {
    files = readdirSync(acpx.simStateDir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return files.map((f) => JSON.parse(readFileSync(join(acpx.simStateDir, f), 'utf8')));
}

test('acpx --model GLM-4.6 exec on a fresh install: the turn runs on GLM-4.6; zcode keeps one session', { timeout: 120_000 }, () => {
  const r = acpx.run(['--approve-all', '--format', 'text', '--model', 'GLM-4.6', 'exec', '[scenario:model] which model?']);
  assert.equal(r.status, 0, r.output);
  assert.doesNotMatch(r.output, /did not advertise model support/);
  assert.match(r.output, /This turn ran on model GLM-4\.6\b/);
  const sessions = savedSessions();
  assert.equal(sessions.length, 1, `only the prompted session is saved, never the draft: ${sessions.map((s) => s.sessionId).join(', ')}`);
  assert.equal(sessions[0].modelId, 'GLM-4.6');
});

test('acpx --model with a model zcode does not offer: refused, nothing runs', { timeout: 120_000 }, () => {
  const before = savedSessions().length;
  const r = acpx.run(['--approve-all', '--format', 'text', '--model', 'GLM-9-imaginary', 'exec', 'hi']);
  assert.notEqual(r.status, 0, r.output);
  assert.doesNotMatch(r.output, /did not advertise model support/);
  assert.equal(savedSessions().length, before, 'no session was started for it');
});
