#!/usr/bin/env node
// Runs node:test over every *.test.ts under the given folders (Node 20's --test has no globs).
// Usage: node scripts/test.mjs test/unit test/integration [-- extra node --test args]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const sep = process.argv.indexOf('--');
const dirs = sep === -1 ? process.argv.slice(2) : process.argv.slice(2, sep);
const extra = sep === -1 ? [] : process.argv.slice(sep + 1);
const files = dirs
  .flatMap((dir) => (statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(dir, { recursive: true }).map((f) => join(dir, f)) : [dir]))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
if (files.length === 0) {
  console.error(`no *.test.ts files under ${dirs.join(', ')}`);
  process.exit(1);
}
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...extra, ...files], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
