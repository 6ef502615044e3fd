// The floor for "extension-host CPU per streamed delta": what a bare Node process spends only to read
// the same stream from a child's stdout at the same rate, one JSON line per delta, paced like the
// simulator's `stamped:RATE` scenario (the deltas due each millisecond, one write each), and parse each
// line. No bridge, no ACP, no chat, no VS Code: the wake-ups, reads and syscalls any reader of zcode
// pays per delta on this machine. Measured from /proc (all threads, user + system), like the host.
//
// Standalone: node test/bench/pipeFloor.mjs [rate]
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The writer: the simulator's pacing and line shape, nothing else (shared with the relay-floor extension). */
const WRITER = fileURLToPath(new URL('./relayFloor/writer.js', import.meta.url));

/** The reader: spawns the writer, splits and parses lines, and reports its own CPU over the stream. */
const READER = `
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const ticks = () => { const s = readFileSync('/proc/self/stat', 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); };
const child = spawn(process.execPath, [${JSON.stringify(WRITER)}, process.argv[1]], { stdio: ['ignore', 'pipe', 'inherit'] });
let lines = 0;
let rest = '';
const t0 = ticks();
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  const parts = (rest + chunk).split('\\n');
  rest = parts.pop();
  for (const line of parts) if (line) { JSON.parse(line); lines++; }
});
child.on('exit', () => process.stdout.write(JSON.stringify({ lines, cpuMs: (ticks() - t0) * 10 })));
`;

/** { lines, cpuMs }: the reader's CPU (all its threads) while `2 * rate` deltas stream in at `rate`/s. */
export function pipeFloor(rate) {
  return new Promise((resolvePromise, reject) => {
    const reader = spawn(process.execPath, ['-e', READER, String(rate)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    reader.stdout.on('data', (b) => (out += b));
    reader.on('error', reject);
    reader.on('exit', (code) => (code === 0 ? resolvePromise(JSON.parse(out)) : reject(new Error(`the pipe-floor reader exited with ${code}`))));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rate = Number(process.argv[2] ?? 1000);
  const { lines, cpuMs } = await pipeFloor(rate);
  console.log(`${rate}/s: ${lines} lines, ${cpuMs} ms of CPU = ${((cpuMs * 1000) / lines).toFixed(0)} µs per delta`);
}
