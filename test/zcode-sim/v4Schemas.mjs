// zcode's v4 wire schemas, transcribed field by field from its published zod sources (repository
// jimpablo/ZCode @aac4755, packages/shared/src/zcode-protocol-v4/command.ts, transport.ts, rows.ts; core.ts's
// row target from an identical copy). Shapes the simulator never reads closely (attachment refs, model
// selections, tool display payloads, workflow and hook-review payloads) are kept as free objects.
// `payloadSchemas('3.14')` is the 3.14.4 command set (no setHighspeedMetrics, no `guarded`, fewer sendText /
// editUserQuery / createSession fields); '3.15' is 3.15.1's.
import { S } from './v4Check.mjs';

const free = S.record();
const nonEmpty = S.string({ min: 1 });
const timestamp = S.number();
const clientMode = S.enum(['desktop-continuous', 'web-remote-replayable']);
const modelSelection = free;
const attachments = S.optional(S.array(free));

/** core.ts: a row of the current projection, strict. */
export const ROW_TARGET = S.object({ rowId: S.number({ int: true, min: 0 }), entityId: S.string() }, { strict: true });

const needsSelection = (p) => (p.modelExecution !== undefined && p.modelSelection === undefined ? [{ path: ['modelExecution'], message: 'modelExecution requires modelSelection' }] : []);

function sendText(v) {
  const shape = {
    text: S.string(),
    attachments,
    requestedDelivery: S.optional(S.enum(['startNow', 'queue', 'guide'])),
    browserAmbientContext: S.optional(free),
    context_refs: S.optional(S.array(free, { max: 1 })),
    heldQueueDisposition: S.optional(S.enum(['clearQueueAndSend', 'keepQueueAndSend'])),
    expectedHeldQueueItemIds: S.optional(S.array(nonEmpty)),
    modelSelection: S.optional(modelSelection),
    mode: S.optional(S.string()),
    planEnabled: S.optional(S.boolean()),
    modelExecution: S.optional(free),
    automationId: S.optional(nonEmpty),
    offPeakTaskId: S.optional(nonEmpty),
    offPeakRunType: S.optional(S.enum(['init', 'resume'])),
    botDeliveryTarget: S.optional(free),
    toolDisallowlist: S.optional(S.array(nonEmpty)),
  };
  if (v === '3.15') Object.assign(shape, { source: S.optional(free), highspeedMeta: S.optional(free), inputOrigin: S.optional(S.enum(['desktop', 'mobile'])), botGroupSource: S.optional(free), conversationQuotes: S.optional(S.array(free)) });
  return S.object(shape, {
    refine: (p) => [
      ...(p.automationId && p.offPeakTaskId ? [{ message: 'automationId and offPeakTaskId are mutually exclusive' }] : []),
      ...(p.offPeakRunType && !p.offPeakTaskId ? [{ path: ['offPeakRunType'], message: 'offPeakRunType requires offPeakTaskId' }] : []),
      ...needsSelection(p),
    ],
  });
}

function editUserQuery(v) {
  const shape = { target: ROW_TARGET, newText: S.string(), attachments, workspaceMode: S.optional(S.enum(['preserve', 'rewind'])) };
  if (v === '3.15') Object.assign(shape, { conversationQuotes: S.optional(S.array(free)), modelSelection: S.optional(modelSelection), modelExecution: S.optional(free), highspeedMeta: S.optional(free) });
  return S.object(shape, { refine: needsSelection });
}

