// The methods of a current build (profiles 0.16.5, desktop-3.12), with zcode's own strict params and results
// (zcode-current.md §3, §6, §7, §9, §10). Removed methods (steer, rewind, checkpoints, automation/*, …) are
// simply absent here and answer -32601 like every unknown method.
import { SimError, isObject } from './util.mjs';
import { requireActive, sessionOf } from './params.mjs';
import { cancelBackground } from './background.mjs';
import { ignoresStop, sendFault } from './faults.mjs';
import { mcpList, messagesView, startHydrating } from './acpCases.mjs';
import { loadSteps, parsePrompt } from './scenarios.mjs';
import { CURRENT_MODELS, DELIVERY_KINDS, LEVELS, currentGoal, modesOf, sessionInfo, snapshot, strict, workspaceRef, zodError } from './current.mjs';

/** Keys of `session/create` (3.14-era source); `persistence` only where the profile has drafts (`deferredDrafts`). */
const CREATE_OPTIONAL = [
  'sessionId', 'parentSessionId', 'mode', 'model', 'thoughtLevel', 'titleGenerationEnabled', 'mcpServers', 'agentMemory',
  'officialMcpServers', 'toolAllowlist', 'toolDenylist', 'confineFileToolsToWorkspace', 'importedHistory', 'offPeakToolEnabled', 'dynamicWorkflowEnabled',
];
const RESUME_OPTIONAL = ['workspace', 'thoughtLevel', 'mcpServers', 'agentMemory', 'officialMcpServers', 'toolAllowlist', 'toolDenylist', 'confineFileToolsToWorkspace', 'offPeakToolEnabled', 'dynamicWorkflowEnabled'];
/** `strictCreate315`: the 3.15.1 create / resume schemas no longer list these keys … */
const DROPPED_315 = ['agentMemory', 'officialMcpServers', 'confineFileToolsToWorkspace'];
/** … and add these (`dynamicWorkflowMode` is `alwaysOn | onDemand`). */
const DYNAMIC_WORKFLOW_MODES = ['alwaysOn', 'onDemand'];

function createKeys(profile) {
  let keys = profile.deferredDrafts ? [...CREATE_OPTIONAL, 'persistence'] : CREATE_OPTIONAL;
  if (profile.strictCreate315) keys = [...keys.filter((k) => !DROPPED_315.includes(k)), 'dynamicWorkflowMode'];
  return keys;
}

function resumeKeys(profile) {
  return profile.strictCreate315 ? [...RESUME_OPTIONAL.filter((k) => !DROPPED_315.includes(k)), 'dynamicWorkflowMode'] : RESUME_OPTIONAL;
}

/** A `{providerId, modelId, options?}` selection (create's `model`) → the listed model, or the answer real builds give. */
function listedModel(selection) {
  strict(selection, { required: ['providerId', 'modelId'], optional: ['options'] });
  const option = CURRENT_MODELS.find((m) => m.ref.providerId === selection.providerId && m.ref.modelId === selection.modelId);
  if (!option) throw new SimError(-32603, `Unsupported model: ${selection.providerId}/${selection.modelId}. Available models: ${CURRENT_MODELS.map((m) => `${m.ref.providerId}/${m.ref.modelId}`).join(', ')}`);
  return option;
}
const SEND_OPTIONAL = [
  'modelSelection', 'modelExecution', 'inputId', 'queryId', 'attachments', 'browserAmbientContext', 'expectedRevision', 'expectedProviderRevision',
  'automationId', 'offPeakTaskId', 'offPeakRunType', 'botDeliveryTarget', 'toolDenylist',
];
const GOAL_ACTIONS = ['show', 'set', 'replace', 'pause', 'resume', 'clear'];
/** The workspace/* methods the 3.10.2-era 0.16.5 bundle still has (gone in the App 3.12.3 build and 0.16.9; §10). */
export const WORKSPACE_METHODS = [
  'workspace/readState', 'workspace/setDefaultModel', 'workspace/setDefaultMode', 'workspace/setDefaultThoughtLevel',
  'workspace/upsertModelProvider', 'workspace/removeModelProvider', 'workspace/updateProviderRegistry',
  'session/updateRuntimeModelConfig', 'workspace/updateInteractionPreferences',
];

/**
 * A client may learn what a build has from zcode's own -32602: a draft's `persistence` where drafts do
 * not exist, `mode:"guarded"` where that mode does not. Same answer as any strict failure, but not a
 * violation when `expected` says the request is such a probe (any other problem in it still is).
 */
