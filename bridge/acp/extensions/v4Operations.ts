/**
 * The `_zcode/session/*` operations that only zcode's v4 command surface can do: rewind to a user
 * message (ask again, with or without restoring files), restore a turn's files, fork before a
 * message or from an assistant reply, retry a turn in place, rename in zcode, edit or remove a
 * queued steer. Turns themselves stay on the legacy path (`session/send` + `session/event`).
 *
 * - Each operation first asks `ctx.features` (capabilities.ts): a build without v4 is refused with
 *   the same reason the capabilities give (never a -32601 leak).
 * - Targets come from `v4/conversation/rowsRange` (v4Rows.ts): a `targetId` is the user message's
 *   row (`<rowId>:<entityId>`), read again right before the command so a moved conversation is a
 *   stale target zcode reports (retried by v4Commands.ts), not a wrong cut.
 * - zcode's refusals (`failed` guards, `blocked` edits, stale after retries) are outcomes with a
 *   message in the user's words, not protocol errors.
 * - A rewind in place cuts the conversation: every client showing the session gets
 *   `_zcode/session/historyChanged` and reloads it (`session/load` replays zcode's cut history);
 *   the re-asked turn then streams as a turn the bridge did not start.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { editResultOf, fileRewindResultOf, newSessionOf } from '../../zcode/v4/v4Shapes.ts';
import type { V4Ack, V4FileRewindPreview, V4RowTarget } from '../../zcode/v4/v4Shapes.ts';
import type { V4Base, V4Reader } from '../../zcode/v4/v4Commands.ts';
import { V4TransportError } from '../../zcode/v4/v4Commands.ts';
import { baseOf, fileCountOf, isUserPrompt, lastAssistantOf, previousTurnOf, ROWS_LIMIT, retryTurnInPlace, targetOf, userPrompts } from '../../zcode/v4/v4Rows.ts';
import type { BridgeContext, SessionHandle } from '../context.ts';
import { HistoryChangedNotification, SteerStateNotification } from './contractDescriptors.ts';
import type {
  EditQueuedParams,
  EditQueuedResponse,
  RemoveQueuedParams,
  RemoveQueuedResponse,
  RenameParams,
  RenameResponse,
  RetryTurnParams,
  RetryTurnResponse,
  RewindTarget,
  RewindTargetsParams,
  RewindTargetsResponse,
  RewindToParams,
  RewindToResponse,
} from './contractDescriptors.ts';

export class V4Operations {
  constructor(private readonly ctx: BridgeContext) {}

  // --- Queued steers ----------------------------------------------------------------------------

  async removeQueued(p: RemoveQueuedParams): Promise<RemoveQueuedResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    await this.ctx.features.requireFeature('queueEdit', 'Removing a queued message');
    const { ack } = await this.v4(() => this.ctx.backend.v4.deleteQueueItem(handle.zcodeSessionId, p.queueItemId));
    if (ack.status === 'noop') return { removed: false };
    this.requireDone(ack, 'Removing the queued message');
    this.ctx.notifySession(p.sessionId, SteerStateNotification, { state: 'removed', queueItemId: p.queueItemId });
    return { removed: true };
  }

  async editQueued(p: EditQueuedParams): Promise<EditQueuedResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    await this.ctx.features.requireFeature('queueEdit', 'Editing a queued message');
    const { ack } = await this.v4(() => this.ctx.backend.v4.editQueueItem(handle.zcodeSessionId, p.queueItemId, p.text));
    this.requireDone(ack, 'Editing the queued message');
    return { edited: true };
  }

  // --- Rewind -----------------------------------------------------------------------------------

  async rewindTargets(p: RewindTargetsParams): Promise<RewindTargetsResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    await this.ctx.features.requireFeature('rewindLatestPrompt', 'Going back to a message');
    const range = await this.v4(() => this.ctx.backend.v4.rows(handle.zcodeSessionId, ROWS_LIMIT));
    const prompts = userPrompts(range.rows);
    const targets = prompts.map((row, i): RewindTarget => {
      const latest = i === prompts.length - 1;
      const files = fileCountOf(range.rows, row.turnId);
      const actions: RewindTarget['actions'] = [];
      if (latest && row.actions?.canEdit === true) actions.push('askAgain');
      if (latest && files !== undefined && files > 0) actions.push('askAgainRestoreFiles');
      if (previousTurnOf(range.rows, row.rowId) !== undefined) actions.push('forkHere');
      if (files !== undefined && files > 0) actions.push('filesOnly');
      if (lastAssistantOf(range.rows, row.turnId)?.actions?.canFork) actions.push('forkAssistant');
      return {
        targetId: `${row.rowId}:${row.entityId}`,
        kind: latest ? 'latestPrompt' : 'earlier',
        text: row.text,
        ...(row.createdAt !== undefined ? { createdAt: new Date(row.createdAt).toISOString() } : {}),
        ...(files !== undefined ? { fileCount: files } : {}),
        actions,
      };
    });
    return { targets, hasMore: range.hasMore };
  }

  async rewindTo(p: RewindToParams): Promise<RewindToResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    switch (p.action) {
      case 'askAgain':
      case 'askAgainRestoreFiles':
        await this.ctx.features.requireFeature(p.action === 'askAgain' ? 'rewindLatestPrompt' : 'rewindWithFiles', 'Asking again');
        return this.askAgain(handle, p.targetId, p.text, p.action === 'askAgainRestoreFiles');
      case 'filesOnly':
        await this.ctx.features.requireFeature('fileRewind', 'Restoring files');
        return this.filesOnly(handle, p.targetId);
      case 'forkHere':
        await this.ctx.features.requireFeature('rewindEarlier', 'Going back to an earlier message');
        return this.forkHere(handle, p.targetId);
      default: {
        const never: never = p.action;
        throw RequestError.invalidParams({ action: never }, 'unknown action');
      }
    }
  }

  /** The latest prompt, in place: cut there and ask again (optionally restoring the turn's files first). */
  private async askAgain(handle: SessionHandle, targetId: string, text: string | undefined, restoreFiles: boolean): Promise<RewindToResponse> {
    const same = { sessionId: handle.acpSessionId, cwd: handle.cwd, forked: false };
    if (handle.running) return { ...same, outcome: 'blocked', historyChanged: false, message: 'A prompt is running on this session: stop it (or wait for it to finish) before asking again.' };
    const zid = handle.zcodeSessionId;
    const first = await this.v4(() => this.ctx.backend.v4.rows(zid, ROWS_LIMIT));
    const row = this.userRow(first.rows, targetId);
    if (userPrompts(first.rows).at(-1)?.rowId !== row.rowId) return { ...same, outcome: 'blocked', historyChanged: false, message: 'Only the latest prompt can be asked again in place; go back to an earlier message with "fork here" (a new session).' };
    let preview: V4FileRewindPreview | undefined;
    if (restoreFiles) {
      preview = await this.v4(() => this.ctx.backend.v4.fileRewindPreview(zid, { rowId: row.rowId, entityId: row.entityId }, baseOf(first)));
      const refusal = previewRefusal(preview);
      if (refusal) return { ...same, outcome: 'blocked', historyChanged: false, message: refusal, ...fileLists(preview) };
    }
    const newText = text ?? row.text;
    const { ack } = await this.v4(() => this.ctx.backend.v4.editUserQuery(zid, this.resolveUser(zid, targetId), newText, restoreFiles ? 'rewind' : 'preserve'));
    const result = editResultOf(ack);
    if (ack.status === 'accepted' && result?.disposition === 'blocked') {
      const blockedPreview = result.preview ?? preview;
      return { ...same, outcome: 'blocked', historyChanged: false, message: `zcode did not restore the files (${result.reasonCode ?? 'unsafe'}); nothing was changed.`, ...(blockedPreview ? fileLists(blockedPreview) : {}) };
    }
    const outcome = this.outcomeOf(ack, 'Asking again');
    if (outcome) return { ...same, historyChanged: false, ...outcome };
    this.ctx.notifySession(handle.acpSessionId, HistoryChangedNotification, { reason: 'rewound' });
    return {
      ...same,
      outcome: 'done',
      historyChanged: true,
      message: restoreFiles ? 'The conversation was cut at this prompt, the files it changed were restored, and zcode is answering it again.' : 'The conversation was cut at this prompt and zcode is answering it again (files unchanged).',
      ...(preview ? { restoredFiles: preview.safeFiles.map((f) => f.path) } : {}),
    };
  }

  /** Restore the files a turn changed; the conversation stays. */
  private async filesOnly(handle: SessionHandle, targetId: string): Promise<RewindToResponse> {
    const same = { sessionId: handle.acpSessionId, cwd: handle.cwd, forked: false, historyChanged: false };
    const zid = handle.zcodeSessionId;
    const first = await this.v4(() => this.ctx.backend.v4.rows(zid, ROWS_LIMIT));
    const row = this.userRow(first.rows, targetId);
    const preview = await this.v4(() => this.ctx.backend.v4.fileRewindPreview(zid, { rowId: row.rowId, entityId: row.entityId }, baseOf(first)));
    if (!preview.canApply || preview.safeFiles.length === 0) return { ...same, outcome: 'blocked', message: previewRefusal(preview) ?? 'zcode has nothing to restore for this turn.', ...fileLists(preview) };
    const { ack } = await this.v4(() => this.ctx.backend.v4.applyFileRewind(zid, this.resolveUser(zid, targetId)));
    const outcome = this.outcomeOf(ack, 'Restoring files');
    if (outcome) return { ...same, ...outcome };
    const result = fileRewindResultOf(ack);
    const final = result?.preview ?? preview;
    if (result && !result.applied) return { ...same, outcome: 'blocked', message: `zcode did not restore the files${result.response ? `: ${result.response}` : ''}.`, ...fileLists(final) };
    const lists = fileLists(final);
    return { ...same, outcome: 'done', message: `Restored ${final.safeFiles.length} file(s) this turn changed; the conversation is unchanged.`, restoredFiles: final.safeFiles.map((f) => f.path), ...(lists.unsafeFiles ? { unsafeFiles: lists.unsafeFiles } : {}) };
  }

  /**
   * A new session that ends just before the message: forked at the checkpoint zcode made after the
   * previous turn (conversation and files; legacy `session/fork`) when it announced one, else from
   * the previous turn's last reply (`forkAssistant`: conversation only, files untouched).
   */
  private async forkHere(handle: SessionHandle, targetId: string): Promise<RewindToResponse> {
    const zid = handle.zcodeSessionId;
    const range = await this.v4(() => this.ctx.backend.v4.rows(zid, ROWS_LIMIT));
    const row = this.userRow(range.rows, targetId);
    const previousTurn = previousTurnOf(range.rows, row.rowId);
    if (!previousTurn) throw RequestError.invalidParams({ targetId }, 'This is the first message of the session: there is nothing before it to fork from. Start a new session instead.');
    const checkpoint = handle.announcedCheckpoints?.filter((c) => c.turnId === previousTurn).at(-1);
    if (checkpoint) {
      const forked = await this.ctx.backend.fork({ sessionId: zid, target: { kind: 'checkpoint', checkpointId: checkpoint.checkpointId } });
      const child = [forked.forkedSessionId, forked.session?.sessionId, forked.sessionId].find((id): id is string => typeof id === 'string' && id !== '' && id !== zid);
      if (!child) throw RequestError.internalError({ forked }, 'zcode answered session/fork without the new session id');
      return { outcome: 'done', sessionId: child, cwd: handle.cwd, forked: true, historyChanged: false, message: 'A new session starts just before this message, with the files as they were then; the original session is kept unchanged.' };
    }
    const reply = lastAssistantOf(range.rows, previousTurn);
    if (!reply) return { outcome: 'blocked', sessionId: handle.acpSessionId, cwd: handle.cwd, forked: false, historyChanged: false, message: 'zcode has no settled reply before this message to fork from.' };
    const { ack } = await this.v4(() => this.ctx.backend.v4.forkAssistant(zid, this.resolveAssistant(zid, previousTurn)));
    const outcome = this.outcomeOf(ack, 'Forking');
    if (outcome) return { sessionId: handle.acpSessionId, cwd: handle.cwd, forked: false, historyChanged: false, ...outcome };
    const child = newSessionOf(ack);
    if (!child) throw RequestError.internalError({ ack }, 'zcode answered forkAssistant without the new session id');
    return { outcome: 'done', sessionId: child, cwd: handle.cwd, forked: true, historyChanged: false, message: 'A new session starts just before this message (the conversation only: files are as they are now); the original session is kept unchanged.' };
  }

  /** `_zcode/session/fork {kind:"assistant"}`: the conversation up to a turn's reply, in a new session. */
  async forkAssistant(p: { sessionId: string; targetId?: string }): Promise<{ sessionId: string; cwd: string }> {
    const handle = await this.ctx.materialize(p.sessionId);
    await this.ctx.features.requireFeature('forkAssistant', 'Forking from a reply');
    const zid = handle.zcodeSessionId;
    const range = await this.v4(() => this.ctx.backend.v4.rows(zid, ROWS_LIMIT));
    const turnId = p.targetId ? this.userRow(range.rows, p.targetId).turnId : userPrompts(range.rows).at(-1)?.turnId;
    if (!turnId || !lastAssistantOf(range.rows, turnId)) throw RequestError.invalidParams({ targetId: p.targetId }, 'There is no settled reply to fork from yet.');
    const { ack } = await this.v4(() => this.ctx.backend.v4.forkAssistant(zid, this.resolveAssistant(zid, turnId)));
    this.requireDone(ack, 'Forking from the reply');
    const child = newSessionOf(ack);
    if (!child) throw RequestError.internalError({ ack }, 'zcode answered forkAssistant without the new session id');
    return { sessionId: child, cwd: handle.cwd };
  }

  // --- Retry and rename -------------------------------------------------------------------------

  /** Run the latest turn again in place (`retryTurn`): zcode's history keeps one copy of the user's message. */
  async retryTurn(p: RetryTurnParams): Promise<RetryTurnResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    await this.ctx.features.requireFeature('retryTurn', 'Retrying a turn');
    if (handle.running) throw RequestError.invalidParams({ sessionId: p.sessionId }, 'A prompt is running on this session: retry it once it has finished.');
    const outcome = await this.v4(() => retryTurnInPlace(this.ctx.backend.v4, handle.zcodeSessionId));
    if (!outcome.retried) throw RequestError.internalError({ reason: 'refusedByZcode' }, `zcode did not retry the turn: ${outcome.reason}`);
    this.ctx.notifySession(p.sessionId, HistoryChangedNotification, { reason: 'retried' });
    return { via: 'retryTurn' };
  }

  /** In zcode where the build can (every client and the desktop app see it); the bridge's own title otherwise. */
  async rename(p: RenameParams): Promise<RenameResponse> {
    const handle = await this.ctx.materialize(p.sessionId);
    const caps = await this.ctx.features.probe();
    if (caps.rename.available) {
      const { ack } = await this.v4(() => this.ctx.backend.v4.renameSession(handle.zcodeSessionId, p.title));
      // zcode announces the new title itself (`session.titleUpdated` → `session_info_update` to every client).
      if (ack.status === 'accepted' || ack.status === 'duplicate') return { title: p.title, inZcode: true };
      // A session zcode has not stored yet (no prompt sent) cannot be renamed there: keep it here.
      this.ctx.logger.info(`zcode did not rename ${handle.zcodeSessionId} (${ack.status} ${ack.reasonCode ?? ''} ${ack.message ?? ''}); keeping the title in the bridge`);
    }
    this.ctx.renameLocally(p.sessionId, p.title);
    return { title: p.title, inZcode: false };
  }

  // -------------------------------------------------------------------------------------------

  /** The user prompt a `targetId` names in `rows` (invalid params when it is gone). */
  private userRow(rows: Parameters<typeof userPrompts>[0], targetId: string): ReturnType<typeof userPrompts>[number] {
    const [rowText, ...rest] = targetId.split(':');
    const rowId = Number(rowText);
    const entityId = rest.join(':');
    const row = rows.find((r) => r.rowId === rowId);
    if (!row || !isUserPrompt(row) || row.entityId !== entityId) throw RequestError.invalidParams({ targetId }, 'This message is no longer in the conversation (it changed): pick it again.');
    return row;
  }

  /** The user row of `targetId`, read again inside the command (zcode's stale answers re-run it). */
  private resolveUser(zid: string, targetId: string) {
    return async (read: V4Reader): Promise<{ target: V4RowTarget; base: V4Base }> => {
      const range = await read.rows(zid, ROWS_LIMIT);
      const row = this.userRow(range.rows, targetId);
      return { target: { rowId: row.rowId, entityId: row.entityId }, base: baseOf(range) };
    };
  }

  private resolveAssistant(zid: string, turnId: string) {
    return async (read: V4Reader): Promise<{ target: V4RowTarget; base: V4Base }> => {
      const range = await read.rows(zid, ROWS_LIMIT);
      const reply = lastAssistantOf(range.rows, turnId);
      const target = reply && targetOf(reply);
      if (!target) throw RequestError.invalidParams({ turnId }, 'The reply is no longer in the conversation: pick it again.');
      return { target, base: baseOf(range) };
    };
  }

  /** A refusal as an outcome (`blocked` / `staleGaveUp`); undefined when zcode did it. */
  private outcomeOf(ack: V4Ack, what: string): Pick<RewindToResponse, 'outcome' | 'message'> | undefined {
    switch (ack.status) {
      case 'accepted':
      case 'duplicate':
        return undefined;
      case 'stale':
        return { outcome: 'staleGaveUp', message: `${what} did not go through: the session kept changing (a turn running?). Try again.` };
      case 'noop':
      case 'failed':
      case 'rejected':
        return { outcome: 'blocked', message: `${what}: zcode refused — ${guardMessage(ack)}` };
      default: {
        const never: never = ack.status;
        return never;
      }
    }
  }

  /** Anything but accepted/duplicate is an error with zcode's reason (for operations without an outcome field). */
  private requireDone(ack: V4Ack, what: string): void {
    if (ack.status === 'accepted' || ack.status === 'duplicate') return;
    throw new RequestError(-32603, `${what} did not go through: ${ack.status === 'stale' ? 'the session kept changing; try again' : guardMessage(ack)}`, {
      reason: 'refusedByZcode',
      zcode: { status: ack.status, reasonCode: ack.reasonCode, message: ack.message },
    });
  }

  /** A v4 call whose transport failed: a clear internal error (the outcome is unknown). */
  private async v4<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof V4TransportError) throw new RequestError(-32603, error.message, { reason: 'zcodeUnconfirmed', commandId: error.commandId });
      throw error;
    }
  }
}