/** Every command type and its payload schema (non-strict unless zcode's is). */
export function payloadSchemas(v) {
  const target = S.object({ target: ROW_TARGET });
  const createSession = {
    workspaceId: S.string(),
    firstInput: S.optional(S.object({ text: S.string(), attachments, modelSelection: S.optional(modelSelection), mode: S.optional(S.string()), planEnabled: S.optional(S.boolean()) })),
    config: S.optional(free),
    mcpServers: S.optional(S.array(free)),
    offPeakToolEnabled: S.optional(S.boolean()),
    dynamicWorkflowEnabled: S.optional(S.boolean()),
  };
  if (v === '3.15') Object.assign(createSession, { permissionScope: S.optional(S.literal('session')), dynamicWorkflowMode: S.optional(S.string()) });
  const modes = v === '3.15' ? ['build', 'edit', 'plan', 'yolo', 'guarded'] : ['build', 'edit', 'plan', 'yolo'];
  const out = {
    createSession: S.object(createSession),
    createSelectionSideSession: S.object({ firstInput: S.optional(S.object({ text: S.string({ trim: true, min: 1 }), modelSelection: S.optional(modelSelection) })) }),
    sendText: sendText(v),
    sendGoalCommand: S.object({ text: S.string(), displayText: S.optional(S.string()), modelSelection: S.optional(modelSelection), mode: S.optional(S.string()), planEnabled: S.optional(S.boolean()), heldQueueDisposition: S.optional(S.enum(['clearQueueAndSend', 'keepQueueAndSend'])), expectedHeldQueueItemIds: S.optional(S.array(nonEmpty)) }),
    stop: S.object({ expectedForegroundExecutionId: S.optional(nonEmpty) }),
    compact: S.object({}),
    forkAssistant: target,
    applyFileRewind: target,
    editUserQuery: editUserQuery(v),
    retryTurn: target,
    setAssistantFeedback: S.object({ target: ROW_TARGET, feedback: S.nullable(S.enum(['like', 'dislike'])) }),
    sendQueuedNow: S.object({ queueItemId: S.string(), modelSelection: S.optional(modelSelection), modelExecution: S.optional(free), highspeedMeta: S.optional(free) }, { refine: needsSelection }),
    editQueueItem: S.object({ queueItemId: S.string(), newText: S.string() }),
    reorderQueueItem: S.object({ queueItemId: S.string(), beforeQueueItemId: S.nullable(S.string()) }),
    deleteQueueItem: S.object({ queueItemId: S.string() }),
    setAutoDrain: S.object({ autoDrain: S.boolean() }),
    resolveInteraction: S.object({ interactionId: S.string(), answer: S.object({ optionId: S.optional(S.string()), freeText: S.optional(S.string()), action: S.optional(S.enum(['accept', 'decline', 'cancel'])), content: S.optional(free) }) }),
    respondWorkspaceHookReview: free,
    toggleWorkspaceHookReviewItem: free,
    revokeWorkspaceHookTrust: free,
    requestWorkspaceHookReview: free,
    snoozeInteractionAutoResolution: S.object({ interactionId: S.string() }),
    switchModelConfig: S.object({ provider: S.string(), model: S.string(), thought: S.string() }),
    switchCollaborationMode: S.object({ mode: S.enum(modes) }),
    setFollowupMode: S.object({ mode: S.enum(['queue', 'guide']) }),
    pauseGoal: S.object({}),
    resumeGoal: S.object({}),
    cancelBackgroundWork: S.object({ workId: S.string() }),
    resumeWorkflowRun: S.object({ workId: S.string(), name: S.optional(S.string()) }),
    startSavedWorkflow: S.object({ name: nonEmpty, scope: S.optional(S.enum(['project', 'global'])), args: S.optional(free) }),
    amendWorkflowRunSettings: free,
    renameSession: S.object({ title: S.string() }),
    deleteSession: S.object({}),
    discardSharedContext: S.object({ contextId: S.string({ trim: true, min: 1 }) }, { strict: true }),
  };
  if (v === '3.15') {
    const nn = S.number({ min: 0 });
    out.setHighspeedMetrics = S.object({ target: ROW_TARGET, regularTps: S.number({ positive: true }), outputTokens: S.number({ int: true, min: 0 }), durationMs: nn, highspeedTps: S.number({ positive: true }), savedDurationMs: nn, modelDurationMs: S.optional(nn), toolDurationMs: S.optional(nn), otherDurationMs: S.optional(nn) });
  }
  return out;
}

/** Commands whose envelope must carry `baseRevision`. */
export const NEEDS_REVISION = new Set(['applyFileRewind', 'forkAssistant', 'editUserQuery', 'retryTurn', 'setAssistantFeedback', 'sendQueuedNow', 'editQueueItem', 'reorderQueueItem', 'deleteQueueItem', 'setAutoDrain', 'switchModelConfig', 'switchCollaborationMode', 'setFollowupMode', 'pauseGoal', 'resumeGoal']);
/** Commands that target a row and so must carry `baseLogEpoch`. */
export const NEEDS_EPOCH = new Set(['applyFileRewind', 'forkAssistant', 'editUserQuery', 'retryTurn', 'setAssistantFeedback', 'setHighspeedMetrics']);

