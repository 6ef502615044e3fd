/**
 * Chat webview render benchmark (`npm run bench`): the production bundle of webview-ui in headless
 * Chromium (Debian's, through playwright-core), in the real HTML with the real CSP, fed through
 * the real message contract:
 *
 *   1. 10k streamed deltas: one agent message grows by 10 000 `append` patches, each its own
 *      postMessage task (the host normally batches per frame; this is the unbatched worst case),
 *      with paragraphs, lists and code fences so the incremental markdown path is exercised.
 *   2. A 2k-item transcript: one snapshot of 2 000 items (messages, thoughts, tool cards with diffs
 *      and terminal output, plans), as after a reload or a session switch.
 *
 * Reported per scenario: total time until the final DOM is there, and the longest main-thread
 * task — the max of Chromium's Long Tasks entries and of our own timing of every message handler
 * and animation-frame callback (Long Tasks only reports tasks ≥ 50 ms). Also checked: no CSP
 * violation, and model output with `<script>`/`onerror=`/`javascript:` executed nothing.
 *
 * Standalone: `node --import tsx test/bench/webviewRender.ts`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium, type Page } from 'playwright-core';
import { chatHtml } from '../../extension/chat/webviewHtml.ts';
import type { ChatPatch, ChatSnapshot, SessionView, TranscriptItem } from '../../webview-ui/contract.ts';

/** One line of the bench table. */
export interface Row {
  name: string;
  value: string;
  target?: string;
  ok?: boolean;
}

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const ORIGIN = 'https://bench.invalid';
const DELTAS = 10_000;
const ITEMS = 2_000;
/** Targets: a frame budget for streaming, a snappy reload for a long transcript. */
const LONGEST_TASK_TARGET_MS = 50;
const SNAPSHOT_TARGET_MS = 1_000;

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

function session(overrides: Partial<SessionView> = {}): SessionView {
  return { connection: 'ready', sessionId: 'bench', running: true, configOptions: [], commands: [], promptCapabilities: { image: false, embeddedContext: false }, backgroundTasks: [], queue: [], ...overrides };
}

/** The streamed text, in deltas of 1–3 words with markdown structure every so often. */
export function streamDeltas(count: number): string[] {
  const words = ['the', 'bridge', 'streams', 'markdown', 'into', 'the', 'webview', '`code`', '**bold**', 'and', 'text'];
  const deltas: string[] = [];
  for (let i = 0; deltas.length < count; i++) {
    if (i % 400 === 399) deltas.push('\n\n```ts\n', 'const x = 1;\n', '\n', 'function f() { return x; }\n', '```\n\n');
    else if (i % 150 === 149) deltas.push('\n\n- item one\n', '- item two\n\n');
    else if (i % 60 === 59) deltas.push('\n\n');
    else if (i === 500) deltas.push(' <img src=x onerror="window.__xss=1"> [click](javascript:window.__xss=1) <script>window.__xss=1</script> ');
    else deltas.push(`${words[i % words.length]} `);
  }
  return deltas.slice(0, count);
}

