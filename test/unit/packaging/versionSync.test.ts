/**
 * One version for the three release artifacts: scripts/syncVersion.mjs --check passes on this
 * checkout, and fails — naming the file and field — on a copy where one of them drifted; without
 * --check it writes the root version back into them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const SCRIPT = path.join(ROOT, 'scripts/syncVersion.mjs');
const FILES = ['package.json', 'CHANGELOG.md', 'packages/zcode-acp/package.json', 'registry/zcode/agent.json'];

const sync = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });

test('this checkout: the extension, the npm package, the registry entry and the CHANGELOG agree', () => {
  const r = sync('--check');
  assert.equal(r.status, 0, r.stderr);
});

test('a drifted copy fails --check with the field named, and a sync repairs it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zcode-version-sync-'));
  try {
    for (const f of FILES) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      cpSync(path.join(ROOT, f), path.join(dir, f));
    }
    const rootPkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    rootPkg.version = '7.8.9';
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify(rootPkg));
    const drifted = sync('--check', '--root', dir);
    assert.equal(drifted.status, 1);
    assert.match(drifted.stderr, /packages\/zcode-acp\/package\.json: version is "[\d.]+", package\.json says "7\.8\.9"/);
    assert.match(drifted.stderr, /registry\/zcode\/agent\.json: distribution\.npx\.package is "zcode-acp@[\d.]+", package\.json says "zcode-acp@7\.8\.9"/);
    assert.match(drifted.stderr, /CHANGELOG\.md: no "## \[7\.8\.9\]" section/);

    assert.equal(sync('--root', dir).status, 0);
    writeFileSync(path.join(dir, 'CHANGELOG.md'), `${readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8')}\n## [7.8.9]\n`);
    const repaired = sync('--check', '--root', dir);
    assert.equal(repaired.status, 0, repaired.stderr);
    assert.equal(JSON.parse(readFileSync(path.join(dir, 'registry/zcode/agent.json'), 'utf8')).distribution.npx.package, 'zcode-acp@7.8.9');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
