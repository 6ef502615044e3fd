#!/usr/bin/env node
// `npm run release:dry`: every artifact of a release, built from this checkout with one version into
// dist-release/ (gitignored), checked, and the commands that would publish each — publishing nothing:
//   zcode-vscode-<v>.vsix    the extension, for the VS Code Marketplace and Open VSX
//   zcode-acp-<v>.tgz        the `zcode-acp` npm package (what `npx zcode-acp` installs)
//   acp-registry/zcode/      the ACP registry entry (agent.json + icon.svg), for a pull request there
//   SHA256SUMS
// The release channel follows the version (docs/releasing.md): an even minor (0.2.x, 1.4.x) is a
// release, an odd minor (0.1.x, 1.3.x) a pre-release.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readZip } from '../test/e2e/lib/zip.mjs';
import { ROOT, packageVsix, productionBuild, run } from './packageVsix.mjs';

const OUT = join(ROOT, 'dist-release');
const readJson = (file) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

function main() {
  run([process.execPath, 'scripts/syncVersion.mjs', '--check']);
  const pkg = readJson('package.json');
  const { version } = pkg;
  const preRelease = Number(version.split('.')[1]) % 2 === 1;
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  const tag = `v${version}`;

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  productionBuild();

  const vsix = join(OUT, `${pkg.name}-${version}.vsix`);
  packageVsix({ out: vsix, preRelease, baseUrl: { repository, ref: tag } });

  // `npm pack <folder>` packs that folder whatever npm's own prefix (this runs under `npm run`)
  const pack = spawnSync('npm', ['pack', './packages/zcode-acp', '--pack-destination', OUT, '--json'], { cwd: ROOT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stdout}${pack.stderr}`);
  const [packed] = JSON.parse(pack.stdout);
  const tgz = join(OUT, packed.filename);

  // npm's own checks of what it would publish (a manifest it would auto-correct warns here); only the
  // missing login is expected
  const npmTag = preRelease ? ['--tag', 'next'] : [];
  const dry = spawnSync('npm', ['publish', '--dry-run', tgz, ...npmTag], { cwd: OUT, encoding: 'utf8' });
  const npmWarnings = `${dry.stdout}${dry.stderr}`.split('\n').filter((l) => /^npm (warn|error)/i.test(l) && !/requires you to be logged in/.test(l));
  if (dry.status !== 0 || npmWarnings.length > 0) throw new Error(`npm publish --dry-run ${relative(ROOT, tgz)}:\n  ${npmWarnings.join('\n  ') || dry.stderr}`);

  const registryDir = join(OUT, 'acp-registry/zcode');
  cpSync(join(ROOT, 'registry/zcode'), registryDir, { recursive: true });

  // the three say the same version, and the .vsix carries the channel
  const entries = new Map(readZip(vsix).map((e) => [e.name, e]));
  const vsixManifest = JSON.parse(entries.get('extension/package.json').read().toString('utf8'));
  const marketplaceXml = entries.get('extension.vsixmanifest').read().toString('utf8');
  const agent = JSON.parse(readFileSync(join(registryDir, 'agent.json'), 'utf8'));
  const mismatches = [
    vsixManifest.version !== version && `.vsix says ${vsixManifest.version}`,
    packed.version !== version && `npm package says ${packed.version}`,
    agent.version !== version && `registry entry says ${agent.version}`,
    agent.distribution.npx.package !== `${packed.name}@${version}` && `registry entry installs ${agent.distribution.npx.package}`,
    marketplaceXml.includes('Microsoft.VisualStudio.Code.PreRelease') !== preRelease && `.vsix pre-release flag is not ${preRelease}`,
  ].filter(Boolean);
  if (mismatches.length > 0) throw new Error(`the artifacts disagree with package.json ${version}: ${mismatches.join('; ')}`);

  const files = [vsix, tgz, join(registryDir, 'agent.json'), join(registryDir, 'icon.svg')];
  writeFileSync(join(OUT, 'SHA256SUMS'), files.map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${relative(OUT, f)}\n`).join(''));

  const rel = (f) => relative(ROOT, f);
  const kb = (f) => `${(statSync(f).size / 1024).toFixed(0)} KB`;
  console.log(`
Release ${version} (${preRelease ? 'pre-release: odd minor' : 'release: even minor'}), nothing published. In ${rel(OUT)}/:
  ${rel(vsix).padEnd(44)} ${kb(vsix).padStart(7)}  VS Code Marketplace (publisher ${pkg.publisher}) and Open VSX (namespace ${pkg.publisher})
  ${rel(tgz).padEnd(44)} ${kb(tgz).padStart(7)}  npm registry, package ${packed.name} (${(packed.unpackedSize / 1024).toFixed(0)} KB unpacked)
  ${(rel(registryDir) + '/').padEnd(44)} ${'2 files'.padStart(7)}  ACP registry (github.com/agentclientprotocol/registry), entry ${agent.id}
  ${rel(join(OUT, 'SHA256SUMS'))}

A maintainer publishes with (docs/releasing.md; the README's images and links point at tag ${tag}, so push it first):
  git push origin HEAD ${tag}                                  # the tag \`npm version ${version}\` made
  npm publish ${rel(tgz)}${npmTag.map((a) => ` ${a}`).join('')}
  npx @vscode/vsce publish --packagePath ${rel(vsix)}          # VSCE_PAT: Azure DevOps token, Marketplace > Manage
  npx ovsx publish ${rel(vsix)} -p "$OVSX_PAT"                 # open-vsx.org token for namespace ${pkg.publisher}
${preRelease
    ? `  (ACP registry: it lists releases only; its bot follows npm's "latest". Submit/update the entry with the next even-minor release.)`
    : `  ACP registry: once ${packed.name}@${version} is on npm, fork agentclientprotocol/registry, copy ${rel(registryDir)}/ to zcode/, open a PR
  (after the first listing the registry's bot picks up new npm versions by itself)`}`);
}

try {
  main();
} catch (error) {
  console.error(`\nrelease:dry failed: ${error.message}`);
  process.exit(1);
}
