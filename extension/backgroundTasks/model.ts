/**
 * The background-tasks model: what the tree shows, kept apart from the TreeDataProvider so it is
 * testable without VS Code (no `vscode` import here).
 *
 * Input is the bridge's `BackgroundTasksNotification` (the full task list of one session), as the
 * ACP client parsed it with the contract's schema (bridge/acp/extensions/contractSchemas.ts); output of every mutation is a
 * `ModelChange` that tells the view exactly what to refresh: nothing, some items (by id), or
 * everything (the list itself changed).
 */
import type { BackgroundTasksParams } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { BackgroundTaskKind } from '../../shared/backgroundTasks.ts';

/** zcode's statuses plus `cancelling` (our request is on its way). */
export type BackgroundTaskStatus = 'running' | 'cancelling' | 'completed' | 'failed' | 'cancelled' | (string & {});

export interface BackgroundTask {
  readonly sessionId: string;
  readonly id: string;
  readonly kind: BackgroundTaskKind;
  readonly description: string;
  readonly status: BackgroundTaskStatus;
  /** Epoch ms when the task started, when known. */
  readonly startedAt?: number;
  /** Epoch ms when we first saw it finished (for a frozen elapsed time). */
  readonly endedAt?: number;
  readonly outputPath?: string;
  readonly toolCallId?: string;
}

/** What a view must refresh after a model mutation. */
export type ModelChange = { kind: 'none' } | { kind: 'all' } | { kind: 'items'; ids: string[] };

const NONE: ModelChange = { kind: 'none' };
const ALL: ModelChange = { kind: 'all' };

/** true for statuses in which the task still runs (and can be cancelled). */
export function isRunning(status: BackgroundTaskStatus): boolean {
  return status === 'running';
}

/** The model. Holds every session's tasks; the view shows the active session's. */
export class BackgroundTasksModel {
  private readonly sessions = new Map<string, Map<string, BackgroundTask>>();
  private _activeSessionId: string | undefined;

  /** @param now clock (injected for tests) */
  constructor(private readonly now: () => number = Date.now) {}

  get activeSessionId(): string | undefined {
    return this._activeSessionId;
  }

  /** The active session's tasks: running first, then most recently started. */
  tasks(): BackgroundTask[] {
    const tasks = [...(this.sessions.get(this._activeSessionId ?? '')?.values() ?? [])];
    return tasks.sort((a, b) => Number(isRunning(b.status)) - Number(isRunning(a.status)) || (b.startedAt ?? 0) - (a.startedAt ?? 0));
  }

  /** One task of the active session. */
  get(id: string): BackgroundTask | undefined {
    return this.sessions.get(this._activeSessionId ?? '')?.get(id);
  }

  /** Ids of the active session's running tasks (their elapsed time ticks). */
  runningIds(): string[] {
    return this.tasks()
      .filter((t) => isRunning(t.status) || t.status === 'cancelling')
      .map((t) => t.id);
  }

  setActiveSession(sessionId: string | undefined): ModelChange {
    if (sessionId === this._activeSessionId) return NONE;
    this._activeSessionId = sessionId;
    return ALL;
  }

  /** Applies a `BackgroundTasksNotification` (a full list for one session). */
  apply(params: BackgroundTasksParams): ModelChange {
    const parsed = fromNotification(params);
    const previous = this.sessions.get(parsed.sessionId) ?? new Map<string, BackgroundTask>();
    const next = new Map<string, BackgroundTask>();
    const changed: string[] = [];
    for (const wire of parsed.tasks) {
      const old = previous.get(wire.id);
      let status = wire.status;
      // Our cancel is on its way: keep "cancelling" until zcode reports something final.
      if (old?.status === 'cancelling' && status === 'running') status = 'cancelling';
      const finished = !isRunning(status) && status !== 'cancelling';
      const task: BackgroundTask = {
        ...wire,
        sessionId: parsed.sessionId,
        status,
        startedAt: wire.startedAt ?? old?.startedAt ?? this.now(),
        endedAt: finished ? (old?.endedAt ?? this.now()) : undefined,
      };
      next.set(task.id, task);
      if (!old || !sameTask(old, task)) changed.push(task.id);
    }
    const membershipChanged = previous.size !== next.size || [...previous.keys()].some((id) => !next.has(id)) || changed.some((id) => !previous.has(id));
    this.sessions.set(parsed.sessionId, next);
    if (parsed.sessionId !== this._activeSessionId) return NONE;
    if (membershipChanged) return ALL;
    return changed.length ? { kind: 'items', ids: changed } : NONE;
  }

  /** Sets a task's status locally (e.g. `cancelling` while the request runs, `cancelled` after it). */
  setStatus(sessionId: string, id: string, status: BackgroundTaskStatus): ModelChange {
    const tasks = this.sessions.get(sessionId);
    const old = tasks?.get(id);
    if (!tasks || !old || old.status === status) return NONE;
    const finished = !isRunning(status) && status !== 'cancelling';
    tasks.set(id, { ...old, status, endedAt: finished ? (old.endedAt ?? this.now()) : undefined });
    return sessionId === this._activeSessionId ? { kind: 'items', ids: [id] } : NONE;
  }

  /** Forgets a session (closed / dropped). */
  clearSession(sessionId: string): ModelChange {
    const had = this.sessions.delete(sessionId);
    return had && sessionId === this._activeSessionId ? ALL : NONE;
  }

  /** Milliseconds the task has run (frozen once it finished). */
  elapsedMs(task: BackgroundTask): number {
    if (task.startedAt === undefined) return 0;
    return Math.max(0, (task.endedAt ?? this.now()) - task.startedAt);
  }
}

/** "4s", "2m 03s", "1h 02m". */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

interface WireTask {
  id: string;
  kind: BackgroundTaskKind;
  description: string;
  status: string;
  startedAt?: number;
  outputPath?: string;
  toolCallId?: string;
}

/** The notification (parsed by the contract's schema, once, at the boundary) as the model keeps it: times in epoch ms. */
export function fromNotification(params: BackgroundTasksParams): { sessionId: string; tasks: WireTask[] } {
  const tasks = params.tasks.map((task) => ({
    id: task.id,
    kind: task.kind,
    description: task.description,
    status: task.status,
    startedAt: task.startedAt === undefined ? undefined : Date.parse(task.startedAt),
    outputPath: task.outputPath,
    toolCallId: task.toolCallId,
  }));
  return { sessionId: params.sessionId, tasks };
}

function sameTask(a: BackgroundTask, b: BackgroundTask): boolean {
  return a.kind === b.kind && a.description === b.description && a.status === b.status && a.outputPath === b.outputPath && a.startedAt === b.startedAt && a.toolCallId === b.toolCallId;
}
