/**
 * The chat's strings in the UI language: the same l10n bundle as the extension
 * (l10n/bundle.l10n.<lang>.json, keyed by the English text), handed over by the host in the page
 * (`<script type="application/json" id="zcode-l10n">`, see extension/chat/webviewHtml.ts).
 * `t("Text with {0}", value)` works like `vscode.l10n.t`; a missing entry shows the English text.
 * Write every literal as t + a single-quoted string: test/unit/extension/l10n.test.ts finds
 * them there and fails when one has no Simplified Chinese entry.
 */
let bundle: Record<string, string> = {};

/** Installs the translations (boot.ts, from the page; tests). */
export function setL10nBundle(next: Record<string, string> | undefined): void {
  bundle = next ?? {};
}

/** Reads the bundle the host put into `doc`; an absent or broken one means English. */
export function readL10nBundle(doc: Document): Record<string, string> {
  const text = doc.getElementById('zcode-l10n')?.textContent;
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** `message` translated, with `{0}`, `{1}`, … replaced by `args`. */
export function t(message: string, ...args: (string | number)[]): string {
  const text = bundle[message] ?? message;
  return args.length ? text.replace(/\{(\d+)\}/g, (hole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : hole)) : text;
}
