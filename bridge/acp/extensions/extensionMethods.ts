/**
 * The bridge's `_zcode/*` request methods, registered on the agent app from their descriptors
 * (contractDescriptors.ts; params parsed by their schemas → -32602 with a readable message): each
 * hands its parsed params to the operation behind it (sessionOperations.ts, v4Operations.ts) and
 * answers a typed result or a `RequestError`. `_zcode/session/loadEarlier` is registered here too.
 */
import type { AgentApp, AgentContext } from '@agentclientprotocol/sdk';
import { ZcodeError } from '../../zcode/backend.ts';
import type { BridgeContext } from '../context.ts';
import { answerOrRequestError } from '../requestErrors.ts';
import {
  AccountUsageRequest,
  CancelBackgroundTaskRequest,
  CheckpointsRequest,
  CompactRequest,
  ForkRequest,
  GoalRequest,
  RewindRequest,
  SetModeRequest,
  SetThoughtLevelRequest,
  SteerRequest,
  CapabilitiesRequest,
  EditQueuedRequest,
  LoadEarlierRequest,
  RemoveQueuedRequest,
  RenameRequest,
  RetryTurnRequest,
  RewindTargetsRequest,
  RewindToRequest,
} from './contractDescriptors.ts';
import { V4Operations } from './v4Operations.ts';
import { SteerTracker } from '../turns/steerTracker.ts';
import { descriptorParamsParser } from './paramsParser.ts';
import { loadEarlier } from './loadEarlier.ts';
import type {
  AccountUsageParams,
  AccountUsageResponse,
  ExtensionRequest,
  ParsedParamsOf,
  ResultOf,
} from './contractDescriptors.ts';

import { DEFAULT_EXTENSION_TUNING, SessionOperations } from './sessionOperations.ts';
import type { ExtensionTuning } from './sessionOperations.ts';

/** A handler for one request descriptor: parsed params in, the descriptor's result out. */
type Handler<D extends ExtensionRequest> = (params: ParsedParamsOf<D>, signal: AbortSignal, client: AgentContext) => Promise<ResultOf<D>>;

/**
 * Register every `_zcode/session/*` method on the agent app (called once by bridge.ts), one handler
 * per descriptor of `EXTENSION_REQUESTS`. Returns the methods registered (a test checks that every
 * descriptor is).
 */
export function registerExtensionMethods(app: AgentApp, ctx: BridgeContext, tuning: Partial<ExtensionTuning> = {}): string[] {
  const ops = new SessionOperations(ctx, { ...DEFAULT_EXTENSION_TUNING, ...tuning });
  const registered: string[] = [];
  const register = <D extends ExtensionRequest>(descriptor: D, run: Handler<D>): void => {
    const { method } = descriptor;
    app.onRequest(method, descriptorParamsParser(descriptor), ({ params, signal, client }) => answerOrRequestError(ctx.logger, method, () => run(params, signal, client)));
    registered.push(method);
  };
  const v4 = new V4Operations(ctx);
  // Lives as long as the backend's event stream (disposed with it).
  new SteerTracker(ctx);
  register(ForkRequest, (p) => (p.kind === 'assistant' ? v4.forkAssistant(p) : ops.fork(p)));
  register(RewindRequest, (p, signal) => ops.rewind(p, signal));
  register(GoalRequest, (p) => ops.goal(p));
  register(CompactRequest, (p, signal) => ops.compact(p, signal));
  register(SteerRequest, (p) => ops.steer(p));
  register(SetModeRequest, (p) => ops.setMode(p));
  register(SetThoughtLevelRequest, (p) => ops.setThoughtLevel(p));
  register(CancelBackgroundTaskRequest, (p) => ops.cancelBackgroundTask(p));
  register(CheckpointsRequest, (p) => ops.checkpoints(p));
  register(AccountUsageRequest, (p) => accountUsage(ctx, p));
  // At once: a zcode that is running is probed (or being probed); one not started yet is not started for this.
  register(LoadEarlierRequest, (p, _signal, client) => loadEarlier(ctx, p, client));
  register(CapabilitiesRequest, () => (ctx.backend.state === 'ready' ? ctx.features.probe() : Promise.resolve(ctx.features.snapshot)));
  register(RemoveQueuedRequest, (p) => v4.removeQueued(p));
  register(EditQueuedRequest, (p) => v4.editQueued(p));
  register(RewindTargetsRequest, (p) => v4.rewindTargets(p));
  register(RewindToRequest, (p) => v4.rewindTo(p));
  register(RetryTurnRequest, (p) => v4.retryTurn(p));
  register(RenameRequest, (p) => v4.rename(p));
  return registered;
}

/**
 * `_zcode/account/usage`: the plan quota (quota.ts) and, for a session, zcode's own token counts
 * (`session/usage {sessionId}`, docs/zcode-protocol.md "Listings, usage and quota"; left out on a build without it).
 */
export async function accountUsage(ctx: BridgeContext, params: AccountUsageParams): Promise<AccountUsageResponse> {
  const handle = params.sessionId ? await ctx.materialize(params.sessionId) : undefined;
  const [plan, session] = await Promise.all([
    ctx.quota.quota(params.refresh === true),
    handle
      ? ctx.backend.sessionUsage({ sessionId: handle.zcodeSessionId }).catch((error: unknown) => {
          if (!(error instanceof ZcodeError && (error.code === -32601 || error.code === -32602))) ctx.logger.debug(`session/usage failed: ${String(error)}`);
          return undefined;
        })
      : undefined,
  ]);
  const response: AccountUsageResponse = { ...plan };
  if (session) response.session = session;
  return response;
}

