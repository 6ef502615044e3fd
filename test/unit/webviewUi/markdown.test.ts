/** Model output is sanitised: no script, no event handlers, no javascript: links; streaming keeps stable blocks. */
import { document } from './dom.ts';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, sanitizeHtml, StreamingMarkdown } from '../../../webview-ui/markdown.ts';

function parse(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

function assertInert(root: HTMLElement): void {
  assert.equal(root.querySelectorAll('script, iframe, object, embed, style').length, 0, 'no executable or style elements');
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      assert.ok(!/^on/i.test(attr), `no event handler attribute (${attr} on <${el.tagName.toLowerCase()}>)`);
      assert.notEqual(attr, 'style');
      const value = el.getAttribute(attr) ?? '';
      assert.ok(!/^\s*(javascript|vbscript|data:text\/html)/i.test(value), `no script URL in ${attr}="${value}"`);
    }
  }
}

describe('sanitiser', () => {
  test('<script> in model markdown does not become an element (shown as text)', () => {
    const root = parse(renderMarkdown('Hello <script>alert(1)</script> world'));
    assertInert(root);
    assert.match(root.textContent!, /<script>alert\(1\)<\/script>/);
  });

  test('onerror= on an <img> in model markdown never becomes an attribute', () => {
    const root = parse(renderMarkdown('<img src=x onerror="alert(1)">\n\n![pic](x" onerror="alert(1))'));
    assertInert(root);
  });

  test('javascript: links are not links', () => {
    const root = parse(renderMarkdown('[click](javascript:alert(1)) and [x](JaVaScRiPt:alert(1)) and <javascript:alert(1)>'));
    assertInert(root);
    assert.equal([...root.querySelectorAll('a')].filter((a) => /javascript/i.test(a.getAttribute('href') ?? '')).length, 0);
  });

  test('sanitizeHtml strips the same from raw HTML (defence in depth under markdown-it)', () => {
    const dirty =
      '<p>ok</p><script>alert(1)</script><img src="x" onerror="alert(1)"><a href="javascript:alert(1)">a</a>' +
      '<div onclick="x()" style="color:red">d</div><iframe src="https://evil"></iframe><a href="https://example.com" target="_blank">fine</a>';
    const root = parse(sanitizeHtml(dirty));
    assertInert(root);
    assert.equal(root.querySelector('p')?.textContent, 'ok');
    const links = [...root.querySelectorAll('a')];
    assert.equal(links.find((a) => a.textContent === 'a')?.getAttribute('href'), null);
    assert.equal(links.find((a) => a.textContent === 'fine')?.getAttribute('href'), 'https://example.com');
    assert.equal(links.find((a) => a.textContent === 'fine')?.getAttribute('target'), null);
  });

  test('safe markdown renders: code blocks get a copy button, links keep http(s)', () => {
    const root = parse(renderMarkdown('# Title\n\nSee [docs](https://example.com).\n\n```ts\nconst a = 1 < 2;\n```\n'));
    assertInert(root);
    assert.equal(root.querySelector('h1')?.textContent, 'Title');
    assert.equal(root.querySelector('a')?.getAttribute('href'), 'https://example.com');
    assert.equal(root.querySelector('pre code.language-ts')?.textContent, 'const a = 1 < 2;\n');
    const copy = root.querySelector('button[data-action="copy-code"]');
    assert.equal(copy?.getAttribute('aria-label'), 'Copy code');
  });
});

describe('streaming markdown', () => {
  test('finished blocks are rendered once; only the tail changes as text streams in', () => {
    const s = new StreamingMarkdown();
    let text = '';
    const feed = (chunk: string): string => s.update((text += chunk));
    feed('First para');
    assert.equal(s.blocks.length, 0);
    feed('graph.\n\nSecond');
    assert.equal(s.blocks.length, 1);
    const first = s.blocks[0];
    assert.match(first, /<p>First paragraph\.<\/p>/);
    const tail = feed(' paragraph.\n\n```js\nx()\n\ny()\n');
    assert.equal(s.blocks[0], first, 'a finished block is not re-rendered');
    assert.equal(s.blocks.length, 2, 'blank lines inside an open code fence do not split it');
    assert.match(tail, /<code class="language-js">x\(\)\n\ny\(\)\n<\/code>/);
    feed('```\n\nDone.');
    assert.equal(s.blocks.length, 3);
    assert.match(s.blocks[2], /x\(\)\n\ny\(\)/);
  });

  test('indented continuations (list items) stay in their block', () => {
    const s = new StreamingMarkdown();
    s.update('1. one\n\n   more of one\n\n2. two\n');
    assert.equal(s.blocks.length, 1);
    assert.match(s.blocks[0], /more of one/);
  });

  test('streaming output equals the whole render for simple documents', () => {
    const doc = 'Intro text.\n\n- a\n- b\n\nOutro with `code`.\n';
    const s = new StreamingMarkdown();
    let tail = '';
    for (let i = 1; i <= doc.length; i++) tail = s.update(doc.slice(0, i));
    const streamed = s.blocks.join('') + tail;
    assert.equal(streamed.replace(/\s+/g, ''), renderMarkdown(doc).replace(/\s+/g, ''));
  });
});
