/**
 * Who answers the bridge's interactive requests (permission prompts and elicitation forms).
 *
 * The chat webview registers itself while its view exists. A request that arrives with no UI
 * registered reveals the chat view and waits briefly for it to register; if none does, the
 * fallback (modal QuickPicks / input boxes, fallbackUi.ts) answers, so a request never hangs.
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { Logger } from '../bridge/logger.ts';

/**
 * The UI that answers the bridge's interactive requests (the chat webview registers one).
 * Both calls must settle; `signal` aborts when the bridge withdraws the request (another client
 * answered first, or the turn was cancelled): close the dialog and resolve/reject as you like.
 */
export interface InteractiveUi {
  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
}

export interface InteractiveUiSlotOptions {
  fallback: InteractiveUi;
  /** Shows the chat view so that it can register (e.g. `zcode.chat.focus`). */
  reveal?: () => Thenable<unknown>;
  /** How long to wait for a UI after `reveal` (default 5 s). */
  waitMs?: number;
  logger: Logger;
}

/** Holds the registered UI; `resolve()` picks the UI for one request. */
export class InteractiveUiSlot {
  private ui: InteractiveUi | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly options: InteractiveUiSlotOptions) {}

  /** Registers `ui` (the last registration wins); the returned function unregisters it. */
  set(ui: InteractiveUi): () => void {
    this.ui = ui;
    this.wakeAll();
    return () => {
      if (this.ui === ui) this.ui = undefined;
    };
  }

  /** The registered UI; else reveal the chat and wait a little for it; else the fallback. */
  async resolve(signal: AbortSignal): Promise<InteractiveUi> {
    if (this.ui) return this.ui;
    const reveal = this.options.reveal;
    if (reveal) {
      const registered = this.waitForRegistration(signal);
      try {
        await reveal();
      } catch (error) {
        this.options.logger.warn(`could not reveal the chat view: ${String(error)}`);
      }
      if (!this.ui) await registered;
      if (this.ui) return this.ui;
    }
    return this.options.fallback;
  }

  /** Releases every waiting request (they fall back). */
  dispose(): void {
    this.ui = undefined;
    this.wakeAll();
  }

  private waitForRegistration(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, this.options.waitMs ?? 5_000);
      signal.addEventListener('abort', wake);
      this.waiters.add(wake);
    });
  }

  private wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
