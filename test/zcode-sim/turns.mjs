// The scenario runner: one Turn plays a list of steps (scenarios/*.json) as `session/event`s, records the
// history, answers to stop/steer, and ends with turn.terminal (0.15.2+) + turn.completed / turn.failed.
import { existsSync, watch } from 'node:fs';
import { join } from 'node:path';
import { Cancelled, TurnFailure, fill, log } from './util.mjs';
import { runTool } from './tools.mjs';
import { scheduleBackground } from './background.mjs';
import { WireTurnFailure, hostRequestsBeforeModel } from './faults.mjs';

/** Per-delta delay at speed 1 (the demo's streaming pace). */
const DELTA_MS = 15;
/** How long a queued steer waits before it is drained into the turn (speed-scaled). */
const STEER_DRAIN_MS = 250;
const TAIL_MAX = 8000;
/** Every model request starts with the system prompt: the floor of the context. */
const SYSTEM_PROMPT_TOKENS = 1800;
/** Nested step lists are filled with variables only when they run (their vars are set by then). */
const NESTED = new Set(['then', 'inner', 'steps', 'background']);

export class Turn {
  /**
   * @param {object} services shared simulator services (store, interactions, delay, ids, profile, quirks, config, writer)
   * @param {import('./sessions.mjs').Session} session
   * @param {{steps:any[], prompt:string, source?:'user'|'background', started?:object, scenario?:string}} spec
   */
  constructor(services, session, spec) {
    this.sv = services;
    this.session = session;
    this.spec = spec;
    this.id = `turn_${services.ids.uuid()}`;
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    this.steers = [];
    this.steerCount = 0;
    this.steerWake = null;
    this.inflight = new Map(); // toolCallId -> {toolName, part}
    this.toolStarts = new Map(); // toolCallId -> started at (ms), for current builds' `duration`
    this.startedAt = Date.now();
    this.pendingBackground = [];
    this.stats = { outChars: 0, reasoningChars: 0, toolChars: 0, requests: 1, webFetch: 0, webSearch: 0 };
    this.usageOverride = null;
    this.afterTool = false;
    this.bigOutputDone = false;
    this.vars = { workspace: session.workspace.workspacePath, prompt: spec.prompt, sessionId: session.sessionId, turnId: this.id, ...spec.vars };
    this.assistant = { info: { id: `msg_${services.ids.hex(16)}`, role: 'assistant', createdAt: Date.now(), turnId: this.id, modelId: session.modelId }, parts: [] };
  }

  cancel() {
    this.controller.abort();
    this.steerWake?.();
  }

  /** `session/steer` while this turn runs. */
  steer(content) {
    this.steers.push({ content, queuedAt: Date.now() });
    this.steerCount++;
    if (this.sv.profile.steerEvents) this.session.emit('turn.steerQueued', {});
    this.steerWake?.();
  }

  async run() {
    const { session, sv } = this;
    const startedAt = Date.now();
    const contextBefore = (this.contextBefore = session.contextUsed);
    session.messages.push(this.assistant);
    session.emit('turn.started', { turnId: this.id, ...this.spec.started });
    let outcome;
    try {
      if (this.spec.source !== 'background') await hostRequestsBeforeModel(this); // ZCODE_SIM_HOST_REQUESTS (faults.mjs)
      // A model with reasoning levels switched to without one fails its next turn (current builds, S5 live).
      if (session.missingReasoningLevel) throw new TurnFailure(-32603, 'ModelProtocolError: Reasoning level is required', undefined, { type: 'ModelProtocolError', code: 'reasoning_level_required', retryable: false });
      await sv.hosts?.beforeModelRequest(this); // current builds: provider runtime headers (hostRequests.mjs)
      await this.steps(this.spec.steps);
      await this.drainSteers(true); // a steer that arrived at the very end is still answered
      outcome = { status: 'success' };
    } catch (err) {
      if (err instanceof Cancelled || this.signal.aborted) outcome = { status: 'cancelled' };
      else if (err instanceof WireTurnFailure) outcome = { status: 'failed', error: err.wire };
      else if (err instanceof TurnFailure) outcome = { status: 'failed', error: { code: err.code, message: err.message, ...(err.cause ? { cause: err.cause } : {}), ...(sv.profile.current ? err.extra : {}) } };
      else {
        log('scenario error:', err?.stack ?? String(err));
        outcome = { status: 'failed', error: { code: -32603, message: `zcode-sim internal error: ${err?.message ?? err}` } };
      }
    }
    this.finish(outcome, startedAt, contextBefore);
  }

