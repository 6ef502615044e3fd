// What the extension host sends to the workbench (and receives from it) while the chat streams,
// counted inside the real extension host from outside the extension: nothing of it is in the
// shipped code. VS Code's RPC protocol object calls `this._logger?.logOutgoing / logIncoming` for
// every message it sends or receives (request `Proxy.$method(`, ack, reply); the bench gives that
// object a counting logger over the inspector. It finds the protocol's `_remoteCall` and
// `_receiveOneMessage` in the host's script and sets conditional breakpoints there whose condition
// assigns the logger to `this` and answers false (the host never pauses); once the first message
// installed it, the breakpoints are removed.
//
// The counts say which vscode API calls cross to the renderer per streamed delta (a status bar
// entry, a context key, a webview message…), and how many of them repeat a value already sent.

/** Installs the counting logger; returns { start(), stop() → rows }. */
export async function hostRpcCounter(inspector) {
  await inspector.call('Runtime.evaluate', { expression: LOGGER });
  const scripts = [];
  const off = inspector.on('Debugger.scriptParsed', (p) => {
    if (/extensionHostProcess\.js$/.test(p.url)) scripts.push(p.scriptId);
  });
  await inspector.call('Debugger.enable');
  off();
  const locations = [];
  for (const scriptId of scripts) {
    const { scriptSource } = await inspector.call('Debugger.getScriptSource', { scriptId });
    // Sending (`_remoteCall(rpcId, method, args)`) and receiving (`_receiveOneMessage(buffer)`).
    for (const m of scriptSource.matchAll(/(?:_remoteCall\(\w+,\w+,\w+\)|_receiveOneMessage\(\w+\))\{/g)) {
      const at = m.index + m[0].length;
      const before = scriptSource.slice(0, at);
      locations.push({ scriptId, lineNumber: before.split('\n').length - 1, columnNumber: at - (before.lastIndexOf('\n') + 1) });
    }
  }
  if (locations.length < 2) throw new Error("the extension host's RPC protocol (_remoteCall, _receiveOneMessage) was not found");
  const condition = '(this._logger = globalThis.__zcodeRpc, globalThis.__zcodeRpc.installed = true, false)';
  const breakpoints = [];
  for (const location of locations) breakpoints.push((await inspector.call('Debugger.setBreakpoint', { location, condition })).breakpointId);
  // The host may be silent until the stream begins: the first message either way installs the
  // logger (before it is logged); the breakpoints go as soon as it did, or at stop().
  let removed;
  const remove = () =>
    (removed ??= (async () => {
      for (const breakpointId of breakpoints) await inspector.call('Debugger.removeBreakpoint', { breakpointId });
      await inspector.call('Debugger.disable');
    })());
  const evaluate = async (expression) => (await inspector.call('Runtime.evaluate', { expression, returnByValue: true })).result.value;
  let watching = true;
  const watch = (async () => {
    while (watching && !(await evaluate('globalThis.__zcodeRpc.installed'))) await new Promise((res) => setTimeout(res, 50));
    await remove();
  })();
  return {
    start: () => evaluate('globalThis.__zcodeRpc.start()'),
    /** [{ key: '→ request: MainThreadX.$y', n, bytes, distinct, samples }], most frequent first. */
    stop: async () => {
      watching = false;
      await watch;
      return JSON.parse(await evaluate('JSON.stringify(globalThis.__zcodeRpc.stop())'));
    },
  };
}

/** Formats the rows per delta: `n (distinct) bytes` per message kind. */
export function formatRpcRows(rows, deltas, top = 12) {
  return rows
    .slice(0, top)
    .map((r) => `${r.key} ×${r.n} (${(r.n / deltas).toFixed(2)}/delta, ${r.distinct} distinct, ${(r.bytes / 1024).toFixed(1)} KB)`)
    .join(' · ');
}

// Runs in the extension host (plain JavaScript source). `distinct` counts the different argument
// lists a request carried: a method called 500 times with 2 distinct argument lists re-sent a value.
const LOGGER = `globalThis.__zcodeRpc = {
  installed: false, on: false, rows: new Map(),
  start() { this.rows = new Map(); this.on = true; },
  stop() {
    this.on = false;
    return [...this.rows].map(([key, r]) => ({ key, n: r.n, bytes: r.bytes, distinct: r.seen.size, samples: r.samples })).sort((a, b) => b.n - a.n);
  },
  add(dir, str, size, data) {
    if (!this.on) return;
    const key = dir + ' ' + String(str).replace(/\\($/, '');
    let r = this.rows.get(key);
    if (!r) this.rows.set(key, (r = { n: 0, bytes: 0, seen: new Set(), samples: [] }));
    r.n++;
    r.bytes += size;
    if (data === undefined || !/request/i.test(key)) return;
    let json;
    try { json = JSON.stringify(data); } catch { json = '?'; }
    if (r.seen.size < 100000) r.seen.add(json);
    if (r.samples.length < 3 && !r.samples.includes(json.slice(0, 240))) r.samples.push(json.slice(0, 240));
  },
  logOutgoing(size, id, initiator, str, data) { this.add('→', str, size, data); },
  logIncoming(size, id, initiator, str, data) { this.add('←', str, size, data); },
};`;
