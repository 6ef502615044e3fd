/**
 * Reading zcode's conversation rows (`v4/conversation/rowsRange`) for what the bridge targets:
 * the user messages one can go back to, the assistant reply a retry or an assistant fork names,
 * and how many files a turn changed. Pure functions over the rows, plus `retryTurnInPlace`, the one
 * entry point the turn engine's automatic retries can use (no duplicated user message).
 */
import type { V4Base, V4Commands, V4Reader } from './v4Commands.ts';
import type { V4OtherRow, V4Row, V4RowsRange, V4RowTarget } from './v4Shapes.ts';

/** How many rows the bridge reads (zcode's maximum per call). */
export const ROWS_LIMIT = 200;

type AnyRow = V4Row | V4OtherRow;
type UserRow = Extract<V4Row, { kind: 'userInput' }>;
type AssistantRow = Extract<V4Row, { kind: 'assistantText' }>;

/** A real user's message (not a steer folded into a turn, not a background result or a goal continuation). */
export function isUserPrompt(row: AnyRow): row is UserRow & { entityId: string } {
  return row.kind === 'userInput' && !!row.entityId && (row.origin === undefined || row.origin === 'realUser') && row.guided !== true;
}

export function targetOf(row: { rowId: number; entityId?: string | undefined }): V4RowTarget | undefined {
  return row.entityId ? { rowId: row.rowId, entityId: row.entityId } : undefined;
}

export function baseOf(range: V4RowsRange): V4Base {
  return { revision: range.atRevision, logEpoch: range.atLogEpoch };
}

/** The user prompts, oldest first. */
export function userPrompts(rows: readonly AnyRow[]): Array<UserRow & { entityId: string }> {
  return rows.filter(isUserPrompt);
}

/** Files the turn changed, when its header says (`fileChanges.files`, unless already reverted). */
export function fileCountOf(rows: readonly AnyRow[], turnId: string): number | undefined {
  const header = rows.find((r) => r.kind === 'turnHeader' && r.turnId === turnId);
  if (header?.kind !== 'turnHeader' || !header.fileChanges) return undefined;
  return header.fileChanges.state === 'reverted' ? 0 : header.fileChanges.files;
}

/** The last assistant text of a turn (what forkAssistant / retryTurn name). */
export function lastAssistantOf(rows: readonly AnyRow[], turnId: string): (AssistantRow & { entityId: string }) | undefined {
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    if (row?.kind === 'assistantText' && row.turnId === turnId && row.entityId) return row as AssistantRow & { entityId: string };
  }
  return undefined;
}

/** The turn before the user prompt at `rowId` (the last turn with a prompt earlier than it), if any. */
export function previousTurnOf(rows: readonly AnyRow[], rowId: number): string | undefined {
  const earlier = userPrompts(rows).filter((r) => r.rowId < rowId);
  return earlier[earlier.length - 1]?.turnId;
}

/**
 * The reply a retry re-runs: the latest assistant text zcode marks retryable, else the latest
 * turn's last assistant text (zcode decides; a wrong pick is its `guard.latestAssistantRetryOnly`).
 */
export function retryTargetOf(rows: readonly AnyRow[]): V4RowTarget | undefined {
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i];
    if (row?.kind === 'assistantText' && row.actions?.canRetry === true) return targetOf(row);
  }
  const latest = userPrompts(rows).at(-1);
  const reply = latest && lastAssistantOf(rows, latest.turnId);
  return reply ? targetOf(reply) : undefined;
}

/** Why `retryTurnInPlace` did not retry (the caller falls back, e.g. to re-sending the prompt). */
export type InPlaceRetry = { retried: true; commandId: string } | { retried: false; reason: string };

/**
 * Re-run the session's latest turn in zcode without adding the user's message again (`retryTurn`).
 * For the turn engine's automatic retries: call it only when the build has v4 (`v4.probe()`).
 */
export async function retryTurnInPlace(v4: V4Commands, sessionId: string): Promise<InPlaceRetry> {
  const resolve = async (read: V4Reader): Promise<{ target: V4RowTarget; base: V4Base }> => {
    const range = await read.rows(sessionId, ROWS_LIMIT);
    const target = retryTargetOf(range.rows);
    if (!target) throw new NoRetryTarget();
    return { target, base: baseOf(range) };
  };
  try {
    const { commandId, ack } = await v4.retryTurn(sessionId, resolve);
    if (ack.status === 'accepted' || ack.status === 'duplicate') return { retried: true, commandId };
    return { retried: false, reason: `${ack.status}${ack.reasonCode ? ` (${ack.reasonCode})` : ''}${ack.message ? `: ${ack.message}` : ''}` };
  } catch (error) {
    if (error instanceof NoRetryTarget) return { retried: false, reason: error.message };
    throw error;
  }
}

/** The latest turn has no assistant reply zcode could re-run. */
export class NoRetryTarget extends Error {
  constructor() {
    super('the latest turn has no assistant reply to retry');
    this.name = 'NoRetryTarget';
  }
}
