/**
 * The optional event fields desktop 3.15 added (zcode's own zod schemas, jimpablo/ZCode
 * packages/shared/src/zcode-protocol/index.ts): parsed, never fatal, and a sub-agent's tool calls
 * name their Agent call and the sub-agent's type in `_meta.zcode` (the chat shows them under it).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { ZcodeEvent } from '../../../../bridge/zcode/protocol.ts';
import { ev, translator, updatesOf } from './support.ts';

const SUB = { parentToolCallId: 'call_agent', source: 'subagent', agentId: 'agent_1', agentType: 'explore', description: 'Survey the tests' };

function metaOf(update: SessionUpdate | undefined): unknown {
  return (update as { _meta?: unknown } | undefined)?._meta;
}

describe('3.15 event fields', () => {
  test('turn.started.executionStartedAt (fractional), turn.failed.backgroundSubagentResultConsumed parse', () => {
    assert.ok(ZcodeEvent.safeParse({ sessionId: 's', seq: 1, type: 'turn.started', payload: { turnNumber: 1, input: 'hi', executionStartedAt: 1764700000000.25 } }).success);
    const failed = ZcodeEvent.safeParse({ sessionId: 's', seq: 2, type: 'turn.failed', payload: { error: { type: 'ModelRequestError', message: 'x' }, turnPhase: 'model_request', backgroundSubagentResultConsumed: true } });
    assert.ok(failed.success);
  });

  test('scheduled with the scheduler fields and a sub-agent attribution: the card names its Agent call and type', () => {
    const state = translator(false);
    const updates = updatesOf(state, [
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_agent', toolName: 'Agent', input: { description: 'Survey the tests', prompt: 'go', subagent_type: 'explore' }, assistantMessageId: 'msg_a', dependencies: [], parallelGroupIndex: 0, canRunParallel: false }),
      ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_inner', toolName: 'Read', input: { file_path: '/work/proj/a.ts' }, childToolCallId: 'child_1', ...SUB, dependencies: ['call_x'], parallelGroupIndex: 2, canRunParallel: true }),
      ev('tool.updated', { kind: 'result', toolCallId: 'call_inner', ...SUB, childToolCallId: 'child_1', result: { success: true, content: 'x' }, duration: 3 }),
    ]);
    assert.deepEqual(metaOf(updates[0]), { zcode: { toolName: 'Agent' } }, 'the Agent call itself has no parent');
    assert.deepEqual(metaOf(updates[1]), { zcode: { toolName: 'Read', parentToolCallId: 'call_agent', agentType: 'explore' } });
    assert.equal(updates.at(-1)?.sessionUpdate, 'tool_call_update');
  });

  test('a sub-agent tool first seen as started (no scheduled) still names its Agent call', () => {
    const state = translator(false);
    const updates = updatesOf(state, [ev('tool.updated', { kind: 'started', toolCallId: 'call_inner', toolName: 'Grep', startedAt: 1, ...SUB, childToolCallId: 'child_2' })]);
    assert.deepEqual(metaOf(updates[0]), { zcode: { toolName: 'Grep', parentToolCallId: 'call_agent', agentType: 'explore' } });
  });

  test('a malformed attribution is dropped, not the event', () => {
    const state = translator(false);
    const updates = updatesOf(state, [ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_odd', toolName: 'Read', input: {}, parentToolCallId: 42, agentType: null })]);
    assert.equal(updates[0]?.sessionUpdate, 'tool_call');
    assert.deepEqual(metaOf(updates[0]), { zcode: { toolName: 'Read' } });
  });
});
