/**
 * The chat controller on in-memory parts (fakeHost.ts, and a session manager like ClientSessions),
 * with a webview stand-in that applies the snapshots and patches exactly like webview-ui/store.ts:
 * what the chat controller tests and the prompt queue tests drive.
 */
import type { SessionConfigOption, SessionInfo } from '@agentclientprotocol/sdk';
import { DidChangeSnapshotNotification, DidPatchNotification, type IpcCommand, type IpcMessage, type IpcRequest } from '../../../../webview-ui/contract.ts';
import type { ChatSnapshot } from '../../../../webview-ui/viewModel.ts';
import { applyTranscriptOps, itemList, type ChatPatch } from '../../../../webview-ui/transcriptOps.ts';
import { ChatController, type ChatEnvironment, type ChatSessions } from '../../../../extension/chat/chatController.ts';
import type { ChatAttentionEvent, LoadedSession } from '../../../../extension/chat/chatPorts.ts';
import type { DiffSource } from '../../../../extension/chat/toolView.ts';
import { Emitter } from '../../../helpers/emitter.ts';
import { FakeHost } from './fakeHost.ts';

export type Deferred<T> = { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void };
export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

export class FakeSessions implements ChatSessions {
  activeSessionId: string | undefined;
  private readonly active = new Emitter<string | undefined>();
  private readonly options = new Emitter<{ sessionId: string; configOptions: readonly SessionConfigOption[] }>();
  private readonly loads = new Emitter<string>();
  private readonly loaded = new Emitter<LoadedSession>();
  /** Sessions the "bridge" replays only the tail of: the cursor its load answers with. */
  readonly earlierCursors = new Map<string, string>();
  readonly forks: (string | undefined)[] = [];
  onDidLoadSession = this.loaded.event;
  onDidChangeActiveSession = this.active.event;
  onDidChangeConfigOptions = this.options.event;
  onWillLoadSession = this.loads.event;
  private n = 0;
  readonly list: SessionInfo[] = [{ sessionId: 'old', cwd: '/w', title: 'Earlier work', updatedAt: '2026-01-01T00:00:00Z' }];
  constructor(private readonly host: FakeHost) {}
  configOptions(): readonly SessionConfigOption[] | undefined {
    return undefined;
  }
  title(): string | undefined {
    return undefined;
  }
  private setActive(id: string): void {
    if (id === this.activeSessionId) return;
    this.activeSessionId = id;
    this.active.fire(id);
  }
  async newSession(): Promise<string> {
    const id = `s${++this.n}`;
    this.setActive(id);
    return id;
  }
  /**
   * Like ClientSessions.loadSession: announce the load, activate (no event when already active),
   * replay the history (sessions of `list` have one; new ones have none yet).
   */
  async loadSession(id: string): Promise<void> {
    this.loads.fire(id);
    this.setActive(id);
    if (this.list.some((s) => s.sessionId === id)) {
      this.host.update(id, { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'history' } });
      this.host.update(id, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'answer' } });
    }
    const earlierCursor = this.earlierCursors.get(id);
    this.loaded.fire({ sessionId: id, ...(earlierCursor ? { earlierCursor } : {}) });
  }
  async listSessions(): Promise<SessionInfo[]> {
    return this.list;
  }
  async setConfigOption(): Promise<readonly SessionConfigOption[]> {
    return [];
  }
  async fork(checkpointId?: string): Promise<string> {
    this.forks.push(checkpointId);
    return this.newSession();
  }
  private restored: Promise<string | undefined> | undefined;
  /** Like ClientSessions.restore: loads the remembered active session, once. */
  restore(): Promise<string | undefined> {
    this.restored ??= (async () => {
      const id = this.activeSessionId;
      if (id) await this.loadSession(id);
      return id;
    })();
    return this.restored;
  }
}

/** @param remembered the active session remembered from an earlier window (restored on start) */
export function setup(remembered?: string, extraEnv: Partial<ChatEnvironment> = {}) {
  const host = new FakeHost();
  const sessions = new FakeSessions(host);
  sessions.activeSessionId = remembered;
  const opened: DiffSource[] = [];
  const copied: string[] = [];
  const notified: ChatAttentionEvent[] = [];
  const pendingCounts: number[] = [];
  const env: ChatEnvironment = {
    openDiff: async (s) => void opened.push(s),
    openLocation: async () => {},
    copy: async (text) => void copied.push(text),
    notify: (event) => void notified.push(event),
    pendingChanged: (count) => void pendingCounts.push(count),
    attachContext: async () => [],
    log: () => {},
    errorMessage: (e) => (e instanceof Error ? e.message : String(e)),
    ...extraEnv,
  };
  const controller = new ChatController(host, sessions, env);
  const posted: IpcMessage[] = [];
  controller.attach((m) => posted.push(m));
  // The webview side: applies snapshots and patches exactly like webview-ui/store.ts.
  const view = { seq: 0, list: itemList(), session: undefined as ChatSnapshot['session'] | undefined, gaps: 0 };
  const sync = () => {
    controller.flush();
    // As postMessage delivers them: through JSON (a field set to undefined does not arrive).
    for (const m of posted.splice(0).map((raw) => JSON.parse(JSON.stringify(raw)) as IpcMessage)) {
      if (DidChangeSnapshotNotification.is(m)) {
        const s = m.params as ChatSnapshot;
        Object.assign(view, { seq: s.seq, list: itemList(s.items.slice()), session: s.session });
      } else if (DidPatchNotification.is(m)) {
        const p = m.params as ChatPatch;
        if (p.seq !== view.seq + 1) view.gaps++;
        view.seq = p.seq;
        applyTranscriptOps(view.list, p.ops);
        view.session = { ...view.session!, ...p.session };
      } else replies.push(m);
    }
  };
  const replies: IpcMessage[] = [];
  let id = 0;
  const send = <P>(cmd: IpcCommand<P> | IpcRequest<P, unknown>, params: P) => controller.receive({ id: `w${++id}`, method: cmd.method, params });
  return { host, sessions, controller, posted, view, sync, send, opened, replies, copied, notified, pendingCounts };
}

export const tick = () => new Promise((r) => setImmediate(r));

