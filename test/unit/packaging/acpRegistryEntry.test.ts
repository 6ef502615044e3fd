/**
 * registry/zcode/ is a valid ACP registry entry (the registry's vendored schema and its documented
 * rules, test/helpers/acpRegistry.ts), and it names the npm package this repository builds, at the
 * extension's version. Each rule is also shown to reject what the registry rejects.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { initializeResponse } from '../../../bridge/acp/transport/initializeAnswer.ts';
import { iconErrors, registryAuthErrors, registryEntryErrors, registryFolderErrors } from '../../helpers/acpRegistry.ts';

const ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const ENTRY_DIR = path.join(ROOT, 'registry/zcode');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
const entry = readJson('registry/zcode/agent.json');
const icon = readFileSync(path.join(ENTRY_DIR, 'icon.svg'), 'utf8');

test('registry/zcode passes the registry schema and rules, with its icon', () => {
  assert.deepEqual(registryFolderErrors(ENTRY_DIR), []);
});

test('the entry installs the zcode-acp package this repository packs, pinned to the extension version', () => {
  const root = readJson('package.json');
  const npm = readJson('packages/zcode-acp/package.json');
  assert.equal(entry.version, root.version);
  assert.deepEqual(entry.distribution, { npx: { package: `${npm.name}@${root.version}` } });
  assert.equal(entry.license, root.license);
  assert.equal(entry.repository, root.repository.url.replace(/^git\+/, '').replace(/\.git$/, ''));
});

test('initialize answers authMethods the registry accepts (no type means agent auth)', () => {
  assert.deepEqual(registryAuthErrors(initializeResponse()), []);
  assert.deepEqual(registryAuthErrors({ authMethods: [] }), ['initialize: no authMethods']);
  assert.equal(registryAuthErrors({ authMethods: [{ id: 'key', name: 'Key', type: 'env_var' }] }).length, 1);
});

test('each rule rejects what the registry rejects', () => {
  const errors = (change: (e: typeof entry) => void, folder = 'zcode', svg: string | undefined = icon) => {
    const copy = structuredClone(entry);
    change(copy);
    return registryEntryErrors(copy, folder, svg).join('\n');
  };
  assert.match(errors((e) => delete e.distribution), /schema: \/ must have required property 'distribution'/);
  assert.match(errors((e) => (e.distribution = { npx: { package: 'zcode-acp@0.1.0' }, docker: {} })), /must NOT have additional properties/);
  assert.match(errors((e) => (e.repository = 'not a url')), /schema: \/repository must match format "uri"/);
  assert.match(errors(() => {}, 'zcode-acp'), /must match its folder/);
  assert.match(errors((e) => (e.id = 'ZCode')), /schema: \/id must match pattern/);
  assert.match(errors((e) => (e.version = '1.0.0-beta.1')), /is not x\.y\.z/);
  assert.match(errors((e) => (e.distribution.npx.package = 'zcode-acp@latest')), /uses @latest/);
  assert.match(errors((e) => (e.distribution.npx.package = 'zcode-acp@9.9.9')), /is not at the entry's version/);
  assert.equal(errors((e) => (e.distribution.npx.package = 'zcode-acp')), '', 'an unpinned package is allowed');
  assert.match(iconErrors(icon.replace('width="16" height="16"', 'width="24" height="24"')).join(), /must be 16x16, is 24x24/);
  assert.match(iconErrors(icon.replace('fill="currentColor"', 'fill="#2563eb"')).join(), /fill "#2563eb" is a fixed colour/);
  assert.match(iconErrors('<svg width="16" height="16"><path style="stroke: red" d="M0 0"/></svg>').join('\n'), /stroke "red".*\n.*does not use currentColor/);
});
