/**
 * The slash menu of each session, as the bridge last sent it (`available_commands_update`). The
 * bridge sends a session's menu right after `session/new` answers, often before the chat has
 * switched to that session: kept here per session, a transcript made later starts with it. Only the
 * newest few are kept: a chat shows one session at a time.
 */
import type { AvailableCommand } from '@agentclientprotocol/sdk';

/** Session menus kept for sessions a chat may switch to. */
const MAX_MENUS = 20;

export class SessionMenus {
  /** In insertion order, newest last. */
  private readonly menus = new Map<string, AvailableCommand[]>();

  remember(sessionId: string, commands: AvailableCommand[]): void {
    this.menus.delete(sessionId);
    this.menus.set(sessionId, commands);
    for (const old of [...this.menus.keys()].slice(0, Math.max(0, this.menus.size - MAX_MENUS))) this.menus.delete(old);
  }

  /** The session's last menu (a copy), empty when none was seen. */
  of(sessionId: string): AvailableCommand[] {
    return [...(this.menus.get(sessionId) ?? [])];
  }
}
