// The v4 conversation projection of one session: its `revision` and `logEpoch`, its input queue and command
// ledger, and the rows (zcode's rows.ts) derived from the simulator's one internal history (session.messages).
// Row ids are positions in the current branch, so they are stable until a cut, and a cut changes the epoch
// (zcode: a rowId is only valid within one logEpoch). Also the file-rewind preview and file changes of a turn,
// computed from the Edit/Write results the turn recorded (tools.mjs).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

/** The projection state of a session, created on first use. */
export function v4Of(session) {
  session.v4 ??= {
    revision: 0,
    logEpoch: newEpoch(session),
    /** queued inputs: {queueItemId, commandId, clientId, kind, text, attachments, requested, admitted, targetTurnId?, fallbackReasonCode?} */
    queue: [],
    /** zcode's initial projection has autoDrain on and followupMode "queue". */
    autoDrain: true,
    followupMode: 'queue',
    /** commandId -> the settled ACK (idempotency) */
    ledger: new Map(),
    /** turnId -> final row state */
    turnStates: new Map(),
    /** turnIds whose file edits were rewound */
    reverted: new Set(),
  };
  return session.v4;
}

function newEpoch(session) {
  return `ep_${session.store.ids.hex(8)}-${session.store.ids.hex(8)}`;
}

/** One projection commit: the revision rises by one. */
export function bump(session) {
  return ++v4Of(session).revision;
}

/** A conversation cut (edit, retry): a new log epoch, and a commit. */
export function newLogEpoch(session) {
  const v4 = v4Of(session);
  v4.logEpoch = newEpoch(session);
  bump(session);
}

/**
 * Which internal events move the revision (zcode: row appends/upserts/removals and control/queue/config/meta
 * state; not streaming text or usage). Also remembers how each turn ended, for its turnHeader row.
 */
export function observe(session, type, payload) {
  if (type === 'model.streaming') {
    // Streaming text moves nothing, except the delta that opens a new text or reasoning row (an append).
    const kind = payload.kind === 'text_delta' ? 'text' : payload.kind === 'reasoning_delta' ? 'reasoning' : null;
    if (kind && session.turn && session.turn.assistant.parts.at(-1)?.type !== kind) bump(session);
    return;
  }
  if (type === 'session.updated' || type === 'checkpoint.created') return;
  const v4 = v4Of(session);
  if (type === 'turn.completed') v4.turnStates.set(payload.turnId, payload.resultType === 'cancelled' ? 'completedInterrupted' : 'completedSuccess');
  // A cancelled turn holds a non-empty queue (zcode's runtime queue gate), except when "send now" preempts it.
  if (type === 'turn.completed' && payload.resultType === 'cancelled' && v4.queue.length > 0 && !v4.preserveAutoDrain) v4.autoDrain = false;
  if (type === 'turn.failed') v4.turnStates.set(payload.turnId, 'failed');
  bump(session);
}

const textOf = (message) => message.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');

/** The Edit/Write operations of a turn, in order: {path, toolName, before (null = absent), after}. */
export function fileOps(session, turnId) {
  const ops = [];
  for (const m of session.messages) {
    if (m.info.turnId !== turnId || m.info.role !== 'assistant') continue;
    for (const part of m.parts) {
      const meta = part.type === 'tool' && part.state?.status === 'completed' ? part.state.metadata : undefined;
      if (!meta?.filePath || !('originalFile' in meta)) continue;
      if (part.tool === 'Write') ops.push({ path: meta.filePath, toolName: 'Write', before: meta.originalFile ?? null, after: meta.content, patch: meta.structuredPatch ?? [] });
      else if (part.tool === 'Edit' && typeof meta.originalFile === 'string') {
        const after = meta.replaceAll ? meta.originalFile.split(meta.oldString).join(meta.newString) : meta.originalFile.replace(meta.oldString, () => meta.newString);
        ops.push({ path: meta.filePath, toolName: 'Edit', before: meta.originalFile, after, patch: meta.structuredPatch ?? [] });
      }
    }
  }
  return ops;
}

