import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BRIDGE_ONLY_VARIABLES, buildLaunchEnv, bundledLayout, describeLaunch, explainStartupExit, PROVIDER_ENV } from '../../../../bridge/zcode/launchEnv.ts';
import type { LaunchHost } from '../../../../bridge/zcode/launchEnv.ts';

function host(files: Record<string, string>, platform: NodeJS.Platform = 'darwin', links: Record<string, string> = {}): LaunchHost {
  return {
    platform,
    homedir: platform === 'win32' ? 'C:\\Users\\u' : '/Users/u',
    exists: (f) => f in files,
    realpath: (f) => links[f] ?? f,
    readText: (f) => files[f],
  };
}

const MAC_CLI = '/Applications/ZCode.app/Contents/Resources/glm/zcode.cjs';
const MAC_TABLE = '/Applications/ZCode.app/Contents/Resources/config/provider/zcode-builtin.json';
const PLIST = '<dict><key>CFBundleShortVersionString</key>\n  <string>3.14.4</string></dict>';

test('bridge variables never reach zcode; zcode\'s own variables pass through', () => {
  const base = { PATH: '/bin', ZCODE_ACP_REMOTE_TOKEN: 'secret-token', ZCODE_ACP_REMOTE: '1', ZCODE_ACP_FUTURE_THING: 'x', ZCODE_BIN: '/x/zcode', ZCODE_API_KEY: 'user-key', ZCODE_MODEL: 'GLM-5.2' };
  const plan = buildLaunchEnv('/usr/local/bin/zcode', base, host({}));
  for (const name of [...BRIDGE_ONLY_VARIABLES, 'ZCODE_ACP_FUTURE_THING']) assert.equal(plan.env[name], undefined, name);
  assert.equal(plan.env.ZCODE_API_KEY, 'user-key');
  assert.equal(plan.env.ZCODE_MODEL, 'GLM-5.2');
  assert.equal(plan.env.PATH, '/bin');
  assert.equal(base.ZCODE_ACP_REMOTE_TOKEN, 'secret-token', 'the caller\'s environment is not modified');
  assert.equal(plan.bundled, false);
  assert.ok(!describeLaunch(plan).includes('secret-token'), 'the log line names variables, never values of removed ones');
});

test('IPv4 first is added to NODE_OPTIONS unless the user chose an order', () => {
  assert.equal(buildLaunchEnv('/bin/zcode', {}, host({})).env.NODE_OPTIONS, '--dns-result-order=ipv4first');
  assert.equal(buildLaunchEnv('/bin/zcode', { NODE_OPTIONS: '--max-old-space-size=4096' }, host({})).env.NODE_OPTIONS, '--max-old-space-size=4096 --dns-result-order=ipv4first');
  assert.equal(buildLaunchEnv('/bin/zcode', { NODE_OPTIONS: '--dns-result-order=verbatim' }, host({})).env.NODE_OPTIONS, '--dns-result-order=verbatim');
});

test('macOS bundled CLI: provider table next to the app, both variables, app version from Info.plist', () => {
  const plan = buildLaunchEnv(MAC_CLI, {}, host({ [MAC_TABLE]: '{}', '/Applications/ZCode.app/Contents/Info.plist': PLIST }));
  assert.equal(plan.bundled, true);
  assert.equal(plan.providerTable, MAC_TABLE);
  assert.equal(plan.env[PROVIDER_ENV.builtin], MAC_TABLE);
  assert.equal(plan.env[PROVIDER_ENV.bundled], MAC_TABLE);
  assert.equal(plan.env[PROVIDER_ENV.personal], '/Users/u/.zcode/v2/provider_config.json');
  assert.equal(plan.env[PROVIDER_ENV.appVersion], '3.14.4');
});

test('stale inherited provider paths are replaced by the ones of the CLI being started', () => {
  const stale = '/Users/u/.zcode/v2/runtime/provider/darwin/3.12.0/endpoint-abc/zcode-builtin.json';
  const plan = buildLaunchEnv(MAC_CLI, { [PROVIDER_ENV.builtin]: stale, [PROVIDER_ENV.appVersion]: '3.12.0' }, host({ [MAC_TABLE]: '{}', '/Applications/ZCode.app/Contents/Info.plist': PLIST }));
  assert.equal(plan.env[PROVIDER_ENV.builtin], MAC_TABLE);
  assert.equal(plan.env[PROVIDER_ENV.appVersion], '3.14.4');
  assert.ok(plan.changes.some((c) => c.startsWith(`${PROVIDER_ENV.builtin} replaced`)));
});

test('older layout: the table beside the CLI (glm/provider) is found too', () => {
  const cli = 'C:\\Program Files\\ZCode\\resources\\glm\\zcode.cjs';
  const table = 'C:\\Program Files\\ZCode\\resources\\glm\\provider\\zcode-builtin.json';
  const plan = buildLaunchEnv(cli, {}, host({ [table]: '{}' }, 'win32'));
  assert.equal(plan.env[PROVIDER_ENV.builtin], table);
  assert.equal(plan.env[PROVIDER_ENV.personal], 'C:\\Users\\u\\.zcode\\v2\\provider_config.json');
  assert.equal(plan.env[PROVIDER_ENV.appVersion], undefined, 'no readable version: not invented');
});

test('the layout is read from the real path (a symlinked zcode.cjs), and a non-bundled CLI is left alone', () => {
  const link = '/usr/local/bin/zcode.cjs';
  assert.equal(bundledLayout(link, host({}, 'darwin', { [link]: MAC_CLI }))?.glm, '/Applications/ZCode.app/Contents/Resources/glm');
  assert.equal(bundledLayout('/home/u/zcode/dist/zcode.cjs', host({}, 'linux')), undefined);
  const plan = buildLaunchEnv('/home/u/zcode/dist/zcode.cjs', { [PROVIDER_ENV.builtin]: '/mine.json' }, host({}, 'linux'));
  assert.equal(plan.env[PROVIDER_ENV.builtin], '/mine.json', 'a standalone CLI keeps what the user set');
});

test('no table anywhere: nothing is set, and the candidates are listed for the error', () => {
  const plan = buildLaunchEnv(MAC_CLI, {}, host({}));
  assert.equal(plan.providerTable, undefined);
  assert.equal(plan.env[PROVIDER_ENV.builtin], undefined);
  assert.equal(plan.tableCandidates.length, 3);
  assert.match(describeLaunch(plan), /no provider table found/);
});

test('start-up exits are explained with zcode\'s own words and what to do', () => {
  const plan = buildLaunchEnv(MAC_CLI, {}, host({}));
  const table = explainStartupExit('code 1', '无法定位 CLI ZCode Built-in Provider Config：/a/provider/zcode-builtin.json, /config/provider/zcode-builtin.json', plan);
  assert.match(table, /cannot find its provider table/);
  assert.match(table, /无法定位 CLI ZCode Built-in Provider Config/);
  assert.match(table, /ZCODE_BUILTIN_PROVIDER_CONFIG_FILE/);
  assert.match(table, /--doctor/);
  const model = explainStartupExit('code 1', 'Model config is missing. Create C:\\Users\\u\\.zcode\\cli\\config.json with an explicit model provider before running ZCode.', undefined);
  assert.match(model, /no model is configured/);
  assert.match(model, /ZCODE_API_KEY/);
  const other = explainStartupExit('code 1', '', undefined);
  assert.match(other, /exited at start \(code 1\)/);
  assert.match(other, /wrote nothing to stderr/);
  assert.doesNotMatch(other, /^zcode exited with code 1$/);
});
