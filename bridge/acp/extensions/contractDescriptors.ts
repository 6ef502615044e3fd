/**
 * The `_zcode/*` contract between the bridge and its clients — every extension method and
 * notification, each declared ONCE as a descriptor (its method name and kind), the way
 * vscode-languageserver-protocol declares `RequestType`s that client and server both import:
 * - the bridge registers its handlers from the request descriptors (extensionMethods.ts) and sends
 *   its notifications through the notification descriptors (signals.ts, `ctx.notifySession`);
 * - the extension calls through them (`ZcodeClientHost.call`) and picks the notifications it wants
 *   (`notificationOf`): params typed, results and notifications checked with the same schemas.
 * No `'_zcode/'` string literal exists outside this module (eslint.config.mjs).
 *
 * A descriptor is plain data and this module loads nothing at run time, so the extension imports it
 * at activation without loading zod (start-up time). The schemas and the readers that check wire
 * data against them are contractSchemas.ts: whoever reads the bridge's messages imports that module
 * (the bridge and the tests statically; the extension's ACP client when it connects, and it parses
 * each `_zcode/*` notification there, once, before anyone sees it). The types below are read off
 * those schemas, types only.
 */
import type * as z from 'zod';
import type { ContractSchemas } from './contractSchemas.ts';

export type { AccountUsageParams, CancelBackgroundTaskParams, CheckpointsParams, CompactParams, EditQueuedParams, ForkKind, ForkParams, GoalParams, LoadEarlierParams, RemoveQueuedParams, RenameParams, RetryTurnParams, RewindAction, RewindParams, RewindTargetsParams, RewindToParams, SessionParams, SetModeParams, SetThoughtLevelParams, SteerParams } from './paramsSchemas.ts';
export type { AccountQuota, AccountUsageResponse, CancelBackgroundTaskResponse, CheckpointInfo, CheckpointsResponse, CompactOutcome, CompactResponse, EditQueuedResponse, ForkResponse, GoalResponse, LoadEarlierResponse, QuotaUnavailable, QuotaWindow, RemoveQueuedResponse, RenameResponse, RetryTurnResponse, RewindFile, RewindResponse, RewindTarget, RewindTargetsResponse, RewindToResponse, SetModeResponse, SetThoughtLevelResponse, SteerResponse } from './resultSchemas.ts';
export type { BackgroundTasksParams, CheckpointsChangedParams, HistoryChangedParams, SteerState, SteerStateParams } from './notificationSchemas.ts';
export type { CapabilitiesParams, FeatureAvailability, ZcodeCapabilities } from './capabilitySchemas.ts';

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

/** ACP reserves the `_` prefix for extensions (docs/acp.md "Methods"); the bridge's are `_zcode/…`. */
export type ExtensionMethodName = `_zcode/${string}`;

/** A `_zcode/*` request: the client sends params, the bridge answers a result (their schemas: contractSchemas.ts). */
export interface ExtensionRequest<M extends ExtensionMethodName = ExtensionMethodName> {
  readonly kind: 'request';
  readonly method: M;
}

/** A `_zcode/*` notification, bridge → every client; its params always carry the ACP `sessionId`. */
export interface ExtensionNotification<M extends ExtensionMethodName = ExtensionMethodName> {
  readonly kind: 'notification';
  readonly method: M;
}

type SchemasOf<D extends ExtensionRequest | ExtensionNotification> = ContractSchemas[D['method'] & keyof ContractSchemas];
type ParamsSchemaOf<D extends ExtensionRequest | ExtensionNotification> = SchemasOf<D>['params'];
type ResultSchemaOf<D extends ExtensionRequest> = SchemasOf<D> extends { result: infer R extends z.ZodType } ? R : never;

/** What a caller passes (before the schema's trimming and defaults). */
export type ParamsOf<D extends ExtensionRequest | ExtensionNotification> = z.input<ParamsSchemaOf<D>>;
/** What a handler receives, after the schema ran. */
export type ParsedParamsOf<D extends ExtensionRequest | ExtensionNotification> = z.output<ParamsSchemaOf<D>>;
/** A session notification's params as the sender gives them (what a client reads after parsing); `sessionId` is set per alias (signals.ts `notifyAliases`). */
export type SessionNotificationParams<D extends ExtensionNotification> = Omit<z.output<ParamsSchemaOf<D>>, 'sessionId'>;
/** What the bridge answers (and a client gets back, checked). */
export type ResultOf<D extends ExtensionRequest> = z.output<ResultSchemaOf<D>>;

