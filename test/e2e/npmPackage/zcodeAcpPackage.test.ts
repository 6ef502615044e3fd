/**
 * The `zcode-acp` npm package as a user gets it. `npm pack` of packages/zcode-acp (after a
 * `--production` build: the e2e step runs after `package`), the tarball installed into an empty
 * folder outside the checkout — offline, since it has no dependencies — and run the way ACP clients
 * and the ACP registry run it, `npx zcode-acp`, with nothing of the repository on the module path:
 * `--version`, `--help`, `--doctor --json`, and an ACP session driven by the official SDK client
 * against the zcode simulator, every message it sends checked against the ACP schema.
 *
 *   npm run build -- --production && node --import tsx --test test/e2e/npmPackage/zcodeAcpPackage.test.ts
 *
 * ZCODE_ACP_TEST_NODE=/path/to/node runs the installed package (and the simulator) on that Node
 * instead of this one: the e2e step `npm-package-floor` sets it to the package's `engines.node`
 * floor (test/e2e/lib/floorNode.mjs), so the lowest version it claims is the one it is tested on.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { client, ndJsonStream } from '@agentclientprotocol/sdk';
import type { AnyMessage, SessionNotification, Stream } from '@agentclientprotocol/sdk';
import { Traffic } from '../../integration/acp/traffic.ts';
import { registryAuthErrors } from '../../helpers/acpRegistry.ts';
import { withoutNpmEnv } from '../../helpers/npmEnv.ts';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const PACKAGE_DIR = path.join(REPO_ROOT, 'packages/zcode-acp');
const SIM = path.join(REPO_ROOT, 'test/zcode-sim/zcode-sim.mjs');
const NODE = process.env.ZCODE_ACP_TEST_NODE || process.execPath;
const version: string = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version;

/** The tarball's budget: today ~150 KB packed, ~490 KB unpacked (README, "Install"). */
const MAX_PACKED_BYTES = 300 * 1024;
const MAX_UNPACKED_BYTES = 1024 * 1024;

let scratch: string;
let installDir: string;
let tarball: string;
let packed: { size: number; unpackedSize: number; files: Array<{ path: string; size: number }> };

before(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'zcode-acp-npm-'));
  // Module resolution walks up from the install folder: it must not pass through the checkout.
  assert.ok(path.relative(REPO_ROOT, scratch).startsWith('..'), `${scratch} is inside the repository`);
  const pack = npm(['pack', '--json', '--pack-destination', scratch], PACKAGE_DIR);
  [packed] = JSON.parse(pack.stdout);
  tarball = path.join(scratch, `zcode-acp-${version}.tgz`);
  installDir = path.join(scratch, 'install');
  mkdirSync(installDir);
  writeFileSync(path.join(installDir, 'package.json'), '{ "private": true }\n');
  npm(['install', '--offline', '--no-audit', '--no-fund', tarball], installDir);
});
after(() => rmSync(scratch, { recursive: true, force: true, maxRetries: 3 }));

/** npm with none of the outer npm's settings (this runs under `npm test`). */
function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
  const r = spawnSync('npm', args, { cwd, env: withoutNpmEnv(process.env), encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `npm ${args.join(' ')} failed:\n${r.stdout}${r.stderr}${r.error?.message ?? ''}`);
  return r;
}

/** A user's environment: Node on PATH, a private HOME, no NODE_PATH, nothing of npm's or the repository's. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(path.join(scratch, 'home-'));
  return { PATH: `${path.dirname(NODE)}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}/usr/bin:/bin`, HOME: home, TMPDIR: scratch, ZCODE_SIM_SPEED: '0', ...extra };
}

/** The simulator as zcode, with a Coding Plan key in zcode's configuration (what `--doctor` looks for). */
function simEnv(): NodeJS.ProcessEnv {
  const env = userEnv({ ZCODE_BIN: SIM, ZCODE_NODE: NODE });
  const config = path.join(env.HOME!, '.zcode', 'v2', 'config.json');
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(config, JSON.stringify({ provider: { 'builtin:zai-coding-plan': { options: { apiKey: 'npm-package-test-key' } } } }));
  env.ZCODE_ACP_STORE_DIR = path.join(env.HOME!, 'store');
  return env;
}

/** `npx zcode-acp ARGS` in the install folder. */
function npx(args: string[], env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  return spawnSync('npx', ['--offline', 'zcode-acp', ...args], { cwd: installDir, env, encoding: 'utf8', timeout: 60_000 });
}

test('the tarball holds the two bundles, the package.json, README and LICENSE; nothing else, within budget', () => {
  const files = packed.files.map((f) => f.path).sort();
  assert.deepEqual(files, ['LICENSE', 'README.md', 'dist/cli-bridge.js', 'dist/cli.js', 'package.json']);
  assert.ok(packed.size <= MAX_PACKED_BYTES, `packed ${packed.size} bytes (budget ${MAX_PACKED_BYTES})`);
  assert.ok(packed.unpackedSize <= MAX_UNPACKED_BYTES, `unpacked ${packed.unpackedSize} bytes (budget ${MAX_UNPACKED_BYTES})`);
  const installed = path.join(installDir, 'node_modules/zcode-acp');
  for (const bundle of ['cli.js', 'cli-bridge.js']) {
    const text = readFileSync(path.join(installed, 'dist', bundle), 'utf8');
    assert.doesNotMatch(text, /sourceMappingURL=/, `dist/${bundle} points at a source map that is not published (build with --production)`);
    assert.equal(text, readFileSync(path.join(REPO_ROOT, 'dist', bundle), 'utf8'), `dist/${bundle} differs from the extension's`);
  }
  assert.equal(readFileSync(path.join(installed, 'LICENSE'), 'utf8'), readFileSync(path.join(REPO_ROOT, 'LICENSE'), 'utf8'));
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  assert.equal(manifest.version, version, 'the npm package and the extension share one version');
  assert.deepEqual(manifest.bin, { 'zcode-acp': 'dist/cli.js' });
});

