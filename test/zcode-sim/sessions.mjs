// Sessions: per-workspace state, history, checkpoints, the per-session event stream (seq + replay buffer)
// and optional persistence (ZCODE_SIM_STATE_DIR) so a restarted simulator still lists/resumes them.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log } from './util.mjs';
import { dropsEvent } from './faults.mjs';
import { currentEvent } from './current.mjs';

export const MODES = ['plan', 'build', 'edit', 'yolo'];
export const THOUGHT_LEVELS = ['low', 'medium', 'high', 'max'];
export const MODELS = [
  { modelId: 'GLM-5.2', name: 'GLM-5.2', contextWindow: 200000 },
  { modelId: 'GLM-5.1-Air', name: 'GLM-5.1 Air', contextWindow: 128000 },
  { modelId: 'GLM-4.6', name: 'GLM-4.6', contextWindow: 128000 },
];
/** Events kept for `session/subscribe {afterSeq}` replay (older ones are dropped). */
const BUFFER_MAX = 10000;

/** Fields written to the state dir; everything else on a Session is runtime-only. */
const PERSISTED = [
  'sessionId', 'workspace', 'title', 'traceId', 'createdAt', 'updatedAt', 'mode', 'modelId', 'thoughtLevel',
  'todos', 'goal', 'checkpoints', 'messages', 'seq', 'contextUsed', 'totalTokenCount', 'forkedFrom',
  'turnCount', 'stateRevision', 'reasoningLevel', 'rules', 'titleSource',
];

export class Session {
  constructor(data, store) {
    Object.assign(this, {
      title: 'New session', mode: 'build', modelId: MODELS[0].modelId, thoughtLevel: 'high', todos: [], goal: null,
      checkpoints: [], messages: [], seq: 0, contextUsed: 0, totalTokenCount: 0,
    }, data);
    this.store = store;
    /** false until created/resumed in this process (or after an `evict-once` eviction): send/read answer -32004 */
    this.active = false;
    this.subscribed = false;
    this.buffer = [];
    /** the running Turn (user or background), or null */
    this.turn = null;
    /** taskId -> background task handle */
    this.tasks = new Map();
    this.idleWaiters = [];
    this.flags = { busyOnce: false, evictOnce: false, transientFailed: false };
  }

  get status() {
    return this.turn ? 'running' : 'idle';
  }

  get current() {
    return this.store.era === 'current';
  }

  /** The `session/event` params of one event: seed `{sessionId, seq, type, payload}`, current with the full envelope. */
  envelope(seq, type, payload, turnId) {
    if (!this.current) return { sessionId: this.sessionId, seq, type, payload };
    const params = { eventId: `evt_${this.store.ids.hex(16)}`, sessionId: this.sessionId };
    if (turnId) params.turnId = turnId;
    return Object.assign(params, { seq, timestamp: Date.now(), type, payload });
  }

  /**
   * Emit one `session/event`; buffered for replay, written only if the client subscribed. Current builds
   * render it in their shapes (current.mjs): some become a top-level `state.updated`, some are not sent.
   */
  emit(type, payload) {
    if (dropsEvent(type)) return this.seq;
    if (type !== 'state.updated') this.store.observe?.(this, type, payload); // v4 projection revision (v4Rows.mjs)
    let turnId;
    if (this.current) {
      const out = currentEvent(this, type, payload);
      if (!out) return this.seq;
      if (out.state) return this.notifyState(out.state.patch, out.state.reason);
      ({ type, payload, turnId } = out);
    }
    const seq = ++this.seq;
    const line = JSON.stringify({ method: 'session/event', params: this.envelope(seq, type, payload, turnId) });
    this.buffer.push({ seq, line });
    if (this.buffer.length > 2 * BUFFER_MAX) this.buffer.splice(0, this.buffer.length - BUFFER_MAX);
    if (this.subscribed) this.store.writer.line(line);
    return seq;
  }

