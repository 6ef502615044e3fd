/**
 * The stable ACP methods the bridge answers (acp-notes.md "What the bridge uses").
 *
 * The SDK parses params with its zod schemas before a handler runs (bad params → -32602), answers
 * unknown methods with -32601, ignores unknown notifications, and — because an `initialize` handler
 * is registered — refuses every other request before `initialize` with -32600. Everything thrown
 * here leaves as a `RequestError` (errors.ts).
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentApp, AgentContext, InitializeResponse, SessionConfigOption, SessionModeState, SessionUpdate } from '@agentclientprotocol/sdk';
import { buildModeState } from '../translate/config.ts';
import { historyToUpdates } from '../translate/history.ts';
import { mcpServersToZcode } from '../translate/mcpServers.ts';
import { availableCommands } from '../translate/prompt.ts';
import type { Logger, ZcodeBackend } from '../zcode/backend.ts';
import { BRIDGE_NAME, BRIDGE_VERSION } from '../version.ts';
import type { ClientRegistry, ConnectedClient } from './clients.ts';
import { supportsTerminalOutput } from './clients.ts';
import type { ConfigService } from './configOptions.ts';
import type { SlashCommandRunner, BridgeContext } from './context.ts';
import { answerOrRequestError } from './errors.ts';
import { settledMessages } from './replay.ts';
import { listSessionInfos } from './sessionList.ts';
import type { RequestRaces } from './races.ts';
import type { SessionManager } from './sessions.ts';
import type { TurnEngine } from './turns.ts';

/** The one auth method: zcode holds its own credentials, the bridge never asks for a key. */
const AUTH_METHOD_ID = 'zcode-login';

/** What `initialize` advertises about concurrent prompts (conformance 6). */
const PROMPT_QUEUE_META = {
  policy: 'fifo',
  scope: 'session',
  description:
    'A session/prompt sent while another prompt of the same session runs waits and starts when it ends (first in, first out). session/cancel cancels the running prompt and every queued one; each gets stopReason "cancelled".',
} as const;

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

function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: 1,
    agentInfo: { name: BRIDGE_NAME, title: 'ZCode', version: BRIDGE_VERSION },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      // zcode connects stdio, http and sse servers itself (session/create and session/resume take all three).
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    authMethods: [
      {
        id: AUTH_METHOD_ID,
        name: 'ZCode account',
        description: 'zcode signs in by itself (~/.zcode/v2/config.json): run `zcode` once in a terminal to log in. The bridge never asks for an API key.',
      },
    ],
    _meta: { zcode: { promptQueue: PROMPT_QUEUE_META } },
  };
}

