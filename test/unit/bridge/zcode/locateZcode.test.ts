import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendErrorCode, ZcodeError } from '../../../../bridge/zcode/backend.ts';
import { locateZcode } from '../../../../bridge/zcode/locateZcode.ts';
import type { LocateHost } from '../../../../bridge/zcode/locateZcode.ts';

/** A fake machine: only the listed files exist. */
function host(files: string[], over: Partial<LocateHost> = {}): LocateHost {
  const set = new Set(files);
  return {
    env: {},
    platform: 'linux',
    homedir: '/home/u',
    exists: (f) => set.has(f),
    execPath: '/usr/local/bin/node-current',
    execPathIsElectron: false,
    ...over,
    ...(over.exists ? {} : { exists: (f: string) => set.has(f) }),
  };
}

function notFound(fn: () => unknown): ZcodeError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ZcodeError, `expected ZcodeError, got ${String(error)}`);
    assert.equal(error.code, BackendErrorCode.NotFound);
    return error;
  }
  assert.fail('expected locateZcode to throw');
}

test('explicit zcodePath wins over ZCODE_BIN and PATH', () => {
  const h = host(['/opt/custom/zcode', '/env/zcode', '/usr/bin/zcode'], { env: { ZCODE_BIN: '/env/zcode', PATH: '/usr/bin' } });
  const r = locateZcode({ zcodePath: '/opt/custom/zcode' }, h);
  assert.deepEqual([r.command, r.args], ['/opt/custom/zcode', []]);
});

test('ZCODE_BIN is used when no setting is given', () => {
  const h = host(['/env/zcode', '/usr/bin/zcode'], { env: { ZCODE_BIN: '/env/zcode', PATH: '/usr/bin' } });
  assert.equal(locateZcode({}, h).command, '/env/zcode');
});

test('options.env replaces the host environment for discovery', () => {
  const h = host(['/env/zcode', '/other/zcode'], { env: { ZCODE_BIN: '/env/zcode' } });
  assert.equal(locateZcode({ env: { ZCODE_BIN: '/other/zcode' } }, h).command, '/other/zcode');
});

test('a missing explicit path is an error, not a silent fallback to PATH', () => {
  const h = host(['/usr/bin/zcode'], { env: { PATH: '/usr/bin' } });
  const error = notFound(() => locateZcode({ zcodePath: '/nope/zcode' }, h));
  assert.match(error.message, /zcode\.path is set to "\/nope\/zcode"/);
  assert.match(error.message, /https:\/\/zcode\.z\.ai/);
});

test('~ in an explicit path is the home directory', () => {
  const h = host(['/home/u/bin/zcode']);
  assert.equal(locateZcode({ zcodePath: '~/bin/zcode' }, h).command, '/home/u/bin/zcode');
});

test('a bare explicit name is searched on PATH', () => {
  const h = host(['/b/zcode-nightly'], { env: { PATH: '/a:/b' } });
  assert.equal(locateZcode({ zcodePath: 'zcode-nightly' }, h).command, '/b/zcode-nightly');
});

test('zcode on PATH, first directory wins', () => {
  const h = host(['/b/zcode', '/c/zcode'], { env: { PATH: '/a:/b:/c' } });
  const r = locateZcode({}, h);
  assert.equal(r.command, '/b/zcode');
  assert.deepEqual(r.tried, ['PATH: /a/zcode', 'PATH: /b/zcode']);
});

test('Windows: PATH with PATHEXT, case-insensitive Path variable', () => {
  const h = host(['C:\\tools\\zcode.cmd'], { platform: 'win32', env: { Path: 'C:\\bin;C:\\tools', PATHEXT: '.EXE;.CMD' } });
  assert.equal(locateZcode({}, h).command, 'C:\\tools\\zcode.cmd');
});

test('macOS desktop app, /Applications first then ~/Applications; run with node from PATH', () => {
  const app = '/Users/u/Applications/ZCode.app/Contents/Resources/glm/zcode.cjs';
  const h = host([app, '/usr/local/bin/node'], { platform: 'darwin', homedir: '/Users/u', env: { PATH: '/usr/local/bin' } });
  const r = locateZcode({}, h);
  assert.deepEqual([r.command, r.args], ['/usr/local/bin/node', [app]]);
  assert.ok(r.tried.includes('desktop app: /Applications/ZCode.app/Contents/Resources/glm/zcode.cjs'));
});

test('Windows desktop app under %LOCALAPPDATA%', () => {
  const cli = 'C:\\Users\\u\\AppData\\Local\\Programs\\ZCode\\resources\\glm\\zcode.cjs';
  const h = host([cli, 'C:\\node\\node.exe'], {
    platform: 'win32',
    homedir: 'C:\\Users\\u',
    env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', PATH: 'C:\\node', PATHEXT: '.EXE' },
  });
  assert.deepEqual(locateZcode({}, h), { command: 'C:\\node\\node.exe', args: [cli], tried: locateZcode({}, h).tried });
});