  finish(outcome, startedAt, contextBefore) {
    const { session, sv } = this;
    // Tools still in flight end with an error: the user interrupted them, or the turn failed under them.
    const why = outcome.status === 'cancelled' ? 'Interrupted by user' : `Turn failed: ${outcome.error?.message}`;
    for (const [toolCallId, { toolName, part }] of this.inflight) {
      session.emit('tool.updated', { kind: 'error', toolCallId, toolName, error: why });
      part.state = { ...part.state, status: 'error', error: why };
    }
    this.inflight.clear();
    const usage = this.usage(contextBefore);
    session.contextUsed = this.contextNow(contextBefore);
    session.totalTokenCount += usage.totalTokens;
    this.reportUsage();
    if (this.assistant.parts.length === 0) session.messages.splice(session.messages.indexOf(this.assistant), 1);
    const resultType = outcome.status === 'failed' ? 'error' : outcome.status === 'cancelled' ? 'cancelled' : 'end_turn';
    if (sv.profile.turnTerminal) {
      // Emitted right before turn.completed / turn.failed (0.15.2+).
      session.emit('turn.terminal', { kind: 'turn.terminal', turnId: this.id, status: outcome.status, resultType, durationMs: Date.now() - startedAt, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens });
    }
    if (outcome.status === 'success' && this.spec.source !== 'background') {
      const checkpoint = { checkpointId: `ckpt_${sv.ids.hex(12)}`, createdAt: Date.now(), label: this.spec.label ?? this.spec.prompt.slice(0, 60), turnId: this.id, messageCount: session.messages.length, contextUsed: session.contextUsed };
      session.checkpoints.push(checkpoint);
      // Current builds announce it (a free object; docs/zcode-protocol.md "Events"), before the turn's end.
      if (sv.profile.current) session.emit('checkpoint.created', { checkpointId: checkpoint.checkpointId, turnId: this.id, createdAt: checkpoint.createdAt, label: checkpoint.label });
    }
    if (outcome.status === 'failed') session.emit('turn.failed', { turnId: this.id, error: outcome.error });
    else session.emit('turn.completed', { turnId: this.id, resultType: outcome.status, usage });
    session.touch();
    sv.store.save(session);
    session.turnEnded();
    for (const bg of this.pendingBackground) bg();
  }

  /** Context used so far: system prompt + history before the turn + everything this turn added. */
  contextNow(contextBefore = this.contextBefore) {
    const added = this.spec.prompt.length + this.stats.outChars + this.stats.reasoningChars + this.stats.toolChars;
    return Math.min(this.session.contextWindow, Math.max(SYSTEM_PROMPT_TOKENS, contextBefore) + Math.ceil(added / 4));
  }