  /** Emit many events of one type at once (the `deltas:N` fast path): one write per batch. */
  emitMany(type, payloads) {
    const lines = payloads.map((payload) => {
      const seq = ++this.seq;
      const wire = this.current ? currentEvent(this, type, payload).payload : payload;
      return JSON.stringify({ method: 'session/event', params: this.envelope(seq, type, wire) });
    });
    const first = this.seq - lines.length + 1;
    lines.forEach((line, i) => this.buffer.push({ seq: first + i, line }));
    if (this.buffer.length > 2 * BUFFER_MAX) this.buffer.splice(0, this.buffer.length - BUFFER_MAX);
    if (this.subscribed) this.store.writer.lines(lines);
  }

  /**
   * Current builds: a state change is its own top-level notification `{type, scope, sessionId, revision,
   * reason, patch}` (zcodeStateUpdatedNotificationSchema), sent whether or not the session is subscribed.
   */
  notifyState(patch, reason) {
    this.store.observe?.(this, 'state.updated', patch);
    this.stateRevision = (this.stateRevision ?? 0) + 1;
    const params = { type: 'state.updated', scope: 'session', sessionId: this.sessionId, revision: this.stateRevision, patch };
    if (reason !== undefined) params.reason = reason;
    this.store.writer.send({ method: 'state.updated', params });
    return this.seq;
  }

  /** The buffered events after `afterSeq`, as params objects (current `session/subscribe` returns them in `events`). */
  eventsAfter(afterSeq) {
    return this.buffer.filter((e) => e.seq > afterSeq).map((e) => JSON.parse(e.line).params);
  }

  /** Re-send buffered events with seq > afterSeq (after a resubscribe). */
  replay(afterSeq) {
    const lines = this.buffer.filter((e) => e.seq > afterSeq).map((e) => e.line);
    if (lines.length) this.store.writer.lines(lines);
    return lines.length;
  }

  settings() {
    const model = MODELS.find((m) => m.modelId === this.modelId) ?? MODELS[0];
    return {
      mode: { current: this.mode, available: MODES },
      model: { current: { modelId: model.modelId, name: model.name }, available: MODELS.map(({ modelId, name }) => ({ modelId, name })) },
      thoughtLevel: { current: this.thoughtLevel, available: THOUGHT_LEVELS },
    };
  }

  get contextWindow() {
    return (MODELS.find((m) => m.modelId === this.modelId) ?? MODELS[0]).contextWindow;
  }

  summary() {
    return { sessionId: this.sessionId, workspace: this.workspace, title: this.title, updatedAt: this.updatedAt, createdAt: this.createdAt };
  }

  /** `session/read` */
  read() {
    return {
      projection: {
        status: this.status,
        contextUsed: this.contextUsed,
        contextWindow: this.contextWindow,
        totalTokenCount: this.totalTokenCount,
        title: this.title,
        messageCount: this.messages.length,
        runningTurnId: this.turn?.id ?? null,
      },
      settings: this.settings(),
      todos: this.todos,
      goal: this.goal,
    };
  }

  publicCheckpoints() {
    return this.checkpoints.map(({ checkpointId, createdAt, label, turnId }) => ({ checkpointId, createdAt, label, turnId }));
  }

  /** Find a checkpoint from a `{kind:"latestCheckpoint"} | {kind:"checkpoint", checkpointId}` target, or null. */
  checkpointFor(target) {
    if (target.kind === 'latestCheckpoint') return this.checkpoints.at(-1) ?? null;
    return this.checkpoints.find((c) => c.checkpointId === target.checkpointId) ?? null;
  }

  touch() {
    this.updatedAt = Date.now();
  }

  /** Resolves when no turn is running (background turns wait for this). */
  whenIdle() {
    return this.turn ? new Promise((r) => this.idleWaiters.push(r)) : Promise.resolve();
  }

  turnEnded() {
    this.turn = null;
    const waiters = this.idleWaiters.splice(0);
    waiters.forEach((r) => r());
    this.store.onIdle?.(this); // v4: the input queue's auto-drain (v4Input.mjs)
  }

  toJSON() {
    const out = {};
    for (const k of PERSISTED) if (this[k] !== undefined) out[k] = this[k];
    return out;
  }
}

