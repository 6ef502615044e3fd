// `deltas:N`: exactly N text_delta events of "x", as fast as stdout takes them (benchmarks). Default N = 1000.
export function steps({ arg }) {
  const n = arg === undefined ? 1000 : Number(arg);
  if (!Number.isInteger(n) || n < 0) return [{ text: `deltas:N needs a non-negative integer, got ${JSON.stringify(arg)}.\n` }];
  return [{ deltas: n }];
}