/** 2 000 items of every kind, as a long session's snapshot. */
export function longTranscript(count: number): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const para = 'This is a **long** answer with `inline code`, a [link](https://example.com) and enough words to wrap over a couple of lines in a narrow side bar. ';
  for (let i = 0; items.length < count; i++) {
    const k = i % 10;
    if (k === 0 || k === 5) items.push({ type: 'user', id: `u${i}`, text: `Question number ${i}: please change the greeting module.`, attachments: [] });
    else if (k === 1) items.push({ type: 'thought', id: `th${i}`, text: 'Let me think about the module layout first.' });
    else if (k === 2 || k === 6 || k === 8) items.push({ type: 'agent', id: `a${i}`, text: `${para.repeat(2)}\n\n- one\n- two\n\n\`\`\`ts\nexport const greeting = 'hi ${i}';\n\`\`\`\n` });
    else if (k === 3)
      items.push({
        type: 'tool',
        id: `t${i}`,
        toolCallId: `t${i}`,
        title: `Edit src/greeting${i}.ts`,
        kind: 'edit',
        status: 'completed',
        content: [{ type: 'diff', index: 0, path: `/w/src/greeting${i}.ts`, isNew: false, added: 2, removed: 1, truncated: false, lines: [{ t: ' ', text: 'export function greet() {' }, { t: '-', text: "  return 'hi';" }, { t: '+', text: "  return 'hello';" }, { t: '+', text: '  // changed' }, { t: ' ', text: '}' }] }],
        locations: [],
        input: '{\n  "file_path": "src/greeting.ts"\n}',
      });
    else if (k === 4)
      items.push({
        type: 'tool',
        id: `t${i}`,
        toolCallId: `t${i}`,
        title: 'npm test',
        kind: 'execute',
        status: 'completed',
        content: [{ type: 'terminal', terminalId: `t${i}` }],
        locations: [],
        terminal: { terminalId: `t${i}`, output: Array.from({ length: 40 }, (_, j) => `\x1b[32m✔\x1b[0m test ${j}`).join('\n'), truncated: false, exited: true, exitCode: 0, signal: null },
      });
    else if (k === 7) items.push({ type: 'plan', id: `p${i}`, entries: [{ content: 'Read the module', priority: 'high', status: 'completed' }, { content: 'Change it', priority: 'medium', status: 'in_progress' }] });
    else items.push({ type: 'notice', id: `n${i}`, severity: 'info', title: 'Stopped.' });
  }
  return items.slice(0, count);
}

async function buildBundle(outdir: string): Promise<void> {
  await esbuild.build({
    entryPoints: { webview: join(ROOT, 'webview-ui/main.tsx') },
    outdir,
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
    logLevel: 'error',
  });
}

/**
 * Instrumentation installed before the page's own script (init scripts are not subject to the page
 * CSP). Plain JavaScript source: a transpiled function would drag in the runner's helpers.
 */
const INSTRUMENT = `
(() => {
  const posted = [];
  const violations = [];
  const stats = { longest: 0, longTasks: 0, handlers: 0, top: [] };
  const note = (kind, d) => { if (d > 16) stats.top.push(kind + ' ' + d.toFixed(1) + ' @' + performance.now().toFixed(0)); };
  window.__bench = { posted, violations, stats };
  window.acquireVsCodeApi = () => ({ postMessage: (m) => posted.push(m), getState: () => undefined, setState: () => {} });
  document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective + ': ' + e.blockedURI));
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) { stats.longTasks++; note('longtask', e.duration); stats.longest = Math.max(stats.longest, e.duration); }
  }).observe({ type: 'longtask', buffered: true });
  // Time every animation-frame callback (the store renders in one) and every message handler.
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => raf((t) => {
    const start = performance.now();
    try { cb(t); } finally { note('raf', performance.now() - start); stats.longest = Math.max(stats.longest, performance.now() - start); }
  });
  const add = window.addEventListener.bind(window);
  window.addEventListener = (type, listener, options) => {
    if (type !== 'message') return add(type, listener, options);
    return add(type, (e) => {
      const start = performance.now();
      try { listener(e); } finally { stats.handlers++; note('message', performance.now() - start); stats.longest = Math.max(stats.longest, performance.now() - start); }
    }, options);
  };
})();
`;