/** The envelope (non-strict: unknown keys are dropped). `type` is checked against the profile's command set. */
export function envelopeSchema(types) {
  return S.object({
    ttft: S.optional(free),
    commandId: S.string(),
    clientId: S.string(),
    sessionId: S.nullable(S.string()),
    baseRevision: S.optional(S.number()),
    baseLogEpoch: S.optional(S.string({ trim: true, min: 1 })),
    type: S.enum(types),
    payload: S.unknown(),
    issuedAt: timestamp,
  });
}

// ── results and ACK ──
const safeFile = S.object({ action: S.enum(['restore', 'delete']), operationCount: S.number({ int: true, min: 0 }), path: nonEmpty, toolNames: S.array(S.string()) }, { strict: true });
const unsafeFile = S.object({ currentHash: S.optional(S.string()), expectedHash: S.optional(S.string()), message: S.optional(S.string()), operationCount: S.number({ int: true, min: 0 }), path: nonEmpty, reason: S.enum(['checkpoint_missing', 'checkpoint_unreadable', 'external_modified', 'file_read_failed', 'unsupported_checkpoint']), toolNames: S.array(S.string()) }, { strict: true });
const ignoredFile = S.object({ operationCount: S.number({ int: true, min: 0 }), path: nonEmpty, reason: S.literal('bash_ignored'), toolNames: S.array(S.string()) }, { strict: true });
export const REWIND_PREVIEW = S.object({ canApply: S.boolean(), ignoredFiles: S.array(ignoredFile), safeFiles: S.array(safeFile), unsafeFiles: S.array(unsafeFile) }, { strict: true });

const delivery = S.enum(['startNow', 'queue', 'guide']);
export const COMMAND_RESULT = S.union([
  S.object({ type: S.enum(['createSession', 'createSelectionSideSession', 'forkAssistant']), sessionId: S.string(), input: S.optional(S.object({ delivery, inputId: S.string(), messageId: S.optional(S.string()) })) }),
  S.object({ type: S.literal('resolveInteraction'), resolvedBy: S.object({ clientId: S.string(), optionId: S.optional(S.string()) }) }),
  S.object({ type: S.literal('applyFileRewind'), applied: S.boolean(), preview: REWIND_PREVIEW, response: S.string() }),
  S.object({ type: S.literal('editUserQuery'), disposition: S.enum(['rewind', 'fork', 'blocked']), sessionId: nonEmpty, reasonCode: S.optional(nonEmpty), preview: S.optional(REWIND_PREVIEW) }),
  S.object({ type: S.literal('startSavedWorkflow'), runId: nonEmpty, toolCallId: nonEmpty }),
  S.object({ type: S.literal('inputAccepted'), delivery, inputId: S.string(), messageId: S.optional(S.string()) }),
  S.object({ type: S.literal('inputDisposition'), delivery }),
]);

export const ACK = S.object({
  memoryEnabled: S.optional(S.boolean()),
  ttftExcluded: S.optional(S.literal('capacity')),
  commandId: S.string(),
  status: S.enum(['accepted', 'rejected', 'stale', 'duplicate', 'noop', 'failed']),
  reasonCode: S.optional(S.string()),
  message: S.optional(S.string()),
  revisionAtDecision: S.number(),
  result: S.optional(COMMAND_RESULT),
});

// ── v4/commands/query ──
const commandKey = S.object({ sessionId: S.nullable(S.string()), commandId: nonEmpty }, { strict: true });
export const QUERY_PARAMS = S.object({ commands: S.array(commandKey, { min: 1, max: 64 }), clock: S.optional(S.literal(true)) }, {
  strict: true,
  refine: (p) => (p.clock && !p.commands.every((k) => k.sessionId === null) ? [{ message: 'clock probes cannot query session commands' }] : []),
});
export const QUERY_RESULT = S.object({
  results: S.array(S.object({ key: commandKey, result: S.union([ACK, S.literal('unknown')]) }, { strict: true }), { min: 1, max: 64 }),
  clock: S.optional(free),
}, { strict: true });

