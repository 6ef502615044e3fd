// A CPU profile (.cpuprofile, V8's format) summarised for a closing note: the top frames by self time and
// by total time (a frame counted once per sample however deep it recurses), and self time grouped by
// where the code lives (ours: the extension's dist/; node: Node's internals; vscode: the extension
// host's own code; other). Node does not mark the idle event loop as "(idle)": time the thread waits in
// epoll is "(program)", so "(program)" is reported apart and left out of the shares.
//
// Usage: node test/bench/profileTop.mjs <file.cpuprofile> [n=15]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const origin = (url) =>
  !url ? 'native'
  : /\/dist\/|zcode-bench-ext|\/extension\/|\/bridge\/|\/webview-ui\//.test(url) ? 'ours'
  : url.startsWith('node:') ? 'node'
  : /extensionHost|vs\/workbench|vs\/base|vs\/platform/.test(url) ? 'vscode'
  : url.includes('node_modules') ? 'deps'
  : 'other';

const label = (frame) => `${frame.url ? `${frame.url.split('/').slice(-2).join('/')}:` : ''}${frame.functionName || '(top level)'}:${frame.lineNumber + 1}`;

/** { duration, program, gc, busy, self: [[label, ms]], total: [[label, ms]], byOrigin: [[origin, ms]] } */
export function summarise(profile, n = 15) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map();
  const total = new Map();
  const byOrigin = new Map();
  let program = 0;
  let idle = 0;
  let gc = 0;
  let all = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    all += ms;
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(program)') return void (program += ms);
    if (frame.functionName === '(idle)') return void (idle += ms);
    if (frame.functionName === '(garbage collector)') gc += ms;
    const key = label(frame);
    self.set(key, (self.get(key) ?? 0) + ms);
    const where = frame.functionName.startsWith('(') ? frame.functionName : origin(frame.url);
    byOrigin.set(where, (byOrigin.get(where) ?? 0) + ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = label(byId.get(at).callFrame);
      if (seen.has(k) || byId.get(at).callFrame.functionName === '(root)') continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + ms);
    }
  });
  const top = (map) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { duration: all, program, idle, gc, busy: all - program - idle, self: top(self), total: top(total), byOrigin: top(byOrigin) };
}

export function formatSummary(s) {
  const line = ([k, ms]) => `  ${ms.toFixed(1).padStart(8)} ms  ${k}`;
  return [
    `profile ${s.duration.toFixed(0)} ms; (program) ${s.program.toFixed(0)} ms (includes the idle event loop); JavaScript + GC ${s.busy.toFixed(0)} ms (GC ${s.gc.toFixed(0)} ms)`,
    'self time by origin:',
    ...s.byOrigin.map(line),
    'top self time:',
    ...s.self.map(line),
    'top total time:',
    ...s.total.map(line),
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
  console.log(formatSummary(summarise(profile, Number(process.argv[3] ?? 15))));
}
