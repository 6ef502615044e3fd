/**
 * What `ZcodeClientHost` (acpClient.ts) is given when it is made, and what one request may ask of
 * it: the bridge factory and the environment the bridge is created with, the interactive UI's
 * fallbacks, timeouts.
 */
import type { Bridge, BridgeOptions } from '../bridge/acp/bridge.ts';
import type { Logger } from '../bridge/logger.ts';
import type { LocateOptions } from '../bridge/zcode/backend.ts';
import type { InteractiveUi } from './interactiveUi.ts';

export interface ZcodeClientHostOptions {
  /**
   * `createBridge` from bridge/acp/bridge.ts (injected: the environment is passed in). May load the bridge
   * first: it is not part of activation (the bridge and the ACP SDK build their schemas
   * when loaded).
   */
  createBridge: (options: BridgeOptions) => Bridge | Promise<Bridge>;
  /** VS Code's LogOutputChannel (it satisfies the bridge's Logger port). */
  logger: Logger;
  /** Session store directory: the extension's global storage. */
  storageDir: string;
  /** Read when the bridge is created (settings `zcode.path` / `zcode.nodePath`). */
  locate: () => LocateOptions;
  /** Read when the bridge is created (setting `zcode.defaultMode`). */
  defaultMode: () => string | undefined;
  /** VS Code's display language: the bridge writes its own texts in it. */
  locale?: string;
  /** Used when no interactive UI is registered and `revealUi` did not bring one up in time. */
  fallbackUi: InteractiveUi;
  /** Shows the chat view so that it can register its UI (e.g. `zcode.chat.focus`). */
  revealUi?: () => Thenable<unknown>;
  /** How long to wait for a UI after `revealUi` (default 5 s). */
  uiWaitMs?: number;
  /** Default request timeout in ms (default 60 s); `session/prompt` and interactive calls have none. */
  requestTimeoutMs?: number;
  /** Client name sent in `initialize`. */
  clientInfo?: { name: string; version: string };
}

/** Request options of `ZcodeClientHost.request`. */
export interface HostRequestOptions {
  /** Aborting sends `$/cancel_request` and rejects at once. */
  signal?: AbortSignal;
  /** Overrides the default timeout; 0 = none. */
  timeoutMs?: number;
}