function asProbe(check, expected) {
  try {
    return check();
  } catch (error) {
    if (expected && error instanceof SimError) error.violation = false;
    throw error;
  }
}

function oneOf(p, key, values) {
  if (!values.includes(p[key])) throw zodError([{ code: 'invalid_value', path: [key], values, message: `${key}: expected one of ${values.join('|')}` }]);
  return p[key];
}

/** Busy on current builds: -32010 "A prompt is already running for this session" (zcode-current.md §2). */
function busy() {
  return new SimError(-32010, 'A prompt is already running for this session');
}

function titleFrom(text, scenario) {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const t = line.trim() || `Simulated: ${scenario}`;
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

/** A `{kind:"turn"|"message"|"checkpoint"|"latestCheckpoint"}` target (default latestCheckpoint) → checkpoint. */
function checkpointFor(session, target = { kind: 'latestCheckpoint' }) {
  if (!isObject(target) || !['turn', 'message', 'checkpoint', 'latestCheckpoint'].includes(target.kind)) {
    throw zodError([{ code: 'invalid_union', path: ['target'], message: 'target: expected {kind:"turn"|"message"|"checkpoint"|"latestCheckpoint"}' }]);
  }
  if (session.checkpoints.length === 0) throw new SimError(-32000, 'No workspace checkpoint is available yet');
  let cp;
  if (target.kind === 'latestCheckpoint') cp = session.checkpoints.at(-1);
  else if (target.kind === 'checkpoint') cp = session.checkpoints.find((c) => c.checkpointId === target.checkpointId);
  else if (target.kind === 'turn') cp = session.checkpoints[target.turnIndex];
  else cp = session.checkpoints.find((c) => session.messages[c.messageCount - 1]?.info.id === target.messageId);
  if (!cp) throw new SimError(-32602, `checkpoint not found: ${target.checkpointId ?? target.messageId ?? target.turnIndex}`);
  return cp;
}

export function currentMethods(sv, startTurn) {
  return {
    async 'session/create'(params, ctx) {
      const p = asProbe(() => strict(params, { required: ['workspace'], optional: createKeys(sv.profile) }), isObject(params) && Object.keys(params).filter((k) => k !== 'workspace' && !createKeys(sv.profile).includes(k)).join() === 'persistence');
      const workspace = workspaceRef(p.workspace);
      const mode = p.mode === undefined ? 'build' : asProbe(() => oneOf(p, 'mode', modesOf(sv.profile)), p.mode === 'guarded');
      const persistence = p.persistence === undefined ? 'immediate' : oneOf(p, 'persistence', ['immediate', 'deferred']);
      if (p.dynamicWorkflowMode !== undefined) oneOf(p, 'dynamicWorkflowMode', DYNAMIC_WORKFLOW_MODES);
      const model = p.model === undefined ? undefined : listedModel(p.model);
      const sessionId = sv.store.newId();
      // The runtime is materialised during create: preferences first (create fails if they fail).
      await sv.hosts.runtimePreferences(sessionId, 'runtime-materialization');
      const session = sv.store.create({ sessionId, workspace: { workspacePath: workspace.workspacePath, workspaceKey: workspace.workspaceKey }, mode, persistence });
      session.thoughtLevel = p.thoughtLevel === undefined ? 'high' : oneOf(p, 'thoughtLevel', LEVELS.map((l) => l.value));
      if (model) {
        session.modelId = model.ref.modelId;
        session.reasoningLevel = p.model.options?.reasoningLevel;
      }
      ctx.after(() => sv.hosts.officialMcpAuth(session));
      return snapshot(session);
    },

    async 'session/list'(params) {
      const p = strict(params ?? {}, { optional: ['workspace', 'sessionIds', 'includeArchived', 'limit'] });
      const path = p.workspace === undefined ? undefined : workspaceRef(p.workspace).workspacePath;
      let sessions = sv.store.listed().filter((s) => !path || s.workspace?.workspacePath === path);
      if (Array.isArray(p.sessionIds)) sessions = sessions.filter((s) => p.sessionIds.includes(s.sessionId));
      sessions.sort((a, b) => b.updatedAt - a.updatedAt);
      if (typeof p.limit === 'number') sessions = sessions.slice(0, p.limit);
      return { sessions: sessions.map(sessionInfo) };
    },

    async 'session/resume'(params) {
      const p = strict(params, { required: ['sessionId'], optional: resumeKeys(sv.profile) });
      if (p.workspace !== undefined) workspaceRef(p.workspace);
      const session = sessionOf(sv, p);
      await sv.hosts.runtimePreferences(session.sessionId, 'runtime-materialization');
      session.active = true;
      startHydrating(sv, session); // quirk hydrating-history (acpCases.mjs)
      return snapshot(session);
    },

    async 'session/read'(params) {
      const p = strict(params, { required: ['sessionId'], optional: ['deliveryKind', 'messageLimit', 'afterSeq', ...(sv.profile.strictCreate315 ? ['contentProfile'] : [])] });
      if (p.messageLimit !== undefined && !(Number.isInteger(p.messageLimit) && p.messageLimit > 0)) throw zodError([{ code: 'too_small', path: ['messageLimit'], message: 'messageLimit: expected a positive integer' }]);
      const session = sessionOf(sv, p);
      requireActive(sv, session);
      return snapshot(session, { messageLimit: p.messageLimit });
    },

    async 'session/messages'(params) {
      const p = strict(params, { required: ['sessionId'], optional: ['afterMessageId', 'limit'] });
      const session = sessionOf(sv, p);
      return { messages: messagesView(session, snapshot(session).messages) };
    },

    async 'mcp/list'(params) {
      return mcpList(params); // the client's servers' status (acpCases.mjs)
    },

    async 'session/subscribe'(params) {
      const p = strict(params, { required: ['sessionId', 'deliveryKind'], optional: ['afterSeq', 'includeSnapshot'] });
      oneOf(p, 'deliveryKind', DELIVERY_KINDS);
      const session = sessionOf(sv, p);
      if (p.afterSeq !== undefined && !(Number.isInteger(p.afterSeq) && p.afterSeq >= 0)) throw zodError([{ code: 'too_small', path: ['afterSeq'], message: 'afterSeq: expected a non-negative integer' }]);
      session.subscribed = true;
      // Missed events come back in the result (not as notifications).
      const events = typeof p.afterSeq === 'number' ? session.eventsAfter(p.afterSeq) : [];
      const result = { sessionId: session.sessionId, eventSeq: session.seq, events };
      return p.includeSnapshot ? { ...result, snapshot: snapshot(session) } : result;
    },

    async 'session/send'(params, ctx) {
      const p = strict(params, { required: ['sessionId', 'content'], optional: SEND_OPTIONAL });
      if (typeof p.content !== 'string') throw zodError([{ code: 'invalid_type', path: ['content'], message: 'content: expected string' }]);
      const attachments = p.attachments ?? [];
      if (!Array.isArray(attachments) || !attachments.every(isObject)) throw zodError([{ code: 'invalid_type', path: ['attachments'], message: 'attachments: expected an array of objects' }]);
      const session = sessionOf(sv, p);
      requireActive(sv, session);
      sendFault(); // ZCODE_SIM_FAULTS=send-read-only (faults.mjs)
      const picked = parsePrompt(p.content);
      const steps = await loadSteps(picked, { prompt: p.content, session, workspace: session.workspace.workspacePath, attachments });
      if (session.turn || session.compaction) throw busy();
      if (sv.quirks.has('busy-once') && !session.flags.busyOnce) {
        session.flags.busyOnce = true;
        throw busy();
      }
      await sv.hosts.runtimePreferences(session.sessionId, 'user-execution');
      if (session.turn || session.compaction) throw busy();
      sv.store.promote(session); // a draft's first input makes it a real, listed session
      const first = session.title === 'New session';
      if (first) {
        session.previousTitle = session.title;
        session.title = titleFrom(picked.text, picked.name);
      }
      const userParts = [{ type: 'text', text: p.content }, ...attachments.map((a) => ({ type: 'image', mimeType: String(a.mimeType ?? 'image/png'), name: String(a.name ?? 'image') }))];
      // Live order on the first send: state.updated ×2 → session.titleUpdated → turn.started (zcode-current.md §8).
      ctx.after(() => {
        session.notifyState({ status: 'running' }, 'prompt_started');
        if (first) session.emit('session.titleUpdated', { previousTitle: 'New session', source: 'first_input', title: session.title });
      });
      startTurn(sv, session, { steps, prompt: picked.text || p.content, label: titleFrom(picked.text, picked.name), userParts, scenario: picked.name }, ctx);
      return { sessionId: session.sessionId, accepted: true, stateRevision: session.stateRevision ?? 0 };
    },

    async 'session/stop'(params) {
      const session = sessionOf(sv, strict(params, { required: ['sessionId'] }));
      if (ignoresStop()) return {}; // ZCODE_SIM_FAULTS=ignore-stop (faults.mjs): answered, but the turn runs on
      // A turn started by v4 belongs to core admission: the legacy stop only aborts legacy turns (v4Input.mjs).
      if (!session.turn?.spec.v4) session.turn?.cancel();
      session.compaction?.abort();
      return {};
    },

    async 'session/fork'(params) {
      const p = strict(params, { required: ['sessionId'], optional: ['target', 'expectedRevision'] });
      const session = sessionOf(sv, p);
      const cp = checkpointFor(session, p.target);
      const copy = sv.store.fork(session, cp);
      return { forkedSessionId: copy.sessionId, parentSessionId: session.sessionId, targetCheckpointId: cp.checkpointId, response: `Forked to ${copy.sessionId}.`, snapshot: snapshot(copy) };
    },

    async 'session/compact'(params, ctx) {
      const p = strict(params, { required: ['sessionId'], optional: ['inputId', 'instructions', 'expectedRevision'] });
      const session = sessionOf(sv, p);
      if (session.turn) throw busy();
      if (session.compaction) return { response: 'A compaction is already running.', snapshot: snapshot(session), compact: { state: 'already_running' } };
      const controller = new AbortController();
      session.compaction = controller;
      const operationId = `compact_${sv.ids.hex(10)}`;
      // The outcome is a top-level state.updated whose `reason` says it (failures carry no compaction status).
      ctx.after(async () => {
        session.notifyState({ status: 'running' }, 'session_compacting');
        await sv.delay(600, controller.signal);
        session.compaction = null;
        const before = session.contextUsed;
        if (controller.signal.aborted) return void session.notifyState({ status: 'idle' }, 'session_compact_cancelled');
        if (session.messages.length === 0) return void session.notifyState({ status: 'idle' }, 'session_compact_failed');
        session.contextUsed = Math.floor(before * 0.15);
        sv.store.save(session);
        session.notifyState({ status: 'idle', compaction: { status: 'compacted', tokensBefore: before, tokensAfter: session.contextUsed } }, 'session_compacted');
      });
      return { response: 'Compaction started.', snapshot: snapshot(session), compact: { state: 'accepted', operationId } };
    },

    async 'session/goal'(params, ctx) {
      const p = strict(params, { required: ['sessionId', 'action'], optional: ['inputId', 'objective', 'expectedRevision'] });
      const session = sessionOf(sv, p);
      const action = oneOf(p, 'action', GOAL_ACTIONS);
      const before = session.goal;
      if (action === 'set' || action === 'replace') {
        if (typeof p.objective !== 'string' || p.objective.trim() === '') throw zodError([{ code: 'too_small', path: ['objective'], message: 'objective: expected a non-empty string' }]);
        if (action === 'set' && before) throw new SimError(-32000, 'a goal is already set; use replace');
        session.goal = { objective: p.objective, status: 'active', createdAt: Date.now() };
      } else if (action === 'clear') session.goal = null;
      else if (action === 'pause' || action === 'resume') {
        if (!before) throw new SimError(-32000, `no goal to ${action}`);
        session.goal = { ...before, status: action === 'pause' ? 'paused' : 'active', updatedAt: Date.now() };
      }
      if (action !== 'show') {
        session.touch();
        sv.store.save(session);
        ctx.after(() => session.notifyState({ target: currentGoal(session) }, 'goal_updated'));
      }
      const goal = currentGoal(session);
      return { response: goal ? `Goal: ${goal.objective} (${goal.status})` : 'No goal is set.', snapshot: snapshot(session) };
    },

    async 'session/setMode'(params, ctx) {
      const p = strict(params, { required: ['sessionId', 'mode'], optional: ['expectedRevision'] });
      const session = sessionOf(sv, p);
      session.mode = oneOf(p, 'mode', modesOf(sv.profile));
      session.touch();
      sv.store.save(session);
      ctx.after(() => session.notifyState({ mode: { current: session.mode } }, 'session_mode_updated'));
      return snapshot(session);
    },

    async 'session/setThoughtLevel'(params, ctx) {
      const p = strict(params, { required: ['sessionId'], optional: ['thoughtLevel', 'expectedRevision', 'persistAsWorkspaceLastUsed'] });
      const session = sessionOf(sv, p);
      if (p.thoughtLevel !== undefined) session.thoughtLevel = oneOf(p, 'thoughtLevel', LEVELS.map((l) => l.value));
      session.touch();
      sv.store.save(session);
      ctx.after(() => session.notifyState({ thoughtLevel: { current: session.thoughtLevel } }, 'session_thought_level_updated'));
      return snapshot(session);
    },

    async 'session/setModel'(params, ctx) {
      // The legacy `{sessionId, modelId}` fails exactly like 0.16.9 (zcode-current.md §6).
      if (isObject(params) && params.model === undefined && 'modelId' in params) {
        throw zodError([
          { code: 'invalid_type', expected: 'object', path: ['model'], message: 'expected object, received undefined' },
          { code: 'unrecognized_keys', keys: ['modelId'], path: [], message: 'Unrecognized key: "modelId"' },
        ]);
      }
      const p = strict(params, { required: ['sessionId', 'model'], optional: ['expectedRevision', 'persistAsWorkspaceLastUsed'] });
      strict(p.model, { required: ['providerId', 'modelId'], optional: ['options'] });
      if (p.model.options !== undefined) strict(p.model.options, { optional: ['reasoningLevel'] });
      const session = sessionOf(sv, p);
      const option = CURRENT_MODELS.find((m) => m.ref.providerId === p.model.providerId && m.ref.modelId === p.model.modelId);
      if (!option) throw new SimError(-32603, `Unsupported model: ${p.model.providerId}/${p.model.modelId}. Available models: ${CURRENT_MODELS.map((m) => `${m.ref.providerId}/${m.ref.modelId}`).join(', ')}`);
      const level = p.model.options?.reasoningLevel;
      if (level !== undefined && !option.reasoning?.levels.some((l) => l.value === level)) throw new SimError(-32602, `Unsupported reasoning level ${level} for ${option.ref.modelId}`);
      session.modelId = option.ref.modelId;
      session.reasoningLevel = level;
      // A model with levels and none chosen fails its next turn (S5, live).
      session.missingReasoningLevel = option.reasoning !== undefined && level === undefined;
      session.touch();
      sv.store.save(session);
      ctx.after(() => session.notifyState({ model: { current: { ...option.ref, ...(level ? { options: { reasoningLevel: level } } : {}) } } }, 'session_model_updated'));
      return snapshot(session);
    },

    async 'session/cancelBackgroundTask'(params) {
      const p = strict(params, { required: ['sessionId', 'taskId'] });
      const session = sessionOf(sv, p);
      const task = session.tasks.get(p.taskId);
      const cancelled = cancelBackground(sv, session, p.taskId);
      return { cancelled, status: cancelled ? 'cancelled' : (task?.status ?? 'lost'), taskId: p.taskId, ...(cancelled ? {} : { reason: task ? `task is ${task.status}` : 'unknown task' }) };
    },

    async 'session/close'(params) {
      const p = strict(params, { required: ['sessionId'], optional: ['expectedPersistence'] });
      const session = sessionOf(sv, p);
      const persistence = session.persistence ?? 'immediate';
      if (p.expectedPersistence !== undefined) {
        oneOf(p, 'expectedPersistence', ['immediate', 'deferred']);
        // A close meant for a draft must not close a session that became real meanwhile (and vice versa).
        if (p.expectedPersistence !== persistence) throw new SimError(-32602, `Session ${session.sessionId} persistence is ${persistence}, expected ${p.expectedPersistence}`);
      }
      session.turn?.cancel();
      session.active = false;
      session.subscribed = false;
      if (persistence === 'deferred') {
        // A draft is gone with its record (never persisted, nothing to resume).
        sv.store.sessions.delete(session.sessionId);
      }
      return { closed: true };
    },

    async 'runtime/capabilities'() {
      return { independentPlanState: false };
    },
  };
}

/** Stubs of the 3.10.2-era workspace/* methods (profile 0.16.5 only): present (a -32602 to bad params), doing nothing. */
export function workspaceStubs() {
  return Object.fromEntries(WORKSPACE_METHODS.map((method) => [method, async (params) => {
    if (!isObject(params) || !isObject(params.workspace)) throw zodError([{ code: 'invalid_type', path: ['workspace'], message: 'workspace: expected object, received undefined' }]);
    return {};
  }]));
}
