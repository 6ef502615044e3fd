/**
 * The zcode boundary reads the current builds' shapes (docs/zcode-protocol.md, zcode's own schemas) and the seed era's,
 * into one form: literal payloads of both eras through the real schemas and translators.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ZcodeError } from '../../../../bridge/zcode/backend.ts';
import { stateUpdatedEvent } from '../../../../bridge/zcode/legacy/sessionEvents.ts';
import { refusesModelShape } from '../../../../bridge/zcode/legacy/legacyMethods.ts';
import { compactionOutcomeOf, CreateSessionResult, GoalResult, MessagesResult, PermissionRequestParams, ReadSessionResult, sessionTitleOf, StateUpdatedPayload } from '../../../../bridge/zcode/protocol.ts';
import { UnknownFields } from '../../../../bridge/zcode/unknownFields.ts';
import { buildConfigOptions, modelSelectionFor } from '../../../../bridge/translate/config.ts';
import { permissionOutcomeToReply } from '../../../../bridge/translate/permissionDialogs.ts';
import { testLogger } from '../../../helpers/sim.ts';
import { ev, feed, translator } from '../translate/support.ts';

const LEVELS = [
  { value: 'low', label: 'Low' },
  { value: 'high', label: 'High' },
  { value: 'max', label: 'Max' },
];
const TEXT = { inputFormat: { supportsText: true }, outputFormat: { supportsText: true } };
/** A current snapshot as zcodeSessionStateSnapshotSchema gives it (abridged where the bridge reads nothing). */
const SNAPSHOT = {
  protocol: { name: 'ZCode Protocol', version: 1 },
  session: { sessionId: 'sess_real', workspace: { workspacePath: '/w', workspaceKey: '/w' }, sessionKind: 'interactive', title: 'Fix the redirect', titleSource: 'first_input', mode: 'build', status: 'idle', createdAt: 1, updatedAt: 2 },
  settings: {
    model: {
      current: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.2', options: { reasoningLevel: 'max' } },
      available: [
        { ref: { providerId: 'account:zai-coding-plan', modelId: 'GLM-5.2' }, label: 'GLM-5.2', reasoning: { levels: LEVELS, defaultLevel: 'max' }, properties: TEXT },
        { ref: { providerId: 'account:zai-coding-plan', modelId: 'GLM-4.6' }, label: 'GLM-4.6', properties: TEXT },
        { ref: { providerId: 'custom-3f2a', modelId: 'GLM-4.6' }, label: 'GLM-4.6 (mine)', properties: TEXT },
      ],
    },
    thoughtLevel: { enabled: true, defaultLevel: 'high', available: LEVELS },
    mode: { current: 'build' },
  },
  projection: { sessionId: 'unknown', status: 'idle', mode: 'build', turnCount: 0, totalTokenCount: 0, contextUsed: 0, contextWindow: 200000, pendingPermissions: [], activeToolCalls: [], backgroundJobs: [], target: null },
  runtime: { eventSeq: 4, stateRevision: 2, pendingRequestIds: [] },
  messages: [],
};

test('a current create / read snapshot: the id from session, models from ref, level objects as ids, the title from session', () => {
  const created = CreateSessionResult.parse(SNAPSHOT);
  assert.equal(created.session.sessionId, 'sess_real');
  const read = ReadSessionResult.parse(SNAPSHOT);
  assert.equal(sessionTitleOf(read), 'Fix the redirect');
  assert.deepEqual(read.settings?.thoughtLevel?.available, ['low', 'high', 'max']);
  assert.deepEqual(read.settings?.model?.available?.[0], { modelId: 'GLM-5.2', providerId: 'account:zai-coding-plan', name: 'GLM-5.2', reasoningLevels: ['low', 'high', 'max'], defaultReasoningLevel: 'max' });
  const options = buildConfigOptions(read.settings);
  const model = options.find((o) => o.id === 'model') as unknown as { currentValue: string; options: Array<{ value: string }> };
  assert.equal(model.currentValue, 'GLM-5.2');
  // Two providers offer GLM-4.6: their values carry the provider.
  assert.deepEqual(model.options.map((o) => o.value), ['GLM-5.2', 'account:zai-coding-plan/GLM-4.6', 'custom-3f2a/GLM-4.6']);
  assert.equal(options.find((o) => o.id === 'thought_level')?.currentValue, 'high', 'current absent: the default level');
  assert.deepEqual(modelSelectionFor(read.settings, 'custom-3f2a/GLM-4.6'), { modelId: 'GLM-4.6', providerId: 'custom-3f2a' });
  assert.deepEqual(modelSelectionFor(read.settings, 'GLM-5.2', 'low'), { modelId: 'GLM-5.2', providerId: 'account:zai-coding-plan', reasoningLevel: 'max' });
  // Seed builds: bare ids.
  const seed = ReadSessionResult.parse({ projection: { title: 'Old' }, settings: { model: { current: { modelId: 'GLM-5.2', name: 'GLM-5.2' }, available: [{ modelId: 'GLM-5.2', name: 'GLM-5.2' }] }, thoughtLevel: { current: 'high', available: ['low', 'high'] } } });
  assert.equal(sessionTitleOf(seed), 'Old');
  assert.deepEqual(modelSelectionFor(seed.settings, 'GLM-5.2'), { modelId: 'GLM-5.2' });
});

