// Every user-facing string of the extension host is localized: each `vscode.l10n.t('…')` / `t('…')`
// literal in extension/ has a Simplified Chinese entry in l10n/bundle.l10n.zh-cn.json, and every
// `%key%` in package.json has an English (package.nls.json) and a Chinese (package.nls.zh-cn.json) text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../../', import.meta.url).pathname;
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const readJson = (file: string): Record<string, unknown> => JSON.parse(read(file)) as Record<string, unknown>;

/** The string literals passed to l10n.t in a source file (single-quoted, as the house style writes them). */
export function l10nStrings(source: string): string[] {
  const out: string[] = [];
  const re = /(?:\bl10n\.t|(?<![\w.])t)\(\s*'((?:[^'\\]|\\.)*)'/g;
  for (const match of source.matchAll(re)) out.push(match[1].replace(/\\(.)/g, '$1'));
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));
}

test('every l10n.t string in extension/ has a zh-cn translation', () => {
  const bundle = readJson('l10n/bundle.l10n.zh-cn.json');
  const missing: string[] = [];
  let count = 0;
  for (const file of sourceFiles('extension')) {
    for (const s of l10nStrings(read(file))) {
      count++;
      if (typeof bundle[s] !== 'string' || !bundle[s]) missing.push(`${file}: ${s}`);
    }
  }
  assert.ok(count > 50, `found only ${count} strings: is the extractor still right?`);
  assert.deepEqual(missing, []);
});

test('translations keep their {n} placeholders', () => {
  const bundle = readJson('l10n/bundle.l10n.zh-cn.json');
  for (const [en, zh] of Object.entries(bundle)) {
    const holes = (s: string): string => [...s.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort().join();
    assert.equal(holes(String(zh)), holes(en), `placeholders differ for ${JSON.stringify(en)}`);
  }
});

test('every %key% in package.json exists in English and Chinese', () => {
  const manifest = read('package.json');
  const keys = [...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]);
  assert.ok(keys.length > 20);
  const en = readJson('package.nls.json');
  const zh = readJson('package.nls.zh-cn.json');
  assert.deepEqual(keys.filter((k) => typeof en[k] !== 'string'), [], 'missing in package.nls.json');
  assert.deepEqual(keys.filter((k) => typeof zh[k] !== 'string'), [], 'missing in package.nls.zh-cn.json');
  assert.deepEqual(Object.keys(zh).filter((k) => !(k in en)), [], 'zh-cn keys without an English text');
});