// ── rows (rows.ts): the kinds the simulator produces ──
const rowBase = {
  rowId: S.number(),
  turnId: S.string(),
  entityId: S.optional(nonEmpty),
  productTurnId: S.optional(nonEmpty),
  visibility: S.optional(S.literal('visible')),
  createdAt: timestamp,
  createdAtSeq: S.number(),
  actions: S.optional(S.object({ canFork: S.optional(S.literal(true)), canEdit: S.optional(S.literal(true)), canRetry: S.optional(S.literal(true)), canRewindFiles: S.optional(S.literal(true)), editDisposition: S.optional(S.enum(['rewind', 'fork'])) })),
};
export const ROW = S.tagged('kind', [
  S.object({
    ...rowBase, kind: S.literal('turnHeader'), origin: S.enum(['userInput', 'backgroundResult', 'goalContinuation', 'editRerun', 'workflowLaunch']),
    executionKind: S.optional(S.enum(['agent', 'controlOnly'])), sourceCommandId: S.optional(S.string()), historyRoundCount: S.optional(S.number({ int: true, min: 0 })),
    state: S.enum(['running', 'completedSuccess', 'completedInterrupted', 'failed']), startedAt: timestamp, endedAt: S.optional(timestamp), activeMs: S.optional(S.number()),
    outputTokens: S.optional(S.number({ int: true, min: 0 })), workSegments: S.optional(S.array(free)),
    fileChanges: S.optional(S.object({ additions: S.number(), deletions: S.number(), files: S.number(), state: S.optional(S.enum(['active', 'reverted'])) })),
  }),
  S.object({
    ...rowBase, kind: S.literal('userInput'), text: S.string(), origin: S.enum(['realUser', 'backgroundResult', 'goalContinuation', 'mailbox', 'synthetic', 'workflowLaunch']),
    originMeta: S.optional(S.object({ backgroundSource: S.optional(S.enum(['bash', 'subagent', 'workflow'])), workId: S.optional(S.string()), senderSessionId: S.optional(S.string()), senderLabel: S.optional(S.string()) })),
    guided: S.optional(S.literal(true)), sourceCommandId: S.optional(S.string()), rootSourceCommandId: S.optional(S.string()), clientId: S.optional(S.string()), attachments,
  }),
  S.object({ ...rowBase, kind: S.literal('assistantText'), assistantResponseId: S.optional(nonEmpty), text: S.string(), state: S.enum(['streaming', 'complete', 'interrupted', 'failed']), model: S.optional(S.string()), feedback: S.optional(S.enum(['like', 'dislike'])) }),
  S.object({ ...rowBase, kind: S.literal('reasoning'), assistantResponseId: S.optional(nonEmpty), text: S.string(), state: S.enum(['streaming', 'complete', 'interrupted']), durationMs: S.optional(S.number()) }),
  S.object({
    ...rowBase, kind: S.literal('toolCall'), assistantResponseId: S.optional(nonEmpty), toolCallId: S.string(), toolName: S.string(),
    status: S.enum(['inputStreaming', 'pendingApproval', 'running', 'success', 'error', 'cancelled']), inputText: S.string(), input: S.optional(S.unknown()),
    error: S.optional(S.object({ code: S.string(), message: S.string() })), startedAt: S.optional(timestamp), endedAt: S.optional(timestamp),
  }),
]);

// ── queries (transport.ts) ──
export const ROWS_RANGE_PARAMS = S.object({ sessionId: S.string(), clientMode: S.optional(clientMode), beforeRowId: S.optional(S.number()), limit: S.number({ min: 1, max: 200 }) });
export const ROWS_RANGE_RESULT = S.object({ rows: S.array(ROW), atSeq: S.number(), atRevision: S.number({ int: true, min: 0 }), atLogEpoch: S.string(), hasMore: S.boolean() });
const casQuery = S.object({ sessionId: nonEmpty, target: ROW_TARGET, baseRevision: S.number({ int: true, min: 0 }), baseLogEpoch: S.string({ trim: true, min: 1 }) }, { strict: true });
export const REWIND_PREVIEW_PARAMS = casQuery;
export const FILE_CHANGES_PARAMS = casQuery;
const hunk = S.object({ oldStart: S.number(), oldLines: S.number(), newStart: S.number(), newLines: S.number(), lines: S.array(S.string()) }, { strict: true });
const count = S.number({ int: true, min: 0 });
export const FILE_CHANGES_RESULT = S.object({
  files: count, additions: count, deletions: count, state: S.optional(S.enum(['active', 'reverted'])),
  items: S.array(S.object({ path: nonEmpty, additions: count, deletions: count, writeCount: count, toolNames: S.array(S.string()), patches: S.array(hunk) }, { strict: true })),
}, { strict: true });
