/**
 * The catalogue is complete: every English text the bridge writes through `bt` (l10n/messages.ts)
 * has a zh-cn entry. The call sites are read with the TypeScript parser: a literal key, each branch
 * of a conditional key, the literals of a local alias (`const t = (…) => bt(locale, …)`) and the
 * action names handed to `requireFeature` (its refusal translates them). Keys
 * computed at run time (zcode's permission option names, config names) are covered by the
 * rendering tests of their families (l10nMessages.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { translations } from '../../../../bridge/l10n/messages.ts';

const BRIDGE = path.resolve(import.meta.dirname, '../../../../bridge');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** The string literals a key expression can be: a literal, or the branches of `a ? 'x' : 'y'`. */
function literals(node: ts.Expression): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isConditionalExpression(node)) return [...literals(node.whenTrue), ...literals(node.whenFalse)];
  if (ts.isParenthesizedExpression(node)) return literals(node.expression);
  return [];
}

/** `{file, key}` for each literal key handed to `bt` or to a local alias of it. */
function usedKeys(): { file: string; key: string }[] {
  const found: { file: string; key: string }[] = [];
  for (const file of sources(BRIDGE)) {
    const text = readFileSync(file, 'utf8');
    if (!/\bbt\(/.test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    // Local aliases: `const t = (message, …) => bt(locale, message, …)` take the key first.
    const aliases = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.isArrowFunction(node.initializer) && /^bt\(/.test(node.initializer.body.getText(source))) {
        aliases.add(node.name.text);
      }
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
        const name = node.expression.text;
        const key = name === 'bt' ? node.arguments[1] : aliases.has(name) ? node.arguments[0] : undefined;
        if (key) for (const k of literals(key)) found.push({ file: path.relative(BRIDGE, file), key: k });
      }
      // `features.requireFeature(feature, what)`: `what` names the action in a refusal (capabilities.ts).
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'requireFeature' && node.arguments[1]) {
        for (const k of literals(node.arguments[1])) found.push({ file: path.relative(BRIDGE, file), key: k });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

test('every English text the bridge hands to bt has a zh-cn translation', () => {
  const keys = usedKeys();
  assert.ok(keys.length > 100, `the walk finds the bridge's texts (found ${keys.length})`);
  const zh = translations('zh-cn');
  const missing = keys.filter(({ key }) => !(key in zh)).map(({ file, key }) => `${file}: ${JSON.stringify(key)}`);
  assert.deepEqual([...new Set(missing)], [], 'texts without a zh-cn entry');
});

test('every zh-cn entry keeps the placeholders of its English key', () => {
  const placeholders = (s: string): string[] => [...s.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort();
  for (const [english, chinese] of Object.entries(translations('zh-cn'))) {
    assert.deepEqual([...new Set(placeholders(chinese))], [...new Set(placeholders(english))], JSON.stringify(english));
  }
});
