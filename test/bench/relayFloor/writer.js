// The stream both floors read: the zcode simulator's `stamped:RATE` pacing and line shape (the deltas due
// each millisecond, one write each, ` s<k>@<wall-clock ms>`, a paragraph every 50), nothing else.
// Used by pipeFloor.mjs (bare Node) and by the relay-floor extension (extension.js).
//   node writer.js RATE   → 2 × RATE lines on stdout, then exits
'use strict';
const rate = Number(process.argv[2]);
const count = 2 * rate;
const start = performance.now();
let k = 0;
(async () => {
  while (k < count) {
    const due = Math.min(count, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
    for (; k < due; k++) {
      const delta = (k > 0 && k % 50 === 0 ? '\n\n' : ' ') + 's' + k + '@' + (performance.timeOrigin + performance.now()).toFixed(1);
      process.stdout.write(JSON.stringify({ method: 'event', params: { sessionId: 'ses_bench', seq: k + 2, type: 'model.streaming', data: { kind: 'text_delta', delta, messageId: 'msg_bench' } } }) + '\n');
    }
    await new Promise((r) => setTimeout(r, 1));
  }
})();
