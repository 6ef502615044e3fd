// The v4 command handlers (after v4.mjs has parsed the envelope, found the session, checked the ledger and
// CAS). Each returns `{status, reasonCode?, message?, result?}` or `{stale: reasonCode}`; a thrown error is a
// `failed` ACK. Behaviour follows jimpablo/ZCode apps/zcode-cli/packages/bootstrap/src/zcode-protocol-v4/
// commands/handlers/{session-flow,queue,fork-edit-retry,model-config,goal-compact,session-mgmt}.ts.
import { CURRENT_MODELS } from './current.mjs';
import { applyRewind, bump, newLogEpoch, rewindPreview, rowAt, v4Of } from './v4Rows.mjs';
import { enqueue, preempt, startInput } from './v4Input.mjs';

const accepted = (result) => (result ? { status: 'accepted', result } : { status: 'accepted' });
const failed = (reasonCode, message) => ({ status: 'failed', reasonCode, message });
const noop = (reasonCode) => ({ status: 'noop', reasonCode });
const inputAccepted = (delivery, inputId) => accepted({ type: 'inputAccepted', delivery, inputId });

/** Cut the branch before `index` of session.messages (and the checkpoints past it): a new log epoch. */
function cutAt(session, index) {
  session.messages.splice(index);
  session.checkpoints = session.checkpoints.filter((c) => c.messageCount <= index);
  newLogEpoch(session);
  session.touch();
  session.store.save(session);
  session.notifyState({ status: 'idle' }, 'session_rewound');
}