test('installed with no dependencies: node_modules holds zcode-acp alone', () => {
  const entries = readdirSync(path.join(installDir, 'node_modules')).filter((e) => !e.startsWith('.'));
  assert.deepEqual(entries, ['zcode-acp']);
  assert.ok(existsSync(path.join(installDir, 'node_modules/.bin/zcode-acp')), 'npm linked no zcode-acp bin');
  // and nothing the bundles were built from is reachable from there (the bundles need none of it)
  const bin = path.join(installDir, 'node_modules/zcode-acp/dist/cli.js');
  for (const dependency of ['@agentclientprotocol/sdk', 'zod', 'ws', 'vscode-jsonrpc']) {
    const r = spawnSync(NODE, ['-e', `require.resolve(${JSON.stringify(dependency)}, { paths: [${JSON.stringify(path.dirname(bin))}] })`], { env: userEnv(), encoding: 'utf8' });
    assert.notEqual(r.status, 0, `${dependency} resolves from the installed package: module resolution reaches outside the install`);
  }
});

test(`npx zcode-acp --version and --help (on Node ${spawnSync(NODE, ['--version'], { encoding: 'utf8' }).stdout.trim()})`, () => {
  // `#!/usr/bin/env node`: the Node under test is the one the bin's shebang finds
  const found = spawnSync('node', ['-p', 'process.execPath'], { env: userEnv(), encoding: 'utf8' });
  assert.equal(found.stdout.trim(), NODE);
  const v = npx(['--version'], userEnv());
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stdout, `zcode-acp ${version}\n`);
  const h = npx(['--help'], userEnv());
  assert.equal(h.status, 0, h.stderr);
  assert.match(h.stdout, /^zcode-acp \S+: zcode as an Agent Client Protocol \(ACP\) agent on stdio/);
  assert.match(h.stdout, /--doctor/);
  assert.match(h.stdout, /ZCODE_BIN/);
});

test('npx zcode-acp --doctor --json: finds the simulator through ZCODE_BIN, it starts, verdict OK', () => {
  const r = npx(['--doctor', '--json'], simEnv());
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  const report = JSON.parse(r.stdout);
  assert.equal(report.zcode.found, true);
  assert.equal(report.zcode.how, 'ZCODE_BIN');
  assert.equal(report.start?.ok, true);
  assert.equal(report.verdict.ok, true);
});

/** `npx zcode-acp` on stdio, the SDK client connected to it, every message both ways recorded. */
function startAgent(env: NodeJS.ProcessEnv) {
  const child = spawn('npx', ['--offline', 'zcode-acp'], { cwd: installDir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const traffic = new Traffic();
  const raw = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const tap = (dir: 'in' | 'out') => new TransformStream<AnyMessage, AnyMessage>({ transform: (msg, c) => (traffic.record(dir, msg), c.enqueue(msg)) });
  const toAgent = tap('in');
  void toAgent.readable.pipeTo(raw.writable);
  const stream: Stream = { readable: raw.readable.pipeThrough(tap('out')), writable: toAgent.writable };
  const updates: SessionNotification[] = [];
  const connection = client({ name: 'zcode-acp-npm-test' })
    .onNotification('session/update', ({ params }) => void updates.push(params))
    .connect(stream);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { connection, traffic, updates, exited, child, stderr: () => stderr };
}

test('as the ACP registry checks it: no zcode installed, a private HOME, initialize answers authMethods', { timeout: 60_000 }, async () => {
  const agent = startAgent(userEnv());
  try {
    // the registry validator's own initialize (agentclientprotocol/registry .github/workflows/client.py)
    const init = await agent.connection.agent.request('initialize', {
      protocolVersion: 1,
      clientInfo: { name: 'ACP Registry Validator', version: '1.0.0' },
      clientCapabilities: { terminal: true, fs: { readTextFile: true, writeTextFile: true }, _meta: { terminal_output: true, 'terminal-auth': true } },
    });
    assert.deepEqual(registryAuthErrors(init), []);
    assert.equal(init.agentInfo?.version, version);
    agent.child.stdin.end();
    assert.equal(await agent.exited, 0, agent.stderr());
    agent.traffic.assertClean();
  } finally {
    agent.child.kill('SIGKILL');
  }
});

test('an ACP session through npx zcode-acp: initialize, session/new, a prompt streamed to end_turn', { timeout: 90_000 }, async () => {
  const env = simEnv();
  const workspace = path.join(env.HOME!, 'workspace');
  cpSync(path.join(REPO_ROOT, 'test/fixtures/workspace'), workspace, { recursive: true });
  const agent = startAgent(env);
  try {
    const init = await agent.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.protocolVersion, 1);
    const { sessionId } = await agent.connection.agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const response = await agent.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello from npx' }] });
    assert.equal(response.stopReason, 'end_turn');
    // the updates of a turn are written before its response, on this one stream
    const text = agent.updates
      .filter((n) => n.sessionId === sessionId)
      .map((n) => (n.update.sessionUpdate === 'agent_message_chunk' && n.update.content.type === 'text' ? n.update.content.text : ''))
      .join('');
    assert.match(text, /You said: \*\*hello from npx\*\*/);
    agent.child.stdin.end();
    assert.equal(await agent.exited, 0, agent.stderr());
    agent.traffic.assertClean();
  } finally {
    agent.child.kill('SIGKILL');
  }
});
