// Fault injection and host requests of current zcode builds.
// Everything here is off unless its environment variable names it, and is wired into the other simulator
// files by one hook line each (connection.mjs, server.mjs, turns.mjs).
//
// ZCODE_SIM_FAULTS (comma list):
//   no-send-ack          `session/send` is never answered; the turn still runs and ends with its events
//   send-ack-wrong-id    `session/send` is answered under another id
//   close-stdout-after-send  after the first `session/send` is answered, stdout is closed; the process
//                        keeps running (and keeps reading stdin) until it is killed or stdin ends
//   ignore-stop          `session/stop` does nothing: the turn runs to its own end
//   drop-turn-end        `turn.completed` / `turn.failed` / `turn.terminal` are never sent (the session still goes idle)
//   spawn-grandchild     at start, a long-lived child process joins the simulator's process group (like a
//                        tool shell zcode started): it outlives the simulator unless the group is killed
//   send-read-only       `session/send` answers -32010 "Subagent sessions are read-only" (a -32010 that is not busy)
// ZCODE_SIM_AUTOMATION=1: `automation/list` exists (answers -32602 to bad params, as builds before 0.16.5
//   do); otherwise it is gone (-32601), as in 0.16.5 and later.
// ZCODE_SIM_HOST_REQUESTS (comma list), sent at the start of every user turn, before the first model output:
//   headers:coding-plan | headers:start-plan   `interaction/requestProviderRuntimeHeaders` (0.16.9-era params)
//   official-mcp         `interaction/requestOfficialMcpAuthHeaders`
//   browser              `interaction/browserList`
//   unknown              `zcode/futureFeature` (a request the host cannot know)
// Each reply is checked against zcode's own schema (strict); a bad one is a violation. A headers reply with
// `headersApplied:false` fails the turn with its `errorMessage` (or zcode's default text), code -32031.
import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { SimError, TurnFailure, hasExactKeys, isObject, log } from './util.mjs';

const faults = new Set(String(process.env.ZCODE_SIM_FAULTS ?? '').split(',').map((s) => s.trim()).filter(Boolean));
const hostRequests = String(process.env.ZCODE_SIM_HOST_REQUESTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const KNOWN = new Set(['no-send-ack', 'send-ack-wrong-id', 'close-stdout-after-send', 'ignore-stop', 'send-read-only', 'spawn-grandchild', 'drop-turn-end']);
if (faults.has('spawn-grandchild')) {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300000)'], { stdio: 'ignore' });
  child.unref();
  log(`fault spawn-grandchild: pid ${child.pid} in the simulator's group`);
}
for (const f of faults) if (!KNOWN.has(f)) log(`unknown fault ${f} (ignored)`);
let stdoutClosed = false;

/** connection.mjs hook: write the reply to a request of the client (or not, or under another id). */
export function deliverReply(writer, msg, result) {
  const reply = { id: msg.id, result: result ?? {} };
  if (msg.method === 'session/send' && faults.has('no-send-ack')) return void log('fault no-send-ack: not answering session/send');
  if (msg.method === 'session/send' && faults.has('send-ack-wrong-id')) reply.id = `${msg.id}-not-yours`;
  writer.send(reply);
  if (msg.method === 'session/send' && faults.has('close-stdout-after-send') && !stdoutClosed) {
    stdoutClosed = true;
    // Everything written so far still goes out; then fd 1 closes and nothing is written again.
    void writer.flush().then(() => {
      writer.stream = new Writable({ write: (_chunk, _enc, done) => done() });
      closeSync(1);
      log('fault close-stdout-after-send: stdout closed, still running');
    });
  }
}

/** sessions.mjs hook: an event this build never sends. */
export function dropsEvent(type) {
  return faults.has('drop-turn-end') && (type === 'turn.completed' || type === 'turn.failed' || type === 'turn.terminal');
}

/** server.mjs hook: a refusal of `session/send` that is not "busy". */
export function sendFault() {
  if (faults.has('send-read-only')) throw new SimError(-32010, 'Subagent sessions are read-only');
}

/** server.mjs hook: `automation/list` of a build that still has it (ZCODE_SIM_AUTOMATION=1). */
export function automationMethod(method) {
  if (method === 'automation/list' && process.env.ZCODE_SIM_AUTOMATION === '1') throw new SimError(-32602, 'Invalid params: "workspace" is required');
}

/** server.mjs hook: true when `session/stop` must be ignored. */
export function ignoresStop() {
  if (faults.has('ignore-stop')) log('fault ignore-stop: ignoring session/stop');
  return faults.has('ignore-stop');
}