function request<M extends ExtensionMethodName>(method: M): ExtensionRequest<M> {
  return { kind: 'request', method };
}

function notification<M extends ExtensionMethodName>(method: M): ExtensionNotification<M> {
  return { kind: 'notification', method };
}

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

export const ForkRequest = request('_zcode/session/fork');
export const RewindRequest = request('_zcode/session/rewind');
export const GoalRequest = request('_zcode/session/goal');
/** Answers only when zcode reports the outcome (it may take minutes: no client-side timeout). */
export const CompactRequest = request('_zcode/session/compact');
export const SteerRequest = request('_zcode/session/steer');
export const SetModeRequest = request('_zcode/session/setMode');
export const SetThoughtLevelRequest = request('_zcode/session/setThoughtLevel');
export const CancelBackgroundTaskRequest = request('_zcode/session/cancelBackgroundTask');
export const CheckpointsRequest = request('_zcode/session/checkpoints');
/** The GLM plan quota (read from the provider: zcode exposes none) and the session's token counts. */
export const AccountUsageRequest = request('_zcode/account/usage');
/** Replays the page of history before `cursor` as `session/update`s, then answers. */
export const LoadEarlierRequest = request('_zcode/session/loadEarlier');
/** What the running zcode supports (answers at once; `probed:false` until zcode has been started). */
export const CapabilitiesRequest = request('_zcode/agent/capabilities');
/** Drop a deferred steer (or zcode-queued input) before it starts. */
export const RemoveQueuedRequest = request('_zcode/session/removeQueued');
/** Replace the text of a deferred steer (or zcode-queued input) before it starts. */
export const EditQueuedRequest = request('_zcode/session/editQueued');
/** The user messages the session can go back to, with what each allows. */
export const RewindTargetsRequest = request('_zcode/session/rewindTargets');
/** Go back to a user message (`RewindTargetsRequest`'s target): ask again, restore files, or fork there. */
export const RewindToRequest = request('_zcode/session/rewindTo');
/** Run the session's latest turn again (after a failure) without repeating the user's message. */
export const RetryTurnRequest = request('_zcode/session/retryTurn');
/** Rename the session (in zcode where the build can; every client gets `session_info_update`). */
export const RenameRequest = request('_zcode/session/rename');
/** Every request the bridge serves (extensionMethods.ts registers each; a test checks it). */
export const EXTENSION_REQUESTS = [
  ForkRequest,
  RewindRequest,
  GoalRequest,
  CompactRequest,
  SteerRequest,
  SetModeRequest,
  SetThoughtLevelRequest,
  CancelBackgroundTaskRequest,
  CheckpointsRequest,
  AccountUsageRequest,
  LoadEarlierRequest,
  CapabilitiesRequest,
  RemoveQueuedRequest,
  EditQueuedRequest,
  RewindTargetsRequest,
  RewindToRequest,
  RetryTurnRequest,
  RenameRequest,
] as const;

export const SteerStateNotification = notification('_zcode/session/steerState');
export const BackgroundTasksNotification = notification('_zcode/session/backgroundTasks');
export const CheckpointsChangedNotification = notification('_zcode/session/checkpointsChanged');
/** Sent to every client when what zcode supports is learned or changes (a probe, a restart of zcode). */
export const CapabilitiesChangedNotification = notification('_zcode/agent/capabilitiesChanged');

/** A session's conversation was cut (a rewind in place): a client showing it loads it again. */
export const HistoryChangedNotification = notification('_zcode/session/historyChanged');

/**
 * A waiting `session/prompt` of this client took the session (its turn in the FIFO came): sent to
 * the prompt's client only, when the prompt carries `_meta.zcode.promptId`, after the previous
 * prompt's response and before anything of this prompt.
 */
