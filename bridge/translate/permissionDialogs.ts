/**
 * zcode interactions (`interaction/requestPermission`, `interaction/requestUserInput`) as ACP
 * dialogs, and the ACP answers back as the exact replies zcode expects (docs/zcode-protocol.md
 * "Requests zcode sends"; the form shapes as `william0wang/zcode-acp` `docs/PROTOCOL.md` gives them).
 *
 * Routing (decided by the ACP layer from `clientCapabilities.elicitation.form`):
 * - tool permission → `session/request_permission` (`permissionToAcp` / `permissionOutcomeToReply`);
 * - questions → one `elicitation/create` form (`questionsToElicitation` / `elicitationToAnswers`),
 *   or without forms one permission dialog per question (`questionToPermission` /
 *   `permissionAnswersToReply`);
 * - plan approval → a one-field feedback form (`planToElicitation` / `planElicitationToReply`), or
 *   without forms an Approve/Reject permission dialog (`planToPermission` / `planPermissionToReply`).
 *
 * This file: tool permissions; questions and plan approval are formDialogs.ts, the card an
 * interaction is shown on while it waits is interactionCards.ts.
 */
import { bt, type BridgeLocale } from '../l10n/messages.ts';
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionOutcome,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { PermissionOption as ZcodePermissionOption, PermissionReply, PermissionRequestParams } from '../zcode/protocol.ts';
import { toolKind, toolTitle } from './toolInfo.ts';
import { toolDiffContent } from './toolDiffs.ts';
import { interactionCardId } from './interactionCards.ts';

// ---------------------------------------------------------------------------------------------
// Tool permission
// ---------------------------------------------------------------------------------------------

/** zcode permission option → ACP option kind. Unknown options are treated as a rejection. */
function permissionKind(option: ZcodePermissionOption): PermissionOptionKind {
  const keys = [option.kind, option.optionId].filter((k): k is string => typeof k === 'string').map((k) => k.toLowerCase());
  for (const key of keys) {
    switch (key) {
      case 'allow':
      case 'allow_once':
        return 'allow_once';
      case 'allow_always':
      case 'allow_project':
      case 'allow_session':
        return 'allow_always';
      case 'deny':
      case 'reject':
      case 'reject_once':
        return 'reject_once';
      case 'deny_always':
      case 'reject_always':
        return 'reject_always';
    }
  }
  return 'reject_once';
}

const DEFAULT_OPTION_NAMES: Record<string, string> = {
  allow: 'Allow',
  allow_once: 'Allow once',
  allow_always: 'Always allow',
  allow_project: 'Allow for this project',
  allow_session: 'Allow for this session',
  deny: 'Deny',
  reject: 'Reject',
  reject_once: 'Reject',
  deny_always: 'Always deny',
  reject_always: 'Always reject',
};

/** Offered when zcode sends no options at all. */
const FALLBACK_PERMISSION_OPTIONS: ZcodePermissionOption[] = [
  { optionId: 'allow', kind: 'allow', name: 'Allow' },
  { optionId: 'deny', kind: 'deny', name: 'Deny' },
];

function zcodeOptions(params: PermissionRequestParams): ZcodePermissionOption[] {
  return params.options.length > 0 ? params.options : FALLBACK_PERMISSION_OPTIONS;
}

/**
 * zcode's permission options as ACP options: `allow`→allow_once, `allow_always`/`allow_project`→
 * allow_always, `deny`/`reject`→reject_once, anything unknown→reject_once (its name kept). The
 * option ids are zcode's, so the answer maps straight back. No options → Allow / Deny.
 */
function permissionOptionsToAcp(params: PermissionRequestParams, locale: BridgeLocale): PermissionOption[] {
  return zcodeOptions(params).map((option) => ({
    optionId: option.optionId,
    name: optionName(option, locale),
    kind: permissionKind(option),
  }));
}

/**
 * An option's name in the client's language: zcode's English defaults ("Allow once", a missing
 * name) are the bridge's words and are translated; any other name is zcode's and kept.
 */
function optionName(option: ZcodePermissionOption, locale: BridgeLocale): string {
  const fallback = DEFAULT_OPTION_NAMES[(option.kind ?? option.optionId).toLowerCase()];
  const name = option.name ?? fallback ?? option.optionId;
  return Object.values(DEFAULT_OPTION_NAMES).includes(name) ? bt(locale, name) : name;
}

