/**
 * Closes the sessions no chat shows any more. Without it every session the user
 * leaves (New Session, another session from the history, a closed chat tab) stays open on the
 * in-process bridge for the life of the window: its runtime, its translator state, its zcode
 * subscription. `session/close` releases that; the session stays in zcode's history and a later
 * `session/load` opens it again (test/integration/acp/sessionRelease.test.ts).
 *
 * A session is closed once all of these hold, checked again whenever one may have changed:
 * - no chat shows it (the sidebar's active session, each editor tab's bound session);
 * - no `session/prompt` of this window runs in it and no permission prompt or form of it waits for
 *   an answer (a turn left running is closed when it ends; its pending forms stay answerable);
 * - none of its background tasks runs (closing would stop their updates);
 * - no `session/load` is on its way (if it fails, the chat goes back to the session it showed).
 * Other clients of the bridge (remote, stdio) are not affected: the bridge closes a session only
 * when its last client lets go (bridge/acp/sessionHolders.ts).
 */
import { BackgroundTasksNotification, readNotification } from '../../bridge/acp/extensionSchemas.ts';
import type { Disposable, Event } from '../chat/chatPorts.ts';

/** What the release needs of `ZcodeClientHost` (extension/acpClient.ts): its answer to "is this session busy". */
export interface SessionReleaseHost {
  readonly loading: boolean;
  isBusy(sessionId: string): boolean;
  readonly onDidSettle: Event<void>;
  readonly onExtNotification: Event<{ method: string; params: unknown }>;
}

/** What the release needs of the `SessionRegistry` (registry.ts) and the sidebar's `ChatBinding` (its switches). */
export interface ReleasableSessions {
  readonly openSessions: ReadonlySet<string>;
  readonly onDidChangeActiveSession: Event<string | undefined>;
  closeSession(sessionId: string): Promise<void>;
}

export class SessionRelease implements Disposable {
  /** Sessions with a background task running, from the bridge's last list of each. */
  private readonly tasksRunning = new Set<string>();
  private readonly subscriptions: Disposable[];

  /**
   * @param shown whether a chat shows the session
   * @param log where a failed close is reported (the session then just stays open)
   */
  constructor(
    private readonly host: SessionReleaseHost,
    private readonly sessions: ReleasableSessions,
    private readonly shown: (sessionId: string) => boolean,
    private readonly log: (message: string) => void,
  ) {
    this.subscriptions = [
      host.onDidSettle(() => this.sweep()),
      sessions.onDidChangeActiveSession(() => this.sweep()),
      host.onExtNotification((n) => {
        const tasks = readNotification(BackgroundTasksNotification, n);
        if (!tasks) return;
        if (tasks.tasks.some((t) => t.status === 'running')) return void this.tasksRunning.add(tasks.sessionId);
        if (this.tasksRunning.delete(tasks.sessionId)) this.sweep();
      }),
    ];
  }

  /** What chats show or what runs may have changed: close every open session nobody needs. */
  sweep(): void {
    if (this.host.loading) return;
    for (const sessionId of this.sessions.openSessions) {
      if (this.shown(sessionId) || this.host.isBusy(sessionId) || this.tasksRunning.has(sessionId)) continue;
      this.sessions.closeSession(sessionId).catch((error: unknown) => {
        this.log(`could not close session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }

  dispose(): void {
    for (const s of this.subscriptions.splice(0)) s.dispose();
  }
}
