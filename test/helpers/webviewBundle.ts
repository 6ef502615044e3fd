/**
 * The chat webview's production build, as `node esbuild.mjs --production` makes dist/webview.js
 * (browser, esm, minified, NODE_ENV=production). The bundle-size test and the render bench spread
 * it, so both measure the bundle that ships; where the output goes (or whether it is written at
 * all), the metafile and the log level are each caller's own.
 */
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const WEBVIEW_PRODUCTION_BUILD = {
  absWorkingDir: ROOT,
  entryPoints: { webview: 'webview-ui/main.tsx' },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
  assetNames: 'assets/[name]-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
} satisfies BuildOptions;