/** Where a permission request's tool call card is, and how it is rendered. */
export interface PermissionContext {
  /** The client's language for the bridge's own words (default English). */
  locale?: BridgeLocale;
  /** The ACP session id (differs from zcode's for lazily created sessions). Default: zcode's. */
  sessionId?: string;
  /** For titles of tool calls the bridge has not seen. */
  cwd?: string;
}

/**
 * `session/request_permission` params for a zcode tool permission. `toolCall` is the card the
 * bridge already shows (id, title, kind, rawInput …; e.g. from `noteInteraction`); missing fields
 * are filled from the request (tool name, input). zcode's `reason` and `requestId` go under
 * `_meta.zcode`.
 */
export function permissionToAcp(params: PermissionRequestParams, toolCall?: ToolCallUpdate, ctx: PermissionContext = {}): RequestPermissionRequest {
  const input = params.input ?? {};
  const ref: ToolCallUpdate = {
    ...toolCall,
    toolCallId: toolCall?.toolCallId ?? interactionCardId({ kind: 'permission', params }),
    title: toolCall?.title ?? toolTitle(params.toolName, input, ctx.cwd ?? '', ctx.locale),
    kind: toolCall?.kind ?? toolKind(params.toolName),
    rawInput: toolCall?.rawInput ?? input,
  };
  // An edit asks with the diff it proposes, so every client can show it (not only one that knows
  // zcode's tool inputs); a card the bridge already shows carries it from its start.
  const proposed = ref.content ? [] : toolDiffContent(params.toolName, input, ctx.cwd ?? '');
  if (proposed.length > 0) ref.content = proposed;
  const zcode: Record<string, unknown> = { requestId: params.requestId };
  if (params.toolName) zcode.toolName = params.toolName;
  if (params.reason) zcode.reason = params.reason;
  return {
    sessionId: ctx.sessionId ?? params.sessionId,
    toolCall: ref,
    options: permissionOptionsToAcp(params, ctx.locale ?? 'en'),
    _meta: { zcode },
  };
}

/** Accepts either a `RequestPermissionResponse` or its `outcome`. */
export type PermissionAnswer = RequestPermissionResponse | RequestPermissionOutcome;

export function outcomeOf(answer: PermissionAnswer | undefined): RequestPermissionOutcome {
  if (!answer) return { outcome: 'cancelled' };
  const outer = (answer as RequestPermissionResponse).outcome;
  return typeof outer === 'object' && outer !== null ? outer : (answer as RequestPermissionOutcome);
}

/**
 * The reply to a cancelled permission: the response of zcode's plain deny option when the build
 * gives one (it knows that shape), else `{decision:"deny", reason:"cancelled by user"}`.
 */
function cancelledReply(params: PermissionRequestParams): PermissionReply {
  const deny = params.options.find((o) => o.response?.decision === 'deny' && !o.response.permissionUpdates?.length)?.response;
  return deny ? { ...structuredClone(deny), reason: 'cancelled by user' } : { decision: 'deny', reason: 'cancelled by user' };
}

/**
 * The zcode reply to a permission answer. Current builds: the selected option's own `response`,
 * unchanged (docs/zcode-protocol.md "Requests zcode sends": answering "always allow" with a bare allow makes it "once").
 * Seed builds (no `response`): a selected allow option → `{decision:"allow"}`; any other selection →
 * `{decision:"deny", reason:"rejected (<optionId>)"}`; cancelled → `{decision:"deny", reason:"cancelled by user"}`.
 */
export function permissionOutcomeToReply(answer: PermissionAnswer, params: PermissionRequestParams): PermissionReply {
  const outcome = outcomeOf(answer);
  if (outcome.outcome !== 'selected') return cancelledReply(params);
  // Current builds: the option's own response is the reply ("always" keeps its permissionUpdates).
  const own = params.options.find((o) => o.optionId === outcome.optionId)?.response;
  if (own) return structuredClone(own);
  const option = permissionOptionsToAcp(params, 'en').find((o) => o.optionId === outcome.optionId);
  if (option && (option.kind === 'allow_once' || option.kind === 'allow_always')) return { decision: 'allow' };
  return { decision: 'deny', reason: `rejected (${outcome.optionId})` };
}
