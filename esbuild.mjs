// One build file, three bundles (see CONTRIBUTING.md "How it is built"):
//   dist/extension.js  VS Code extension host (node, cjs, `vscode` external) + dist/chunks/*.js, the
//                      modules it loads with `import()` after activation (see `extensionBuild`)
//   dist/cli.js        the `zcode-acp` stdio bridge's entry (node, cjs): answers `initialize`, then loads
//   dist/cli-bridge.js the bridge itself (node, cjs, self-contained) — apart so that start-up is quick
//   dist/webview.js    the chat webview (browser, esm) + dist/webview.css
// The two CLI bundles are also copied, with the LICENSE, into packages/zcode-acp/ (the `zcode-acp` npm
// package: its own package.json there, the same bytes as the extension ships; see `npmPackageCopy`).
// Flags: --watch (rebuild on change), --production (minify, no sourcemaps).
// Type-checking is separate: `npm run typecheck` (tsc --noEmit).
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';

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
const node = {
  ...base,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  mainFields: ['module', 'main'],
};

/**
 * dist/cli.js loads the bridge at run time from its own bundle (bridge/cli.ts, for start-up time): its
 * `import('./cliBridge.ts')` is left as a require of ./cli-bridge.js instead of being bundled in.
 */
const cliBridgeApart = {
  name: 'cli-bridge-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/cliBridge\.ts$/ }, () => ({ path: './cli-bridge.js', external: true }));
  },
};

/**
 * The extension bundle, in two passes. VS Code loads `main` with require() and times it as part of
 * activation, and a single file makes it parse everything: the bridge, the ACP SDK,
 * zod, ws. So the first pass splits the ESM graph (esbuild splits only ESM) into dist/extension.js
 * and chunks, one per `import()` target (bridge/acp/bridge.ts, the _zcode/* schemas, the SDK, the remote server, the
 * doctor) plus the modules they share; the second converts each file to CommonJS, each `import()`
 * becoming a `require()` of its chunk when it runs. esbuild chains the source maps of both passes.
 */
function extensionBuild() {
  const esmDir = mkdtempSync(join(tmpdir(), 'zcode-extension-esm-'));
  const toCommonJs = {
    name: 'extension-to-commonjs',
    setup(build) {
      build.onStart(() => rmSync(esmDir, { recursive: true, force: true }));
      build.onEnd(async (result) => {
        if (result.errors.length) return;
        const files = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'));
        await esbuild.build({
          ...base,
          bundle: false,
          define: {},
          entryPoints: files,
          outbase: esmDir,
          outdir,
          platform: 'node',
          target: 'node20',
          format: 'cjs',
          supported: { 'dynamic-import': false },
        });
        // Chunks are named by hash: drop those of earlier builds.
        const current = new Set(files.map((f) => relative(join(esmDir, 'chunks'), f)));
        for (const name of readdirSync(join(outdir, 'chunks'))) if (!current.has(name.replace(/\.map$/, ''))) rmSync(join(outdir, 'chunks', name));
        rmSync(esmDir, { recursive: true, force: true });
      });
    },
  };
  return {
    ...node,
    entryPoints: { extension: 'extension/extension.ts' },
    outdir: esmDir,
    external: ['vscode'],
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    metafile: true,
    logLevel: 'warning',
    plugins: [toCommonJs],
  };
}

/** Where the `zcode-acp` npm package is assembled (packages/zcode-acp/package.json lists what it publishes). */
const NPM_PACKAGE = 'packages/zcode-acp';

/**
 * Copies a CLI bundle into the npm package after each (re)build, so `npm pack` there publishes exactly
 * what the extension ships as dist/cli.js and dist/cli-bridge.js. Source maps are copied along for
 * local debugging; the package's `files` leaves them out. Only for the real dist/ (not `--outdir`).
 */
const npmPackageCopy = {
  name: 'npm-package-copy',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length || outdir !== 'dist') return;
      mkdirSync(join(NPM_PACKAGE, 'dist'), { recursive: true });
      copyFileSync('LICENSE', join(NPM_PACKAGE, 'LICENSE'));
      for (const name of Object.keys(build.initialOptions.entryPoints)) {
        copyFileSync(join(outdir, `${name}.js`), join(NPM_PACKAGE, 'dist', `${name}.js`));
        // a production build writes no map (but leaves the dev build's in dist/): drop it here too
        const map = join(NPM_PACKAGE, 'dist', `${name}.js.map`);
        if (build.initialOptions.sourcemap) copyFileSync(join(outdir, basename(map)), map);
        else rmSync(map, { force: true });
      }
    });
  },
};

const builds = [
  extensionBuild(),
  {
    ...node,
    entryPoints: { cli: 'bridge/cli.ts' },
    outdir,
    banner: { js: '#!/usr/bin/env node' },
    plugins: [cliBridgeApart, npmPackageCopy],
    // import() becomes require(): Node's import() of a CommonJS file first scans it for its export
    // names (cjs-module-lexer), ~30 ms for cli-bridge.js.
    supported: { 'dynamic-import': false },
  },
  { ...node, entryPoints: { 'cli-bridge': 'bridge/cliBridge.ts' }, outdir, plugins: [npmPackageCopy] },
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
