// The packaged .vsix (dist-vsix/zcode-vscode.vsix, or ZCODE_TEST_VSIX) against what the two stores check
// on upload, so that a release is refused by neither:
//   - Open VSX: the metadata rules of its server (eclipse/openvsx, server/.../ExtensionValidator.java:
//     names, version characters and reserved versions, field lengths, no control characters, URLs with
//     a host) and of its CLI (cli/src/check-license.ts: a licence is required);
//   - the Marketplace page: the README and CHANGELOG vsce rewrote must have no relative link left, every
//     image an https URL that is not an SVG, and every link into this repository must name a file or
//     folder that exists here (vsce points them at the repository on GitHub).
// vsce's own checks (icon, engines, activation events …) run when packaging: scripts/packageVsix.mjs
// fails on any vsce warning.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../lib/codeServer.mjs';
import { readZip } from '../lib/zip.mjs';

const vsix = resolve(REPO_ROOT, process.env.ZCODE_TEST_VSIX || 'dist-vsix/zcode-vscode.vsix');
const entries = () => new Map(readZip(vsix).map((e) => [e.name, e]));
const text = (byName, name) => byName.get(name).read().toString('utf8');

const MARKETPLACE_CATEGORIES = new Set(['AI', 'Azure', 'Chat', 'Data Science', 'Debuggers', 'Education', 'Extension Packs', 'Formatters', 'Keymaps', 'Language Packs', 'Linters', 'Machine Learning', 'Notebooks', 'Other', 'Programming Languages', 'SCM Providers', 'Snippets', 'Testing', 'Themes', 'Visualization']);
/** Open VSX's name pattern for namespaces (= publisher) and extension names. */
const OPEN_VSX_NAME = /^[\w\-+$~]+$/;
/** Java's CONTROL, FORMAT, PRIVATE_USE, LINE/PARAGRAPH_SEPARATOR (unassigned code points aside). */
const BAD_CHARACTER = /[\p{Cc}\p{Cf}\p{Co}\u2028\u2029]/u;
const isUrlWithHost = (value) => {
  try {
    return new URL(value.replace(/^git\+/, '')).host !== '';
  } catch {
    return false;
  }
};

test('Open VSX metadata rules: names, version, lengths, characters, URLs, licence', () => {
  const byName = entries();
  const pkg = JSON.parse(text(byName, 'extension/package.json'));
  const problems = [];
  for (const [field, value] of [['publisher', pkg.publisher], ['name', pkg.name]]) {
    if (!value || !OPEN_VSX_NAME.test(value) || value.length > 255) problems.push(`${field} "${value}" is not a valid Open VSX name`);
  }
  if (!/^[\p{L}\p{N}$+\-,.:;_]+$/u.test(pkg.version) || ['latest', 'pre-release', 'reviews'].includes(pkg.version)) problems.push(`version "${pkg.version}"`);
  const strings = [['displayName', pkg.displayName, 255], ['description', pkg.description, 2048], ['license', pkg.license, 255], ...(pkg.categories ?? []).map((c) => ['categories', c, 255]), ...(pkg.keywords ?? []).map((k) => ['keywords', k, 255])];
  for (const [field, value, limit] of strings) {
    if (typeof value !== 'string') continue;
    if (value.length > limit) problems.push(`${field} is longer than ${limit} characters`);
    if (BAD_CHARACTER.test(value)) problems.push(`${field} has a control or format character`);
  }
  const urls = { homepage: pkg.homepage, repository: typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url, bugs: typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url };
  for (const [field, value] of Object.entries(urls)) {
    if (!value) problems.push(`${field} is missing (the store pages link to it)`);
    else if (!isUrlWithHost(value) || value.length > 255) problems.push(`${field} "${value}" is not a URL with a host`);
  }
  if (pkg.markdown !== undefined && !['github', 'standard'].includes(pkg.markdown)) problems.push(`markdown "${pkg.markdown}"`);
  if (pkg.qna !== undefined && pkg.qna !== false && pkg.qna !== 'marketplace' && !isUrlWithHost(String(pkg.qna))) problems.push(`qna "${pkg.qna}"`);
  if (pkg.galleryBanner?.theme !== undefined && !['dark', 'light'].includes(pkg.galleryBanner.theme)) problems.push(`galleryBanner.theme "${pkg.galleryBanner.theme}"`);
  // the Marketplace's own limit, enforced by vsce too
  if ((pkg.keywords ?? []).length > 30) problems.push(`${pkg.keywords.length} keywords (at most 30)`);
  // the Marketplace's category list (vsce passes any string through unchecked)
  for (const c of pkg.categories ?? []) if (!MARKETPLACE_CATEGORIES.has(c)) problems.push(`category "${c}" is not one the Marketplace lists`);
  if (!pkg.license || !byName.has('extension/LICENSE.txt')) problems.push('no licence: Open VSX refuses unlicensed extensions');
  assert.deepEqual(problems, []);
});