async function openPage(page: Page, dir: string): Promise<void> {
  const html = chatHtml({ cspSource: ORIGIN, scriptUri: `${ORIGIN}/webview.js`, styleUri: `${ORIGIN}/webview.css`, nonce: 'benchNonce123' });
  await page.route(`${ORIGIN}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname.replace(/^\//, '');
    if (path === '' || path === 'index.html') return route.fulfill({ status: 200, contentType: 'text/html', body: html });
    const file = join(dir, path);
    if (!existsSync(file)) return route.fulfill({ status: 404, body: '' });
    const type = path.endsWith('.js') ? 'text/javascript' : path.endsWith('.css') ? 'text/css' : path.endsWith('.ttf') ? 'font/ttf' : 'application/octet-stream';
    return route.fulfill({ status: 200, contentType: type, body: readFileSync(file) });
  });
  await page.addInitScript({ content: INSTRUMENT });
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => (window as unknown as { __bench: { posted: { method: string }[] } }).__bench.posted.some((m) => m.method === 'chat/ready'));
}

/** Posts host messages as separate tasks (like VS Code delivers them). */
async function deliver(page: Page, messages: unknown[]): Promise<void> {
  await page.evaluate((msgs) => {
    for (const m of msgs) window.postMessage(m, '*');
  }, messages);
}

async function resetStats(page: Page): Promise<void> {
  await page.evaluate(() => {
    const s = (window as unknown as { __bench: { stats: { longest: number; longTasks: number; handlers: number } } }).__bench.stats;
    s.longest = 0;
    s.longTasks = 0;
    s.handlers = 0;
    if ((s as { top?: string[] }).top) {
      if ((s as { top: string[] }).top.length) console.log('top tasks: ' + (s as { top: string[] }).top.slice(-12).join(', '));
      (s as { top: string[] }).top = [];
    }
  });
}

async function stats(page: Page): Promise<{ longest: number; longTasks: number; violations: string[]; xss: boolean; unsafeDom: number }> {
  return page.evaluate(() => {
    const b = (window as unknown as { __bench: { stats: { longest: number; longTasks: number }; violations: string[] } }).__bench;
    const unsafe = document.querySelectorAll('script:not([nonce]), [onerror], [onclick], a[href^="javascript:" i]').length;
    return { longest: b.stats.longest, longTasks: b.stats.longTasks, violations: b.violations, xss: (window as unknown as { __xss?: number }).__xss !== undefined, unsafeDom: unsafe };
  });
}

const ms = (n: number): string => `${n.toFixed(1)} ms`;

export async function benchWebviewRender(): Promise<Row[]> {
  const chrome = process.env.CHROME || '/usr/bin/chromium';
  if (!existsSync(chrome)) return [{ name: 'webview render', value: `skipped: no Chromium at ${chrome} (set CHROME)`, ok: false }];
  const dir = mkdtempSync(join(tmpdir(), 'zcode-webview-bench-'));
  const rows: Row[] = [];
  const browser = await chromium.launch({ executablePath: chrome, headless: true, args: CHROMIUM_ARGS });
  try {
    await buildBundle(dir);
    const bundleKb = readFileSync(join(dir, 'webview.js')).length / 1024;
    rows.push({ name: 'webview: dist/webview.js (production)', value: `${bundleKb.toFixed(1)} KB`, target: '≤ 400 KB', ok: bundleKb <= 400 });
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    if (process.env.ZCODE_BENCH_DEBUG) {
      page.on('console', (m) => console.error('[page]', m.text()));
      page.on('pageerror', (e) => console.error('[pageerror]', e));
      page.on('requestfailed', (r) => console.error('[requestfailed]', r.url(), r.failure()?.errorText));
      page.on('request', (r) => console.error('[request]', r.url()));
    }
    await openPage(page, dir);

    // ── 1. 10k streamed deltas ────────────────────────────────────────────────────────────────
    const deltas = streamDeltas(DELTAS);
    const full = deltas.join('');
    const snapshot: ChatSnapshot = { seq: 1, session: session(), items: [{ type: 'user', id: 'u', text: 'Stream, please', attachments: [] }, { type: 'agent', id: 'a', text: '' }] };
    await deliver(page, [{ id: 'h0', method: 'chat/snapshot', params: snapshot }]);
    await page.waitForSelector('.message.agent', { state: 'attached' });
    await resetStats(page);
    const patches = deltas.map((text, i) => ({ id: `d${i}`, method: 'chat/patch', params: { seq: i + 2, ops: [{ op: 'append', id: 'a', field: 'text', text }] } satisfies ChatPatch }));
    const started = Date.now();
    await deliver(page, patches);
    // Done streaming: the turn ends (the message renders once, whole) and the last words are on screen.
    await deliver(page, [{ id: 'end', method: 'chat/patch', params: { seq: DELTAS + 2, ops: [], session: { running: false } } satisfies ChatPatch }]);
    const tailWords = full.trim().split(/\s+/).slice(-3).join(' ').replace(/[`*]/g, '');
    await page.waitForFunction((tail) => (document.querySelector('.message.agent:not(.live)')?.textContent ?? '').replace(/\s+/g, ' ').includes(tail), tailWords, { timeout: 120_000 });
    const streamTotal = Date.now() - started;
    const s1 = await stats(page);
    rows.push({ name: `webview: ${DELTAS} streamed deltas, total`, value: ms(streamTotal) });
    rows.push({ name: `webview: ${DELTAS} streamed deltas, longest main-thread task`, value: ms(s1.longest), target: `< ${LONGEST_TASK_TARGET_MS} ms`, ok: s1.longest < LONGEST_TASK_TARGET_MS });
    rows.push({ name: 'webview: model output with <script>/onerror=/javascript: executed', value: s1.xss || s1.unsafeDom > 0 ? `yes (${s1.unsafeDom} unsafe nodes)` : 'nothing', target: 'nothing', ok: !s1.xss && s1.unsafeDom === 0 });

    // ── 2. a 2k-item transcript snapshot ──────────────────────────────────────────────────────
    await resetStats(page);
    const items = longTranscript(ITEMS);
    const t2 = Date.now();
    await deliver(page, [{ id: 'big', method: 'chat/snapshot', params: { seq: DELTAS + 10, session: session({ running: false }), items } satisfies ChatSnapshot }]);
    await page.waitForFunction((lastId) => document.querySelector(`[data-item-id="${lastId}"]`) !== null, items[items.length - 1].id, { timeout: 60_000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const snapshotTotal = Date.now() - t2;
    const s2 = await stats(page);
    rows.push({ name: `webview: ${ITEMS}-item transcript snapshot, total`, value: ms(snapshotTotal), target: `< ${SNAPSHOT_TARGET_MS} ms`, ok: snapshotTotal < SNAPSHOT_TARGET_MS });
    rows.push({ name: `webview: ${ITEMS}-item transcript snapshot, longest main-thread task`, value: ms(s2.longest) });

    // Scrolling back through the whole transcript (earlier items load in windows).
    await resetStats(page);
    const t3 = Date.now();
    for (let i = 0; i < 40; i++) {
      const more = await page.evaluate(() => {
        const el = document.querySelector('.transcript') as HTMLElement;
        el.scrollTop = 0;
        el.dispatchEvent(new Event('scroll'));
        return document.querySelector('.load-earlier') !== null;
      });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      if (!more) break;
    }
    const rendered = await page.evaluate(() => document.querySelectorAll('[data-item-id]').length);
    const s3 = await stats(page);
    rows.push({ name: `webview: scroll back through ${ITEMS} items (${rendered} rendered), total`, value: ms(Date.now() - t3) });
    rows.push({ name: 'webview: scroll back, longest main-thread task', value: ms(s3.longest) });
    const violations = [...s1.violations, ...s2.violations, ...s3.violations];
    rows.push({ name: 'webview: CSP violations (strict CSP, nonce script, no inline style)', value: violations.length ? violations.slice(0, 3).join('; ') : '0', target: '0', ok: violations.length === 0 });
    await page.close();
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await benchWebviewRender();
  for (const r of rows) console.log(`${r.ok === false ? '✗' : r.ok ? '✓' : ' '} ${r.name}: ${r.value}${r.target ? ` (target ${r.target})` : ''}`);
  if (rows.some((r) => r.ok === false)) process.exitCode = 1;
}
