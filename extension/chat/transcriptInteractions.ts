/**
 * The transcript's interaction cards: a permission or a form arrives, is answered or withdrawn.
 * Same rules as transcript.ts (pure, each function changes the state and returns the `Change`).
 * A question or plan form is the one card of its tool call; a shell permission holds its tool's
 * card back (`heldTools`) and returns it below the answered permission, where its output streams.
 */
import type { CreateElicitationRequest, CreateElicitationResponse, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { elicitationItem, permissionItem, proposedDiffs, summarizeElicitation } from './interactionView.ts';
import { toolItemId } from './toolView.ts';
import { ANSWER_WORDS } from '../../webview-ui/viewModel.ts';
import { ChangeBuilder, itemById, nextId, type Change, type TranscriptState } from './transcript.ts';

export function addPermission(state: TranscriptState, params: RequestPermissionRequest): { id: string; change: Change } {
  const b = new ChangeBuilder(state);
  const id = nextId(state, 'permission');
  const tool = itemById(state, toolItemId(params.toolCall.toolCallId));
  const diffs = proposedDiffs(params);
  // Open Diff of the card reads the full texts by tool call id (the tool's own card may have none yet).
  if (diffs.length && !state.diffs.has(params.toolCall.toolCallId)) state.diffs.set(params.toolCall.toolCallId, diffs);
  const item = permissionItem(id, params, tool?.type === 'tool' ? tool : undefined, diffs);
  if (item.command) {
    (state.heldTools ??= new Map()).set(params.toolCall.toolCallId, { permissionId: id, ...(tool?.type === 'tool' ? { item: tool } : {}) });
    if (tool) b.op({ op: 'remove', id: tool.id });
  }
  b.upsert(item);
  state.openText = undefined;
  return { id, change: b.change };
}

export function addElicitation(state: TranscriptState, params: CreateElicitationRequest): { id: string; change: Change } {
  const b = new ChangeBuilder(state);
  const id = nextId(state, 'elicitation');
  const item = elicitationItem(id, params);
  // A question or plan shows one card: the form, not the tool's card beside it.
  const toolCallId = 'toolCallId' in params && typeof params.toolCallId === 'string' ? params.toolCallId : undefined;
  if (toolCallId && (item.formKind === 'questions' || item.formKind === 'planFeedback')) {
    (state.formTools ??= new Set()).add(toolCallId);
    if (itemById(state, toolItemId(toolCallId))) b.op({ op: 'remove', id: toolItemId(toolCallId) });
  }
  b.upsert(item);
  state.openText = undefined;
  return { id, change: b.change };
}

/** Marks a permission card answered with the chosen option's name (or dismissed). */
export function answerPermission(state: TranscriptState, id: string, optionId: string | undefined): Change {
  const b = new ChangeBuilder(state);
  const item = itemById(state, id);
  if (item?.type !== 'permission' || item.state !== 'pending') return b.change;
  const answer = optionId ? (item.options.find((o) => o.optionId === optionId)?.name ?? optionId) : ANSWER_WORDS.dismissed;
  b.upsert({ ...item, state: 'answered', answer });
  releaseHeldTool(state, b, id);
  return b.change;
}

/** The tool card a settled permission held back returns, below it (see `heldTools`). */
function releaseHeldTool(state: TranscriptState, b: ChangeBuilder, permissionId: string): void {
  for (const [toolCallId, held] of state.heldTools ?? []) {
    if (held.permissionId !== permissionId) continue;
    state.heldTools?.delete(toolCallId);
    if (held.item) b.upsert(held.item);
  }
}

export function answerElicitation(state: TranscriptState, id: string, response: CreateElicitationResponse): Change {
  const b = new ChangeBuilder(state);
  const item = itemById(state, id);
  if (item?.type !== 'elicitation' || item.state !== 'pending') return b.change;
  b.upsert({ ...item, state: 'answered', answer: summarizeElicitation(item, response) });
  return b.change;
}

/** The bridge withdrew a prompt (answered by another client, or the turn was cancelled). */
export function withdrawInteraction(state: TranscriptState, id: string): Change {
  const b = new ChangeBuilder(state);
  const item = itemById(state, id);
  if ((item?.type === 'permission' || item?.type === 'elicitation') && item.state === 'pending') b.upsert({ ...item, state: 'withdrawn' });
  releaseHeldTool(state, b, id);
  return b.change;
}