/** Every markdown link and image, and every <img src>, of `markdown`. */
function linksOf(markdown) {
  const links = [...markdown.matchAll(/(!?)\[(?:[^\][]|!\[[^\][]*\]\([^)]*\))*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, bang, url]) => ({ image: bang === '!', url }));
  for (const [, url] of markdown.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)) links.push({ image: true, url });
  return links;
}

for (const [file, source] of [['extension/readme.md', 'README.md'], ['extension/changelog.md', 'CHANGELOG.md']]) {
  test(`${source} on the store page: absolute links, https non-SVG images, links into the repository that resolve`, () => {
    const byName = entries();
    const pkg = JSON.parse(text(byName, 'extension/package.json'));
    const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    // vsce points relative links at the default branch (HEAD); release:dry pins them to the release tag
    const intoRepo = new RegExp(`^${repository.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(?:blob|raw|tree)/(?:HEAD|v${pkg.version.replace(/\./g, '\\.')})/([^#?]+)`);
    const links = linksOf(text(byName, file));
    assert.ok(links.length > 0, `no links found in ${file}: the link reader is broken`);
    const problems = [];
    for (const { image, url } of links) {
      if (url.startsWith('#') || url.startsWith('mailto:')) continue;
      if (!/^https?:\/\//.test(url)) problems.push(`relative ${image ? 'image' : 'link'} left: ${url}`);
      if (image && !url.startsWith('https://')) problems.push(`image not over https: ${url}`);
      if (image && /\.svg(?:[?#]|$)/i.test(url)) problems.push(`SVG image (the Marketplace refuses them): ${url}`);
      const inRepo = intoRepo.exec(url);
      if (inRepo && !existsSync(join(REPO_ROOT, decodeURIComponent(inRepo[1])))) problems.push(`points at ${inRepo[1]}, which is not in the repository`);
      // vsce also links `#123` to the repository's issues
      if (url.startsWith(`${repository}/`) && !inRepo && !url.startsWith(`${repository}/issues`)) problems.push(`points into the repository at an unexpected ref: ${url}`);
    }
    assert.deepEqual(problems, []);
  });
}

test('the CHANGELOG in the .vsix has a section for the version it ships', () => {
  const byName = entries();
  const { version } = JSON.parse(text(byName, 'extension/package.json'));
  assert.match(text(byName, 'extension/changelog.md'), new RegExp(`^## \\[${version.replace(/\./g, '\\.')}\\]`, 'm'));
});

test('the Marketplace page links (Repository, Issues, Learn) are the manifest\'s', () => {
  const byName = entries();
  const pkg = JSON.parse(text(byName, 'extension/package.json'));
  const xml = text(byName, 'extension.vsixmanifest');
  const link = (id) => new RegExp(`<Property Id="Microsoft\\.VisualStudio\\.Services\\.Links\\.${id}" Value="([^"]*)"`).exec(xml)?.[1];
  assert.equal(link('Source'), pkg.repository.url);
  assert.equal(link('Support'), pkg.bugs.url);
  assert.equal(link('Learn'), pkg.homepage);
});
