// The v4 surface of desktop builds (profiles desktop-3.12 and desktop-3.15): `v4/commands/query`, `v4/command`
// and the read-only `v4/conversation/*` queries, following zcode's CLI gateway and command inbox (jimpablo/ZCode
// apps/zcode-cli/packages/bootstrap/src/zcode-protocol-v4/{v4-gateway,command-inbox}.ts): the envelope is parsed
// first (malformed → `rejected`/proto.invalidPayload), then the session (→ proto.sessionNotFound), the
// idempotency ledger (a settled command answers again as `duplicate`; `failed` stays `failed`), the CAS fields
// (→ `stale`), then the command itself (v4Commands.mjs). Every message in and out is checked against the
// transcribed schemas (v4Schemas.mjs); a mismatch is a recorded violation.
import { SimError, log } from './util.mjs';
import { issuesText, parse } from './v4Check.mjs';
import {
  ACK, FILE_CHANGES_PARAMS, FILE_CHANGES_RESULT, NEEDS_EPOCH, NEEDS_REVISION, QUERY_PARAMS, QUERY_RESULT, REWIND_PREVIEW,
  REWIND_PREVIEW_PARAMS, ROWS_RANGE_PARAMS, ROWS_RANGE_RESULT, envelopeSchema, payloadSchemas,
} from './v4Schemas.mjs';
import { fileChanges, observe, rewindPreview, rowAt, rowsOf, v4Of } from './v4Rows.mjs';
import { commandHandlers } from './v4Commands.mjs';
import { drainQueue, toolBoundary } from './v4Input.mjs';

/** Requests zcode's NDJSON transport runs outside its one-at-a-time queue (v4/command is not among them). */
const BYPASS = (method) => method === 'session/stop' || method === 'workspace/cancelGenerateText' || method === 'mcp/readResource' || method.startsWith('mcp/ui');

/**
 * zcode processes requests strictly one at a time. The simulator keeps its legacy methods concurrent (as the
 * tests have always had them) but puts every v4 request in line: it waits for every earlier request, and a
 * later request waits for it. Installed as `Connection.gate`; returns a release function.
 */
export function requestGate() {
  const inflight = []; // {v4, done:Promise}
  return (method) => {
    if (BYPASS(method)) return Promise.resolve(() => {});
    const v4 = method.startsWith('v4/');
    const before = inflight.filter((e) => v4 || e.v4).map((e) => e.done);
    let release;
    const entry = { v4, done: new Promise((r) => (release = r)) };
    inflight.push(entry);
    return Promise.all(before).then(() => () => {
      inflight.splice(inflight.indexOf(entry), 1);
      release();
    });
  };
}

