// The methods the bridge calls (zcode-protocol.md "Methods the bridge calls"). Params are checked strictly:
// wrong or missing params answer -32602 and are recorded as violations. Methods a profile lacks answer -32601.
import { SimError, badParams, hasExactKeys, isObject, log } from './util.mjs';
import { busyError, oneOf, opt, paramsOf, requireActive, sessionOf } from './params.mjs';
import { isMissing } from './profiles.mjs';
import { MODES } from './sessions.mjs';
import { Turn } from './turns.mjs';
import { loadSteps, parsePrompt } from './scenarios.mjs';
import { extensionMethods } from './extensions.mjs';
import { automationMethod, ignoresStop, sendFault } from './faults.mjs';
import { currentMethods, workspaceStubs } from './currentMethods.mjs';
import { catalogMethods } from './catalogs.mjs';
import { mcpList, messagesView, startHydrating } from './acpCases.mjs';
import { v4Methods } from './v4.mjs';

const RUNTIME_PREFERENCES = { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false };

function workspaceOf(p, required) {
  if (p.workspace === undefined && !required) return undefined;
  if (typeof p.workspace === 'string' && !required) return { workspacePath: p.workspace };
  if (!isObject(p.workspace) || typeof p.workspace.workspacePath !== 'string' || p.workspace.workspacePath === '') {
    throw badParams('"workspace" must be {workspacePath, workspaceKey?}');
  }
  if (p.workspace.workspaceKey !== undefined && typeof p.workspace.workspaceKey !== 'string') throw badParams('"workspace.workspaceKey" must be a string');
  return p.workspace;
}

