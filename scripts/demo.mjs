#!/usr/bin/env node
// `npm run demo`: the extension in a real VS Code (code-server) in your browser, talking to the zcode
// simulator (test/zcode-sim) instead of a real zcode, on a scratch copy of test/fixtures/workspace.
//
//   npm run demo                      -> prints http://127.0.0.1:8080/?folder=... (or the next free port)
//   ZCODE_DEMO_PORT=9000 npm run demo     ZCODE_DEMO_HOST=0.0.0.0 npm run demo (no auth: trusted networks only)
//   ZCODE_SIM_SPEED=0 npm run demo    (instant replies; default 1 = realistic pacing)
//
// code-server + Node 24 come from $VSCODE_CI_CACHE (default /opt/vscode-ci). When they are missing the
// demo runs `bash .ci/setup-vscode.sh --no-browser` once to install them (needs root/sudo for apt and
// /opt, or VSCODE_CI_CACHE pointing at a writable dir).
//
// The extension is loaded as a normal installed extension: the private extensions dir gets a folder
// <publisher>.<name>-<version> of symlinks into this repository (package.json, dist/, media/, ...). (The extensionDevelopmentPath payload the tests use
// needs code-server's smoke-test-driver mode, which hides notification toasts: not what a demo wants.)
// Rebuild with `npm run build` (or `npm run watch`) and reload the browser window to pick up changes.
// Ctrl+C stops code-server, its extension hosts and the simulator (one process group) and cleans up.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, ensureToolchain, locateToolchain, startCodeServer, workbenchUrl, zcodeSimSettings } from '../test/e2e/lib/codeServer.mjs';

const host = process.env.ZCODE_DEMO_HOST || '127.0.0.1';
const say = (...a) => console.log('[demo]', ...a);

function ensureBuild() {
  say('building (node esbuild.mjs)');
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (r.status !== 0) { console.error(`${r.stdout}${r.stderr}\n[demo] build failed`); process.exit(1); }
}

function installedToolchain() {
  try {
    return ensureToolchain({ browser: false, log: (text) => text.split('\n').forEach((line) => say(line)) });
  } catch (e) {
    console.error(`[demo] ${e.message}`);
    process.exit(1);
  }
}

/** `preferred`, or the next port that is free on `host`. */
async function freePort(preferred) {
  for (let port = preferred; port < preferred + 100; port++) {
    const free = await new Promise((res) => {
      const srv = createServer().once('error', () => res(false)).once('listening', () => srv.close(() => res(true)));
      srv.listen(port, host);
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${preferred}..${preferred + 99}`);
}

/**
 * The extension folder code-server scans: links to what ships in the .vsix (package.json, dist/, media/,
 * l10n/, nls files, docs) rather than one link to the repository, so nothing that cleans up the
 * extensions dir can ever reach the sources.
 */
function linkExtension(dir) {
  mkdirSync(dir);
  for (const name of readdirSync(REPO_ROOT)) {
    if (/^(package\.json|dist|media|l10n|package\.nls(\.[\w-]+)?\.json|README\.md|CHANGELOG\.md|LICENSE)$/.test(name)) {
      symlinkSync(join(REPO_ROOT, name), join(dir, name));
    }
  }
}

ensureBuild();
installedToolchain();
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
// ZCODE_DEMO_PORT=0: any free port (chosen by code-server)
const wanted = Number(process.env.ZCODE_DEMO_PORT ?? 8080);
const port = wanted === 0 ? 0 : await freePort(wanted);
const state = mkdtempSync(join(tmpdir(), 'zcode-demo-'));
const workspace = join(state, 'workspace');
cpSync(join(REPO_ROOT, 'test/fixtures/workspace'), workspace, { recursive: true });

const cs = await startCodeServer({
  dir: join(state, 'code-server'),
  host,
  port,
  smokeTestDriver: false,
  settings: { ...zcodeSimSettings(), 'workbench.colorTheme': 'Default Dark Modern' },
  // The newest build's shapes by default; ZCODE_SIM_PROFILE=0.15.2 npm run demo shows the seed era.
  env: { ZCODE_SIM_SPEED: process.env.ZCODE_SIM_SPEED ?? '1', ZCODE_SIM_PROFILE: process.env.ZCODE_SIM_PROFILE ?? 'desktop-3.15' },
  prepare: ({ extensionsDir }) => linkExtension(join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`)),
  keep: true,
});

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  say('stopping code-server');
  await cs.stop();
  rmSync(state, { recursive: true, force: true, maxRetries: 3 });
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
cs.proc.on('exit', (code) => { if (!stopping) { console.error(`[demo] code-server exited (${code}); its log: ${cs.logFile}`); void stop(1); } });

const shownHost = host === '0.0.0.0' ? '127.0.0.1' : host;
const url = workbenchUrl(`http://${shownHost}:${cs.port}`, { folder: workspace });
console.log(`
  ZCode demo is running (code-server ${JSON.parse(readFileSync(join(locateToolchain({ browser: false }).entry, '../../../package.json'), 'utf8')).version}, zcode = simulator).

    Open: ${url}

  Click the ZCode icon in the activity bar. Workspace: ${workspace}
  ${host === '127.0.0.1' ? '' : `Listening on ${host}:${cs.port} WITHOUT authentication.\n  `}Ctrl+C stops everything (code-server process group ${cs.proc.pid}).
`);
