/**
 * The `_zcode/*` contract between the bridge and its clients — every extension method and
 * notification, each declared ONCE as a typed descriptor (name, params, result), the way
 * vscode-languageserver-protocol declares `RequestType`s that client and server both import:
 * - the bridge registers its handlers from the request descriptors (extensionMethods.ts) and sends
 *   its notifications through the notification descriptors (signals.ts, `ctx.notifySession`);
 * - the extension calls through them (`ZcodeClientHost.call`, `readNotification`): params typed,
 *   results and notifications checked with the same schemas.
 * No `'_zcode/'` string literal exists outside this module (eslint.config.mjs).
 *
 * The schemas themselves (zod) are in contractSchemas.ts and a descriptor reads them on use: this
 * module costs nothing to load, so the extension imports it at activation without loading zod and
 * building the schemas (start-up time). Reading a descriptor's `params` / `result` needs the schemas
 * loaded: the bridge imports them, a client awaits `loadExtensionSchemas()` before it reads
 * anything from the bridge (`callExtension` does, `ZcodeClientHost` does when it connects).
 */
import type * as z from 'zod';
import type * as Shapes from './contractSchemas.ts';

export type {
  AccountQuota,
  AccountUsageParams,
  AccountUsageResponse,
  CapabilitiesParams,
  BackgroundTasksParams,
  CancelBackgroundTaskParams,
  CancelBackgroundTaskResponse,
  CheckpointInfo,
  CheckpointsChangedParams,
  CheckpointsParams,
  CheckpointsResponse,
  CompactOutcome,
  CompactParams,
  CompactResponse,
  ForkParams,
  ForkResponse,
  GoalParams,
  GoalResponse,
  LoadEarlierParams,
  LoadEarlierResponse,
  QuotaUnavailable,
  QuotaWindow,
  ReplayMeta,
  RewindParams,
  RewindResponse,
  SessionParams,
  SetModeParams,
  SetModeResponse,
  SetThoughtLevelParams,
  SetThoughtLevelResponse,
  SteerParams,
  SteerResponse,
  SteerStateParams,
  FeatureAvailability,
  ZcodeCapabilities,
  EditQueuedParams,
  EditQueuedResponse,
  ForkKind,
  HistoryChangedParams,
  RemoveQueuedParams,
  RemoveQueuedResponse,
  RenameParams,
  RenameResponse,
  RetryTurnParams,
  RetryTurnResponse,
  RewindAction,
  RewindFile,
  RewindTarget,
  RewindTargetsParams,
  RewindTargetsResponse,
  RewindToParams,
  RewindToResponse,
  SteerState,
} from './contractSchemas.ts';

// ---------------------------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------------------------

/** ACP reserves the `_` prefix for extensions (docs/acp.md "Methods"); the bridge's are `_zcode/…`. */
export type ExtensionMethodName = `_zcode/${string}`;

/** A `_zcode/*` request: what the client sends (`params`) and what the bridge answers (`result`). */
export interface ExtensionRequest<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly kind: 'request';
  readonly method: ExtensionMethodName;
  readonly params: P;
  readonly result: R;
}

/** A `_zcode/*` notification, bridge → every client; `params` always carries the ACP `sessionId`. */
export interface ExtensionNotification<P extends z.ZodType = z.ZodType> {
  readonly kind: 'notification';
  readonly method: ExtensionMethodName;
  readonly params: P;
}

/** What a caller passes (before the schema's trimming and defaults). */
export type ParamsOf<D extends ExtensionRequest | ExtensionNotification> = z.input<D['params']>;
/** What a handler receives, after the schema ran. */
export type ParsedParamsOf<D extends ExtensionRequest | ExtensionNotification> = z.output<D['params']>;
/** A session notification's params as the sender gives them (what a client reads after parsing); `sessionId` is set per alias (signals.ts `notifyAliases`). */
export type SessionNotificationParams<D extends ExtensionNotification> = Omit<z.output<D['params']>, 'sessionId'>;
/** What the bridge answers (and a client gets back, checked). */
export type ResultOf<D extends ExtensionRequest> = z.output<D['result']>;