/** Per path: first `before`, last `after`, operation count, tool names, patches. */
function byPath(ops) {
  const files = new Map();
  for (const op of ops) {
    const f = files.get(op.path) ?? { path: op.path, before: op.before, after: op.after, count: 0, toolNames: [], patches: [] };
    f.after = op.after;
    f.count++;
    if (!f.toolNames.includes(op.toolName)) f.toolNames.push(op.toolName);
    f.patches.push(...op.patch);
    files.set(op.path, f);
  }
  return [...files.values()];
}

const hash = (text) => createHash('sha256').update(text).digest('hex');

/**
 * zcode's file-rewind preview for a turn. With ZCODE_SIM_APPLY_EDITS=1 the disk is compared with what the
 * turn left (a file changed since is `external_modified`); without it the simulator never wrote anything, so
 * the disk is taken to hold exactly what the turn wrote. A rewound turn has nothing left to restore.
 */
export function rewindPreview(sv, session, turnId) {
  const safeFiles = [];
  const unsafeFiles = [];
  if (!v4Of(session).reverted.has(turnId)) {
    for (const f of byPath(fileOps(session, turnId))) {
      const current = sv.config.applyEdits ? (existsSync(f.path) ? readFileSync(f.path, 'utf8') : null) : f.after;
      const base = { operationCount: f.count, path: f.path, toolNames: f.toolNames };
      if (current !== f.after) unsafeFiles.push({ ...base, reason: 'external_modified', expectedHash: hash(f.after), ...(current === null ? {} : { currentHash: hash(current) }) });
      else safeFiles.push({ action: f.before === null ? 'delete' : 'restore', ...base });
    }
  }
  return { canApply: safeFiles.length > 0 && unsafeFiles.length === 0, ignoredFiles: [], safeFiles, unsafeFiles };
}

/** Restore the turn's files (only on disk with ZCODE_SIM_APPLY_EDITS=1) and mark the turn rewound. */
export function applyRewind(sv, session, turnId) {
  if (sv.config.applyEdits) {
    for (const f of byPath(fileOps(session, turnId))) {
      if (f.before === null) rmSync(f.path, { force: true });
      else writeFileSync(f.path, f.before);
    }
  }
  v4Of(session).reverted.add(turnId);
  bump(session);
}

/** `v4/conversation/fileChanges` of a turn. */
export function fileChanges(session, turnId) {
  const items = byPath(fileOps(session, turnId)).map((f) => {
    const lines = f.patches.flatMap((h) => h.lines);
    return { path: f.path, additions: lines.filter((l) => l.startsWith('+')).length, deletions: lines.filter((l) => l.startsWith('-')).length, writeCount: f.count, toolNames: f.toolNames, patches: f.patches.map(({ oldStart, oldLines, newStart, newLines, lines: l }) => ({ oldStart, oldLines, newStart, newLines, lines: l })) };
  });
  const sum = (k) => items.reduce((n, i) => n + i[k], 0);
  return { files: items.length, additions: sum('additions'), deletions: sum('deletions'), state: v4Of(session).reverted.has(turnId) ? 'reverted' : 'active', items };
}

function toolStatus(state, running) {
  if (state.status === 'completed') return 'success';
  if (state.status === 'error') return /interrupted/i.test(String(state.error)) ? 'cancelled' : 'error';
  return running ? 'running' : 'cancelled';
}

/**
 * Every row of the current branch, ascending, with the actions zcode advertises: canEdit on the latest real
 * user query, canFork on the last assistant text of each settled turn, canRetry on the latest assistant reply
 * of the latest turn, once settled and if a real user input caused it; canRewindFiles on a turn header whose files can still be rewound.
 */