/** The v4 steer: a guide for the running turn; its id is the queue item zcode names in `steerState`. */
export async function steerWithV4(ctx: BridgeContext, zcodeSessionId: string, text: string): Promise<{ accepted: true; queueItemId: string }> {
  let outcome;
  try {
    outcome = await ctx.backend.v4.guide(zcodeSessionId, text);
  } catch (error) {
    if (error instanceof V4TransportError) throw new RequestError(-32603, error.message, { reason: 'zcodeUnconfirmed', commandId: error.commandId });
    throw error;
  }
  const { commandId, ack } = outcome;
  if (ack.status !== 'accepted' && ack.status !== 'duplicate') {
    throw new RequestError(-32603, `Steer did not go through: ${guardMessage(ack)}`, { reason: 'refusedByZcode', zcode: { status: ack.status, reasonCode: ack.reasonCode, message: ack.message } });
  }
  return { accepted: true, queueItemId: `queue_${commandId}` };
}

/** zcode's guard codes in the user's words (the code itself stays in the message for support). */
export function guardMessage(ack: V4Ack): string {
  const known: Record<string, string> = {
    'guard.latestQueryEditOnly': 'only the latest prompt can be edited or asked again',
    'guard.latestAssistantRetryOnly': 'only the latest reply can be retried',
    'guard.forkTargetNotStable': 'that reply is not finished yet',
    'guard.queueItemNotEditable': 'that queued item cannot be edited',
    'queue.itemMissing': 'the queued message has already started or was removed',
    'proto.sessionNotFound': 'zcode does not have this session loaded',
  };
  const words = (ack.reasonCode && known[ack.reasonCode]) ?? ack.message ?? 'no reason given';
  return `${words}${ack.reasonCode ? ` (${ack.reasonCode})` : ''}`;
}

/** Why a file-rewind preview cannot be applied safely, or undefined when it can. */
function previewRefusal(preview: V4FileRewindPreview): string | undefined {
  if (preview.unsafeFiles.length > 0) return `Some files changed since that turn and cannot be restored safely: ${preview.unsafeFiles.map((f) => f.path).join(', ')}. Nothing was changed.`;
  if (preview.ignoredFiles.length > 0) return `Some files were changed by shell commands, which zcode cannot restore: ${preview.ignoredFiles.map((f) => f.path).join(', ')}. Nothing was changed.`;
  if (!preview.canApply || preview.safeFiles.length === 0) return 'zcode has no file changes of that turn to restore. Nothing was changed.';
  return undefined;
}

function fileLists(preview: V4FileRewindPreview): Pick<RewindToResponse, 'unsafeFiles' | 'ignoredFiles'> {
  const pick = (files: V4FileRewindPreview['unsafeFiles']) => files.map((f) => ({ path: f.path, ...(f.reason ? { reason: f.reason } : {}) }));
  return { ...(preview.unsafeFiles.length ? { unsafeFiles: pick(preview.unsafeFiles) } : {}), ...(preview.ignoredFiles.length ? { ignoredFiles: pick(preview.ignoredFiles) } : {}) };
}
