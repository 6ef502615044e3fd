/**
 * Model output → safe HTML. markdown-it with raw HTML disabled (so `<script>` in model text is
 * shown as text), then DOMPurify over the result as a second line of defence (it also owns the URL
 * allow-list: no `javascript:`/`data:` links, no event-handler attributes, no inline styles).
 *
 * Blocks: `StreamingMarkdown` splits a (growing) message into stable blocks (finished at a blank
 * line followed by an unindented line, outside code fences) that are rendered once, plus the open
 * tail, which is the only part re-rendered per chunk. Trade-off, accepted: constructs spanning a
 * split render per block (a loose list becomes consecutive lists; a reference-style link definition
 * only applies inside its block).
 */
import { t } from './l10n.ts';
import MarkdownIt from 'markdown-it';
import createDOMPurify from 'dompurify';
import type { Config, DOMPurify } from 'dompurify';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

const escapeHtml = md.utils.escapeHtml;

// Code blocks get a copy button (wired by delegation in the view: no inline handlers, CSP).
md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = token.info.trim().split(/\s+/)[0] ?? '';
  const langClass = lang ? ` class="language-${escapeHtml(lang)}"` : '';
  const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : '';
  return (
    `<div class="code-block">${label}<button type="button" class="icon-button copy-code" data-action="copy-code" title="${escapeHtml(t('Copy code'))}" aria-label="${escapeHtml(t('Copy code'))}">` +
    `<span class="codicon codicon-copy" aria-hidden="true"></span></button>` +
    `<pre><code${langClass}>${escapeHtml(token.content)}</code></pre></div>\n`
  );
};

const PURIFY_CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'textarea', 'select', 'iframe', 'object', 'embed', 'link', 'meta', 'base'],
  FORBID_ATTR: ['style', 'srcset'],
  ALLOW_DATA_ATTR: true,
};

let purifier: DOMPurify | undefined;

function purify(): DOMPurify {
  // Created lazily: DOMPurify binds to the window that exists when it is created.
  if (!purifier) {
    purifier = createDOMPurify(window as unknown as Window & typeof globalThis);
    // Links open through the host (it decides what is safe to open); never a new browsing context.
    purifier.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') node.removeAttribute('target');
    });
  }
  return purifier;
}

/** Removes anything executable or style-injecting from an HTML string. */
export function sanitizeHtml(html: string): string {
  return purify().sanitize(html, PURIFY_CONFIG) as unknown as string;
}

/** Recently rendered blocks: a reload or a session switch renders the same messages again. */
const cache = new Map<string, string>();
const CACHE_ENTRIES = 1000;
const CACHE_MAX_SOURCE = 16 * 1024;

/** Markdown → sanitised HTML. */
export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const html = sanitizeHtml(md.render(text));
  if (text.length <= CACHE_MAX_SOURCE) {
    cache.set(text, html);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  }
  return html;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Incremental block splitter + renderer for one growing message. Feed it the whole text each time
 * (append-only); it scans only the new complete lines.
 */
export class StreamingMarkdown {
  /** Rendered stable blocks. */
  readonly blocks: string[] = [];
  private stableEnd = 0;
  private scanned = 0;
  private fence: { char: string; len: number } | undefined;
  private afterBlank = false;
  private length = 0;

  private tailSource: string | undefined;
  private tailHtml = '';

  /** Updates with the message's current text; returns the tail's HTML (stable blocks in `blocks`). */
  update(text: string): string {
    if (text.length < this.length) this.reset();
    this.length = text.length;
    let lineStart = this.scanned;
    for (;;) {
      const nl = text.indexOf('\n', lineStart);
      if (nl < 0) break;
      this.scanLine(text, lineStart, nl);
      lineStart = nl + 1;
    }
    this.scanned = lineStart;
    // The next block has started (an unindented character after a blank line): close the previous
    // one now rather than when that line is complete.
    if (!this.fence && this.afterBlank && lineStart < text.length && !/\s/.test(text[lineStart]) && lineStart > this.stableEnd) {
      this.blocks.push(renderMarkdown(text.slice(this.stableEnd, lineStart)));
      this.stableEnd = lineStart;
      this.afterBlank = false;
    }
    const tail = text.slice(this.stableEnd);
    // Re-renders (e.g. the turn ending) with unchanged text cost nothing.
    if (tail !== this.tailSource) {
      this.tailSource = tail;
      this.tailHtml = renderMarkdown(tail);
    }
    return this.tailHtml;
  }

  private scanLine(text: string, start: number, end: number): void {
    const line = text.slice(start, end);
    const fence = FENCE.exec(line);
    if (this.fence) {
      if (fence && fence[1][0] === this.fence.char && fence[1].length >= this.fence.len && line.slice(fence[0].length).trim() === '') this.fence = undefined;
      return;
    }
    if (line.trim() === '') {
      this.afterBlank = true;
      return;
    }
    // A new top-level block after a blank line: everything before it is final.
    if (this.afterBlank && !/^\s/.test(line) && start > this.stableEnd) {
      this.blocks.push(renderMarkdown(text.slice(this.stableEnd, start)));
      this.stableEnd = start;
    }
    this.afterBlank = false;
    if (fence) this.fence = { char: fence[1][0], len: fence[1].length };
  }

  private reset(): void {
    this.tailSource = undefined;
    this.blocks.length = 0;
    this.stableEnd = 0;
    this.scanned = 0;
    this.fence = undefined;
    this.afterBlank = false;
  }
}