/** The v4 methods of the profile (none on builds without v4: they answer -32601 like any unknown method). */
export function v4Methods(sv, legacy, startTurn) {
  if (!sv.profile.v4) return {};
  const payloads = payloadSchemas(sv.profile.v4);
  const envelope = envelopeSchema(Object.keys(payloads));
  const globalLedger = new Map();
  const handlers = commandHandlers(sv, legacy, startTurn);
  sv.store.observe = observe;
  sv.store.onIdle = (session) => drainQueue(sv, session, startTurn, legacy);
  sv.v4 = { toolBoundary: (turn) => toolBoundary(sv, turn) };

  /** Check what the simulator sends; a mismatch is the simulator's own bug, recorded like a violation. */
  const sent = (schema, value, what) => {
    const r = parse(schema, value);
    if (!r.ok) sv.conn.violation(`zcode-sim sent an invalid ${what}: ${issuesText(r.issues)}`, value);
    return value;
  };
  /** A gateway query's bad params: zcode throws the zod error, which JSON-RPC maps to -32603. */
  const queryParams = (schema, params) => {
    const r = parse(schema, params);
    if (!r.ok) throw new SimError(-32603, `ZodError: ${issuesText(r.issues)}`, { violation: true });
    return r.value;
  };
  const plainError = (text) => new SimError(-32603, `Error: ${text}`);
  /** Queries cold-resume a stored session; one never persisted (or unknown) is an error. */
  const querySession = (sessionId) => {
    const session = sv.store.get(sessionId);
    if (!session || (!session.active && session.persistence === 'deferred')) throw plainError(`Session not found: ${sessionId}`);
    session.active = true;
    return session;
  };
  /** fileChanges / fileRewindPreview: exact CAS, then the target row → its turn. */
  const casQuery = (params, schema) => {
    const p = queryParams(schema, params);
    const session = querySession(p.sessionId);
    const v4 = v4Of(session);
    if (p.baseLogEpoch !== v4.logEpoch) throw plainError('proto.staleLogEpoch');
    if (p.baseRevision !== v4.revision) throw plainError('proto.staleRevision');
    const row = rowAt(sv, session, p.target);
    if (!row) throw plainError('proto.staleTarget');
    return { session, turnId: row.turnId };
  };

  const finish = (ack) => sent(ACK, ack, 'v4/command ACK');

  return {
    async 'v4/commands/query'(params) {
      const p = queryParams(QUERY_PARAMS, params);
      const results = p.commands.map((key) => {
        const ledger = key.sessionId === null ? globalLedger : sv.store.get(key.sessionId)?.v4?.ledger;
        return { key, result: ledger?.get(key.commandId) ?? 'unknown' };
      });
      const out = p.clock ? { results, clock: { serverTime: Date.now() } } : { results };
      return sent(QUERY_RESULT, out, 'v4/commands/query result');
    },

    async 'v4/command'(params, ctx) {
      const commandId = typeof params?.commandId === 'string' ? params.commandId : '';
      const rejected = (reasonCode, message) => finish({ commandId, status: 'rejected', reasonCode, ...(message === undefined ? {} : { message }), revisionAtDecision: 0 });
      const invalid = (issues) => {
        sv.conn.violation(`v4/command: invalid command: ${issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`, params);
        return rejected('proto.invalidPayload', issuesText(issues));
      };
      const env = parse(envelope, params);
      if (!env.ok) return invalid(env.issues);
      const e = env.value;
      const payload = parse(payloads[e.type], e.payload);
      if (!payload.ok) return invalid(payload.issues);
      if ((NEEDS_REVISION.has(e.type) && e.baseRevision === undefined) || (NEEDS_EPOCH.has(e.type) && e.baseLogEpoch === undefined)) {
        return invalid([{ code: 'custom', path: [e.baseRevision === undefined ? 'baseRevision' : 'baseLogEpoch'], message: 'CAS commands require baseRevision and baseLogEpoch' }]);
      }
      // The ledger is looked up by key before anything else about the session.
      const known = e.sessionId === null ? null : sv.store.get(e.sessionId);
      const prior = (e.sessionId === null ? globalLedger : known?.v4?.ledger)?.get(e.commandId);
      if (prior) return finish({ ...prior, status: prior.status === 'failed' ? 'failed' : 'duplicate' });
      let session = null;
      if (e.sessionId !== null || e.type !== 'createSession') {
        // Only this process's live records: v4 commands never cold-resume.
        if (!known?.active) return rejected('proto.sessionNotFound');
        session = known;
      }
      const ledger = session ? v4Of(session).ledger : globalLedger;
      const revision = session ? v4Of(session).revision : 0;
      // CAS only for the commands that require a revision; the epoch is checked first, for row targets only.
      if (session && NEEDS_REVISION.has(e.type)) {
        if (NEEDS_EPOCH.has(e.type) && e.baseLogEpoch !== v4Of(session).logEpoch) return finish({ commandId, status: 'stale', reasonCode: 'proto.staleLogEpoch', revisionAtDecision: revision });
        if (e.baseRevision !== revision) return finish({ commandId, status: 'stale', reasonCode: 'proto.staleRevision', revisionAtDecision: revision });
      }
      const handler = handlers[e.type];
      let outcome;
      try {
        outcome = handler ? await handler({ session, envelope: e, payload: payload.value, ctx }) : { status: 'failed', reasonCode: 'fault.command.notImplemented', message: `zcode-sim does not simulate ${e.type}` };
      } catch (err) {
        if (!(err instanceof SimError)) log(`v4 ${e.type} crashed:`, err?.stack ?? String(err));
        outcome = { status: 'failed', reasonCode: err?.reasonCode ?? 'fault.command.executionFailed', message: String(err?.message ?? err) };
      }
      if (outcome.stale) return finish({ commandId, status: 'stale', reasonCode: outcome.stale, revisionAtDecision: revision });
      const ack = { commandId, status: outcome.status, revisionAtDecision: revision };
      for (const key of ['reasonCode', 'message', 'result']) if (outcome[key] !== undefined) ack[key] = outcome[key];
      ledger.set(e.commandId, ack);
      return finish(ack);
    },

    async 'v4/conversation/rowsRange'(params) {
      const p = queryParams(ROWS_RANGE_PARAMS, params);
      const session = querySession(p.sessionId);
      const all = rowsOf(sv, session);
      const before = p.beforeRowId === undefined ? all : all.filter((r) => r.rowId < p.beforeRowId);
      const rows = before.slice(Math.max(0, before.length - Math.floor(p.limit)));
      const v4 = v4Of(session);
      return sent(ROWS_RANGE_RESULT, { rows, atSeq: session.seq, atRevision: v4.revision, atLogEpoch: v4.logEpoch, hasMore: rows.length < before.length }, 'rowsRange result');
    },

    async 'v4/conversation/fileRewindPreview'(params) {
      const { session, turnId } = casQuery(params, REWIND_PREVIEW_PARAMS);
      return sent(REWIND_PREVIEW, rewindPreview(sv, session, turnId), 'fileRewindPreview result');
    },

    async 'v4/conversation/fileChanges'(params) {
      const { session, turnId } = casQuery(params, FILE_CHANGES_PARAMS);
      return sent(FILE_CHANGES_RESULT, fileChanges(session, turnId), 'fileChanges result');
    },
  };
}
