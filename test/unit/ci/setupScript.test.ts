// .ci/setup-vscode.sh is what `npm test` and `npm run demo` run on a fresh machine. These tests run the
// real script (and its sourced helper) with bash; the two situations a developer can hit but this machine
// cannot have for real (no apt, no root) are reached by a PATH without apt-get and by dropping to `nobody`.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test, type TestContext } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../../..');
const SETUP = join(ROOT, '.ci/setup-vscode.sh');
const scratch = mkdtempSync(join(tmpdir(), 'zcode-setup-test-'));
chmodSync(scratch, 0o755);
after(() => rmSync(scratch, { recursive: true, force: true }));

/** An environment that looks like the one `npm test` gives its children (npm 10 under Node 20). */
const npmScriptEnv = {
  npm_config_user_agent: 'npm/10.8.2 node/v20.20.2 linux x64 workspaces/false',
  npm_config_local_prefix: ROOT,
  npm_config_node_gyp: '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  npm_package_name: 'zcode-vscode',
  npm_lifecycle_event: 'test',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_config_registry: 'https://registry.example.invalid/',
  npm_config_https_proxy: 'http://proxy.example.invalid:3128',
  npm_config_cache: '/tmp/npm-cache-of-the-user',
  INIT_CWD: ROOT,
};

test('clean_npm drops every inherited npm_* variable but keeps registry, proxy and cache settings', () => {
  const r = spawnSync('bash', ['-c', `. "${join(ROOT, '.ci/clean-npm-env.sh')}"; clean_npm env`], {
    env: { ...process.env, ...npmScriptEnv, PATH: `${ROOT}/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:${process.env.PATH}` },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const env = new Map(r.stdout.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  for (const gone of ['npm_config_user_agent', 'npm_config_local_prefix', 'npm_config_node_gyp', 'npm_package_name', 'npm_lifecycle_event', 'npm_execpath', 'INIT_CWD']) {
    assert.equal(env.has(gone), false, `${gone} must not reach the inner npm`);
  }
  assert.equal(env.get('npm_config_registry'), npmScriptEnv.npm_config_registry);
  assert.equal(env.get('npm_config_https_proxy'), npmScriptEnv.npm_config_https_proxy);
  assert.equal(env.get('npm_config_cache'), npmScriptEnv.npm_config_cache);
  const path = env.get('PATH') ?? '';
  assert.ok(!path.includes('node_modules/.bin') && !path.includes('node-gyp-bin'), `PATH without the outer npm's bins: ${path}`);
  assert.ok(path.split(':').includes('/usr/bin'), 'the rest of PATH stays');
});

test('without apt-get it says exactly which packages to install and how to use a writable cache', () => {
  // a PATH with just what the script needs before the apt step: no apt-get, no sudo, no compilers
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  for (const tool of ['id', 'mkdir', 'date', 'dirname']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  const r = spawnSync('/bin/bash', [SETUP], {
    env: { HOME: scratch, PATH: bin, VSCODE_CI_CACHE: join(scratch, 'cache'), CHROME: join(scratch, 'no-chromium') },
    encoding: 'utf8',
  });
  assert.equal(r.status, 1, `exit status (stderr: ${r.stderr})`);
  assert.match(r.stderr, /missing system packages: chromium .*\(apt-get is not available\)/);
  assert.match(r.stderr, /sudo apt-get install -y chromium/);
  assert.match(r.stderr, /set CHROME=/);
  assert.match(r.stderr, /export VSCODE_CI_CACHE=/);
  assert.doesNotMatch(r.stdout, /apt-get install/, 'nothing was attempted');
});

const root = process.getuid?.() === 0;
const nobody = ['--reuid=65534', '--regid=65534', '--clear-groups'];

/**
 * The script as `nobody` can run it. The checkout may live where `nobody` cannot read (a clone in
 * /root, or under a private `mktemp -d`), so what the script needs (itself and the helper it sources
 * from its own folder) is copied to a world-readable folder in the scratch directory. When even that
 * is out of `nobody`'s reach (a private TMPDIR), the reason is returned for the test to skip with.
 */
function nobodysSetup(): { script: string } | { unreachable: string } {
  const dir = join(scratch, 'ci');
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const file of ['setup-vscode.sh', 'clean-npm-env.sh']) {
    copyFileSync(join(ROOT, '.ci', file), join(dir, file));
    chmodSync(join(dir, file), 0o644);
  }
  const script = join(dir, 'setup-vscode.sh');
  const readable = spawnSync('setpriv', [...nobody, '/usr/bin/test', '-r', script], { encoding: 'utf8' });
  return readable.status === 0 ? { script } : { unreachable: `nobody cannot read ${script} (is TMPDIR private?)` };
}

function asNobody(t: TestContext, args: string[], env: Record<string, string>): SpawnSyncReturns<string> | undefined {
  const setup = nobodysSetup();
  if ('unreachable' in setup) {
    t.skip(setup.unreachable);
    return undefined;
  }
  return spawnSync('setpriv', [...nobody, '/bin/bash', setup.script, ...args], {
    env: { PATH: '/usr/bin:/bin', HOME: scratch, ...env },
    encoding: 'utf8',
    input: '', // no terminal: sudo may never prompt
  });
}

test('without root or sudo: an unwritable cache gets the VSCODE_CI_CACHE fix', { skip: !root && 'needs root to drop to nobody' }, (t) => {
  const r = asNobody(t, [], { VSCODE_CI_CACHE: '/opt/zcode-setup-test-unwritable' });
  if (!r) return;
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot write the toolchain cache \/opt\/zcode-setup-test-unwritable \(not root, and no password-less sudo\)/);
  assert.match(r.stderr, /export VSCODE_CI_CACHE=\$HOME\/\.cache\/zcode-vscode-ci/);
});

test('without root or sudo: missing packages are named, never installed', { skip: !root && 'needs root to drop to nobody' }, (t) => {
  const cache = join(scratch, 'nobody-cache');
  mkdirSync(cache);
  chmodSync(cache, 0o777);
  const r = asNobody(t, [], { VSCODE_CI_CACHE: cache, CHROME: join(scratch, 'no-chromium') });
  if (!r) return;
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /missing system packages: chromium.*\(installing them needs root or password-less sudo\)/);
  assert.match(r.stderr, /sudo apt-get install -y chromium/);
});