  /** Per-turn usage (not cumulative), with every usage field zcode sends; a `usage` step overrides. */
  usage(contextBefore) {
    const s = this.stats;
    const reasoningTokens = Math.ceil(s.reasoningChars / 4);
    const inputTokens = Math.max(SYSTEM_PROMPT_TOKENS, contextBefore) * s.requests + Math.ceil(s.toolChars / 4) + Math.ceil(this.spec.prompt.length / 4);
    const outputTokens = Math.ceil(s.outChars / 4) + reasoningTokens;
    const cacheReadTokens = contextBefore > 0 ? Math.floor(inputTokens * 0.6) : 0;
    const base = {
      source: 'provider', modelRequestCount: s.requests, inputTokens, outputTokens, totalTokens: inputTokens + outputTokens,
      cacheReadTokens, cacheWriteTokens: Math.min(2048, inputTokens - cacheReadTokens), reasoningTokens,
      webFetchRequests: s.webFetch, webSearchRequests: s.webSearch,
    };
    return this.usageOverride ? { ...base, ...this.usageOverride } : base;
  }

  check() {
    if (this.signal.aborted) throw new Cancelled();
  }

  async steps(list) {
    for (const step of list ?? []) {
      this.check();
      await this.step(step);
    }
  }

  fillStep(raw) {
    const out = {};
    for (const [k, v] of Object.entries(raw)) out[k] = NESTED.has(k) ? v : fill(v, this.vars);
    return out;
  }

  async step(raw) {
    const { session, sv } = this;
    if ('tool' in raw) return this.tool(raw);
    const s = this.fillStep(raw);
    if ('text' in s) return this.text(s.text);
    if ('reasoning' in s) return this.stream('reasoning_delta', s.reasoning);
    if ('parallel' in s) return this.parallel(raw);
    if ('delay' in s) return sv.delay(s.delay, this.signal, s.floorMs ?? 0);
    if ('usage' in s) return void (this.usageOverride = s.usage);
    if ('state' in s) {
      const patch = s.state.patch ?? {};
      for (const key of ['mode', 'title', 'thoughtLevel']) if (typeof patch[key] === 'string') session[key] = patch[key];
      return void session.emit('state.updated', { patch, reason: s.state.reason ?? 'scenario' });
    }
    if ('fail' in s) throw new TurnFailure(s.fail.code, s.fail.message, s.fail.cause, s.fail.current);
    if ('failWire' in s) throw new WireTurnFailure(s.failWire);
    if ('failEveryOther' in s) {
      // fail-transient: the first run in a session fails with a retryable error, the next one succeeds (and so on).
      session.flags.transientFailed = !session.flags.transientFailed;
      if (session.flags.transientFailed) throw new TurnFailure(s.failEveryOther.code, s.failEveryOther.message, s.failEveryOther.cause);
      return;
    }
    if ('crash' in s) {
      await sv.writer.flush();
      log('scenario "crash": exiting with code 1 mid-turn');
      process.exit(1);
    }
    if ('waitSteer' in s) return this.waitSteer(Number(s.waitSteer.timeoutMs ?? 5000));
    if ('waitFile' in s) return this.waitFile(join(this.vars.workspace, String(s.waitFile.name)), Number(s.waitFile.timeoutMs ?? 60000));
    if ('repeat' in s) {
      for (let i = 0; i < s.repeat; i++) {
        this.vars.i = i + 1;
        await this.steps(s.steps);
      }
      return;
    }
    if ('deltas' in s) return this.deltas(Number(s.deltas));
    if ('stamped' in s) return this.stamped(Number(s.stamped.count), Number(s.stamped.rate));
    throw new Error(`unknown scenario step ${JSON.stringify(raw).slice(0, 200)}`);
  }

  /** A model response: text deltas, then a usage report (zcode sends one after each model response). */
  async text(text) {
    await this.stream('text_delta', text);
    this.reportUsage();
  }

  /** `session.updated` usage, skipped when nothing changed since the last report. */
  reportUsage() {
    const inputTokens = this.contextNow();
    if (inputTokens === this.lastUsage) return;
    this.lastUsage = inputTokens;
    this.session.emit('session.updated', { usage: { inputTokens }, contextWindow: this.session.contextWindow });
  }

