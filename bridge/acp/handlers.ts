/**
 * The stable ACP methods the bridge answers (docs/acp.md "Methods").
 *
 * The SDK parses params with its zod schemas before a handler runs (bad params → -32602), answers
 * unknown methods with -32601, ignores unknown notifications, and — because an `initialize` handler
 * is registered — refuses every other request before `initialize` with -32600. Everything thrown
 * here leaves as a `RequestError` (requestErrors.ts).
 */
import { randomUUID } from 'node:crypto';
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentApp, AgentContext, ContentBlock, SessionConfigOption, SessionModeState, SessionUpdate } from '@agentclientprotocol/sdk';
import { buildModeState } from '../translate/config.ts';
import { historyToUpdates } from '../translate/history.ts';
import { DEFAULT_REPLAY_MESSAGES, pageEndingAt, replayLimitOf } from '../translate/replayPage.ts';
import { mcpServersToZcode } from '../translate/mcpServers.ts';
import { availableCommands } from '../translate/promptContent.ts';
import type { ZcodeBackend } from '../zcode/backend.ts';
import type { Logger } from '../logger.ts';
import type { ClientRegistry, ConnectedClient } from './transport/clients.ts';
import { supportsTerminalOutput } from './transport/clients.ts';
import type { ConfigService } from './sessions/configOptions.ts';
import type { CommandScope } from './extensions/commandCatalog.ts';
import { requireAbsoluteCwd, requireUsableCwd } from './sessions/cwd.ts';
import type { SlashCommandRunner, BridgeContext } from './context.ts';
import { answerOrRequestError } from './requestErrors.ts';
import { logoutUnavailable } from './transport/logoutAnswer.ts';
import { AUTH_METHOD_ID, initializeResponse, PROTOCOL_VERSION } from './transport/initializeAnswer.ts';
import type { SessionRuntime } from './sessions/sessionRuntime.ts';
import { settledMessages } from './sessions/replay.ts';
import { listSessionInfos } from './sessions/sessionList.ts';
import { SessionHolders } from './sessions/sessionHolders.ts';
import type { RequestRaces } from './turns/races.ts';
import type { SessionManager } from './sessions/sessionTable.ts';
import type { TurnEngine } from './turns/turns.ts';
import { initializeLocale } from '../l10n/language.ts';
import { steersRunningTurn } from './extensions/slashCommands.ts';
import { PromptStartedNotification, SessionQueueNotification } from './extensions/contractDescriptors.ts';
import { PromptIdMeta } from './extensions/notificationSchemas.ts';
import type { PromptSender, PromptStartedParams, SessionQueueParams } from './extensions/notificationSchemas.ts';
import { promptSender } from './turns/queueEntry.ts';

export interface HandlerDeps {
  app: AgentApp;
  backend: ZcodeBackend;
  clients: ClientRegistry;
  sessions: SessionManager;
  turns: TurnEngine;
  config: ConfigService;
  races: RequestRaces;
  logger: Logger;
  context: BridgeContext;
  slashCommands: SlashCommandRunner;
}

