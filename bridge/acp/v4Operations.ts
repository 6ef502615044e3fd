/**
 * The `_zcode/session/*` operations that only zcode's v4 command surface can do (steer on current
 * builds, rewind to a message, file rewind, retry, rename, queued-input edits, fork from an
 * assistant reply). Turns themselves stay on the legacy path (`session/send` + `session/event`);
 * these handlers reach v4 through the backend's typed v4 methods and answer "unavailable" with the
 * reason the capabilities give when the running zcode has no v4.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { BridgeContext } from './context.ts';
import type {
  EditQueuedParams,
  EditQueuedResponse,
  RemoveQueuedParams,
  RemoveQueuedResponse,
  RenameParams,
  RenameResponse,
  RetryTurnParams,
  RetryTurnResponse,
  RewindTargetsParams,
  RewindTargetsResponse,
  RewindToParams,
  RewindToResponse,
} from './extensionSchemas.ts';

/** The v4-backed operations, shared by the extension methods and the slash commands. */
export class V4Operations {
  constructor(private readonly ctx: BridgeContext) {}

  async removeQueued(p: RemoveQueuedParams): Promise<RemoveQueuedResponse> {
    await this.ctx.materialize(p.sessionId);
    throw notYet('removeQueued');
  }

  async editQueued(p: EditQueuedParams): Promise<EditQueuedResponse> {
    await this.ctx.materialize(p.sessionId);
    throw notYet('editQueued');
  }

  async rewindTargets(p: RewindTargetsParams): Promise<RewindTargetsResponse> {
    await this.ctx.materialize(p.sessionId);
    throw notYet('rewindTargets');
  }

  async rewindTo(p: RewindToParams): Promise<RewindToResponse> {
    await this.ctx.materialize(p.sessionId);
    throw notYet('rewindTo');
  }

  async retryTurn(p: RetryTurnParams): Promise<RetryTurnResponse> {
    await this.ctx.materialize(p.sessionId);
    throw notYet('retryTurn');
  }

  async rename(p: RenameParams): Promise<RenameResponse> {
    await this.ctx.materialize(p.sessionId);
    throw notYet('rename');
  }
}

function notYet(what: string): RequestError {
  return RequestError.internalError({ reason: 'notImplemented' }, `${what} is not implemented yet`);
}
