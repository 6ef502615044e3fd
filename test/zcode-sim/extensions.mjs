// zcode's extension methods (0.14.8+, as `william0wang/zcode-acp` docs/PROTOCOL.md lists them): fork, rewind, checkpoints, goal,
// compact, steer, mode / thought level / model, background-task cancel.
import { SimError, badParams, isObject } from './util.mjs';
import { MODELS, MODES, THOUGHT_LEVELS } from './sessions.mjs';
import { busyError, oneOf, paramsOf, sessionOf, str } from './params.mjs';
import { cancelBackground } from './background.mjs';

const GOAL_ACTIONS = ['show', 'set', 'replace', 'clear', 'pause', 'resume'];

function targetOf(p) {
  const t = p.target;
  if (isObject(t) && t.kind === 'latestCheckpoint') return t;
  if (isObject(t) && t.kind === 'checkpoint' && typeof t.checkpointId === 'string') return t;
  throw badParams('"target" must be {kind:"latestCheckpoint"} or {kind:"checkpoint", checkpointId}');
}

function checkpointOf(session, target) {
  const cp = session.checkpointFor(target);
  if (cp) return cp;
  if (target.kind === 'latestCheckpoint') throw new SimError(-32000, `session ${session.sessionId} has no checkpoints yet`);
  throw new SimError(-32602, `checkpoint not found: ${target.checkpointId}`);
}

export function extensionMethods(sv) {
  /** Cut the history back to `cp`; with `cascade`, forks made from the removed checkpoints go too. */
  function rewind(params, cascade) {
    const p = paramsOf(params);
    const session = sessionOf(sv, p);
    const cp = checkpointOf(session, targetOf(p));
    if (session.turn) throw busyError(sv);
    const idx = session.checkpoints.indexOf(cp);
    const removed = session.checkpoints.slice(idx + 1).map((c) => c.checkpointId);
    const removedMessages = session.messages.length - cp.messageCount;
    session.messages = session.messages.slice(0, cp.messageCount);
    session.checkpoints = session.checkpoints.slice(0, idx + 1);
    session.contextUsed = cp.contextUsed ?? session.contextUsed;
    const removedSessions = [];
    if (cascade || p.cascade === true) {
      for (const other of [...sv.store.sessions.values()]) {
        if (other.forkedFrom?.sessionId === session.sessionId && removed.includes(other.forkedFrom.checkpointId)) {
          sv.store.remove(other.sessionId);
          removedSessions.push(other.sessionId);
        }
      }
    }
    session.touch();
    sv.store.save(session);
    return { rewound: true, checkpointId: cp.checkpointId, removedMessages, ...(cascade || p.cascade === true ? { cascade: true, removedSessions } : {}) };
  }

  function setting(params, key, values, reason) {
    const p = paramsOf(params);
    const session = sessionOf(sv, p);
    const value = oneOf(p, key, values);
    session[key] = value;
    session.touch();
    sv.store.save(session);
    return { session, value, reply: () => session.emit('state.updated', { patch: { [key]: value }, reason }) };
  }

  return {
    async 'session/fork'(params) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      const copy = sv.store.fork(session, checkpointOf(session, targetOf(p)));
      return { forkedSessionId: copy.sessionId };
    },

    async 'session/rewind'(params) {
      return rewind(params, false);
    },

    async 'session/rewindCascade'(params) {
      return rewind(params, true);
    },

    async 'session/checkpoints'(params) {
      return { checkpoints: sessionOf(sv, paramsOf(params)).publicCheckpoints() };
    },

    async 'session/goal'(params, ctx) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      const action = oneOf(p, 'action', GOAL_ACTIONS);
      const before = session.goal;
      if (action === 'set' || action === 'replace') {
        const objective = str(p, 'objective');
        if (action === 'set' && before) throw new SimError(-32000, 'a goal is already set; use replace');
        session.goal = { objective, status: 'active' };
      } else if (action === 'clear') {
        session.goal = null;
      } else if (action === 'pause' || action === 'resume') {
        if (!before) throw new SimError(-32000, `no goal to ${action}`);
        session.goal = { ...before, status: action === 'pause' ? 'paused' : 'active' };
      }
      if (action !== 'show') {
        session.touch();
        sv.store.save(session);
        ctx.after(() => session.emit('state.updated', { patch: { goal: session.goal }, reason: 'goal' }));
      }
      return { goal: session.goal };
    },

    async 'session/compact'(params, ctx) {
      const session = sessionOf(sv, paramsOf(params));
      if (session.turn || session.compaction) throw busyError(sv);
      const controller = new AbortController();
      session.compaction = controller;
      // The outcome arrives later as state.updated {patch:{compaction:{status}}, reason:"compaction"}.
      ctx.after(async () => {
        await sv.delay(600, controller.signal);
        session.compaction = null;
        const before = session.contextUsed;
        let compaction;
        if (controller.signal.aborted) compaction = { status: 'cancelled' };
        else if (session.messages.length === 0) compaction = { status: 'failed', error: 'nothing to compact' };
        else {
          session.contextUsed = Math.floor(before * 0.15);
          compaction = { status: 'compacted', tokensBefore: before, tokensAfter: session.contextUsed };
          sv.store.save(session);
        }
        session.emit('state.updated', { patch: { compaction }, reason: 'compaction' });
      });
      return { accepted: true };
    },

    async 'session/steer'(params, ctx) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      const content = str(p, 'content');
      const turn = session.turn;
      if (!turn) throw new SimError(-32000, 'no prompt is running: nothing to steer');
      ctx.after(() => turn.steer(content)); // steerQueued follows the reply
      return { accepted: true };
    },

    async 'session/setMode'(params, ctx) {
      const { session, reply } = setting(params, 'mode', MODES, 'setMode');
      ctx.after(reply);
      return { settings: session.settings() };
    },

    async 'session/setThoughtLevel'(params, ctx) {
      const { session, reply } = setting(params, 'thoughtLevel', THOUGHT_LEVELS, 'setThoughtLevel');
      ctx.after(reply);
      return { settings: session.settings() };
    },

    async 'session/setModel'(params, ctx) {
      const { session } = setting(params, 'modelId', MODELS.map((m) => m.modelId), 'setModel');
      const { modelId, name } = MODELS.find((m) => m.modelId === session.modelId);
      ctx.after(() => session.emit('state.updated', { patch: { model: { modelId, name } }, reason: 'setModel' }));
      return { settings: session.settings() };
    },

    async 'session/cancelBackgroundTask'(params) {
      const p = paramsOf(params);
      const session = sessionOf(sv, p);
      return { cancelled: cancelBackground(sv, session, str(p, 'taskId')) };
    },
  };
}