export function commandHandlers(sv, legacy, startTurn) {
  const start = (session, input, ctx) => startInput(sv, session, startTurn, input, ctx);
  /** The row a target names; a stale target is `stale`/proto.staleTarget. */
  const target = (session, t) => rowAt(sv, session, t);

  return {
    async createSession({ envelope: e, payload: p, ctx }) {
      const sessionId = sv.store.newId();
      await sv.hosts.runtimePreferences(sessionId, 'runtime-materialization');
      // Without a first input: a draft (memory only, unlisted until its first input; sessions.mjs).
      const session = sv.store.create({ sessionId, workspace: { workspacePath: p.workspaceId, workspaceKey: p.workspaceId }, mode: 'build', persistence: p.firstInput ? 'immediate' : 'deferred' });
      session.thoughtLevel = 'high';
      if (!p.firstInput) return accepted({ type: 'createSession', sessionId });
      await start(session, { text: p.firstInput.text, commandId: e.commandId, clientId: e.clientId }, ctx);
      return accepted({ type: 'createSession', sessionId, input: { delivery: 'startNow', inputId: e.commandId } });
    },

    async sendText({ session, envelope: e, payload: p, ctx }) {
      const attachments = p.attachments ?? [];
      if (p.text.trim() === '' && attachments.length === 0 && !(p.conversationQuotes?.length > 0)) return failed('proto.invalidPayload', 'input must not be empty');
      const input = { text: p.text, commandId: e.commandId, clientId: e.clientId };
      const busy = Boolean(session.turn || session.compaction);
      if (!busy || p.requestedDelivery === 'startNow') {
        if (busy) await preempt(session, { preserveAutoDrain: true });
        await start(session, input, ctx);
        return inputAccepted('startNow', e.commandId);
      }
      const v4 = v4Of(session);
      const wantsGuide = p.requestedDelivery === 'guide' || (p.requestedDelivery === undefined && v4.followupMode === 'guide');
      const item = { queueItemId: `queue_${e.commandId}`, commandId: e.commandId, clientId: e.clientId, kind: 'sendText', text: p.text, requested: p.requestedDelivery, admitted: wantsGuide ? 'guide' : 'queue' };
      if (wantsGuide && attachments.length > 0) Object.assign(item, { admitted: 'queue', fallbackReasonCode: 'guide.attachmentsUnsupported' });
      else if (wantsGuide && !session.turn) Object.assign(item, { admitted: 'queue', fallbackReasonCode: 'guide.notSteerable' });
      enqueue(session, item, ctx);
      // zcode reports every queued admission, a guide included, as "queue".
      return inputAccepted('queue', e.commandId);
    },

    async stop({ session, payload: p }) {
      const turn = session.turn;
      const expected = p.expectedForegroundExecutionId;
      if (expected !== undefined && turn?.spec.started?.foregroundExecutionId !== expected) return noop('guard.stopTargetChanged');
      if (turn) {
        const v4 = v4Of(session);
        if (v4.queue.length > 0 && v4.autoDrain) {
          v4.autoDrain = false; // a stopped turn holds the queue instead of running it (until setAutoDrain true)
          bump(session);
        }
        turn.cancel();
      }
      session.compaction?.abort();
      return accepted();
    },

    async compact({ session, envelope: e, ctx }) {
      const v4 = v4Of(session);
      if (session.compaction || v4.queue.some((i) => i.kind === 'compact')) return failed('compactOperationLock', 'A compaction is already running or queued');
      if (session.turn) {
        enqueue(session, { queueItemId: `queue_${e.commandId}`, commandId: e.commandId, clientId: e.clientId, kind: 'compact', text: '/compact', admitted: 'queue' }, ctx);
        return accepted();
      }
      await legacy['session/compact']({ sessionId: session.sessionId }, ctx);
      return accepted();
    },

    async deleteQueueItem({ session, payload: p }) {
      const v4 = v4Of(session);
      const index = v4.queue.findIndex((i) => i.queueItemId === p.queueItemId);
      if (index < 0) return noop('queue.itemMissing');
      v4.queue.splice(index, 1);
      bump(session);
      return accepted();
    },

    async editQueueItem({ session, payload: p }) {
      const item = v4Of(session).queue.find((i) => i.queueItemId === p.queueItemId);
      if (item?.kind === 'compact') return failed('guard.queueItemNotEditable', 'A compact item cannot be edited');
      // A missing item is only logged by zcode: still accepted.
      if (item) {
        item.text = p.newText;
        bump(session);
      }
      return accepted();
    },

    async reorderQueueItem({ session, payload: p }) {
      const v4 = v4Of(session);
      const item = v4.queue.find((i) => i.queueItemId === p.queueItemId);
      if (!item) return accepted();
      v4.queue.splice(v4.queue.indexOf(item), 1);
      const before = v4.queue.findIndex((i) => i.queueItemId === p.beforeQueueItemId);
      v4.queue.splice(before < 0 ? v4.queue.length : before, 0, item);
      bump(session);
      return accepted();
    },

    async sendQueuedNow({ session, payload: p, ctx }) {
      const v4 = v4Of(session);
      const item = v4.queue.find((i) => i.queueItemId === p.queueItemId);
      if (!item || item.kind !== 'sendText') return failed('fault.command.executionFailed', `Queue item not found: ${p.queueItemId}`);
      v4.queue.splice(v4.queue.indexOf(item), 1);
      bump(session);
      if (session.turn || session.compaction) await preempt(session);
      await start(session, { text: item.text, commandId: item.commandId, clientId: item.clientId }, ctx);
      return accepted();
    },

    async setAutoDrain({ session, payload: p }) {
      const v4 = v4Of(session);
      if (v4.autoDrain !== p.autoDrain) {
        v4.autoDrain = p.autoDrain;
        bump(session);
        if (p.autoDrain) session.store.onIdle?.(session);
      }
      return accepted();
    },

    async setFollowupMode({ session, payload: p }) {
      const v4 = v4Of(session);
      if (v4.followupMode !== p.mode) {
        v4.followupMode = p.mode;
        bump(session);
      }
      return accepted();
    },

    async switchModelConfig({ session, payload: p, ctx }) {
      const known = CURRENT_MODELS.filter((m) => m.ref.providerId === p.provider);
      if (known.length === 0) return failed('provider.notInRegistry', `Provider not in registry: ${p.provider}`);
      const option = known.find((m) => m.ref.modelId === p.model);
      if (!option) return failed('fault.command.executionFailed', `Unsupported model: ${p.provider}/${p.model}`);
      const sameModel = option.ref.modelId === session.modelId;
      if (sameModel && (p.thought === '' || p.thought === session.thoughtLevel)) return noop('config.unchanged');
      if (p.thought !== '' && !option.reasoning?.levels.some((l) => l.value === p.thought)) return failed('fault.command.executionFailed', `Unsupported thought level ${p.thought} for ${p.model}`);
      session.modelId = option.ref.modelId;
      if (p.thought !== '') session.thoughtLevel = p.thought;
      session.reasoningLevel = option.reasoning ? session.thoughtLevel : undefined;
      session.missingReasoningLevel = false;
      session.touch();
      sv.store.save(session);
      ctx.after(() => session.notifyState({ model: { current: { ...option.ref, ...(session.reasoningLevel ? { options: { reasoningLevel: session.reasoningLevel } } : {}) } } }, 'session_model_updated'));
      return accepted();
    },

    async switchCollaborationMode({ session, payload: p, ctx }) {
      if (session.mode === p.mode) return noop('config.unchanged');
      session.mode = p.mode;
      session.touch();
      sv.store.save(session);
      ctx.after(() => session.notifyState({ mode: { current: session.mode } }, 'session_mode_updated'));
      return accepted();
    },

    async renameSession({ session, payload: p }) {
      // A draft is not in the store yet, so the runtime cannot find it.
      if (session.persistence === 'deferred') return failed('fault.command.executionFailed', `Session not found: ${session.sessionId}`);
      const previousTitle = session.title;
      session.title = p.title;
      session.titleSource = 'custom';
      session.touch();
      sv.store.save(session);
      session.emit('session.titleUpdated', { previousTitle, source: 'custom', title: p.title });
      return accepted();
    },

    async deleteSession({ session }) {
      // A close, not a delete: the live record goes, a persisted history stays listed.
      session.turn?.cancel();
      session.active = false;
      session.subscribed = false;
      if (session.persistence === 'deferred') sv.store.remove(session.sessionId); // a draft is gone with its record
      return accepted();
    },

    async forkAssistant({ session, payload: p }) {
      const row = target(session, p.target);
      if (!row) return { stale: 'proto.staleTarget' };
      if (row.kind !== 'assistantText' || !row.actions?.canFork) return failed('guard.forkTargetNotStable', 'Only the last settled assistant text of a turn can be forked');
      const [messageId, part] = row.entityId.split(':');
      const at = session.messages.findIndex((m) => m.info.id === messageId);
      const history = structuredClone(session.messages.slice(0, at + 1));
      history[at].parts = history[at].parts.slice(0, Number(part) + 1);
      const child = sv.store.create({ workspace: session.workspace, mode: session.mode, title: session.title, forkedFrom: { sessionId: session.sessionId } });
      Object.assign(child, { messages: history, modelId: session.modelId, thoughtLevel: session.thoughtLevel, contextUsed: session.contextUsed });
      sv.store.save(child);
      return accepted({ type: 'forkAssistant', sessionId: child.sessionId });
    },

    async retryTurn({ session, envelope: e, payload: p, ctx }) {
      const row = target(session, p.target);
      if (!row) return { stale: 'proto.staleTarget' };
      if (row.kind !== 'assistantText' || !row.actions?.canRetry) return failed('guard.latestAssistantRetryOnly', 'Only the latest assistant reply to a user input can be retried');
      const at = session.messages.findIndex((m) => m.info.turnId === row.turnId && m.info.role === 'user' && !m.info.guided);
      const userMessage = session.messages[at];
      cutAt(session, at + 1);
      // The original input runs again; history keeps its one user message.
      await start(session, { text: userMessage.parts.filter((x) => x.type === 'text').map((x) => x.text).join(''), commandId: e.commandId, clientId: e.clientId, userMessage }, ctx);
      return accepted();
    },

    async editUserQuery({ session, envelope: e, payload: p, ctx }) {
      const row = target(session, p.target);
      if (!row) return { stale: 'proto.staleTarget' };
      if (row.kind !== 'userInput' || !row.actions?.canEdit) return failed('guard.latestQueryEditOnly', 'Only the latest user query can be edited');
      if (p.newText.trim() === '' && !(p.attachments?.length > 0)) return failed('proto.invalidPayload', 'input must not be empty');
      // zcode stops a running turn before it previews the files, so a blocked rewind has stopped it too.
      if (session.turn || session.compaction) await preempt(session);
      const rewind = p.workspaceMode === 'rewind';
      if (rewind) {
        const preview = rewindPreview(sv, session, row.turnId);
        if (!preview.canApply || preview.ignoredFiles.length > 0 || preview.safeFiles.length === 0) {
          const reasonCode = preview.unsafeFiles.length > 0 ? 'guard.workspaceRewindUnsafeFiles' : preview.ignoredFiles.length > 0 ? 'guard.workspaceRewindIgnoredFiles' : preview.safeFiles.length === 0 ? 'guard.workspaceRewindUnavailable' : 'guard.workspaceRewindApplyConflict';
          return accepted({ type: 'editUserQuery', disposition: 'blocked', sessionId: session.sessionId, reasonCode, preview });
        }
        applyRewind(sv, session, row.turnId);
      }
      cutAt(session, session.messages.findIndex((m) => m.info.id === row.entityId));
      await start(session, { text: p.newText, commandId: e.commandId, clientId: e.clientId, editRerun: true }, ctx);
      return accepted({ type: 'editUserQuery', disposition: 'rewind', sessionId: session.sessionId });
    },

    async applyFileRewind({ session, payload: p }) {
      const row = target(session, p.target);
      if (!row) return { stale: 'proto.staleTarget' };
      const preview = rewindPreview(sv, session, row.turnId);
      if (!preview.canApply) return accepted({ type: 'applyFileRewind', applied: false, preview, response: 'Nothing to restore.' });
      applyRewind(sv, session, row.turnId);
      return accepted({ type: 'applyFileRewind', applied: true, preview, response: `Restored ${preview.safeFiles.length} file(s).` });
    },
  };
}
