/**
 * `_zcode/session/loadEarlier`: the page of a session's history before a cursor (the one
 * `session/load` answered with, or the previous page's), replayed as `session/update`s to the
 * asking client only, before the answer, each marked with the cursor it answers
 * (`_meta.zcode.earlierPage`) so that client can put it above what it shows.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk';
import { historyToUpdates } from '../../translate/history.ts';
import { DEFAULT_REPLAY_MESSAGES, pageBefore } from '../../translate/replayPage.ts';
import type { BridgeContext } from '../context.ts';
import { supportsTerminalOutput } from '../transport/clients.ts';
import { LoadEarlierRequest } from './contractDescriptors.ts';
import type { LoadEarlierParams, LoadEarlierResponse } from './contractDescriptors.ts';

export async function loadEarlier(ctx: BridgeContext, params: LoadEarlierParams, client: AgentContext): Promise<LoadEarlierResponse> {
  const handle = await ctx.materialize(params.sessionId);
  const { messages } = await ctx.backend.messages({ sessionId: handle.zcodeSessionId });
  const page = pageBefore(messages, params.cursor, params.limit ?? DEFAULT_REPLAY_MESSAGES);
  if (page instanceof Error) throw RequestError.invalidParams({ cursor: params.cursor }, `${LoadEarlierRequest.method}: ${page.message}`);
  const updates = historyToUpdates(page.messages, { cwd: handle.cwd, terminalOutput: supportsTerminalOutput(ctx.clients.of(client)?.capabilities), locale: ctx.locale });
  for (const update of updates) {
    const marked = { ...update, _meta: { ...update._meta, zcode: { ...(update._meta?.zcode as object | undefined), earlierPage: params.cursor } } } as SessionUpdate;
    client.notify('session/update', { sessionId: params.sessionId, update: marked }).catch((error: unknown) => {
      ctx.logger.debug(`session/update not delivered: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return { messages: page.messages.length, ...(page.cursor ? { cursor: page.cursor } : {}) };
}
