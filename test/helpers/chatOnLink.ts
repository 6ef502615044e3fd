/**
 * The chat's host side on a real bridge, wired the way the extension's host wires it
 * (extension/acpClient.ts): an SDK client app linked in-process, the bridge's notifications and
 * named prompts' answers read off the link in wire order by `BridgeInbox`, `_zcode/*` parsed by the
 * contract. Only the vscode parts are stand-ins: one fixed session, a quiet environment. Used by
 * the integration tests of the chat on the bridge and by the chat benchmark.
 */
import { client, type AnyMessage, type SessionConfigOption, type SessionInfo, type SessionNotification } from '@agentclientprotocol/sdk';
import type { Bridge } from '../../bridge/acp/bridge.ts';
import { callExtension, parseNotification } from '../../bridge/acp/extensions/contractSchemas.ts';
import { BridgeInbox, type PromptAnswer } from '../../extension/bridgeInbox.ts';
import { ChatController } from '../../extension/chat/chatController.ts';
import type { ChatEnvironment, ChatHost, ChatSessions } from '../../extension/chat/chatPorts.ts';
import { Emitter } from './emitter.ts';

/** A session manager that shows one session and makes no other. */
export function fixedSessions(sessionId: string): ChatSessions {
  const never = <T>() => new Emitter<T>().event;
  return {
    activeSessionId: sessionId,
    onDidChangeActiveSession: never<string | undefined>(),
    onWillLoadSession: never<string>(),
    onDidChangeConfigOptions: never<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>(),
    configOptions: () => undefined,
    title: () => undefined,
    newSession: async () => sessionId,
    loadSession: async () => {},
    listSessions: async (): Promise<SessionInfo[]> => [],
    setConfigOption: async () => [],
    fork: async () => sessionId,
    restore: async () => sessionId,
  };
}

/** The vscode side effects, doing nothing. */
export function quietEnv(): ChatEnvironment {
  return {
    openDiff: async () => {},
    openLocation: async () => {},
    copy: async () => {},
    attachContext: async () => [],
    log: () => {},
    errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
  };
}

export interface ChatOnLink {
  controller: ChatController;
  /** Every message this chat's client sent the bridge, in order. */
  readonly sent: AnyMessage[];
  /** Named prompts' answers as the chat got them. */
  readonly answers: Emitter<PromptAnswer>;
  /** What the inbox could not read or deliver (a healthy run has none). */
  readonly failures: string[];
  dispose(): void;
}

/** Links a new client to `bridge` and puts a chat on it showing `sessionId` (initialize is sent; the session must exist or be made by `session/new` through `request`). */
export async function chatOnLink(bridge: Bridge, sessionId: string | ((host: ChatHost) => Promise<string>), env: ChatEnvironment = quietEnv()): Promise<ChatOnLink> {
  const updates = new Emitter<SessionNotification>();
  const ext = new Emitter<{ method: string; params: unknown }>();
  const answers = new Emitter<PromptAnswer>();
  const sent: AnyMessage[] = [];
  const failures: string[] = [];
  const inbox = new BridgeInbox({
    sessionUpdate: (notification) => updates.fire(notification),
    notification: (method, params) => {
      const notification = parseNotification({ method, params });
      if (notification) ext.fire(notification);
      else failures.push(`not in the contract: ${method}`);
    },
    promptAnswered: (answer) => answers.fire(answer),
    failed: (what, error) => void failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`),
  });
  const connection = bridge.connectClient(client({ name: 'chat-on-link' }), { kind: 'local', label: 'chat' }, (direction, message) => {
    if (direction === 'in') sent.push(message);
    // As the extension's link: the updates the inbox delivered do not go on to the SDK client.
    return inbox.observe(direction, message);
  });
  const initializeResult = await connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const host: ChatHost = {
    state: 'ready',
    initializeResult,
    ready: async () => {},
    request: (method, params, options = {}) =>
      connection.agent.request(method, params, options.signal ? { cancellationSignal: options.signal, stopWaitingOnCancel: true } : {}),
    call: (descriptor, params) => callExtension((method, p) => connection.agent.request(method, p), descriptor, params),
    cancelTurn: (id) => connection.agent.notify('session/cancel', { sessionId: id }),
    onSessionUpdate: updates.event,
    onExtNotification: ext.event,
    onPromptAnswered: answers.event,
    onDidChangeState: new Emitter<string>().event,
  };
  const id = typeof sessionId === 'string' ? sessionId : await sessionId(host);
  const controller = new ChatController(host, fixedSessions(id), env);
  return {
    controller,
    sent,
    answers,
    failures,
    dispose: () => {
      controller.dispose();
      connection.close();
    },
  };
}
