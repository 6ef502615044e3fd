// The message layer: classify incoming lines, dispatch requests/notifications, correlate responses to the
// simulator's own requests ("server-N" ids), and record every violation the client commits.
import { SimError, isObject, log } from './util.mjs';
import { deliverReply } from './faults.mjs';

export class Connection {
  /**
   * @param {object} o
   * @param {import('./framing.mjs').LineWriter} o.writer
   * @param {import('./framing.mjs').Recorder} o.recorder
   * @param {Set<string>} o.quirks
   * @param {(method:string, params:any, ctx:{after(fn:()=>void):void}) => Promise<any>} o.onRequest
   * @param {(method:string, params:any) => void} o.onNotification
   */
  constructor({ writer, recorder, quirks, onRequest, onNotification, strictEnvelope = false }) {
    /** Current builds: zod-strict envelopes, fixed-id error frames, client notifications dropped (see onLine). */
    this.strictEnvelope = strictEnvelope;
    this.writer = writer;
    this.recorder = recorder;
    this.quirks = quirks;
    this.onRequest = onRequest;
    this.onNotification = onNotification;
    this.nextServerId = 1;
    /** id -> { method, resolve, answered } for requests the simulator sent */
    this.pending = new Map();
    this.violations = 0;
    /** optional `(method) => Promise<release>`: serial request processing (v4.mjs) */
    this.gate = null;
  }

  /** Record a protocol violation (record file + stderr). */
  violation(text, msg) {
    this.violations++;
    log(`VIOLATION: ${text}`);
    this.recorder.violation(text, msg);
  }

  /** Handle one raw line from stdin. Never throws. */
  onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.violation('line is not JSON', line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
      if (this.strictEnvelope) this.writer.send({ id: 'parse-error', error: { code: -32700, message: 'Parse error' } });
      return;
    }
    this.recorder.received(msg);
    if (!isObject(msg)) {
      this.violation('message is not a JSON object', msg);
      return;
    }
    if (this.strictEnvelope) return this.onStrictMessage(msg);
    const hasId = 'id' in msg;
    const hasMethod = typeof msg.method === 'string';
    // The real backend rejects anything that carries `jsonrpc` (quirk `reject-jsonrpc`, default on).
    if ('jsonrpc' in msg && this.quirks.has('reject-jsonrpc')) {
      this.violation('message carries "jsonrpc" (the zcode backend rejects it)', msg);
      if (hasId && hasMethod) this.error(msg.id, -32600, 'Invalid Request: unexpected field "jsonrpc"');
      return;
    }
    if (hasId && (typeof msg.id !== 'number' && typeof msg.id !== 'string')) {
      this.violation('id must be a number or a string', msg);
      if (hasMethod) this.error(null, -32600, 'Invalid Request: bad id');
      return;
    }
    if (hasId && hasMethod) return void this.handleRequest(msg);
    if (hasId) return this.handleResponse(msg);
    if (hasMethod) return this.handleNotification(msg);
    this.violation('message has neither id nor method', msg);
  }

  /**
   * Current builds (zcode-current.md §2): a request is exactly {id, method, params?, trace?}, a response
   * {id, result} or {id, error:{code, message, data?}}, a notification {method, params?, trace?}. Anything
   * else (a `jsonrpc` key included) is answered with the fixed id "invalid-message" and -32600 — so the
   * request's own id never gets an answer. Client notifications are logged and dropped.
   */
  onStrictMessage(msg) {
    const hasId = 'id' in msg;
    const hasMethod = 'method' in msg;
    const allowed = hasMethod ? ['id', 'method', 'params', 'trace'] : 'error' in msg ? ['id', 'error'] : ['id', 'result'];
    const extra = Object.keys(msg).filter((k) => !allowed.includes(k));
    const badId = hasId && typeof msg.id !== 'string' && !Number.isInteger(msg.id);
    const badError = !hasMethod && 'error' in msg && !(isObject(msg.error) && Number.isInteger(msg.error.code) && typeof msg.error.message === 'string' && msg.error.message.trim() !== '' && Object.keys(msg.error).every((k) => ['code', 'message', 'data'].includes(k)));
    if (extra.length || badId || badError || (!hasId && !hasMethod) || (hasMethod && (typeof msg.method !== 'string' || msg.method.trim() === ''))) {
      const issues = extra.length ? [{ code: 'unrecognized_keys', keys: extra, path: [], message: `Unrecognized key${extra.length > 1 ? 's' : ''}: ${extra.map((k) => JSON.stringify(k)).join(', ')}` }] : [{ code: 'invalid_union', path: [], message: 'Invalid input' }];
      this.violation(`message rejected by the strict envelope (${issues[0].message})`, msg);
      this.writer.send({ id: 'invalid-message', error: { code: -32600, message: 'Invalid message', data: { issues } } });
      return;
    }
    if (hasId && hasMethod) return void this.handleRequest(msg);
    if (hasId) return this.handleResponse(msg);
    return this.handleNotification(msg);
  }

  async handleRequest(msg) {
    const afters = [];
    // v4 builds: wait for this request's turn in zcode's serial line (v4.mjs requestGate).
    const release = this.gate ? await this.gate(msg.method) : null;
    try {
      const result = await this.onRequest(msg.method, msg.params, { after: (fn) => afters.push(fn) });
      deliverReply(this.writer, msg, result);
      for (const fn of afters) fn();
    } catch (err) {
      if (err instanceof SimError) {
        if (err.violation) this.violation(`${msg.method}: ${err.message}`, msg);
        this.error(msg.id, err.code, err.message, err.data);
      } else {
        log(`internal error in ${msg.method}:`, err?.stack ?? String(err));
        this.error(msg.id, -32603, `Internal error: ${err?.message ?? err}`);
      }
    } finally {
      release?.();
    }
  }

  handleNotification(msg) {
    try {
      this.onNotification(msg.method, msg.params, msg);
    } catch (err) {
      if (err instanceof SimError && err.violation) this.violation(`${msg.method}: ${err.message}`, msg);
      else log(`notification ${msg.method} failed:`, err?.message ?? String(err));
    }
  }

  handleResponse(msg) {
    const entry = this.pending.get(msg.id);
    if (!entry) {
      this.violation(`response to an unknown request id ${JSON.stringify(msg.id)}`, msg);
      return;
    }
    if (entry.answered) {
      this.violation(`duplicate response to ${JSON.stringify(msg.id)} (${entry.method})`, msg);
      return;
    }
    const hasResult = 'result' in msg;
    const hasError = 'error' in msg;
    if (hasResult === hasError) {
      this.violation(`response to ${entry.method} must carry exactly one of result / error`, msg);
    }
    entry.answered = true;
    entry.resolve(msg);
  }

  /**
   * Send a request of the simulator's own. Returns { id, response } where `response` resolves with the
   * raw reply message (`{id, result}` or `{id, error}`); it never rejects.
   */
  request(method, params) {
    const id = `server-${this.nextServerId++}`;
    let resolve;
    const response = new Promise((r) => (resolve = r));
    this.pending.set(id, { method, resolve, answered: false });
    this.writer.send({ id, method, params });
    return { id, response };
  }

  /** Ids of the simulator's requests that never got an answer. */
  unanswered(ids) {
    return ids.filter((id) => this.pending.get(id)?.answered === false);
  }

  notify(method, params) {
    this.writer.send({ method, params });
  }

  error(id, code, message, data) {
    this.writer.send({ id, error: data === undefined ? { code, message } : { code, message, data } });
  }
}
