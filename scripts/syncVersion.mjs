#!/usr/bin/env node
// One version, one set of project links: the root package.json (the extension's manifest) is the source
// of truth; this writes them into the other two things a release publishes, packages/zcode-acp/package.json
// (the npm package) and registry/zcode/agent.json (the ACP registry entry).
//
//   node scripts/syncVersion.mjs            write them (npm runs this as the root `version` script, so
//                                           `npm version 0.2.0` bumps all three in one commit)
//   node scripts/syncVersion.mjs --check    change nothing; list every difference, and a CHANGELOG.md
//                                           without a `## [<version>]` section; exit 1 if any
//   --root DIR                              another checkout (the tests use a scratch copy)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const check = argv.includes('--check');
const rootArg = argv.indexOf('--root');
const ROOT = rootArg >= 0 ? resolve(argv[rootArg + 1]) : resolve(fileURLToPath(new URL('..', import.meta.url)));

const NPM_PACKAGE_JSON = 'packages/zcode-acp/package.json';
const REGISTRY_ENTRY = 'registry/zcode/agent.json';

const read = (file) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
const root = read('package.json');
/** https://github.com/OWNER/REPO, from the manifest's `repository` (`git+…` and `.git` dropped). */
const repoUrl = (typeof root.repository === 'string' ? root.repository : root.repository.url).replace(/^git\+/, '').replace(/\.git$/, '');

/** What each file must say, as [path in the JSON, value] pairs. */
const wanted = {
  [NPM_PACKAGE_JSON]: () => [
    [['version'], root.version],
    [['license'], root.license],
    [['repository', 'url'], `git+${repoUrl}.git`],
    [['bugs', 'url'], root.bugs.url],
    [['homepage'], `${repoUrl}/tree/HEAD/packages/zcode-acp#readme`],
  ],
  [REGISTRY_ENTRY]: () => {
    const npmName = read(NPM_PACKAGE_JSON).name;
    return [
      [['version'], root.version],
      [['license'], root.license],
      [['repository'], repoUrl],
      [['distribution', 'npx', 'package'], `${npmName}@${root.version}`],
    ];
  },
};

const get = (obj, keys) => keys.reduce((o, k) => (o === undefined ? undefined : o[k]), obj);
function set(obj, keys, value) {
  let o = obj;
  for (const k of keys.slice(0, -1)) o = o[k] ??= {};
  o[keys.at(-1)] = value;
}

const problems = [];
for (const [file, fields] of Object.entries(wanted)) {
  const json = read(file);
  let changed = false;
  for (const [keys, value] of fields()) {
    if (get(json, keys) === value) continue;
    if (check) problems.push(`${file}: ${keys.join('.')} is ${JSON.stringify(get(json, keys))}, package.json says ${JSON.stringify(value)}`);
    else {
      set(json, keys, value);
      changed = true;
    }
  }
  if (changed) {
    writeFileSync(join(ROOT, file), `${JSON.stringify(json, null, 2)}\n`);
    console.log(`${file}: now ${root.version}`);
  }
}
const changelog = readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8');
if (check && !changelog.includes(`\n## [${root.version}]`)) problems.push(`CHANGELOG.md: no "## [${root.version}]" section (move the [Unreleased] entries under it)`);

if (problems.length > 0) {
  const fix = problems.some((p) => !p.startsWith('CHANGELOG')) ? '\nrun node scripts/syncVersion.mjs to copy package.json into the others' : '';
  console.error(`out of step with package.json ${root.version}:\n  ${problems.join('\n  ')}${fix}`);
  process.exit(1);
}
if (check) console.log(`package.json, ${NPM_PACKAGE_JSON}, ${REGISTRY_ENTRY} and CHANGELOG.md agree on ${root.version}`);
