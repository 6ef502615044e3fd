// One build file, three bundles (see docs in README "Building"):
//   dist/extension.js  VS Code extension host (node, cjs, `vscode` external)
//   dist/cli.js        the `zcode-acp` stdio bridge's entry (node, cjs): answers `initialize`, then loads
//   dist/cli-bridge.js the bridge itself (node, cjs, self-contained) — apart so that start-up is quick
//   dist/webview.js    the chat webview (browser, esm) + dist/webview.css
// Flags: --watch (rebuild on change), --production (minify, no sourcemaps).
// Type-checking is separate: `npm run typecheck` (tsc --noEmit).
import * as esbuild from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
/** `--outdir=DIR`: build somewhere else than dist/ (`npm run bench -- vscode` measures the production bundles). */
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';

/** Options every bundle shares. */
const base = {
  bundle: true,
  logLevel: 'info',
  minify: production,
  sourcemap: production ? false : 'linked',
  legalComments: production ? 'none' : 'inline',
  define: {
    'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development'),
    __ZCODE_BRIDGE_VERSION__: JSON.stringify(pkg.version),
  },
};

/** Node bundles: the package is "type": "module", so dist/ gets its own package.json saying commonjs. */
const node = { ...base, platform: 'node', target: 'node20', format: 'cjs', mainFields: ['module', 'main'] };

/**
 * dist/cli.js loads the bridge at run time from its own bundle (bridge/cli.ts, issue 18.1): its
 * `import('./cliBridge.ts')` is left as a require of ./cli-bridge.js instead of being bundled in.
 */
const cliBridgeApart = {
  name: 'cli-bridge-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/cliBridge\.ts$/ }, () => ({ path: './cli-bridge.js', external: true }));
  },
};

const builds = [
  { ...node, entryPoints: { extension: 'extension/extension.ts' }, outdir, external: ['vscode'] },
  {
    ...node,
    entryPoints: { cli: 'bridge/cli.ts' },
    outdir,
    banner: { js: '#!/usr/bin/env node' },
    plugins: [cliBridgeApart],
    // import() becomes require(): Node's import() of a CommonJS file first scans it for its export
    // names (cjs-module-lexer), ~30 ms for cli-bridge.js.
    supported: { 'dynamic-import': false },
  },
  { ...node, entryPoints: { 'cli-bridge': 'bridge/cliBridge.ts' }, outdir },
  {
    ...base,
    entryPoints: { webview: 'webview-ui/main.tsx' },
    outdir,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
    assetNames: 'assets/[name]-[hash]',
  },
];

mkdirSync(outdir, { recursive: true });
writeFileSync(`${outdir}/package.json`, JSON.stringify({ type: 'commonjs' }) + '\n');

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
