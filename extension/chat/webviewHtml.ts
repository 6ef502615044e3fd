/**
 * The chat webview's HTML: one nonce'd module script and one stylesheet from dist/, and a strict
 * Content-Security-Policy: no inline script or style, no remote anything. Images only from the
 * extension or `data:` (pasted image thumbnails). Pure, so the policy is unit-tested.
 */
import { randomBytes } from 'node:crypto';

export interface ChatHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  /** `webview.asWebviewUri(dist/webview.js)`. */
  scriptUri: string;
  /** `webview.asWebviewUri(dist/webview.css)`. */
  styleUri: string;
  nonce?: string;
  lang?: string;
  /** The UI language's translations (`vscode.l10n.bundle`); the webview's `t()` reads them. */
  l10n?: Record<string, string>;
}

function createNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

const escapeAttr = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`). */
function l10nJson(bundle: Record<string, string> | undefined): string {
  return JSON.stringify(bundle ?? {}).replace(/</g, '\\u003c');
}

export function chatHtml(options: ChatHtmlOptions): string {
  const nonce = options.nonce ?? createNonce();
  return `<!DOCTYPE html>
<html lang="${escapeAttr(options.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(options.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeAttr(options.styleUri)}">
<title>ZCode</title>
</head>
<body>
<div id="root"></div>
<script type="application/json" id="zcode-l10n" nonce="${nonce}">${l10nJson(options.l10n)}</script>
<script type="module" nonce="${nonce}" src="${escapeAttr(options.scriptUri)}"></script>
</body>
</html>`;
}