export const PromptStartedNotification = notification('_zcode/session/promptStarted');

/**
 * A session's prompt queue changed (who holds the session, who waits, who sent each): sent to every
 * client; also to a client that loads or resumes the session.
 */
export const SessionQueueNotification = notification('_zcode/session/queue');

/** Every notification the bridge sends. */
export const EXTENSION_NOTIFICATIONS = [
  SteerStateNotification,
  BackgroundTasksNotification,
  CheckpointsChangedNotification,
  CapabilitiesChangedNotification,
  HistoryChangedNotification,
  PromptStartedNotification,
  SessionQueueNotification,
] as const;

/** The request method names by operation (tests and logs; code passes the descriptors). */
export const EXTENSION_METHOD = {
  fork: ForkRequest.method,
  rewind: RewindRequest.method,
  goal: GoalRequest.method,
  compact: CompactRequest.method,
  steer: SteerRequest.method,
  setMode: SetModeRequest.method,
  setThoughtLevel: SetThoughtLevelRequest.method,
  cancelBackgroundTask: CancelBackgroundTaskRequest.method,
  checkpoints: CheckpointsRequest.method,
  accountUsage: AccountUsageRequest.method,
  loadEarlier: LoadEarlierRequest.method,
  capabilities: CapabilitiesRequest.method,
  removeQueued: RemoveQueuedRequest.method,
  editQueued: EditQueuedRequest.method,
  rewindTargets: RewindTargetsRequest.method,
  rewindTo: RewindToRequest.method,
  retryTurn: RetryTurnRequest.method,
  rename: RenameRequest.method,
} as const;

// ---------------------------------------------------------------------------------------------
// Reading what a client has already parsed
// ---------------------------------------------------------------------------------------------

/**
 * A notification's params if it is `descriptor`'s, else undefined. For notifications the receiver
 * parsed at its boundary (the extension's ACP client passes on only those contractSchemas.ts
 * `parseNotification` accepted); raw wire data goes through contractSchemas.ts `readNotification`.
 */
export function notificationOf<D extends ExtensionNotification>(descriptor: D, message: { method: string; params: unknown }): ParsedParamsOf<D> | undefined {
  return message.method === descriptor.method ? (message.params as ParsedParamsOf<D>) : undefined;
}

/**
 * `session/load`'s answer `_meta.zcode.replay`: how much of the history was replayed; `cursor`
 * (absent when all of it was) is what `_zcode/session/loadEarlier` pages back from.
 */
export interface ReplayMeta {
  total: number;
  replayed: number;
  cursor?: string;
}

/** The replay summary of a `session/load` answer; undefined when it has none (an older bridge) or a malformed one. */
export function replayOf(loadResponse: { _meta?: Record<string, unknown> | null } | null | undefined): ReplayMeta | undefined {
  const replay = zcodeField(loadResponse?._meta, 'replay');
  if (typeof replay !== 'object' || replay === null || !('total' in replay) || !('replayed' in replay)) return undefined;
  const { total, replayed } = replay;
  const cursor = 'cursor' in replay ? replay.cursor : undefined;
  if (!isCount(total) || !isCount(replayed) || (cursor !== undefined && typeof cursor !== 'string')) return undefined;
  return cursor === undefined ? { total, replayed } : { total, replayed, cursor };
}

/** The cursor an update of a `_zcode/session/loadEarlier` page is marked with (`_meta.zcode.earlierPage`). */
export function earlierPageOf(update: { _meta?: Record<string, unknown> | null }): string | undefined {
  const page = zcodeField(update._meta, 'earlierPage');
  return typeof page === 'string' ? page : undefined;
}

/** `_meta.zcode[key]`, read without zod: two small fields, so activation need not load the schemas. */
function zcodeField(meta: Record<string, unknown> | null | undefined, key: 'replay' | 'earlierPage'): unknown {
  const zcode = meta?.zcode;
  if (typeof zcode !== 'object' || zcode === null) return undefined;
  if (key === 'replay') return 'replay' in zcode ? zcode.replay : undefined;
  return 'earlierPage' in zcode ? zcode.earlierPage : undefined;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
