/**
 * zcode `interaction/*` requests → ACP dialogs (routing by what the
 * connected clients can show: docs/acp.md "Several clients", "Questions for clients without forms").
 *
 * - The interaction's tool card is shown first (a pending card when zcode's tool call is not on
 *   screen yet), then the dialog goes to every eligible client (races.ts: first answer wins).
 * - Permission → `session/request_permission`. Questions → one `elicitation/create` form when any
 *   connected client declared `elicitation.form` (merged capabilities), else one permission dialog
 *   per question. Plan approval → the feedback form, falling back ONCE to an Approve/Reject
 *   permission dialog when the form fails or times out; if that fails too, the plan is declined.
 * - Cancelling the turn (`withdraw`) or the backend going away aborts the dialogs (the SDK sends
 *   `$/cancel_request`) and zcode gets the decline reply.
 * - Re-sent duplicates never reach this file twice: bridge/zcode's broker collapses them by
 *   `requestId` and answers every copy.
 * Replies are built only by bridge/translate/permissionDialogs.ts and formDialogs.ts.
 */
import type { CreateElicitationResponse, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { permissionOutcomeToReply, permissionToAcp } from '../../translate/permissionDialogs.ts';
import { elicitationToAnswers, permissionAnswersToReply, planElicitationToReply, planPermissionToReply, planToElicitation, planToPermission, questionsToElicitation, questionToPermission } from '../../translate/formDialogs.ts';
import { noteInteraction, settleInteraction } from '../../translate/sessionTranslator.ts';
import type { Logger } from '../../logger.ts';
import type { Interaction, InteractionReply, PermissionReply, Question, UserInputReply } from '../../zcode/protocol.ts';
import type { ClientRegistry } from '../transport/clients.ts';
import { supportsForms } from '../transport/clients.ts';
import { assertNever } from '../requestErrors.ts';
import type { RaceResult, RequestRaces } from './races.ts';
import type { SessionManager } from '../sessions/sessionTable.ts';
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';

export interface InteractionTuning {
  /** A form nobody answers within this time falls back to a permission dialog (default 10 min). */
  formTimeoutMs: number;
  /** A permission dialog nobody answers within this time is declined (default 30 min). */
  permissionTimeoutMs: number;
}

export const DEFAULT_INTERACTION_TUNING: InteractionTuning = { formTimeoutMs: 10 * 60_000, permissionTimeoutMs: 30 * 60_000 };

const CANCELLED_PERMISSION: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
const CANCELLED_FORM: CreateElicitationResponse = { action: 'cancel' };

type Settlement = 'approved' | 'answered' | 'rejected' | 'cancelled';

export class InteractionRouter {
  /** Open interactions per runtime, to withdraw them when the turn is cancelled. */
  private readonly open = new Map<SessionRuntime, Set<AbortController>>();
  /** Signals of interactions whose permission dialog every client answered `cancelled`. */
  private readonly dismissedSignals = new WeakSet<AbortSignal>();

  constructor(
    private readonly sessions: SessionManager,
    private readonly clients: ClientRegistry,
    private readonly races: RequestRaces,
    private readonly logger: Logger,
    /**
     * A permission dialog answered `cancelled` by every client: in ACP that outcome means "the
     * prompt turn was cancelled" (conformance 9), so the running turn is cancelled too.
     */
    private readonly onPermissionCancelled: (runtime: SessionRuntime) => void,
    private readonly tuning: InteractionTuning = DEFAULT_INTERACTION_TUNING,
  ) {}

  /** The backend's `InteractionHandler`. Never rejects: a failure becomes zcode's decline reply. */
  readonly handle = async (interaction: Interaction, signal: AbortSignal): Promise<InteractionReply> => {
    const runtime = this.sessions.byZcodeId(interaction.params.sessionId);
    const acpId = runtime ? [...runtime.aliases][0] : undefined;
    if (!runtime || !acpId) {
      this.logger.warn(`zcode asked for ${interaction.kind} in session ${interaction.params.sessionId}, which no ACP client has open; declining`);
      return this.decline(interaction);
    }
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    signal.addEventListener('abort', abort, { once: true });
    const set = this.open.get(runtime) ?? new Set<AbortController>();
    this.open.set(runtime, set);
    set.add(controller);
    try {
      const card = noteInteraction(runtime.translator, interaction);
      this.sessions.events.emit(runtime, card.updates);
      // The dialog is a request, not an update: held text must reach the client before it.
      this.sessions.events.flush(runtime);
      const { reply, settlement } = await this.route(interaction, acpId, runtime, card.toolCall, controller.signal);
      if (this.dismissedSignals.has(controller.signal)) this.onPermissionCancelled(runtime);
      this.sessions.events.emit(runtime, settleInteraction(runtime.translator, interaction, settlement));
      return reply;
    } catch (error) {
      this.logger.error(`showing ${interaction.kind} request ${interaction.params.requestId} failed: ${error instanceof Error ? error.message : String(error)}`);
      return this.decline(interaction);
    } finally {
      signal.removeEventListener('abort', abort);
      set.delete(controller);
      if (set.size === 0) this.open.delete(runtime);
    }
  };

  /** Close the session's dialogs (turn cancelled): each is declined to zcode. */
  withdraw(runtime: SessionRuntime): void {
    for (const controller of this.open.get(runtime) ?? []) controller.abort();
  }

  /** How many dialogs are open for a runtime (tests, diagnostics). */
  openCount(runtime: SessionRuntime): number {
    return this.open.get(runtime)?.size ?? 0;
  }

  private async route(
    interaction: Interaction,
    acpId: string,
    runtime: SessionRuntime,
    toolCall: Parameters<typeof permissionToAcp>[1],
    signal: AbortSignal,
  ): Promise<{ reply: InteractionReply; settlement: Settlement }> {
    switch (interaction.kind) {
      case 'permission': {
        const request = permissionToAcp(interaction.params, toolCall, { sessionId: acpId, cwd: runtime.cwd, locale: this.sessions.locale });
        const result = await this.askPermission(acpId, runtime, request, signal);
        const reply: PermissionReply = permissionOutcomeToReply(answerOf(result, CANCELLED_PERMISSION), interaction.params);
        return { reply, settlement: reply.decision === 'allow' ? 'approved' : result.kind === 'answered' ? 'rejected' : 'cancelled' };
      }
      case 'questions':
        return this.askQuestions(interaction.questions, acpId, runtime, toolCall, signal);
      case 'plan':
        return this.askPlan(interaction.plan, acpId, runtime, toolCall, signal);
      default:
        return assertNever(interaction, 'interaction');
    }
  }

  private async askQuestions(
    questions: readonly Question[],
    acpId: string,
    runtime: SessionRuntime,
    toolCall: Parameters<typeof questionToPermission>[3],
    signal: AbortSignal,
  ): Promise<{ reply: UserInputReply; settlement: Settlement }> {
    if (supportsForms(this.clients.capabilities)) {
      const result = await this.askForm(acpId, runtime, questionsToElicitation(acpId, questions, toolCall?.toolCallId, this.sessions.locale), signal, this.tuning.formTimeoutMs);
      if (result.kind !== 'failed' && !(result.kind === 'withdrawn' && result.reason === 'timeout')) {
        const reply = elicitationToAnswers(questions, answerOf(result, CANCELLED_FORM));
        return { reply, settlement: reply.action === 'accept' ? 'answered' : 'cancelled' };
      }
      this.logger.warn('the questions form could not be shown; asking question by question instead');
    }
    // One permission dialog per question; a cancelled one cancels the whole form.
    const answers: RequestPermissionResponse[] = [];
    for (let i = 0; i < questions.length; i++) {
      const result = await this.askPermission(acpId, runtime, questionToPermission(acpId, questions[i], i, toolCall), signal);
      const answer = answerOf(result, CANCELLED_PERMISSION);
      answers.push(answer);
      if (answer.outcome.outcome !== 'selected') break;
    }
    const reply = permissionAnswersToReply(questions, answers);
    return { reply, settlement: reply.action === 'accept' ? 'answered' : 'cancelled' };
  }

  private async askPlan(
    plan: string,
    acpId: string,
    runtime: SessionRuntime,
    toolCall: Parameters<typeof planToPermission>[2],
    signal: AbortSignal,
  ): Promise<{ reply: UserInputReply; settlement: Settlement }> {
    if (supportsForms(this.clients.capabilities)) {
      const result = await this.askForm(acpId, runtime, planToElicitation(acpId, plan, toolCall?.toolCallId, this.sessions.locale), signal, this.tuning.formTimeoutMs);
      if (result.kind === 'answered' || result.kind === 'dismissed' || (result.kind === 'withdrawn' && result.reason === 'aborted')) {
        const reply = planElicitationToReply(answerOf(result, CANCELLED_FORM));
        return { reply, settlement: planSettlement(reply) };
      }
      // The form failed (no form-capable client any more) or timed out: fall back once.
      this.logger.warn(`the plan form ${result.kind === 'failed' ? 'failed' : 'timed out'}; asking with a permission dialog instead`);
    }
    const result = await this.askPermission(acpId, runtime, planToPermission(acpId, plan, toolCall), signal);
    const reply = planPermissionToReply(answerOf(result, CANCELLED_PERMISSION));
    return { reply, settlement: planSettlement(reply) };
  }

  private async askPermission(acpId: string, runtime: SessionRuntime, params: object, signal: AbortSignal): Promise<RaceResult<RequestPermissionResponse>> {
    const result = await this.races.run<RequestPermissionResponse>({
      sessionId: acpId,
      scope: runtime,
      method: 'session/request_permission',
      params,
      signal,
      timeoutMs: this.tuning.permissionTimeoutMs,
      isDismissal: (value) => value.outcome?.outcome !== 'selected',
    });
    if (result.kind === 'dismissed') this.dismissedSignals.add(signal);
    return result;
  }

  private askForm(acpId: string, runtime: SessionRuntime, params: object, signal: AbortSignal, timeoutMs: number): Promise<RaceResult<CreateElicitationResponse>> {
    return this.races.run<CreateElicitationResponse>({
      sessionId: acpId,
      scope: runtime,
      method: 'elicitation/create',
      params,
      signal,
      timeoutMs,
      eligible: (client) => supportsForms(client.capabilities),
      isDismissal: (value) => value.action === 'cancel',
    });
  }

  /** The reply when nobody can be asked (no ACP session, or routing failed). */
  private decline(interaction: Interaction): InteractionReply {
    switch (interaction.kind) {
      case 'permission':
        return permissionOutcomeToReply(CANCELLED_PERMISSION, interaction.params);
      case 'questions':
        return elicitationToAnswers(interaction.questions, CANCELLED_FORM);
      case 'plan':
        return planElicitationToReply(CANCELLED_FORM);
      default:
        return assertNever(interaction, 'interaction');
    }
  }
}

/** The answer a race produced, or `fallback` (cancelled) when nobody answered. */
function answerOf<R>(result: RaceResult<R>, fallback: R): R {
  return result.kind === 'answered' || result.kind === 'dismissed' ? result.value : fallback;
}

function planSettlement(reply: UserInputReply): Settlement {
  return reply.action === 'accept' ? 'approved' : 'rejected';
}
