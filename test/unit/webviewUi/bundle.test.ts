/**
 * The browser bundle stays small and browser-only: ≤ 400 KB minified, no ACP SDK runtime (the
 * webview imports ACP types only), nothing from vscode, extension/ or bridge/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
import { WEBVIEW_PRODUCTION_BUILD } from '../../helpers/webviewBundle.ts';

test('dist/webview.js: ≤ 400 KB minified, no SDK, no host code', async () => {
  const result = await esbuild.build({ ...WEBVIEW_PRODUCTION_BUILD, outdir: 'out-not-written', write: false, metafile: true, logLevel: 'silent' });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))!;
  assert.ok(js.contents.length <= 400 * 1024, `webview.js is ${(js.contents.length / 1024).toFixed(1)} KB`);
  const inputs = Object.keys(result.metafile.inputs);
  const forbidden = inputs.filter((i) => /@agentclientprotocol|node_modules\/zod|(^|\/)extension\/|(^|\/)bridge\//.test(i));
  assert.deepEqual(forbidden, []);
});
