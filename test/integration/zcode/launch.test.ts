/**
 * How zcode is started, against the simulator as a real
 * process: its environment is dumped by the simulator itself (ZCODE_SIM_ENV_DUMP), and a desktop
 * app layout on disk makes it check for its provider table like the real bundled 3.12+ CLI.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BackendErrorCode, ZcodeError } from '../../../bridge/zcode/backend.ts';
import { fakeDesktopApp } from '../../helpers/bundledApp.ts';
import { tempDir } from '../../helpers/sim.ts';
import { simBackend } from './setup.ts';

function dumpOf(file: string): Record<string, string> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
}

test('zcode never inherits the bridge\'s secrets or variables, and prefers IPv4', async (t) => {
  const tmp = tempDir();
  t.after(() => tmp.cleanup());
  const dump = tmp.file('env.json');
  const h = simBackend(t, { env: { ZCODE_SIM_ENV_DUMP: dump, ZCODE_ACP_REMOTE_TOKEN: 'tok-3f9a-secret', ZCODE_ACP_REMOTE: '1', ZCODE_ACP_STORE_DIR: '/tmp/store', ZCODE_API_KEY: 'the-users-own-key' } });
  await h.backend.listSessions({});
  const env = dumpOf(dump);
  assert.equal(env.ZCODE_ACP_REMOTE_TOKEN, undefined);
  assert.ok(!Object.keys(env).some((k) => k.startsWith('ZCODE_ACP_')), 'no ZCODE_ACP_* variable at all');
  assert.ok(!JSON.stringify(env).includes('tok-3f9a-secret'), 'the token value is nowhere in zcode\'s environment');
  assert.equal(env.ZCODE_API_KEY, 'the-users-own-key', 'zcode\'s own configuration passes through');
  assert.match(env.NODE_OPTIONS ?? '', /--dns-result-order=ipv4first/);
  assert.ok(!h.logger.lines.some((l) => l.includes('tok-3f9a-secret')), 'nor in the bridge log');
});

test('the desktop app\'s bundled CLI starts: its provider table is found next to the app and passed on', async (t) => {
  const tmp = tempDir();
  t.after(() => tmp.cleanup());
  const app = fakeDesktopApp(tmp.file('ZCode'), 'config', '3.14.4');
  const dump = tmp.file('env.json');
  const h = simBackend(t, { env: { ZCODE_SIM_ENV_DUMP: dump, ZCODE_BUILTIN_PROVIDER_CONFIG_FILE: '/stale/3.12.0/zcode-builtin.json' } }, { zcodePath: app.cli });
  await h.backend.listSessions({});
  const env = dumpOf(dump);
  assert.equal(env.ZCODE_BUILTIN_PROVIDER_CONFIG_FILE, app.table, 'derived from the CLI being started, the stale inherited value replaced');
  assert.equal(env.ZCODE_BUILTIN_PROVIDER_BUNDLED_CONFIG_FILE, app.table);
  assert.match(env.ZCODE_PERSONAL_PROVIDER_CONFIG_FILE ?? '', /[\\/]\.zcode[\\/]v2[\\/]provider_config\.json$/);
  assert.equal(env.ZCODE_APP_VERSION, '3.14.4');
  assert.equal(h.logger.find('info', 'desktop-bundled CLI, provider table').length, 1);
});

test('a bundled CLI that still exits at start: zcode\'s own message plus what to do', async (t) => {
  const tmp = tempDir();
  t.after(() => tmp.cleanup());
  const app = fakeDesktopApp(tmp.file('ZCode'), 'none');
  const h = simBackend(t, {}, { zcodePath: app.cli });
  const error = await h.backend.listSessions({}).then(
    () => assert.fail('zcode cannot start without its provider table'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ZcodeError);
  assert.equal(error.code, BackendErrorCode.ProcessExited);
  assert.match(error.message, /exited at start \(code 1\): it cannot find its provider table/);
  assert.match(error.message, /无法定位 CLI ZCode Built-in Provider Config：/, 'zcode\'s own words');
  assert.match(error.message, /ZCODE_BUILTIN_PROVIDER_CONFIG_FILE/, 'what to do');
  assert.doesNotMatch(error.message, /exited unexpectedly/);
});