  async stream(kind, text, { steering = false } = {}) {
    if (this.afterTool) {
      this.afterTool = false;
      this.stats.requests++; // text after a tool result is a new model request
      await this.sv.hosts?.beforeModelRequest(this);
      await this.sv.v4?.toolBoundary(this); // v4 guides are injected here (v4Input.mjs)
    }
    const words = String(text).match(/\S+\s*|\s+/g) ?? [];
    for (let i = 0; i < words.length; ) {
      const n = Math.min(words.length - i, this.sv.ids.int(1, 3));
      const delta = words.slice(i, i + n).join('');
      i += n;
      this.check();
      if (!steering) await this.drainSteers(false);
      await this.sv.delay(DELTA_MS, this.signal);
      this.check();
      this.session.emit('model.streaming', { kind, delta, messageId: this.assistant.info.id });
      this.record(kind === 'text_delta' ? 'text' : 'reasoning', delta);
    }
  }

  record(type, delta) {
    const last = this.assistant.parts.at(-1);
    if (last?.type === type) last.text += delta;
    else this.assistant.parts.push({ type, text: delta });
    if (type === 'text') this.stats.outChars += delta.length;
    else this.stats.reasoningChars += delta.length;
  }

  /** Drain queued steers: turn.steerDrained (0.15.2+), then text that shows the steer reached the model. */
  async drainSteers(force) {
    while (this.steers.length && (force || Date.now() - this.steers[0].queuedAt >= STEER_DRAIN_MS * this.sv.config.speed)) {
      const { content } = this.steers.shift();
      if (this.sv.profile.steerEvents) this.session.emit('turn.steerDrained', {});
      await this.stream('text_delta', `\n\n> Steer received: "${content}". Adjusting course accordingly.\n\n`, { steering: true });
    }
  }

  /** Wait (real time, not speed-scaled) until a steer has arrived, so steer tests work at speed 0 too. */
  async waitSteer(timeoutMs) {
    if (this.steerCount > 0) return;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.steerWake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.steerWake = null;
    this.check();
    if (this.steerCount === 0) await this.stream('text_delta', 'No steer arrived, so I am finishing as planned.\n');
  }

