/**
 * Which clients have an ACP session open, so that `session/close` from one client releases only
 * that client's hold. The bridge's session table is shared by every client
 * (in-process, stdio, WebSocket): the editor closing a session it no longer shows must not cancel
 * the turn a phone runs in it, nor stop that phone's updates. The session really closes (its turns
 * cancelled, its runtime dropped: sessionTable.ts `close`) when the closing client is the last holder.
 *
 * A client holds a session from its `session/new`, `session/load`, `session/resume` or
 * `session/prompt` of it until its `session/close` or until it disconnects. A client going away
 * closes nothing (as before: its sessions stay live for the others and for a later load).
 */
import type { ClientRegistry, ConnectedClient } from '../transport/clients.ts';

export class SessionHolders {
  /** ACP session id → ids of the clients holding it. */
  private readonly holders = new Map<string, Set<number>>();

  constructor(clients: ClientRegistry) {
    clients.onDidRemove((client) => this.forgetClient(client));
  }

  /** `client` opened or used `sessionId` (a client the registry does not know holds nothing). */
  hold(sessionId: string, client: ConnectedClient | undefined): void {
    if (!client) return;
    let set = this.holders.get(sessionId);
    if (!set) this.holders.set(sessionId, (set = new Set()));
    set.add(client.id);
  }

  /**
   * `client` closes `sessionId`: its hold goes. True when no other client holds the session any
   * more (the session is closed for real); false while another client still has it open.
   */
  release(sessionId: string, client: ConnectedClient | undefined): boolean {
    const set = this.holders.get(sessionId);
    if (client) set?.delete(client.id);
    if (set && set.size > 0) return false;
    this.holders.delete(sessionId);
    return true;
  }

  /** `session/delete`: nobody holds the session any more. */
  forget(sessionId: string): void {
    this.holders.delete(sessionId);
  }

  private forgetClient(client: ConnectedClient): void {
    for (const [sessionId, set] of this.holders) {
      set.delete(client.id);
      if (set.size === 0) this.holders.delete(sessionId);
    }
  }
}
