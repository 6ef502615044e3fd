#!/usr/bin/env node
// `npm run package`: a production build, then `vsce package` to dist-vsix/zcode-vscode.vsix. Fails when
// vsce warns about anything (a warning is what the Marketplace or Open VSX would show or refuse), so CI
// keeps the .vsix publishable. scripts/releaseDry.mjs packages through `packageVsix` below as well.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const VSCE = join(ROOT, 'node_modules/@vscode/vsce/vsce');

/** Runs a command in the repository, echoing its output; throws with it when it fails. */
export function run(argv, { quiet = false } = {}) {
  const r = spawnSync(argv[0], argv.slice(1), { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (!quiet || r.status !== 0) process.stdout.write(output);
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited with ${r.status ?? r.signal}${r.error ? `: ${r.error.message}` : ''}`);
  return output;
}

/** The production bundles in dist/ (and packages/zcode-acp/dist/, which esbuild.mjs fills from them). */
export function productionBuild() {
  run([process.execPath, 'esbuild.mjs', '--production'], { quiet: true });
}

/**
 * `vsce package` of the current dist/ to `out`. `baseUrl` (a repository URL and a git ref) pins the
 * README's relative links and images to that ref on GitHub instead of vsce's default, the default
 * branch (`HEAD`): a release's Marketplace page then shows the README as of its tag.
 * @param {{ out: string, preRelease?: boolean, baseUrl?: { repository: string, ref: string } }} o
 */
export function packageVsix({ out, preRelease = false, baseUrl }) {
  mkdirSync(dirname(out), { recursive: true });
  const args = [process.execPath, VSCE, 'package', '--no-dependencies', '--out', out];
  if (preRelease) args.push('--pre-release');
  if (baseUrl) args.push('--baseContentUrl', `${baseUrl.repository}/blob/${baseUrl.ref}`, '--baseImagesUrl', `${baseUrl.repository}/raw/${baseUrl.ref}`);
  const output = run(args);
  // eslint-disable-next-line no-control-regex
  const warnings = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').filter((line) => /\bWARNING\b/.test(line));
  if (warnings.length > 0) throw new Error(`vsce warned; the .vsix is not ready to publish:\n  ${warnings.join('\n  ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    productionBuild();
    packageVsix({ out: join(ROOT, 'dist-vsix/zcode-vscode.vsix') });
  } catch (error) {
    console.error(`\n${error.message}`);
    process.exit(1);
  }
}