function titleFrom(text, scenario) {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const t = line.trim() || `Simulated: ${scenario}`;
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

/** Start a turn on `session` (user prompt or the backend's own background-task turn). */
export function startTurn(sv, session, spec, ctx) {
  const turn = new Turn(sv, session, spec);
  session.turn = turn;
  // v4 (v4Input.mjs): the input's command attribution; a retried turn re-runs its existing user message.
  if (spec.userMessage) spec.userMessage.info.turnId = turn.id;
  else {
    const info = { id: `msg_${sv.ids.hex(16)}`, role: 'user', createdAt: Date.now(), turnId: turn.id, ...spec.userInfo };
    if (spec.source === 'background') Object.assign(info, { inputSource: 'background_task', visibility: 'model-only' });
    session.messages.push({ info, parts: spec.userParts ?? [{ type: 'text', text: spec.prompt }] });
  }
  session.touch();
  sv.store.save(session);
  const go = () => turn.run().catch((err) => log('turn crashed:', err?.stack ?? String(err)));
  if (ctx) ctx.after(go);
  else go();
  return turn;
}

export function createHandlers(sv) {
  if (sv.profile.current) return currentHandlers(sv);
  const methods = {
    async 'session/create'(params) {
      const p = paramsOf(params);
      const workspace = workspaceOf(p, true);
      const mode = p.mode === undefined ? 'build' : oneOf(p, 'mode', MODES);
      const sessionId = sv.store.newId();
      // zcode asks the client for runtime preferences and answers create only after the reply.
      const { response } = sv.conn.request('session/requestRuntimePreferences', { sessionId, scope: 'session' });
      const reply = await response;
      const ok = 'result' in reply && !('error' in reply) && isObject(reply.result) && hasExactKeys(reply.result, Object.keys(RUNTIME_PREFERENCES)) && Object.values(reply.result).every((v) => v === false);
      if (!ok) {
        sv.conn.violation(`session/requestRuntimePreferences must be answered with exactly ${JSON.stringify(RUNTIME_PREFERENCES)}`, reply);
        throw new SimError(-32602, 'session/create failed: invalid reply to session/requestRuntimePreferences');
      }
      const session = sv.store.create({ sessionId, workspace: { workspacePath: workspace.workspacePath, workspaceKey: workspace.workspaceKey ?? workspace.workspacePath }, mode });
      const result = { session: { sessionId, title: session.title, traceId: session.traceId } };
      return sv.profile.createSettings ? { ...result, settings: session.settings() } : result;
    },

    async 'session/list'(params) {
      const p = params === undefined ? {} : paramsOf(params);
      return { sessions: sv.store.list(workspaceOf(p, false)?.workspacePath) };
    },

    async 'session/resume'(params) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      workspaceOf(p, false);
      session.active = true;
      startHydrating(sv, session);
      return { session: { sessionId: session.sessionId, title: session.title, traceId: session.traceId }, settings: session.settings() };
    },

    async 'session/send'(params, ctx) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      const content = p.content;
      if (typeof content !== 'string') throw badParams('"content" must be a string');
      const attachments = p.attachments ?? [];
      if (!Array.isArray(attachments) || !attachments.every((a) => isObject(a) && a.type === 'image' && typeof a.mimeType === 'string' && typeof a.data === 'string')) {
        throw badParams('"attachments" must be an array of {type:"image", mimeType, data}');
      }
      requireActive(sv, session);
      sendFault();
      const picked = parsePrompt(content);
      const steps = await loadSteps(picked, { prompt: content, session, workspace: session.workspace.workspacePath, attachments });
      // Checked after the (async) scenario load so that check + claim happen in one tick.
      if (session.turn || session.compaction) throw busyError(sv);
      if (sv.quirks.has('busy-once') && !session.flags.busyOnce) {
        session.flags.busyOnce = true;
        throw busyError(sv);
      }
      if (session.title === 'New session') session.title = titleFrom(picked.text, picked.name);
      const userParts = [{ type: 'text', text: content }, ...attachments.map((a) => ({ type: 'image', mimeType: a.mimeType, name: a.name ?? 'image' }))];
      startTurn(sv, session, { steps, prompt: picked.text || content, label: titleFrom(picked.text, picked.name), userParts, scenario: picked.name }, ctx);
      return { accepted: true };
    },

    async 'session/read'(params) {
      const session = sessionOf(sv, paramsOf(params));
      requireActive(sv, session);
      return session.read();
    },

    async 'session/messages'(params) {
      return { messages: messagesView(sessionOf(sv, paramsOf(params))) };
    },

    async 'session/subscribe'(params, ctx) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      opt(p, 'deliveryKind', 'string');
      const includeSnapshot = opt(p, 'includeSnapshot', 'boolean');
      if (p.afterSeq !== undefined && p.afterSeq !== null && !(Number.isInteger(p.afterSeq) && p.afterSeq >= 0)) throw badParams('"afterSeq" must be a non-negative integer');
      session.subscribed = true;
      // Missed events are replayed right after the reply, in seq order.
      if (typeof p.afterSeq === 'number') ctx.after(() => session.replay(p.afterSeq));
      return includeSnapshot ? { eventSeq: session.seq, snapshot: session.read() } : { eventSeq: session.seq };
    },

    ...extensionMethods(sv),
    async 'mcp/list'(params) {
      return mcpList(params);
    },
  };

  return {
    async onRequest(method, params, ctx) {
      automationMethod(method);
      if (!Object.hasOwn(methods, method) || isMissing(sv.profile, method)) throw new SimError(-32601, `Method not found: ${method}`);
      return methods[method](params, ctx);
    },
    onNotification(method, params) {
      if (method === 'session/stop') {
        const session = sessionOf(sv, paramsOf(params));
        if (ignoresStop()) return;
        session.turn?.cancel();
        session.compaction?.abort();
        return;
      }
      // vscode-jsonrpc style `$/cancelRequest` and friends: harmless, ignored.
      if (method.startsWith('$/')) return void log(`ignoring notification ${method}`);
      throw new SimError(-32601, `unknown notification ${method}`, { violation: true });
    },
  };
}

/** Current builds (profiles 0.16.5, desktop-3.12): their own method table, and client notifications dropped. */
function currentHandlers(sv) {
  const methods = { ...currentMethods(sv, startTurn), ...catalogMethods(sv), ...(sv.profile.workspaceMethods ? workspaceStubs() : {}) };
  Object.assign(methods, v4Methods(sv, methods, startTurn)); // desktop builds' v4 surface (v4.mjs)
  return {
    async onRequest(method, params, ctx) {
      automationMethod(method); // ZCODE_SIM_AUTOMATION=1 (faults.mjs): a build that still has automation/*
      if (!Object.hasOwn(methods, method) || isMissing(sv.profile, method)) throw new SimError(-32601, `Method not found: ${method}`);
      return methods[method](params, ctx);
    },
    onNotification(method) {
      // "ZCode Protocol notification ignored": a stop sent this way stops nothing.
      log(`ZCode Protocol notification ignored: ${method}`);
      if (!method.startsWith('$/')) throw new SimError(-32600, `${method} sent as a notification: current builds ignore client notifications (send a request)`, { violation: true });
    },
  };
}