/** turns.mjs hook: a `failWire` step fails the turn with exactly this `turn.failed` error object. */
export class WireTurnFailure extends TurnFailure {
  constructor(wire) {
    super(wire.code, wire.message);
    this.wire = wire;
  }
}

const ACCOUNT = {
  'coding-plan': { providerId: 'account:zai-coding-plan', mode: 'individual-coding-plan' },
  'start-plan': { providerId: 'account:zai-start-plan', mode: 'start-plan' },
};
const MCP_REASONS = ['official_auth_unavailable', 'official_auth_plan_required', 'official_mcp_origin_untrusted'];

/** turns.mjs hook: the host requests of ZCODE_SIM_HOST_REQUESTS, each awaited and checked, before the model runs. */
export async function hostRequestsBeforeModel(turn) {
  const { sv, session } = turn;
  const workspace = { workspacePath: session.workspace.workspacePath, workspaceKey: session.workspace.workspaceKey ?? session.workspace.workspacePath };
  for (const spec of hostRequests) {
    const [name, arg] = spec.split(':');
    const requestId = `req_${sv.ids.hex(12)}`;
    if (name === 'headers') {
      const account = ACCOUNT[arg] ?? ACCOUNT['coding-plan'];
      const params = {
        requestId, sessionId: session.sessionId, turnId: turn.id, workspace,
        modelSelection: { providerId: account.providerId, modelId: session.modelId ?? 'GLM-5.2' }, providerId: account.providerId,
        accountAccess: { type: 'zhipu-account', accountType: 'zai', mode: account.mode, entitled: true }, reason: 'model-request',
      };
      const reply = await sv.conn.request('interaction/requestProviderRuntimeHeaders', params).response;
      const r = reply.result;
      const applied = isObject(r) && r.headersApplied === true && hasExactKeys(r, ['headersApplied', 'requestAuth', 'errorMessage'].filter((k) => k in r)) && isObject(r.requestAuth) && validAuth(r.requestAuth);
      const refused = isObject(r) && r.headersApplied === false && Object.keys(r).every((k) => k === 'headersApplied' || (k === 'errorMessage' && typeof r.errorMessage === 'string'));
      if (!applied && !refused) {
        sv.conn.violation('interaction/requestProviderRuntimeHeaders must be answered {headersApplied:true, requestAuth:{apiKey?|headers?}, errorMessage?} or {headersApplied:false, errorMessage?}', reply);
        throw new TurnFailure(-32031, 'Provider runtime headers were not applied before model request attempt.');
      }
      if (refused) throw new TurnFailure(-32031, r.errorMessage || 'Provider runtime headers were not applied before model request attempt.');
    } else if (name === 'official-mcp') {
      const reply = await sv.conn.request('interaction/requestOfficialMcpAuthHeaders', { requestId, workspace, pluginId: 'official', mcpKey: 'image_search', targetOrigin: 'https://open.bigmodel.cn' }).response;
      const r = reply.result;
      const ok = isObject(r) && ((r.ok === true && isObject(r.headers) && hasExactKeys(r, ['ok', 'headers'])) || (r.ok === false && MCP_REASONS.includes(r.reason) && hasExactKeys(r, ['ok', 'reason'])));
      if (!ok) sv.conn.violation('interaction/requestOfficialMcpAuthHeaders must be answered {ok:true, headers} or {ok:false, reason}', reply);
    } else if (name === 'browser') {
      const reply = await sv.conn.request('interaction/browserList', { requestId, sessionId: session.sessionId, turnId: turn.id, workspaceKey: workspace.workspaceKey, workspacePath: workspace.workspacePath, clientMode: 'local', sessionContext: { kind: 'agent' } }).response;
      if (!('error' in reply)) sv.conn.violation('interaction/browserList: a host without a browser must answer with an error', reply);
    } else if (name === 'unknown') {
      const reply = await sv.conn.request('zcode/futureFeature', { requestId }).response;
      if (reply.error?.code !== -32601) sv.conn.violation('an unknown request must be answered -32601', reply);
    }
  }
}

function validAuth(auth) {
  const keys = Object.keys(auth);
  if (keys.length === 0 || !keys.every((k) => k === 'apiKey' || k === 'headers')) return false;
  if ('apiKey' in auth && (typeof auth.apiKey !== 'string' || auth.apiKey === '')) return false;
  if ('headers' in auth && !(isObject(auth.headers) && Object.values(auth.headers).every((v) => typeof v === 'string'))) return false;
  return true;
}