test('goal: seed {goal}; current {response, snapshot} with the goal at snapshot.projection.target', () => {
  assert.deepEqual(GoalResult.parse({ goal: { objective: 'x', status: 'active' } }).goal, { objective: 'x', status: 'active' });
  const target = { sessionId: 's', targetId: 't', objective: 'ship', summaryTitle: null, status: 'paused', tokenBudget: null, tokensUsed: 0, timeUsedSeconds: 0, createdAt: 1, updatedAt: 1 };
  assert.deepEqual(GoalResult.parse({ response: 'ok', snapshot: { ...SNAPSHOT, projection: { ...SNAPSHOT.projection, target } } }).goal, { objective: 'ship', status: 'paused' });
  assert.equal(GoalResult.parse({ response: 'ok', snapshot: SNAPSHOT }).goal, null);
});

test('messages: current info.messageId is the id', () => {
  const parsed = MessagesResult.parse({ messages: [{ info: { messageId: 'm1', sessionId: 's', role: 'user', time: { created: 1 }, agent: 'build' }, parts: [{ partId: 'p', sessionId: 's', messageId: 'm1', type: 'text', text: 'hi' }] }] });
  assert.equal(parsed.messages[0].info.id, 'm1');
  assert.equal(MessagesResult.safeParse({ messages: [{ info: { role: 'user' }, parts: [] }] }).success, false, 'no id at all is refused');
});

test('state changes: string or {current}, in session/event and as the top-level notification; compaction by status or reason', () => {
  const seed = StateUpdatedPayload.parse({ patch: { mode: 'plan', thoughtLevel: 'max', model: { modelId: 'GLM-4.6' } }, reason: 'setMode' });
  const current = StateUpdatedPayload.parse({ patch: { mode: { current: 'plan' }, thoughtLevel: { current: 'max' }, model: { current: { providerId: 'p', modelId: 'GLM-4.6' } } } });
  for (const p of [seed, current]) assert.deepEqual([p.patch?.mode, p.patch?.thoughtLevel, p.patch?.model?.modelId], ['plan', 'max', 'GLM-4.6']);
  const logger = testLogger('state');
  const event = stateUpdatedEvent({ type: 'state.updated', scope: 'session', sessionId: 's1', revision: 3, reason: 'session_compact_failed', patch: { status: 'idle' } }, logger);
  assert.equal(event?.sessionId, 's1');
  assert.deepEqual(compactionOutcomeOf(event!.payload), { status: 'failed' });
  assert.equal(stateUpdatedEvent({ type: 'state.updated', scope: 'server', revision: 1, patch: {} }, logger), undefined, 'not about a session');
  assert.deepEqual(compactionOutcomeOf(StateUpdatedPayload.parse({ patch: { compaction: { status: 'compacted', tokensAfter: 3 } }, reason: 'compaction' })), { status: 'compacted', tokensAfter: 3 });
  assert.equal(compactionOutcomeOf(StateUpdatedPayload.parse({ patch: { mode: 'plan' }, reason: 'setMode' })), undefined);
  const signals = feed(translator(false), [ev('state.updated', { patch: { mode: { current: 'edit' } } }), ev('state.updated', { patch: {}, reason: 'session_compact_cancelled' })]).signals;
  assert.deepEqual(signals, [{ type: 'config', mode: 'edit' }, { type: 'compaction', status: 'cancelled', reason: 'session_compact_cancelled' }]);
});

