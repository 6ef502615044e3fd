// `stamped:RATE`: 2 s of text deltas at RATE a second (default 1000), each carrying the wall-clock time
// it was written (` s<k>@<ms>`), for the zcode-to-pixels latency bench (test/bench/vscodeBench.ts).
export function steps({ arg }) {
  const rate = arg === undefined ? 1000 : Number(arg);
  if (!Number.isInteger(rate) || rate <= 0) return [{ text: `stamped:RATE needs a positive integer, got ${JSON.stringify(arg)}.\n` }];
  return [{ stamped: { rate, count: 2 * rate } }];
}