  /**
   * Wait (real time) until `file` exists: a test says "now" by creating it, after it has put the
   * user somewhere else (another view), so what follows never races the test's own steps.
   */
  async waitFile(file, timeoutMs) {
    if (!existsSync(file)) {
      await new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          watcher.close();
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        const watcher = watch(join(file, '..'), () => existsSync(file) && done());
        if (existsSync(file)) done();
      });
    }
    this.check();
  }

  /** `deltas:N`: exactly N text_delta events of "x", in large write batches (benchmarks). */
  async deltas(n) {
    const payload = { kind: 'text_delta', delta: 'x', messageId: this.assistant.info.id };
    const BATCH = 512;
    let done = 0;
    try {
      while (done < n) {
        this.check();
        const k = Math.min(BATCH, n - done);
        this.session.emitMany('model.streaming', new Array(k).fill(payload));
        done += k;
        await this.sv.writer.ready();
        await new Promise((r) => setImmediate(r)); // stay cancellable
      }
    } finally {
      this.record('text', 'x'.repeat(done)); // what was streamed, also when cancelled
    }
  }

  /**
   * `stamped:RATE`: text deltas at RATE a second, each ` s<k>@<ms>` with the wall-clock time (ms since
   * the epoch, 0.1 ms) it was written, so a client can measure zcode-to-screen latency per delta; a
   * paragraph break instead of the space every 50 deltas.
   */
  async stamped(count, rate) {
    const wall = () => performance.timeOrigin + performance.now();
    const start = wall();
    let k = 0;
    try {
      while (k < count) {
        this.check();
        const due = Math.min(count, Math.floor(((wall() - start) / 1000) * rate) + 1);
        for (; k < due; k++) {
          // a paragraph every 50 deltas (~1 KB), as model prose has
          const delta = `${k > 0 && k % 50 === 0 ? '\n\n' : ' '}s${k}@${wall().toFixed(1)}`;
          this.session.emit('model.streaming', { kind: 'text_delta', delta, messageId: this.assistant.info.id });
        }
        await this.sv.writer.ready();
        await new Promise((r) => setTimeout(r, 1));
      }
    } finally {
      this.record('text', `(${k} stamped deltas)`);
    }
  }

  /** Announce a tool (quirk `toolcall-before-scheduled`: tool_call first, scheduled without input). */
  announce(toolCallId, toolName, input) {
    const part = { type: 'tool', callId: toolCallId, tool: toolName, state: { status: 'pending', input } };
    this.assistant.parts.push(part);
    this.inflight.set(toolCallId, { toolName, part });
    if (this.sv.quirks.has('toolcall-before-scheduled')) {
      this.session.emit('model.streaming', { kind: 'tool_call', toolCallId, toolName, input });
      this.session.emit('tool.updated', { kind: 'scheduled', toolCallId, toolName });
    } else {
      this.session.emit('tool.updated', { kind: 'scheduled', toolCallId, toolName, input });
    }
    return part;
  }

  /** Emit a tool's final `result` or `error` event and update its history part. */
  conclude(toolCallId, toolName, part, outcome, extra = {}) {
    this.inflight.delete(toolCallId);
    if (toolName === 'WebFetch') this.stats.webFetch++;
    if (toolName === 'WebSearch') this.stats.webSearch++;
    this.afterTool = true;
    if (outcome.error !== undefined) {
      this.session.emit('tool.updated', { kind: 'error', toolCallId, toolName, error: outcome.error, ...extra });
      part.state = { ...part.state, status: 'error', error: outcome.error };
      return;
    }
    const result = this.maybeBig(outcome.result);
    this.stats.toolChars += String(result.content ?? '').length;
    // quirk `result-without-toolname`: the result event does not say which tool it was.
    const named = this.sv.quirks.has('result-without-toolname') ? {} : { toolName };
    this.session.emit('tool.updated', { kind: 'result', toolCallId, ...named, result });
    part.state = { ...part.state, status: result.success === false ? 'error' : 'completed', output: result.content, ...(result.metadata ? { metadata: result.metadata } : {}) };
  }

  /** quirk `big-output`: the first tool result of the turn becomes a >= 1 MB line. */
  maybeBig(result) {
    if (!this.sv.quirks.has('big-output') || this.bigOutputDone) return result;
    this.bigOutputDone = true;
    const lines = [];
    for (let i = 0, size = 0; size < 1_100_000; i++) {
      const line = `big-output line ${String(i).padStart(6, '0')}: ${'lorem ipsum dolor sit amet '.repeat(3)}`;
      lines.push(line);
      size += line.length + 1;
    }
    return { ...result, content: `${result.content ?? ''}\n${lines.join('\n')}` };
  }

  async tool(raw) {
    const { session, sv } = this;
    const toolCallId = `call_${sv.ids.hex(24)}`;
    Object.assign(this.vars, { toolCallId });
    if (raw.tool === 'Agent' || raw.tool === 'Task') this.vars.agentId = `agent_${sv.ids.uuid()}`;
    if (raw.background) {
      this.vars.taskId = raw.background.kind === 'bash' ? `exec_${sv.ids.uuid()}` : this.vars.agentId;
      this.vars.outputPath = join(sv.config.taskDir, `${this.vars.taskId}.output`);
    }
    const s = this.fillStep(raw);
    const toolName = s.tool;
    const input = s.input ?? {};
    const part = this.announce(toolCallId, toolName, input);
    let branch = null;
    if (s.interaction === 'permission') {
      const answer = await sv.interactions.permission(this, { toolCallId, toolName, input, reason: s.reason ?? `${toolName} requires approval` });
      if (!answer.allowed) {
        this.vars.reason = answer.reason;
        this.conclude(toolCallId, toolName, part, { error: `denied by user: ${answer.reason}` });
        return this.steps(s.then?.decline);
      }
      branch = 'accept';
    }
    this.check();
    session.emit('tool.updated', { kind: 'started', toolCallId, toolName });
    let outcome = null;
    if (s.interaction === 'plan' || s.interaction === 'questions' || s.interaction === 'questions-input') {
      ({ outcome, branch } = await sv.interactions.duringTool(this, s.interaction, toolCallId, input));
    }
    const tails = { stdoutTail: '', stderrTail: '' };
    for (const p of s.progress ?? []) {
      await sv.delay(s.progressMs ?? 250, this.signal);
      this.check();
      tails.stdoutTail = (tails.stdoutTail + (p.stdout ?? '')).slice(-TAIL_MAX);
      tails.stderrTail = (tails.stderrTail + (p.stderr ?? '')).slice(-TAIL_MAX);
      session.emit('tool.updated', { kind: 'progress', toolCallId, toolName, ...tails }); // cumulative tails
    }
    if (s.inner) {
      // A synchronous sub-agent's tools stream as ordinary events; 3.15 marks them as the sub-agent's (current.mjs).
      const outer = this.subagent;
      this.subagent = { parentToolCallId: toolCallId, agentId: this.vars.agentId ?? `agent_${sv.ids.uuid()}`, agentType: String(input.subagent_type ?? 'general-purpose'), description: String(input.description ?? toolName) };
      try {
        await this.steps(s.inner);
      } finally {
        this.subagent = outer;
      }
    }
    if (s.durationMs) await sv.delay(s.durationMs, this.signal);
    this.check();
    if (!outcome && toolName === 'Bash' && s.result === undefined && !s.error) {
      const exitCode = s.exitCode ?? 0;
      outcome = { result: { success: exitCode === 0, content: tails.stdoutTail + tails.stderrTail, exitCode, metadata: { exitCode, stdout: tails.stdoutTail, stderr: tails.stderrTail, interrupted: false } } };
    }
    outcome ??= runTool(toolName, input, s, { workspace: this.vars.workspace, session, applyEdits: sv.config.applyEdits });
    this.conclude(toolCallId, toolName, part, outcome, s.error && s.exitCode !== undefined ? { exitCode: s.exitCode, ...tails } : {});
    if (raw.background) {
      // The task starts reporting once this turn has ended (seed: "the main turn then completes, but…").
      const spec = { ...raw.background, taskId: this.vars.taskId, toolCallId, toolName, description: input.description, outputPath: this.vars.outputPath };
      this.pendingBackground.push(() => scheduleBackground(sv, session, spec));
    }
    if (branch) await this.steps(s.then?.[branch]);
  }

  /** Several tools at once: all scheduled, all started, all results, then one `batch` event. */
  async parallel(raw) {
    const { session, sv } = this;
    const calls = raw.parallel.map((r) => {
      const toolCallId = `call_${sv.ids.hex(24)}`;
      this.vars.toolCallId = toolCallId;
      const s = this.fillStep(r);
      return { toolCallId, s, part: this.announce(toolCallId, s.tool, s.input ?? {}) };
    });
    for (const c of calls) session.emit('tool.updated', { kind: 'started', toolCallId: c.toolCallId, toolName: c.s.tool });
    await sv.delay(raw.durationMs ?? 300, this.signal);
    this.check();
    let failed = 0;
    for (const c of calls) {
      const outcome = runTool(c.s.tool, c.s.input ?? {}, c.s, { workspace: this.vars.workspace, session, applyEdits: sv.config.applyEdits });
      if (outcome.error !== undefined) failed++;
      this.conclude(c.toolCallId, c.s.tool, c.part, outcome);
    }
    session.emit('tool.updated', { kind: 'batch', toolCallIds: calls.map((c) => c.toolCallId), succeeded: calls.length - failed, failed });
  }
}
