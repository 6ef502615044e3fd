/**
 * The `_zcode/*` contract's schemas, by method, and the readers that check wire data against them.
 * contractDescriptors.ts declares the methods (plain data, no zod); the schemas themselves are
 * paramsSchemas.ts, resultSchemas.ts, notificationSchemas.ts and capabilitySchemas.ts. Whoever reads
 * the bridge's messages imports this module: the bridge and the tests statically, the extension's
 * ACP client with `import()` when it connects, so activation loads no zod (npm run bench -- vscode).
 */
import type * as z from 'zod';
import { AccountUsageRequest, BackgroundTasksNotification, CancelBackgroundTaskRequest, CapabilitiesChangedNotification, CapabilitiesRequest, CheckpointsChangedNotification, CheckpointsRequest, CompactRequest, EditQueuedRequest, ForkRequest, GoalRequest, HistoryChangedNotification, LoadEarlierRequest, PromptStartedNotification, RemoveQueuedRequest, SessionQueueNotification, RenameRequest, RetryTurnRequest, RewindRequest, RewindTargetsRequest, RewindToRequest, SetModeRequest, SetThoughtLevelRequest, SteerRequest, SteerStateNotification } from './contractDescriptors.ts';
import type { ExtensionNotification, ExtensionRequest, ParamsOf, ParsedParamsOf, ResultOf } from './contractDescriptors.ts';
import { AccountUsageParams, CancelBackgroundTaskParams, CheckpointsParams, CompactParams, EditQueuedParams, ForkParams, GoalParams, LoadEarlierParams, RemoveQueuedParams, RenameParams, RetryTurnParams, RewindParams, RewindTargetsParams, RewindToParams, SetModeParams, SetThoughtLevelParams, SteerParams } from './paramsSchemas.ts';
import { AccountUsageResponse, CancelBackgroundTaskResponse, CheckpointsResponse, CompactResponse, EditQueuedResponse, ForkResponse, GoalResponse, LoadEarlierResponse, RemoveQueuedResponse, RenameResponse, RetryTurnResponse, RewindResponse, RewindTargetsResponse, RewindToResponse, SetModeResponse, SetThoughtLevelResponse, SteerResponse } from './resultSchemas.ts';
import { BackgroundTasksParams, CheckpointsChangedParams, HistoryChangedParams, PromptStartedParams, SessionQueueParams, SteerStateParams } from './notificationSchemas.ts';
import { CapabilitiesParams, ZcodeCapabilities } from './capabilitySchemas.ts';

/** Every descriptor's schemas, by method: what the bridge registers and checks, and what clients read. */
export const CONTRACT_SCHEMAS = {
  [ForkRequest.method]: { params: ForkParams, result: ForkResponse },
  [RewindRequest.method]: { params: RewindParams, result: RewindResponse },
  [GoalRequest.method]: { params: GoalParams, result: GoalResponse },
  [CompactRequest.method]: { params: CompactParams, result: CompactResponse },
  [SteerRequest.method]: { params: SteerParams, result: SteerResponse },
  [SetModeRequest.method]: { params: SetModeParams, result: SetModeResponse },
  [SetThoughtLevelRequest.method]: { params: SetThoughtLevelParams, result: SetThoughtLevelResponse },
  [CancelBackgroundTaskRequest.method]: { params: CancelBackgroundTaskParams, result: CancelBackgroundTaskResponse },
  [CheckpointsRequest.method]: { params: CheckpointsParams, result: CheckpointsResponse },
  [AccountUsageRequest.method]: { params: AccountUsageParams, result: AccountUsageResponse },
  [LoadEarlierRequest.method]: { params: LoadEarlierParams, result: LoadEarlierResponse },
  [CapabilitiesRequest.method]: { params: CapabilitiesParams, result: ZcodeCapabilities },
  [RemoveQueuedRequest.method]: { params: RemoveQueuedParams, result: RemoveQueuedResponse },
  [EditQueuedRequest.method]: { params: EditQueuedParams, result: EditQueuedResponse },
  [RewindTargetsRequest.method]: { params: RewindTargetsParams, result: RewindTargetsResponse },
  [RewindToRequest.method]: { params: RewindToParams, result: RewindToResponse },
  [RetryTurnRequest.method]: { params: RetryTurnParams, result: RetryTurnResponse },
  [RenameRequest.method]: { params: RenameParams, result: RenameResponse },
  [SteerStateNotification.method]: { params: SteerStateParams },
  [PromptStartedNotification.method]: { params: PromptStartedParams },
  [SessionQueueNotification.method]: { params: SessionQueueParams },
  [BackgroundTasksNotification.method]: { params: BackgroundTasksParams },
  [CheckpointsChangedNotification.method]: { params: CheckpointsChangedParams },
  [CapabilitiesChangedNotification.method]: { params: ZcodeCapabilities },
  [HistoryChangedNotification.method]: { params: HistoryChangedParams },
} as const;
export type ContractSchemas = typeof CONTRACT_SCHEMAS;

