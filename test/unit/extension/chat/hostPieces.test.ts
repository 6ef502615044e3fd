/** Pure host pieces: the webview HTML's CSP, prompt building, attachment parsing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatHtml, contentSecurityPolicy } from '../../../../extension/chat/webviewHtml.ts';
import { buildPrompt, parseAttachments, rangeUri } from '../../../../extension/chat/prompt.ts';

test('CSP: nonce-only scripts, styles/fonts from the extension, no inline anything, no remote', () => {
  const csp = contentSecurityPolicy('https://x.vscode-cdn.net', 'N0NCE');
  assert.equal(csp, "default-src 'none'; script-src 'nonce-N0NCE'; style-src https://x.vscode-cdn.net; font-src https://x.vscode-cdn.net; img-src https://x.vscode-cdn.net data:; connect-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'");
  assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval') && !csp.includes('https:;'));
});

test('HTML: one nonce-tagged module script, one stylesheet, no inline script or style', () => {
  const html = chatHtml({ cspSource: 'vscode-resource:', scriptUri: 'vscode-resource:/ext/dist/webview.js', styleUri: 'vscode-resource:/ext/dist/webview.css', nonce: 'abc123' });
  const all = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  // The l10n bundle is a data block (type application/json): never executed, so not a script.
  const scripts = all.filter((m) => !m[0].startsWith('<script type="application/json"'));
  assert.equal(scripts.length, 1);
  assert.equal(all.length, 2);
  assert.match(scripts[0][0], /^<script type="module" nonce="abc123" src="vscode-resource:\/ext\/dist\/webview\.js">/);
  assert.equal(scripts[0][1], '', 'no inline script body');
  assert.doesNotMatch(html, /<style|style="/);
  assert.match(html, /<link rel="stylesheet" href="vscode-resource:\/ext\/dist\/webview\.css">/);
  assert.match(html, /http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;|content="default-src 'none'/);
});

test('HTML: the UI language\'s translations travel as a JSON data block that cannot close its element', () => {
  const html = chatHtml({ cspSource: 'c', scriptUri: 's', styleUri: 'st', nonce: 'n', lang: 'zh-cn', l10n: { Send: '发送', '</script><script>alert(1)': 'x' } });
  assert.match(html, /<html lang="zh-cn">/);
  const block = /<script type="application\/json" id="zcode-l10n" nonce="n">([\s\S]*?)<\/script>/.exec(html);
  assert.ok(block, 'the data block is there');
  assert.doesNotMatch(block[1], /</, 'no "<" inside: the block cannot end early');
  assert.deepEqual(JSON.parse(block[1]), { Send: '发送', '</script><script>alert(1)': 'x' });
});

test('prompt blocks: text, file links, selections (embedded or linked + quoted), images only when supported', () => {
  const attachments = parseAttachments([
    { kind: 'file', id: '1', name: 'a.ts', uri: 'file:///w/a.ts' },
    { kind: 'selection', id: '2', name: 'b.ts:3-4', uri: 'file:///w/b.ts', startLine: 3, endLine: 4, text: 'x\ny', languageId: 'typescript' },
    { kind: 'image', id: '3', name: 'shot.png', mimeType: 'image/png', data: 'AAAA' },
    { kind: 'image', id: '4', name: 'bad', mimeType: 'text/html', data: 'AAAA' },
    { kind: 'weird' },
  ]);
  assert.equal(attachments.length, 3);
  assert.deepEqual(buildPrompt('look', attachments, { image: true, embeddedContext: true }), [
    { type: 'text', text: 'look' },
    { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts' },
    { type: 'resource', resource: { uri: 'file:///w/b.ts#L3-L4', text: 'x\ny', mimeType: 'text/x-typescript' } },
    { type: 'image', data: 'AAAA', mimeType: 'image/png' },
  ]);
  assert.deepEqual(buildPrompt('look', attachments, { image: false, embeddedContext: false }).slice(2), [
    { type: 'resource_link', uri: 'file:///w/b.ts#L3-L4', name: 'b.ts:3-4' },
    { type: 'text', text: 'Selected lines 3-4 of b.ts:\n```typescript\nx\ny\n```' },
  ]);
  assert.equal(rangeUri('file:///a#L1', 5, 5), 'file:///a#L5');
});
