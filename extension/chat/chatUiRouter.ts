/**
 * Routes the bridge's permission prompts and forms to the chat that shows their session: with
 * chats in editor tabs next to the sidebar, each session's questions must appear in its own chat.
 * A request for a session no chat shows goes to the sidebar chat (its forms stay answerable
 * whatever it shows), else to the chat opened last. Registered as the host's interactive UI while
 * at least one chat webview exists (otherwise the host reveals the sidebar or falls back).
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from '@agentclientprotocol/sdk';
import type { InteractiveUi } from '../interactiveUi.ts';

/** What the router needs of a chat (ChatController satisfies it). */
export interface RoutedChat extends InteractiveUi {
  readonly session: { readonly sessionId?: string };
}

type Registration = { dispose(): unknown };

export class ChatUiRouter implements InteractiveUi {
  /** Chats with a live webview, oldest first; `primary` is the sidebar's. */
  private readonly chats: { chat: RoutedChat; primary: boolean }[] = [];
  private registration: Registration | undefined;

  constructor(private readonly register: (ui: InteractiveUi) => Registration) {}

  /** A chat's webview exists: it can answer. Dispose the result when the webview goes. */
  add(chat: RoutedChat, primary = false): Registration {
    const entry = { chat, primary };
    this.chats.push(entry);
    this.registration ??= this.register(this);
    return {
      dispose: () => {
        const at = this.chats.indexOf(entry);
        if (at >= 0) this.chats.splice(at, 1);
        if (this.chats.length === 0) {
          this.registration?.dispose();
          this.registration = undefined;
        }
      },
    };
  }

  /** The chat for a request about `sessionId`. */
  route(sessionId: string | undefined): RoutedChat | undefined {
    const shows = sessionId ? this.chats.find((c) => c.chat.session.sessionId === sessionId) : undefined;
    return (shows ?? this.chats.find((c) => c.primary) ?? this.chats.at(-1))?.chat;
  }

  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const chat = this.route(params.sessionId);
    return chat ? chat.requestPermission(params, signal) : Promise.resolve({ outcome: { outcome: 'cancelled' } });
  }

  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    const sessionId = 'sessionId' in params && typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const chat = this.route(sessionId);
    return chat ? chat.createElicitation(params, signal) : Promise.resolve({ action: 'cancel' });
  }
}