/**
 * The params schema of a request or notification (what the bridge's handler gets parsed by). Typed
 * loosely: the readers below give the parsed data the descriptor's own types.
 */
export function paramsSchema(descriptor: ExtensionRequest | ExtensionNotification): z.ZodType {
  return schemasOf(descriptor).params;
}

function resultSchema(descriptor: ExtensionRequest): z.ZodType {
  const schemas = schemasOf(descriptor);
  if (!schemas.result) throw new Error(`${descriptor.method} is a notification: it has no result`);
  return schemas.result;
}

function schemasOf(descriptor: ExtensionRequest | ExtensionNotification): { params: z.ZodType; result?: z.ZodType } {
  if (!isContractMethod(descriptor.method)) throw new Error(`${descriptor.method} is not in the _zcode/* contract`);
  return CONTRACT_SCHEMAS[descriptor.method];
}

function isContractMethod(method: string): method is keyof ContractSchemas {
  return Object.hasOwn(CONTRACT_SCHEMAS, method);
}

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

/** A request's answer, checked against its result schema (a mismatch is a `ContractViolation`). */
export function parseResult<D extends ExtensionRequest>(descriptor: D, answer: unknown): ResultOf<D> {
  const parsed = resultSchema(descriptor).safeParse(answer);
  if (!parsed.success) throw new ContractViolation(descriptor.method, describeIssues(parsed.error));
  return parsed.data as ResultOf<D>;
}

/**
 * A client's call of a request: `send` is its ACP connection's request function; the answer is
 * checked (`parseResult`).
 */
export async function callExtension<D extends ExtensionRequest>(
  send: (method: string, params: unknown) => Promise<unknown>,
  descriptor: D,
  params: ParamsOf<D>,
): Promise<ResultOf<D>> {
  return parseResult(descriptor, await send(descriptor.method, params));
}

/** A received notification's params if it is `descriptor`'s (checked), else undefined. */
export function readNotification<D extends ExtensionNotification>(descriptor: D, message: { method: string; params: unknown }): ParsedParamsOf<D> | undefined {
  if (message.method !== descriptor.method) return undefined;
  const parsed = paramsSchema(descriptor).safeParse(message.params);
  return parsed.success ? (parsed.data as ParsedParamsOf<D>) : undefined;
}

/**
 * Any `_zcode/*` notification of the contract, checked against its method's schema: what a client
 * passes on from its boundary (then picked with contractDescriptors.ts `notificationOf`). Undefined
 * for a method the contract does not declare as a notification, or params that do not fit.
 */
export function parseNotification(message: { method: string; params: unknown }): { method: string; params: unknown } | undefined {
  if (!isContractMethod(message.method)) return undefined;
  const schemas = CONTRACT_SCHEMAS[message.method];
  if ('result' in schemas) return undefined;
  const parsed = schemas.params.safeParse(message.params);
  return parsed.success ? { method: message.method, params: parsed.data } : undefined;
}

/** "sessionId is required; objective: action …": one line, each problem prefixed with its path unless the message names it already (zod's `prettifyError` spans lines). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.map(String).join('.');
      return where && !issue.message.startsWith(where) ? `${where}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
