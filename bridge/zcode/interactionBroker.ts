/**
 * zcode's interaction requests (`interaction/requestPermission`, `interaction/requestUserInput`):
 * parsed and classified at the boundary, handed to the one installed `InteractionHandler`, with
 * re-sent duplicates collapsed.
 *
 * Quirk (docs/zcode-protocol.md "Requests zcode sends"): an unanswered interaction is re-sent
 * about once a second with the SAME `requestId` and a NEW JSON-RPC id. The user must see one
 * dialog and every id must get the answer. So each `requestId` maps to one shared promise: every
 * JSON-RPC request carrying it awaits that promise (vscode-jsonrpc replies to each id when its
 * handler resolves), and an answered entry is kept for a short grace period so that a copy
 * arriving just after the answer gets it at once instead of opening a second dialog.
 *
 * What must stay true: the grace period is only the window in which zcode's re-sent
 * copies can still arrive (it re-sends about once a second). A request with the same id after it
 * is a new question: it is asked again, never answered with a stale "allow" the user did not see.
 */
import * as z from 'zod';
import { ZcodeError } from './backend.ts';
import type { InteractionHandler } from './backend.ts';
import type { Logger } from '../logger.ts';
import { classifyUserInput, PermissionRequestParams, PermissionResponse, UserInputRequestParams } from './protocol.ts';
import type { Interaction, InteractionReply } from './protocol.ts';

export const PERMISSION_METHOD = 'interaction/requestPermission';
export const USER_INPUT_METHOD = 'interaction/requestUserInput';

/** How long an answered interaction is replayed to late copies: a few of zcode's 1 s re-sends. */
export const ANSWER_REPLAY_GRACE_MS = 5_000;

/** What zcode accepts for each kind (protocol.ts types, as schemas to check the handler's reply). */
// Seed `{decision:"allow"}` / `{decision:"deny", reason}`, or (current builds) an option's own
// response with its `permissionUpdates`; anything else is stripped.
const PermissionReplySchema = z.object({
  decision: PermissionResponse.shape.decision,
  reason: z.string().optional(),
  modifiedInput: z.unknown().optional(),
  permissionUpdates: z.array(z.record(z.string(), z.unknown())).optional(),
});
const DeclineSchema = z.object({ action: z.literal('decline'), reason: z.string() });
const PlanReplySchema = z.union([z.object({ action: z.literal('accept'), content: z.object({ answer_0: z.literal('approve') }) }), DeclineSchema]);
const QuestionsReplySchema = z.union([
  z.object({ action: z.literal('accept'), content: z.object({ answers: z.record(z.string(), z.string()) }) }),
  DeclineSchema,
]);
/** zod objects strip unknown keys, so a checked reply also has exactly the keys zcode expects. */
const REPLY_SCHEMAS = { permission: PermissionReplySchema, plan: PlanReplySchema, questions: QuestionsReplySchema } as const;

/** The safe answer when nobody can ask the user (no handler, handler failed, backend going away). */
function declineReply(interaction: Interaction, why: string): InteractionReply {
  switch (interaction.kind) {
    case 'permission':
      return { decision: 'deny', reason: why };
    case 'plan':
      return { action: 'decline', reason: 'rejected' };
    case 'questions':
      return { action: 'decline', reason: 'cancelled' };
  }
}

interface Entry {
  interaction: Interaction;
  reply: Promise<InteractionReply>;
  controller: AbortController;
  /** How many JSON-RPC ids zcode used for this requestId so far. */
  ids: number;
  answeredAt?: number;
}

export class InteractionBroker {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  constructor(
    private readonly getHandler: () => InteractionHandler | undefined,
    private readonly logger: Logger,
    /** Clock, for the grace-period tests. */
    private readonly now: () => number = Date.now,
  ) {}

  /** Answer one interaction request (any copy of it). Malformed params → ZcodeError -32602. */
  handle(method: string, rawParams: unknown): Promise<InteractionReply> {
    const interaction = parseInteraction(method, rawParams);
    const { requestId, sessionId } = interaction.params;
    const key = `${method}\u0000${sessionId}\u0000${requestId}`;
    this.prune();
    const existing = this.entries.get(key);
    if (existing) {
      existing.ids++;
      this.logger.debug(
        `interaction ${requestId} re-sent by zcode (copy ${existing.ids}); ${existing.answeredAt ? 'replaying the answer' : 'still waiting for the answer'}`,
      );
      return existing.reply;
    }
    const controller = new AbortController();
    const entry: Entry = { interaction, controller, ids: 1, reply: Promise.resolve(declineReply(interaction, 'cancelled')) };
    entry.reply = this.ask(interaction, controller.signal).then((reply) => {
      entry.answeredAt = this.now();
      return reply;
    });
    this.entries.set(key, entry);
    return entry.reply;
  }

  /** The backend went away: abort every pending handler (their late answers go nowhere). */
  close(reason: ZcodeError): void {
    this.closed = true;
    for (const entry of this.entries.values()) {
      if (!entry.answeredAt) entry.controller.abort(reason);
    }
    this.entries.clear();
  }

  /** Number of interactions still waiting for an answer (for tests and diagnostics). */
  get pendingCount(): number {
    let n = 0;
    for (const entry of this.entries.values()) if (!entry.answeredAt) n++;
    return n;
  }

  private async ask(interaction: Interaction, signal: AbortSignal): Promise<InteractionReply> {
    const handler = this.getHandler();
    const id = interaction.params.requestId;
    if (!handler || this.closed) {
      this.logger.warn(`no interaction handler installed; declining ${interaction.kind} request ${id}`);
      return declineReply(interaction, 'No client is attached to answer this request.');
    }
    let reply: unknown;
    try {
      reply = await handler(interaction, signal);
    } catch (error) {
      this.logger.error(`the interaction handler failed for ${interaction.kind} request ${id}: ${error instanceof Error ? error.message : String(error)}`);
      return declineReply(interaction, 'The request could not be shown to the user.');
    }
    const checked = REPLY_SCHEMAS[interaction.kind].safeParse(reply);
    if (!checked.success) {
      this.logger.error(`the interaction handler returned a reply zcode would reject for ${interaction.kind} request ${id}: ${JSON.stringify(reply)}`);
      return declineReply(interaction, 'The client answered with an invalid reply.');
    }
    return checked.data as InteractionReply;
  }

  private prune(): void {
    const cutoff = this.now() - ANSWER_REPLAY_GRACE_MS;
    for (const [key, entry] of this.entries) {
      if (entry.answeredAt !== undefined && entry.answeredAt <= cutoff) this.entries.delete(key);
    }
  }
}

/** Parse + classify one interaction request (once, at the boundary). */
function parseInteraction(method: string, rawParams: unknown): Interaction {
  if (method === PERMISSION_METHOD) {
    const parsed = PermissionRequestParams.safeParse(rawParams);
    if (!parsed.success) throw invalidParams(method, parsed.error);
    return { kind: 'permission', params: parsed.data };
  }
  if (method === USER_INPUT_METHOD) {
    const parsed = UserInputRequestParams.safeParse(rawParams);
    if (!parsed.success) throw invalidParams(method, parsed.error);
    return classifyUserInput(parsed.data);
  }
  throw new ZcodeError(`not an interaction method: ${method}`, -32601, method);
}

function invalidParams(method: string, error: z.ZodError): ZcodeError {
  return new ZcodeError(`invalid ${method} params: ${z.prettifyError(error)}`, -32602, method);
}