export class SessionStore {
  constructor({ stateDir, writer, ids, era = 'seed', profile = {} }) {
    /** 'seed' (0.14.x–0.16.0 shapes) or 'current' (0.16.5 / desktop 3.12 shapes, current.mjs). */
    this.era = era;
    /** The profile's switches the wire rendering reads (current.mjs: `events315`). */
    this.profile = profile;
    this.stateDir = stateDir;
    this.writer = writer;
    this.ids = ids;
    /** @type {Map<string, Session>} */
    this.sessions = new Map();
    if (stateDir) this.load();
  }

  load() {
    mkdirSync(this.stateDir, { recursive: true });
    for (const file of readdirSync(this.stateDir)) {
      if (!file.endsWith('.json')) continue;
      try {
        const data = JSON.parse(readFileSync(join(this.stateDir, file), 'utf8'));
        if (typeof data.sessionId === 'string') this.sessions.set(data.sessionId, new Session(data, this));
      } catch (err) {
        log(`skipping unreadable session file ${file}: ${err.message}`);
      }
    }
    if (this.sessions.size) log(`loaded ${this.sessions.size} session(s) from ${this.stateDir}`);
  }

  newId() {
    let id;
    do id = `sess_${this.ids.hex(12)}`;
    while (this.sessions.has(id));
    return id;
  }

  /**
   * `persistence: "deferred"` (desktop-3.15 drafts): memory only, never saved and never listed until
   * `promote` (the first input); `session/close` removes it.
   */
  create({ sessionId, workspace, mode, title, forkedFrom, persistence = 'immediate' }) {
    const now = Date.now();
    const session = new Session(
      { sessionId: sessionId ?? this.newId(), workspace, mode: mode ?? 'build', title: title ?? 'New session', traceId: `trace_${this.ids.hex(16)}`, createdAt: now, updatedAt: now, forkedFrom },
      this,
    );
    session.persistence = persistence;
    session.active = true;
    this.sessions.set(session.sessionId, session);
    this.save(session);
    return session;
  }

  /** A new session holding the history of `source` up to `checkpoint`. */
  fork(source, checkpoint) {
    const copy = this.create({ workspace: source.workspace, mode: source.mode, title: `Fork of ${source.title}`, forkedFrom: { sessionId: source.sessionId, checkpointId: checkpoint.checkpointId } });
    const idx = source.checkpoints.indexOf(checkpoint);
    copy.messages = structuredClone(source.messages.slice(0, checkpoint.messageCount));
    copy.checkpoints = structuredClone(source.checkpoints.slice(0, idx + 1));
    copy.todos = structuredClone(source.todos);
    Object.assign(copy, { modelId: source.modelId, thoughtLevel: source.thoughtLevel, contextUsed: checkpoint.contextUsed ?? 0 });
    this.save(copy);
    return copy;
  }

  /** Forget a session (rewindCascade removes forks of rewound checkpoints). */
  remove(sessionId) {
    this.sessions.delete(sessionId);
    if (this.stateDir) rmSync(join(this.stateDir, `${sessionId}.json`), { force: true });
  }

  get(sessionId) {
    return this.sessions.get(sessionId);
  }

  /** A draft got its first input: from now on it is an ordinary, saved and listed session. */
  promote(session) {
    if (session.persistence !== 'deferred') return;
    session.persistence = 'immediate';
    this.save(session);
  }

  /** Sessions a listing shows: drafts are left out (zcode's sessions-index and legacy list skip them). */
  listed() {
    return [...this.sessions.values()].filter((s) => s.persistence !== 'deferred');
  }

  list(workspacePath) {
    return this.listed()
      .filter((s) => !workspacePath || s.workspace?.workspacePath === workspacePath)
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((s) => s.summary());
  }

  /** Persist one session (atomic: write a temp file, then rename). No-op without a state dir. */
  save(session) {
    if (!this.stateDir || session.persistence === 'deferred') return;
    const file = join(this.stateDir, `${session.sessionId}.json`);
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(session));
      renameSync(`${file}.tmp`, file);
    } catch (err) {
      log(`cannot persist ${session.sessionId}: ${err.message}`);
    }
  }
}
