// Every user-facing string of the extension host and of the chat webview is localized: each
// `vscode.l10n.t('…')` / `t('…')` literal in extension/ and webview-ui/ has a Simplified Chinese
// entry in l10n/bundle.l10n.zh-cn.json (the webview gets the same bundle: webview-ui/l10n.ts), and every
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
    .filter((f) => f.endsWith('.ts') || f.endsWith('.tsx'))
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

test('every t() string of the chat webview has a zh-cn translation', () => {
  const bundle = readJson('l10n/bundle.l10n.zh-cn.json');
  const missing: string[] = [];
  let count = 0;
  for (const file of sourceFiles('webview-ui')) {
    for (const s of l10nStrings(read(file))) {
      count++;
      if (typeof bundle[s] !== 'string' || !bundle[s]) missing.push(`${file}: ${s}`);
    }
  }
  assert.ok(count > 80, `found only ${count} strings: is the extractor still right?`);
  assert.deepEqual(missing, []);
});

test('the chat webview writes its words through t(): no bare English text between JSX tags', () => {
  // A cheap net for strings that skipped t(): a JSX text node of two or more English words.
  const offenders: string[] = [];
  for (const file of sourceFiles('webview-ui/components').filter((f) => f.endsWith('.tsx'))) {
    for (const [i, line] of read(file).split('\n').entries()) {
      const text = line.replace(/\{[^}]*\}/g, ' ').replace(/<[^>]*>/g, ' ');
      if (/^\s*(\/\/|\*|\/\*)/.test(line) || !/[>]\s*[A-Za-z]+ [A-Za-z]+|^\s+[A-Z][a-z]+ [a-z]+[^(=;]*$/.test(line)) continue;
      if (/[A-Za-z]+ [A-Za-z]+/.test(text) && !/\bt\(/.test(line) && !/^\s*(import|export|const|let|if|return|function|case|type)\b/.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(offenders, []);
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
