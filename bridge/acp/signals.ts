/**
 * Translator signals that are not about ending a prompt (turns.ts handles those): they become
 * notifications to every client.
 * - `steer` → `_zcode/session/steerState` `{sessionId, state}` (a "queued" chip in UIs);
 * - `background_tasks` → `_zcode/session/backgroundTasks` `{sessionId, tasks}` (the full list, so the
 *   VS Code tree and remote clients need not parse cards);
 * - `config` (zcode changed mode/model/thought level itself) → `config_option_update` /
 *   `current_mode_update` (configOptions.ts);
 * - `title` → `session_info_update`;
 * - `checkpoint` (`checkpoint.created`) → `_zcode/session/checkpointsChanged` `{sessionId, checkpointId?}`,
 *   so a client refreshes its fork / rewind pickers (`_zcode/session/checkpoints`).
 */
import type { ConfigPatch } from '../translate/config.ts';
import type { ClientRegistry } from './clients.ts';
import type { ConfigService } from './configOptions.ts';
import { assertNever } from './errors.ts';
import type { SessionManager, SessionRuntime } from './sessions.ts';
import type { TurnSignal } from './translation.ts';

export const STEER_STATE_NOTIFICATION = '_zcode/session/steerState';
export const BACKGROUND_TASKS_NOTIFICATION = '_zcode/session/backgroundTasks';
export const CHECKPOINTS_CHANGED_NOTIFICATION = '_zcode/session/checkpointsChanged';

export interface SignalContext {
  runtime: SessionRuntime;
  signal: TurnSignal;
  registry: ClientRegistry;
  sessions: SessionManager;
  config: ConfigService;
}

export function handleSignal({ runtime, signal, registry, sessions, config }: SignalContext): void {
  switch (signal.type) {
    case 'turn_started':
    case 'turn_completed':
    case 'turn_failed':
    case 'turn_terminal':
    case 'compaction':
      return;
    case 'steer':
      notifyAliases(registry, runtime.aliases, STEER_STATE_NOTIFICATION, { state: signal.state });
      return;
    case 'background_tasks':
      notifyAliases(registry, runtime.aliases, BACKGROUND_TASKS_NOTIFICATION, { tasks: signal.tasks });
      return;
    case 'config': {
      const patch: ConfigPatch = {};
      if (signal.mode !== undefined) patch.mode = signal.mode;
      if (signal.model !== undefined) patch.model = signal.model;
      if (signal.thoughtLevel !== undefined) patch.thoughtLevel = signal.thoughtLevel;
      config.changed(runtime, patch);
      return;
    }
    case 'title':
      // `session.titleUpdated` (current builds) replaces reading the title after the first turn (turns.ts).
      if (signal.source !== undefined) runtime.titleFromEvents = true;
      if (runtime.title === signal.title) return;
      runtime.title = signal.title;
      sessions.emit(runtime, [{ sessionUpdate: 'session_info_update', title: signal.title, updatedAt: new Date().toISOString() }]);
      return;
    case 'checkpoint':
      if (signal.checkpointId && !runtime.checkpoints.some((c) => c.checkpointId === signal.checkpointId)) {
        runtime.checkpoints.push({ checkpointId: signal.checkpointId, ...(signal.createdAt ? { createdAt: signal.createdAt } : {}), ...(signal.label ? { label: signal.label } : {}), ...(signal.turnId ? { turnId: signal.turnId } : {}) });
      }
      notifyAliases(registry, runtime.aliases, CHECKPOINTS_CHANGED_NOTIFICATION, signal.checkpointId ? { checkpointId: signal.checkpointId } : {});
      return;
    default:
      assertNever(signal, 'signal');
  }
}

/**
 * A notification about one session, once per ACP id naming it (clients ignore ids they do not
 * know; a client that opened the session under its real id must get it too).
 */
export function notifyAliases(registry: ClientRegistry, aliases: Iterable<string>, method: string, params: Record<string, unknown>): void {
  // `sessionId` first, as every notification of the bridge has it (a `sessionId` in params is replaced).
  const { sessionId: _replaced, ...rest } = params;
  for (const sessionId of aliases) registry.broadcast(method, { sessionId, ...rest });
}
