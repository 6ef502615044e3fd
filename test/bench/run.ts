/**
 * `npm run bench`: every benchmark section in one table. Not a test: nothing here is timed inside
 * `npm test`. A section is a named async function returning rows; add yours to SECTIONS.
 *
 *   npm run bench               all sections
 *   npm run bench -- acp remote only the named sections
 *   npm run bench -- vscode     the real VS Code (code-server + Chromium; needs npm run build and the toolchain)
 */
import type { Row } from './row.ts';

interface Section {
  name: string;
  run: () => Promise<Row[]>;
}

const VSCODE_BENCH: string = './vscode.mjs';

// Loaded on demand: a section's dependencies (a browser, a WebSocket server …) cost nothing when it is not run.
const SECTIONS: Section[] = [
  { name: 'acp', run: async () => (await import('./acpThroughput.ts')).benchAcpThroughput() },
  { name: 'remote', run: async () => (await import('./remoteLoad.ts')).benchRemoteLoad() },
  { name: 'chathost', run: async () => (await import('./chatHost.ts')).benchChatHost() },
  { name: 'webview', run: async () => (await import('./webviewRender.ts')).benchWebviewRender() },
  { name: 'startup', run: async () => (await import('./startup.ts')).benchStartup() },
  // JavaScript (it drives test/e2e/ui/harness.mjs); a variable specifier keeps tsc from looking for its types.
  { name: 'vscode', run: async () => (await import(VSCODE_BENCH)).benchVscode() },
  { name: 'store', run: async () => (await import('./store.ts')).benchStore() },
];

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const selected = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.name)) : SECTIONS;
if (selected.length === 0) {
  console.error(`unknown section(s) ${wanted.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}

const rows: Array<Row & { section: string }> = [];
for (const section of selected) {
  const started = Date.now();
  try {
    for (const row of await section.run()) rows.push({ ...row, section: section.name });
  } catch (error) {
    rows.push({ section: section.name, name: `${section.name}: failed to run`, value: error instanceof Error ? error.message : String(error), ok: false });
  }
  console.error(`[bench] ${section.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const nameWidth = Math.min(110, Math.max(...rows.map((r) => r.name.length)));
const valueWidth = Math.min(60, Math.max(...rows.map((r) => r.value.length)));
console.log(`\n${'benchmark'.padEnd(nameWidth)}  ${'result'.padEnd(valueWidth)}  target`);
console.log(`${'-'.repeat(nameWidth)}  ${'-'.repeat(valueWidth)}  ${'-'.repeat(14)}`);
for (const r of rows) {
  const mark = r.ok === undefined ? '' : r.ok ? '  ✓' : '  ✗';
  console.log(`${r.name.padEnd(nameWidth)}  ${r.value.padEnd(valueWidth)}  ${r.target ?? ''}${mark}`);
}
if (rows.some((r) => r.ok === false)) process.exitCode = 1;