/** One of contractSchemas.ts's schemas, picked when a descriptor is used. */
type SchemaPicker<S extends z.ZodType> = (shapes: typeof Shapes) => S;

function request<P extends z.ZodType, R extends z.ZodType>(method: ExtensionMethodName, params: SchemaPicker<P>, result: SchemaPicker<R>): ExtensionRequest<P, R> {
  return {
    kind: 'request',
    method,
    get params() {
      return params(shapes());
    },
    get result() {
      return result(shapes());
    },
  };
}

function notification<P extends z.ZodType>(method: ExtensionMethodName, params: SchemaPicker<P>): ExtensionNotification<P> {
  return {
    kind: 'notification',
    method,
    get params() {
      return params(shapes());
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The schemas, loaded on first use
// ---------------------------------------------------------------------------------------------

let bound: typeof Shapes | undefined;

/** Called once, by contractSchemas.ts when it is evaluated (its last statement). */
export function bindExtensionSchemas(shapes: typeof Shapes): void {
  bound = shapes;
}

/** Loads the schemas (contractSchemas.ts and zod); resolved at once when the bridge loaded them already. */
export async function loadExtensionSchemas(): Promise<void> {
  if (!bound) await import('./contractSchemas.ts');
}

function shapes(): typeof Shapes {
  // A client reads the bridge's messages only after loadExtensionSchemas() (see the header).
  if (!bound) throw new Error('the _zcode/* schemas are not loaded: await loadExtensionSchemas() first');
  return bound;
}

/** The replay summary of a `session/load` answer; undefined when it has none (an older bridge) or a malformed one. */
export function replayOf(loadResponse: { _meta?: Record<string, unknown> | null } | null | undefined): Shapes.ReplayMeta | undefined {
  const zcode = loadResponse?._meta?.zcode as { replay?: unknown } | undefined;
  const parsed = shapes().ReplayMeta.safeParse(zcode?.replay);
  return parsed.success ? parsed.data : undefined;
}

/** The cursor an update of a `_zcode/session/loadEarlier` page is marked with (`_meta.zcode.earlierPage`). */
export function earlierPageOf(update: { _meta?: Record<string, unknown> | null }): string | undefined {
  const page = (update._meta?.zcode as { earlierPage?: unknown } | undefined)?.earlierPage;
  return typeof page === 'string' ? page : undefined;
}

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

export const ForkRequest = request('_zcode/session/fork', (s) => s.ForkParams, (s) => s.ForkResponse);
export const RewindRequest = request('_zcode/session/rewind', (s) => s.RewindParams, (s) => s.RewindResponse);
export const GoalRequest = request('_zcode/session/goal', (s) => s.GoalParams, (s) => s.GoalResponse);
/** Answers only when zcode reports the outcome (it may take minutes: no client-side timeout). */
export const CompactRequest = request('_zcode/session/compact', (s) => s.CompactParams, (s) => s.CompactResponse);
export const SteerRequest = request('_zcode/session/steer', (s) => s.SteerParams, (s) => s.SteerResponse);
export const SetModeRequest = request('_zcode/session/setMode', (s) => s.SetModeParams, (s) => s.SetModeResponse);
export const SetThoughtLevelRequest = request('_zcode/session/setThoughtLevel', (s) => s.SetThoughtLevelParams, (s) => s.SetThoughtLevelResponse);
export const CancelBackgroundTaskRequest = request('_zcode/session/cancelBackgroundTask', (s) => s.CancelBackgroundTaskParams, (s) => s.CancelBackgroundTaskResponse);
export const CheckpointsRequest = request('_zcode/session/checkpoints', (s) => s.CheckpointsParams, (s) => s.CheckpointsResponse);
/** The GLM plan quota (read from the provider: zcode exposes none) and the session's token counts. */
export const AccountUsageRequest = request('_zcode/account/usage', (s) => s.AccountUsageParams, (s) => s.AccountUsageResponse);
/** Replays the page of history before `cursor` as `session/update`s, then answers. */
export const LoadEarlierRequest = request('_zcode/session/loadEarlier', (s) => s.LoadEarlierParams, (s) => s.LoadEarlierResponse);
/** What the running zcode supports (answers at once; `probed:false` until zcode has been started). */
export const CapabilitiesRequest = request('_zcode/agent/capabilities', (s) => s.CapabilitiesParams, (s) => s.ZcodeCapabilities);
/** Drop a deferred steer (or zcode-queued input) before it starts. */
export const RemoveQueuedRequest = request('_zcode/session/removeQueued', (s) => s.RemoveQueuedParams, (s) => s.RemoveQueuedResponse);
/** Replace the text of a deferred steer (or zcode-queued input) before it starts. */
export const EditQueuedRequest = request('_zcode/session/editQueued', (s) => s.EditQueuedParams, (s) => s.EditQueuedResponse);
/** The user messages the session can go back to, with what each allows. */
export const RewindTargetsRequest = request('_zcode/session/rewindTargets', (s) => s.RewindTargetsParams, (s) => s.RewindTargetsResponse);
/** Go back to a user message (`RewindTargetsRequest`'s target): ask again, restore files, or fork there. */
export const RewindToRequest = request('_zcode/session/rewindTo', (s) => s.RewindToParams, (s) => s.RewindToResponse);
/** Run the session's latest turn again (after a failure) without repeating the user's message. */
export const RetryTurnRequest = request('_zcode/session/retryTurn', (s) => s.RetryTurnParams, (s) => s.RetryTurnResponse);
/** Rename the session (in zcode where the build can; every client gets `session_info_update`). */
export const RenameRequest = request('_zcode/session/rename', (s) => s.RenameParams, (s) => s.RenameResponse);
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

export const SteerStateNotification = notification('_zcode/session/steerState', (s) => s.SteerStateParams);
export const BackgroundTasksNotification = notification('_zcode/session/backgroundTasks', (s) => s.BackgroundTasksParams);
export const CheckpointsChangedNotification = notification('_zcode/session/checkpointsChanged', (s) => s.CheckpointsChangedParams);
/** Sent to every client when what zcode supports is learned or changes (a probe, a restart of zcode). */
export const CapabilitiesChangedNotification = notification('_zcode/agent/capabilitiesChanged', (s) => s.ZcodeCapabilities);

/** A session's conversation was cut (a rewind in place): a client showing it loads it again. */
export const HistoryChangedNotification = notification('_zcode/session/historyChanged', (s) => s.HistoryChangedParams);

/** Every notification the bridge sends. */
export const EXTENSION_NOTIFICATIONS = [
  SteerStateNotification,
  BackgroundTasksNotification,
  CheckpointsChangedNotification,
  CapabilitiesChangedNotification,
  HistoryChangedNotification,
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
// Using the descriptors
// ---------------------------------------------------------------------------------------------

/** The bridge answered with something its own contract does not allow. */
export class ContractViolation extends Error {
  constructor(
    readonly method: string,
    readonly issues: string,
  ) {
    super(`the bridge answered ${method} with an unexpected shape: ${issues}`);
    this.name = 'ContractViolation';
  }
}

/**
 * A client's call of a request: `send` is its ACP connection's request function; the answer is
 * checked against the descriptor's result schema (a mismatch is a `ContractViolation`).
 */
export async function callExtension<D extends ExtensionRequest>(
  send: (method: string, params: unknown) => Promise<unknown>,
  descriptor: D,
  params: ParamsOf<D>,
): Promise<ResultOf<D>> {
  // Only when not loaded yet: an `await` here would let a request sent after this one overtake it.
  if (!bound) await loadExtensionSchemas();
  const answer = await send(descriptor.method, params);
  const parsed = descriptor.result.safeParse(answer);
  if (!parsed.success) throw new ContractViolation(descriptor.method, shapes().describeIssues(parsed.error));
  return parsed.data as ResultOf<D>;
}

/** A received notification's params if it is `descriptor`'s (checked), else undefined. */
export function readNotification<D extends ExtensionNotification>(descriptor: D, message: { method: string; params: unknown }): ParsedParamsOf<D> | undefined {
  if (message.method !== descriptor.method) return undefined;
  const parsed = descriptor.params.safeParse(message.params);
  return parsed.success ? (parsed.data as ParsedParamsOf<D>) : undefined;
}