test('Windows machine-wide desktop app under Program Files (after the per-user install)', () => {
  const cli = 'C:\\Program Files\\ZCode\\resources\\glm\\zcode.cjs';
  const h = host([cli, 'C:\\node\\node.exe'], {
    platform: 'win32',
    homedir: 'C:\\Users\\u',
    env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local', ProgramFiles: 'C:\\Program Files', PATH: 'C:\\node', PATHEXT: '.EXE' },
  });
  const r = locateZcode({}, h);
  assert.deepEqual(r.args, [cli]);
  const perUser = r.tried.indexOf('desktop app: C:\\Users\\u\\AppData\\Local\\Programs\\ZCode\\resources\\glm\\zcode.cjs');
  assert.ok(perUser >= 0 && perUser < r.tried.indexOf(`desktop app: ${cli}`));
});

test('Linux desktop app: /opt/ZCode then /usr/share/zcode', () => {
  const cli = '/usr/share/zcode/resources/glm/zcode.cjs';
  const h = host([cli, '/usr/bin/node'], { env: {} });
  const r = locateZcode({}, h);
  assert.deepEqual(r.args, [cli]);
  assert.ok(r.tried.indexOf('desktop app: /opt/ZCode/resources/glm/zcode.cjs') < r.tried.indexOf(`desktop app: ${cli}`));
});

test('script node: nodePath → ZCODE_NODE → PATH', () => {
  const files = ['/x/zcode.mjs', '/n/setting-node', '/n/env-node', '/p/node'];
  const env = { ZCODE_NODE: '/n/env-node', PATH: '/p' };
  assert.equal(locateZcode({ zcodePath: '/x/zcode.mjs', nodePath: '/n/setting-node' }, host(files, { env })).command, '/n/setting-node');
  assert.equal(locateZcode({ zcodePath: '/x/zcode.mjs' }, host(files, { env })).command, '/n/env-node');
  assert.equal(locateZcode({ zcodePath: '/x/zcode.mjs' }, host(files, { env: { PATH: '/p' } })).command, '/p/node');
});

test('.js, .cjs and .mjs are scripts; anything else runs directly', () => {
  for (const ext of ['js', 'cjs', 'mjs', 'CJS']) {
    const cli = `/x/zcode.${ext}`;
    assert.deepEqual(locateZcode({ zcodePath: cli }, host([cli, '/p/node'], { env: { PATH: '/p' } })).args, [cli]);
  }
  assert.deepEqual(locateZcode({ zcodePath: '/x/zcode.sh' }, host(['/x/zcode.sh'])).args, []);
});

test('last resort: process.execPath when it is a plain node', () => {
  const h = host(['/x/zcode.cjs', '/usr/local/bin/node-current'], { env: {} });
  assert.equal(locateZcode({ zcodePath: '/x/zcode.cjs' }, h).command, '/usr/local/bin/node-current');
});

test('Electron execPath (VS Code desktop) is never used as node', () => {
  const h = host(['/x/zcode.cjs', '/Applications/Code.app/Contents/Frameworks/Code Helper (Plugin)'], {
    platform: 'darwin',
    env: {},
    execPath: '/Applications/Code.app/Contents/Frameworks/Code Helper (Plugin)',
    execPathIsElectron: true,
  });
  const error = notFound(() => locateZcode({ zcodePath: '/x/zcode.cjs' }, h));
  assert.match(error.message, /no Node\.js was found/);
  assert.match(error.message, /zcode\.nodePath/);
  assert.match(error.message, /skipped: Electron/);
});

test('well-known node locations are tried before execPath', () => {
  const h = host(['/x/zcode.cjs', '/opt/homebrew/bin/node'], { platform: 'darwin', env: {}, execPathIsElectron: true });
  assert.equal(locateZcode({ zcodePath: '/x/zcode.cjs' }, h).command, '/opt/homebrew/bin/node');
});

test('a missing explicit nodePath is an error', () => {
  const h = host(['/x/zcode.cjs', '/p/node'], { env: { PATH: '/p' } });
  const error = notFound(() => locateZcode({ zcodePath: '/x/zcode.cjs', nodePath: '/missing/node' }, h));
  assert.match(error.message, /zcode\.nodePath is set to "\/missing\/node"/);
});

test('nothing found: the error says what was tried and how to fix it', () => {
  const error = notFound(() => locateZcode({}, host([], { env: { PATH: '/a:/b' } })));
  for (const piece of ['PATH: /a/zcode', 'PATH: /b/zcode', '/opt/ZCode/resources/glm/zcode.cjs', 'zcode.path', 'ZCODE_BIN', 'https://zcode.z.ai']) {
    assert.ok(error.message.includes(piece), `message should mention ${piece}: ${error.message}`);
  }
});
