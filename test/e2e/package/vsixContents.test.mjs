// Checks the packaged .vsix (default dist-vsix/zcode-vscode.vsix, or ZCODE_TEST_VSIX): only the
// allow-listed files of .vscodeignore ship, nothing is a source map or source file, the size is sane,
// and the manifest inside points at files that are really there. Run after `npm run package`.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../lib/codeServer.mjs';
import { readZip } from '../lib/zip.mjs';

const vsix = resolve(REPO_ROOT, process.env.ZCODE_TEST_VSIX || 'dist-vsix/zcode-vscode.vsix');
/** What may be inside extension/ (vsce lower-cases readme/changelog and renames LICENSE to LICENSE.txt). */
const ALLOWED = [
  /^dist\/(extension|cli|cli-bridge|webview)\.js$/,
  /^dist\/chunks\/[\w-]+\.js$/,
  /^dist\/webview\.css$/,
  /^dist\/assets\/[^/]+$/,
  /^dist\/package\.json$/,
  /^media\/.+$/,
  /^l10n\/bundle\.l10n(\.[\w-]+)?\.json$/,
  /^package\.nls(\.[\w-]+)?\.json$/,
  /^(readme|changelog)\.md$/,
  /^LICENSE\.txt$/,
  /^package\.json$/,
];
const MAX_TOTAL_BYTES = 4 * 1024 * 1024; // unpacked; the whole extension is a few hundred KB today
const MAX_WEBVIEW_BYTES = 400 * 1024; // the chat webview budget

test('the .vsix contains only allow-listed files', (t) => {
  assert.ok(existsSync(vsix), `${vsix} does not exist: run npm run package first`);
  const entries = readZip(vsix);
  // the listing, in the test output: what a release ships, file by file
  for (const e of entries) t.diagnostic(`${String(e.size).padStart(9)}  ${e.name}`);
  const names = entries.map((e) => e.name);
  assert.ok(names.includes('extension.vsixmanifest'), 'extension.vsixmanifest missing');
  const unexpected = names.filter((n) => n !== 'extension.vsixmanifest' && n !== '[Content_Types].xml' && !(n.startsWith('extension/') && ALLOWED.some((re) => re.test(n.slice('extension/'.length)))));
  assert.deepEqual(unexpected, [], `files outside the .vscodeignore allow-list shipped:\n  ${unexpected.join('\n  ')}`);
  const banned = names.filter((n) => /\.(map|ts|tsx)$/.test(n) || /(^|\/)(node_modules|test|src|\.vscode-test)\//.test(n));
  assert.deepEqual(banned, [], `source maps, sources, tests or node_modules shipped:\n  ${banned.join('\n  ')}`);

  for (const required of ['extension/package.json', 'extension/dist/extension.js', 'extension/dist/cli.js', 'extension/dist/cli-bridge.js', 'extension/dist/webview.js', 'extension/dist/package.json', 'extension/LICENSE.txt']) {
    assert.ok(names.includes(required), `${required} missing from the .vsix`);
  }

  const total = entries.reduce((s, e) => s + e.size, 0);
  assert.ok(total < MAX_TOTAL_BYTES, `.vsix unpacks to ${total} bytes (limit ${MAX_TOTAL_BYTES})`);
  const webview = entries.find((e) => e.name === 'extension/dist/webview.js');
  assert.ok(webview.size <= MAX_WEBVIEW_BYTES, `dist/webview.js is ${webview.size} bytes (budget ${MAX_WEBVIEW_BYTES})`);
});

test('the manifest inside the .vsix points at files that ship', () => {
  const entries = readZip(vsix);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const pkg = JSON.parse(byName.get('extension/package.json').read().toString('utf8'));
  // the id the tests and the walkthrough use (docs/releasing.md: where the publisher is named)
  assert.equal(`${pkg.publisher}.${pkg.name}`, 'zcode-community.zcode-vscode');
  const rel = (p) => `extension/${p.replace(/^\.\//, '')}`;
  assert.ok(byName.has(rel(pkg.main)), `main ${pkg.main} is not in the .vsix`);
  assert.ok(byName.has(rel(pkg.icon)), `icon ${pkg.icon} is not in the .vsix`);
  for (const [name, bin] of Object.entries(pkg.bin || {})) assert.ok(byName.has(rel(bin)), `bin ${name} -> ${bin} is not in the .vsix`);
  const icons = (pkg.contributes?.viewsContainers?.activitybar || []).map((c) => c.icon).filter((i) => typeof i === 'string');
  for (const icon of icons) assert.ok(byName.has(rel(icon)), `view container icon ${icon} is not in the .vsix`);
  // dist/ is commonjs inside a "type": "module" package: without dist/package.json the extension cannot load
  assert.equal(JSON.parse(byName.get('extension/dist/package.json').read().toString('utf8')).type, 'commonjs');
  // production bundles carry no sourceMappingURL to files that do not ship
  const ext = byName.get(rel(pkg.main)).read().toString('utf8');
  assert.doesNotMatch(ext, /sourceMappingURL=/, 'the packaged extension.js references a source map (build with --production)');
  const png = byName.get(rel(pkg.icon)).read();
  assert.equal(png.readUInt32BE(16), 128, 'icon width must be 128');
  assert.equal(png.readUInt32BE(20), 128, 'icon height must be 128');
});
