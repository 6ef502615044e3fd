/**
 * The bridge's answer to ACP `initialize`. It is the same for every client, so it is declared once
 * here, without the SDK at run time: the SDK handler answers with it (handlers.ts), and `zcode-acp`
 * answers a well-formed `initialize` with it before the bridge is even loaded (earlyInitialize.ts).
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import { BRIDGE_NAME, BRIDGE_VERSION } from '../../version.ts';

/** The one auth method: zcode holds its own credentials, the bridge never asks for a key. */
export const AUTH_METHOD_ID = 'zcode-login';

/** What `initialize` advertises about concurrent prompts (conformance 6). */
const PROMPT_QUEUE_META = {
  policy: 'fifo',
  scope: 'session',
  description:
    'A session/prompt sent while another prompt of the same session runs waits and starts when it ends (first in, first out). session/cancel cancels the running prompt and every queued one; each gets stopReason "cancelled".',
} as const;

/** The protocol version the bridge speaks, whatever the client asked for (the client decides whether it can). */
export const PROTOCOL_VERSION = 1;

export function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentInfo: { name: BRIDGE_NAME, title: 'ZCode', version: BRIDGE_VERSION },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      // zcode connects stdio, http and sse servers itself (session/create and session/resume take all three).
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
      // `logout` answers what the user must do: zcode has no sign-out the bridge can call (docs/acp.md "Signing out").
      auth: { logout: {} },
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