/** Register the stable ACP methods on the agent app. */
export function registerCoreHandlers(deps: HandlerDeps): void {
  const { app, clients, sessions, turns, config, logger } = deps;
  const holders = new SessionHolders(clients);
  /** Wraps a handler so nothing but a RequestError can leave it. */
  const safe =
    <P, R>(fn: (params: P, client: AgentContext, signal: AbortSignal) => Promise<R>) =>
    ({ params, client, signal }: { params: P; client: AgentContext; signal: AbortSignal }): Promise<R> =>
      answerOrRequestError(logger, 'request', () => fn(params, client, signal));

  app.onRequest('initialize', ({ params, client }) => {
    const me = clients.of(client);
    if (me) clients.initialized(me, params.clientCapabilities, params.clientInfo?.name);
    const locale = initializeLocale(params._meta);
    if (locale !== undefined) sessions.language.clientNamed(locale);
    logger.info(`initialize from ${params.clientInfo?.name ?? 'an unnamed client'} (asked for protocol ${params.protocolVersion}, answering ${PROTOCOL_VERSION})`);
    return initializeResponse();
  });

  app.onRequest(
    'authenticate',
    safe(async (params: { methodId: string }) => {
      if (params.methodId !== AUTH_METHOD_ID) throw RequestError.invalidParams({ methodId: params.methodId }, `Unknown auth method '${params.methodId}'`);
      // Nothing to do: zcode reads its own credentials. Starting it surfaces "zcode not found" early.
      return {};
    }),
  );

  app.onRequest(
    'session/new',
    safe(async (params, client) => {
      await requireUsableCwd(params.cwd);
      // zcode's model list before any session (a draft, once per zcode process and workspace: modelDraft.ts).
      await sessions.prepareNew(params.cwd);
      // The client's MCP servers go to zcode with session/create (and again with every resume).
      const sessionId = sessions.createPlaceholder(params.cwd, mcpServersToZcode(params.mcpServers));
      holders.hold(sessionId, clients.of(client));
      const configOptions = sessions.lazyOptions(sessionId, params.cwd);
      afterResponse(client, () => void sendCommands(client, sessionId, { cwd: params.cwd }));
      return { sessionId, configOptions, ...modes(configOptions) };
    }),
  );

  app.onRequest(
    'session/load',
    safe(async (params, client) => {
      await requireUsableCwd(params.cwd);
      const limit = replayLimit(params._meta);
      const runtime = await sessions.open(params.sessionId, params.cwd, mcpServersToZcode(params.mcpServers));
      holders.hold(params.sessionId, clients.of(client));
      let replay: { total: number; replayed: number; cursor?: string } | undefined;
      if (runtime) {
        // The whole history goes to the loading client before the response (conformance 7), shaped
        // for that client's own capabilities (no terminal cards for a client that never declared them).
        // zcode may still be loading a resumed session's history: wait until it settles (replay.ts).
        // A long history replays its tail (replayPage.ts); `_zcode/session/loadEarlier` pages back.
        const messages = await settledMessages(deps.backend, runtime.zcodeId, logger);
        const page = pageEndingAt(messages, messages.length, limit ?? DEFAULT_REPLAY_MESSAGES);
        const updates = historyToUpdates(page.messages, { cwd: runtime.cwd, todos: runtime.todos, terminalOutput: supportsTerminalOutput(clients.of(client)?.capabilities), locale: sessions.locale });
        if (runtime.title) updates.push({ sessionUpdate: 'session_info_update', title: runtime.title });
        for (const update of updates) sendTo(client, params.sessionId, update);
        replay = { total: page.total, replayed: page.messages.length, ...(page.cursor ? { cursor: page.cursor } : {}) };
      }
      const configOptions = runtime?.configOptions ?? sessions.lazyOptions(params.sessionId, params.cwd);
      afterResponse(client, () => caughtUp(client, params.sessionId, params.cwd));
      return { configOptions, ...modes(configOptions), ...(replay ? { _meta: { zcode: { replay } } } : {}) };
    }),
  );

  app.onRequest(
    'session/resume',
    safe(async (params, client) => {
      await requireUsableCwd(params.cwd);
      const runtime = await sessions.open(params.sessionId, params.cwd, mcpServersToZcode(params.mcpServers ?? undefined));
      holders.hold(params.sessionId, clients.of(client));
      const configOptions = runtime?.configOptions ?? sessions.lazyOptions(params.sessionId, params.cwd);
      afterResponse(client, () => caughtUp(client, params.sessionId, params.cwd));
      return { configOptions, ...modes(configOptions) };
    }),
  );

  app.onRequest(
    'session/list',
    safe(async (params) => {
      if (params.cwd) requireAbsoluteCwd(params.cwd);
      const { sessions: list } = await deps.backend.listSessions({ workspacePath: params.cwd ?? undefined });
      // One id per conversation: placeholders stand for their zcode sessions, unprompted ones are listed too.
      const infos = listSessionInfos(list, await sessions.storedPlaceholders(), params.cwd ?? undefined);
      // zcode has no paging: everything comes in one page (no nextCursor).
      return { sessions: infos };
    }),
  );

  app.onRequest(
    'session/close',
    safe(async (params, client) => {
      await sessions.require(params.sessionId);
      // Another client still has it open: only this client's hold goes (sessionHolders.ts).
      if (!holders.release(params.sessionId, clients.of(client))) return {};
      turns.cancelSession(params.sessionId);
      const runtime = sessions.close(params.sessionId);
      if (!runtime) await sessions.dropUnprompted(params.sessionId);
      deps.context.commands.forget(params.sessionId);
      return {};
    }),
  );

  app.onRequest(
    'session/delete',
    safe(async (params) => {
      // A running turn is cancelled first (its prompt answers "cancelled"); then every id of the
      // conversation is gone for every client: their next call gets -32002 (docs/acp.md "Deleting a session").
      const runtime = sessions.peek(params.sessionId);
      for (const id of runtime ? [...runtime.aliases] : [params.sessionId]) turns.cancelSession(id);
      const known = async (zcodeId: string): Promise<boolean> => (await deps.backend.listSessions({})).sessions.some((s) => s.sessionId === zcodeId);
      const { ids } = await sessions.delete(params.sessionId, known);
      for (const id of ids) {
        holders.forget(id);
        deps.context.commands.forget(id);
      }
      // zcode keeps its own record: it has no delete that removes a conversation (only the desktop app does).
      return { _meta: { zcode: { deletedIn: 'bridge', zcodeRecordKept: true } } };
    }),
  );

  app.onRequest(
    'logout',
    safe(async () => {
      throw logoutUnavailable();
    }),
  );

  app.onRequest(
    'session/set_mode',
    safe(async (params) => {
      await config.setMode(params.sessionId, params.modeId);
      return {};
    }),
  );

  app.onRequest(
    'session/set_config_option',
    safe(async (params) => {
      // A boolean option carries `type: "boolean"` and a boolean value; either way the value is what is set.
      return { configOptions: await config.setOption(params.sessionId, params.configId, params.value) };
    }),
  );

  app.onRequest(
    'session/prompt',
    safe((params, client, signal) => {
      // The menu is refreshed once this prompt's answer is written (zcode's set may have changed).
      whenAnswered(client, () => void refreshCommands(params.sessionId));
      // Every prompt but `/steer` waits its turn, slash commands included (docs/acp.md "Prompt queue").
      const inOrder = !steersRunningTurn(params.prompt);
      const sentBy = promptSender(clients.of(client));
      const named = PromptIdMeta.safeParse(params._meta);
      const promptId = named.success ? named.data.zcode.promptId : undefined;
      // turns.prompt registers the prompt synchronously (a session/cancel right behind it must see it).
      return turns.prompt(
        params.sessionId,
        params.prompt,
        signal,
        async (jobSignal, holdEvents) => {
          await sessions.require(params.sessionId);
          holders.hold(params.sessionId, clients.of(client));
          echoPrompt(client, params.sessionId, params.prompt, sentBy);
          // Slash commands run once the prompt's turn in the session's FIFO has come, except
          // `/steer`, which runs at once (it must reach the running turn). They get the prompt's
          // signal, which `session/cancel` aborts too (a /compact waiting for its outcome), not
          // only `$/cancel_request`.
          return deps.slashCommands(deps.context, { sessionId: params.sessionId, prompt: params.prompt, signal: jobSignal, holdEvents, holdsSession: inOrder });
        },
        // What zcode sends after the turn waits for this response (`SessionEvents.holdEvents`, sessionEvents.ts).
        (fn) => whenAnswered(client, fn),
        // Its entry in the session's queue (`_zcode/session/queue`, sent by bridge.ts); `onStart` follows
        // the queue's announcement that it holds the session (promptQueue.ts).
        { inOrder, sentBy, promptId, onStart: () => promptStarted(client, params.sessionId, promptId) },
      );
    }),
  );

  app.onNotification('session/cancel', ({ params }) => {
    turns.cancelSession(params.sessionId);
    // A turn a v4 command started (a re-asked prompt, a retry, a deferred steer zcode ran by itself)
    // has no prompt here to cancel: stop it in zcode (the backend adds zcode's v4 stop for it).
    const runtime = sessions.peek(params.sessionId);
    if (runtime && deps.backend.v4.runsV4Turn(runtime.zcodeId)) deps.backend.stop({ sessionId: runtime.zcodeId });
  });

  /**
   * A prompt the client named (`_meta.zcode.promptId`) holds the session now: tell that client, in
   * order with the session's updates (`_zcode/session/promptStarted`, docs/acp.md "Prompt queue").
   */
  function promptStarted(client: AgentContext, sessionId: string, promptId: string | undefined): void {
    if (promptId === undefined) return;
    const params: PromptStartedParams = { sessionId, promptId };
    notifyClient(client, PromptStartedNotification.method, params);
  }

  /** A `_zcode/*` notification to one client (its errors are the connection's, logged). */
  function notifyClient(client: AgentContext, method: string, params: unknown): void {
    client.notify(method, params).catch((error: unknown) => {
      logger.debug(`${method} not delivered: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  /** The menu the client can offer (after new/load/resume): the bridge's commands and zcode's (commandCatalog.ts). */
  async function sendCommands(client: AgentContext, sessionId: string, scope: CommandScope): Promise<void> {
    const menu = await deps.context.commands.menu(sessionId, scope).catch((error: unknown) => {
      logger.warn(`slash menu discovery failed: ${error instanceof Error ? error.message : String(error)}`);
      return availableCommands(sessions.locale);
    });
    sendTo(client, sessionId, { sessionUpdate: 'available_commands_update', availableCommands: menu });
  }

  /**
   * Remote parity: the other clients of the session see the prompt as the user's
   * message, under every id they may know it by, with who sent it under `_meta.zcode.sentBy`. The
   * sender has it already. Pending streamed text goes first, so the prompt follows the previous answer.
   */
  function echoPrompt(client: AgentContext, sessionId: string, prompt: readonly ContentBlock[], sentBy: PromptSender): void {
    const me = clients.of(client);
    const runtime = sessions.peek(sessionId);
    if (runtime) sessions.events.flush(runtime);
    const messageId = randomUUID();
    for (const id of runtime && runtime.aliases.size > 0 ? runtime.aliases : [sessionId]) {
      for (const content of prompt) {
        clients.broadcastExcept(me, 'session/update', { sessionId: id, update: { sessionUpdate: 'user_message_chunk', content, messageId, _meta: { zcode: { sentBy } } } });
      }
    }
  }

  /** After a prompt: re-discover zcode's commands and tell every client of the session when the menu changed. */
  async function refreshCommands(sessionId: string): Promise<void> {
    const runtime = sessions.peek(sessionId);
    if (!runtime) return;
    const menu = await deps.context.commands.refresh(sessionId, commandScope(runtime)).catch(() => undefined);
    if (menu) deps.context.sendUpdates(sessionId, [{ sessionUpdate: 'available_commands_update', availableCommands: menu }]);
  }

  /**
   * After load/resume: the session's prompt queue (idle too, so a client that comes back learns
   * whether a turn runs; later changes reach it with every client's), the commands, then the
   * session's open dialogs re-sent to this client.
   */
  function caughtUp(client: AgentContext, sessionId: string, cwd: string): void {
    const me: ConnectedClient | undefined = clients.of(client);
    const runtime = sessions.peek(sessionId);
    const queue: SessionQueueParams = { sessionId, ...turns.queueState(sessionId) };
    notifyClient(client, SessionQueueNotification.method, queue);
    void sendCommands(client, sessionId, runtime ? commandScope(runtime) : { cwd });
    if (me && runtime) deps.races.join(me, runtime, sessionId);
  }

  /** Run `fn` once the response to the request `client` is handling has been written (responseOrder.ts). */
  function afterResponse(client: AgentContext, fn: () => void): void {
    const me = clients.of(client);
    if (me) me.afterResponse(client.requestId, fn);
    else fn();
  }

  /** Run `fn` once any response to the request `client` is handling has been written, or the client is gone. */
  function whenAnswered(client: AgentContext, fn: () => void): void {
    const me = clients.of(client);
    if (me) me.whenAnswered(client.requestId, fn);
    else fn();
  }

  function sendTo(client: AgentContext, sessionId: string, update: SessionUpdate): void {
    client.notify('session/update', { sessionId, update }).catch((error: unknown) => {
      logger.debug(`session/update not delivered: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

/** What the command catalog needs to know of a live session. */
function commandScope(runtime: SessionRuntime): CommandScope {
  return { cwd: runtime.cwd, zcodeSessionId: runtime.zcodeId, snapshot: runtime.slashCommands };
}

/** `session/load`'s `_meta.zcode.replay.limit` (replayPage.ts), a bad value as -32602. */
function replayLimit(meta: unknown): number | undefined {
  try {
    return replayLimitOf(meta);
  } catch (error) {
    throw RequestError.invalidParams({ _meta: meta }, error instanceof Error ? error.message : String(error));
  }
}

function modes(configOptions: SessionConfigOption[]): { modes?: SessionModeState } {
  const state = buildModeState(configOptions);
  return state ? { modes: state } : {};
}