export function rowsOf(sv, session) {
  const v4 = v4Of(session);
  const rows = [];
  const running = session.turn?.id;
  const turns = new Map(); // turnId -> {header, lastText, cause}
  for (const m of session.messages) {
    const { info } = m;
    const base = { turnId: info.turnId, createdAt: info.createdAt ?? session.createdAt, createdAtSeq: 0 };
    let turn = turns.get(info.turnId);
    if (!turn) {
      const background = info.inputSource === 'background_task';
      const state = info.turnId === running ? 'running' : (v4.turnStates.get(info.turnId) ?? 'completedSuccess');
      const files = fileChanges(session, info.turnId);
      const header = { rowId: rows.length, ...base, entityId: `turn:${info.turnId}`, kind: 'turnHeader', origin: background ? 'backgroundResult' : info.editRerun ? 'editRerun' : 'userInput', executionKind: 'agent', state, startedAt: base.createdAt };
      if (info.sourceCommandId) header.sourceCommandId = info.sourceCommandId;
      if (files.files > 0) header.fileChanges = { additions: files.additions, deletions: files.deletions, files: files.files, state: files.state };
      turn = { header, lastText: null, cause: info.role === 'user' && !background, running: state === 'running' };
      turns.set(info.turnId, turn);
      rows.push(header);
    }
    if (info.role === 'user') {
      const row = { rowId: rows.length, ...base, entityId: info.id, kind: 'userInput', text: textOf(m), origin: info.inputSource === 'background_task' ? 'backgroundResult' : 'realUser' };
      if (info.guided) row.guided = true;
      if (info.sourceCommandId) row.sourceCommandId = info.sourceCommandId;
      if (info.clientId) row.clientId = info.clientId;
      rows.push(row);
      continue;
    }
    m.parts.forEach((part, i) => {
      const entityId = `${info.id}:${i}`;
      const last = i === m.parts.length - 1 && turn.running;
      if (part.type === 'text') {
        const row = { rowId: rows.length, ...base, entityId, kind: 'assistantText', assistantResponseId: info.id, text: part.text, state: last ? 'streaming' : 'complete', model: info.modelId ?? session.modelId };
        turn.lastText = row;
        rows.push(row);
      } else if (part.type === 'reasoning') {
        rows.push({ rowId: rows.length, ...base, entityId, kind: 'reasoning', assistantResponseId: info.id, text: part.text, state: last ? 'streaming' : 'complete' });
      } else if (part.type === 'tool') {
        const status = toolStatus(part.state ?? {}, turn.running);
        const row = { rowId: rows.length, ...base, entityId: `tool:${part.callId}`, kind: 'toolCall', assistantResponseId: info.id, toolCallId: part.callId, toolName: part.tool, status, inputText: JSON.stringify(part.state?.input ?? {}), input: part.state?.input ?? {} };
        if (status === 'error') row.error = { code: 'tool_error', message: String(part.state.error ?? 'tool failed') };
        rows.push(row);
      }
    });
  }
  const latestQuery = rows.findLast((r) => r.kind === 'userInput' && r.origin === 'realUser' && !r.guided);
  if (latestQuery) latestQuery.actions = { canEdit: true, editDisposition: 'rewind' };
  const all = [...turns.values()];
  for (const turn of all) {
    if (!turn.running && turn.lastText) turn.lastText.actions = { canFork: true };
    if (turn.header.fileChanges && rewindPreview(sv, session, turn.header.turnId).canApply) turn.header.actions = { canRewindFiles: true };
  }
  // Only the latest turn's reply can be retried, and only once it settled and if a real user input caused it.
  const last = all.at(-1);
  if (last && !last.running && last.lastText && last.cause) last.lastText.actions = { ...last.lastText.actions, canRetry: true };
  return rows;
}

/** The row a `{rowId, entityId}` target names in the current branch, or null (stale target). */
export function rowAt(sv, session, target) {
  const row = rowsOf(sv, session)[target.rowId];
  return row && row.entityId === target.entityId ? row : null;
}