/** Register the stable ACP methods on the agent app. */
export function registerCoreHandlers(deps: HandlerDeps): void {
  const { app, clients, sessions, turns, config, logger } = deps;
  /** Wraps a handler so nothing but a RequestError can leave it. */
  const safe =
    <P, R>(fn: (params: P, client: AgentContext, signal: AbortSignal) => Promise<R>) =>
    ({ params, client, signal }: { params: P; client: AgentContext; signal: AbortSignal }): Promise<R> =>
      answerOrRequestError(logger, 'request', () => fn(params, client, signal));

  app.onRequest('initialize', ({ params, client }) => {
    const me = clients.of(client);
    if (me) clients.initialized(me, params.clientCapabilities);
    logger.info(`initialize from ${params.clientInfo?.name ?? 'an unnamed client'} (asked for protocol ${params.protocolVersion}, answering 1)`);
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
      // The client's MCP servers go to zcode with session/create (and again with every resume).
      const sessionId = sessions.createPlaceholder(params.cwd, mcpServersToZcode(params.mcpServers));
      const configOptions = sessions.placeholderConfig();
      afterResponse(() => sendCommands(client, sessionId));
      return { sessionId, configOptions, ...modes(configOptions) };
    }),
  );

  app.onRequest(
    'session/load',
    safe(async (params, client) => {
      await requireUsableCwd(params.cwd);
      const runtime = await sessions.open(params.sessionId, params.cwd, mcpServersToZcode(params.mcpServers));
      if (runtime) {
        // The whole history goes to the loading client before the response (conformance 7), shaped
        // for that client's own capabilities (no terminal cards for a client that never declared them).
        // zcode may still be loading a resumed session's history: wait until it settles (replay.ts).
        const messages = await settledMessages(deps.backend, runtime.zcodeId, logger);
        const updates = historyToUpdates(messages, { cwd: runtime.cwd, todos: runtime.todos, terminalOutput: supportsTerminalOutput(clients.of(client)?.capabilities) });
        if (runtime.title) updates.push({ sessionUpdate: 'session_info_update', title: runtime.title });
        for (const update of updates) sendTo(client, params.sessionId, update);
      }
      const configOptions = runtime?.configOptions ?? sessions.placeholderConfig();
      afterResponse(() => caughtUp(client, params.sessionId));
      return { configOptions, ...modes(configOptions) };
    }),
  );

  app.onRequest(
    'session/resume',
    safe(async (params, client) => {
      await requireUsableCwd(params.cwd);
      const runtime = await sessions.open(params.sessionId, params.cwd, mcpServersToZcode(params.mcpServers ?? undefined));
      const configOptions = runtime?.configOptions ?? sessions.placeholderConfig();
      afterResponse(() => caughtUp(client, params.sessionId));
      return { configOptions, ...modes(configOptions) };
    }),
  );

  app.onRequest(
    'session/list',
    safe(async (params) => {
      if (params.cwd) requireAbsolute(params.cwd);
      const { sessions: list } = await deps.backend.listSessions({ workspacePath: params.cwd ?? undefined });
      // One id per conversation: placeholders stand for their zcode sessions, unprompted ones are listed too.
      const infos = listSessionInfos(list, await sessions.storedPlaceholders(), params.cwd ?? undefined);
      // zcode has no paging: everything comes in one page (no nextCursor).
      return { sessions: infos };
    }),
  );

  app.onRequest(
    'session/close',
    safe(async (params) => {
      await sessions.require(params.sessionId);
      turns.cancelSession(params.sessionId);
      sessions.close(params.sessionId);
      return {};
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
    safe((params, _client, signal) =>
      // turns.prompt registers the prompt synchronously (a session/cancel right behind it must see it).
      turns.prompt(params.sessionId, params.prompt, signal, async (jobSignal) => {
        await sessions.require(params.sessionId);
        // Slash commands run before the queue (`/steer` must reach a running turn). They get the
        // prompt's signal, which `session/cancel` aborts too (a /compact waiting for its outcome,
        // a /rewind waiting for idle), not only `$/cancel_request`.
        return deps.slashCommands(deps.context, { sessionId: params.sessionId, prompt: params.prompt, signal: jobSignal });
      }),
    ),
  );

  app.onNotification('session/cancel', ({ params }) => {
    turns.cancelSession(params.sessionId);
  });

  /** Commands the client can offer (after new/load/resume). */
  function sendCommands(client: AgentContext, sessionId: string): void {
    sendTo(client, sessionId, { sessionUpdate: 'available_commands_update', availableCommands: availableCommands() });
  }

  /** After load/resume: the commands, then the session's open dialogs re-sent to this client. */
  function caughtUp(client: AgentContext, sessionId: string): void {
    sendCommands(client, sessionId);
    const me: ConnectedClient | undefined = clients.of(client);
    const runtime = sessions.peek(sessionId);
    if (me && runtime) deps.races.join(me, runtime, sessionId);
  }

  function sendTo(client: AgentContext, sessionId: string, update: SessionUpdate): void {
    client.notify('session/update', { sessionId, update }).catch((error: unknown) => {
      logger.debug(`session/update not delivered: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

/**
 * A cwd zcode could work in (issue 17.11): absolute, no NUL or line break (which no shell or file
 * API handles the same way), and not something other than a directory. Still open: a path that
 * does not exist is not refused yet (many tests use made-up cwds such as `/w`; issue 17.11).
 */
async function requireUsableCwd(cwd: string): Promise<void> {
  requireAbsolute(cwd);
  if (/[\0\r\n]/.test(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must not contain NUL or line breaks (got ${JSON.stringify(cwd)})`);
  const info = await stat(cwd).catch(() => undefined);
  if (info && !info.isDirectory()) throw RequestError.invalidParams({ cwd }, `cwd is not a directory: '${cwd}'`);
}

/** ACP paths are absolute; a relative cwd would silently point zcode at the bridge's own directory. */
function requireAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path (got '${cwd}')`);
}

function modes(configOptions: SessionConfigOption[]): { modes?: SessionModeState } {
  const state = buildModeState(configOptions);
  return state ? { modes: state } : {};
}

/**
 * Run after the current response has been written: the SDK writes a handler's response once its
 * promise settles, and a macrotask later it is in the connection's (ordered) write queue.
 */
function afterResponse(fn: () => void): void {
  setImmediate(fn);
}