test('current events: envelope turnId, assistantMessageId, silent kinds, error objects, batch counts, string codes, title, checkpoint, usage.delta', () => {
  const state = translator(false, { contextWindow: 1000 });
  const started = feed(state, [{ ...ev('turn.started', { turnNumber: 1, input: 'hi' }), turnId: 'turn_9' } as ReturnType<typeof ev>]).signals[0];
  assert.deepEqual(started, { type: 'turn_started', background: false, turnId: 'turn_9' });
  const { updates } = feed(state, [
    ev('model.streaming', { kind: 'text_start', assistantMessageId: 'a1' }),
    ev('model.streaming', { kind: 'text_delta', delta: 'Hello', assistantMessageId: 'a1' }),
    ev('tool.updated', { kind: 'scheduled', toolCallId: 'c1', toolName: 'Bash', input: { command: 'ls' } }),
    ev('tool.updated', { kind: 'started', toolCallId: 'c1', startedAt: 5 }),
    ev('tool.updated', { kind: 'error', toolCallId: 'c1', error: { type: 'ToolExecutionError', message: 'boom' } }),
    ev('tool.updated', { kind: 'batch', toolCallIds: ['c1'], successCount: 0, errorCount: 1 }),
    ev('tool.updated', { kind: 'raw', toolCallId: 'c1', payload: {} }),
    ev('usage.delta', { usage: { inputTokens: 400 } }),
  ]);
  assert.deepEqual(updates[0], { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' }, messageId: 'a1' });
  assert.ok(updates.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed' && JSON.stringify(u.content).includes('boom')));
  assert.deepEqual(updates.at(-1), { sessionUpdate: 'usage_update', used: 400, size: 1000 });
  const failed = feed(state, [ev('turn.failed', { error: { type: 'ProviderRateLimitError', message: 'slow down', code: '429', retryable: false }, turnPhase: 'model_request' })]).signals[0];
  assert.deepEqual([failed.type, (failed as { code?: unknown }).code, (failed as { retryable?: boolean }).retryable], ['turn_failed', 429, false], 'zcode said not retryable');
  const other = feed(translator(false), [
    ev('session.titleUpdated', { previousTitle: 'New session', source: 'first_input', title: 'Fix it' }),
    ev('checkpoint.created', { checkpointId: 'ck1', createdAt: 0, label: 'Fix it' }),
  ]).signals;
  assert.deepEqual(other, [
    { type: 'title', title: 'Fix it', source: 'first_input' },
    { type: 'checkpoint', checkpointId: 'ck1', createdAt: '1970-01-01T00:00:00.000Z', label: 'Fix it' },
  ]);
});

test('permissions: the chosen option`s own response goes back unchanged; seed options keep the bare reply', () => {
  const always = { decision: 'allow', permissionUpdates: [{ type: 'addRules', behavior: 'allow', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }] }] };
  const current = PermissionRequestParams.parse({
    requestId: 'r', sessionId: 's', toolCallId: 'c', toolName: 'Bash', reason: 'why', riskLevel: 'high', input: {},
    options: [
      { optionId: 'once', kind: 'allow_once', name: 'Allow once', response: { decision: 'allow' } },
      { optionId: 'always', kind: 'allow_always', name: 'Always', response: always },
      { optionId: 'no', kind: 'reject_once', name: 'Deny', response: { decision: 'deny', reason: 'denied' } },
    ],
  });
  assert.deepEqual(permissionOutcomeToReply({ outcome: 'selected', optionId: 'always' }, current), always);
  assert.deepEqual(permissionOutcomeToReply({ outcome: 'cancelled' }, current), { decision: 'deny', reason: 'cancelled by user' });
  const seed = PermissionRequestParams.parse({ requestId: 'r', sessionId: 's', options: [{ optionId: 'allow_always', kind: 'allow_always', name: 'Always' }] });
  assert.deepEqual(permissionOutcomeToReply({ outcome: 'selected', optionId: 'allow_always' }, seed), { decision: 'allow' });
});

test('setModel shape refusals are told apart from real errors; unknown fields are logged once', () => {
  assert.equal(refusesModelShape(new ZcodeError('Unrecognized key: "options"', -32602)), true);
  assert.equal(refusesModelShape(new ZcodeError('Invalid params: "modelId" must be a non-empty string', -32602)), true);
  assert.equal(refusesModelShape(new ZcodeError('Unsupported model: x', -32603)), false);
  const logger = testLogger('unknown');
  const fields = new UnknownFields(logger);
  fields.noteEvent({ sessionId: 's', seq: 1, type: 'x', eventId: 'e', timestamp: 1, novel: true });
  fields.noteEvent({ sessionId: 's', seq: 2, type: 'x', novel: true });
  fields.noteResult('session/read', SNAPSHOT, ReadSessionResult);
  const noted = logger.find('debug', 'does not read');
  assert.equal(noted.length, 2, noted.join('\n'));
  assert.match(noted[0], /session\/event: novel/);
  assert.match(noted[1], /session\/read: messages/);
});
