/**
 * Translator signals that are not about ending a prompt (turns.ts handles those): they become
 * notifications to every client.
 * - `steer` → `SteerStateNotification` `{sessionId, state}` (a "queued" chip in UIs);
 * - `background_tasks` → `BackgroundTasksNotification` `{sessionId, tasks}` (the full list, so the
 *   VS Code tree and remote clients need not parse cards);
 * - `config` (zcode changed mode/model/thought level itself) → `config_option_update` /
 *   `current_mode_update` (configOptions.ts);
 * - `title` → `session_info_update` (titles.ts);
 * - `checkpoint` (`checkpoint.created`) → `CheckpointsChangedNotification` `{sessionId, checkpointId?}`,
 *   so a client refreshes its fork / rewind pickers (`CheckpointsRequest`).
 * (The notifications are declared in contractDescriptors.ts.)
 */
import type { ConfigPatch } from '../../translate/config.ts';
import type { ClientRegistry } from '../transport/clients.ts';
import type { ConfigService } from '../sessions/configOptions.ts';
import { assertNever } from '../requestErrors.ts';
import { BackgroundTasksNotification, CheckpointsChangedNotification, SteerStateNotification } from '../extensions/contractDescriptors.ts';
import type { ExtensionNotification, SessionNotificationParams } from '../extensions/contractDescriptors.ts';
import type { SessionRuntime } from '../sessions/sessionRuntime.ts';
import type { SessionTitles } from '../sessions/titles.ts';
import type { TurnSignal } from '../translation.ts';


export interface SignalContext {
  runtime: SessionRuntime;
  signal: TurnSignal;
  registry: ClientRegistry;
  titles: SessionTitles;
  config: ConfigService;
}

export function handleSignal({ runtime, signal, registry, titles, config }: SignalContext): void {
  switch (signal.type) {
    case 'turn_started':
    case 'turn_completed':
    case 'turn_failed':
    case 'turn_terminal':
    case 'compaction':
      return;
    case 'steer': {
      // One notification per steer zcode names (current builds), else one for "the" steer.
      const text = signal.text ? { text: signal.text } : {};
      if (!signal.queueItemIds) notifyAliases(registry, runtime.aliases, SteerStateNotification, { state: signal.state, ...text });
      else for (const queueItemId of signal.queueItemIds) notifyAliases(registry, runtime.aliases, SteerStateNotification, { state: signal.state, queueItemId, ...text });
      return;
    }
    case 'background_tasks':
      notifyAliases(registry, runtime.aliases, BackgroundTasksNotification, { tasks: signal.tasks });
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
      titles.fromEvent(runtime, signal.title, signal.source);
      return;
    case 'checkpoint':
      if (signal.checkpointId && !runtime.checkpoints.some((c) => c.checkpointId === signal.checkpointId)) {
        runtime.checkpoints.push({ checkpointId: signal.checkpointId, ...(signal.createdAt ? { createdAt: signal.createdAt } : {}), ...(signal.label ? { label: signal.label } : {}), ...(signal.turnId ? { turnId: signal.turnId } : {}) });
      }
      notifyAliases(registry, runtime.aliases, CheckpointsChangedNotification, signal.checkpointId ? { checkpointId: signal.checkpointId } : {});
      return;
    default:
      assertNever(signal, 'signal');
  }
}

/**
 * A notification about one session, once per ACP id naming it (clients ignore ids they do not
 * know; a client that opened the session under its real id must get it too).
 */
export function notifyAliases<D extends ExtensionNotification>(registry: ClientRegistry, aliases: Iterable<string>, notification: D, params: SessionNotificationParams<D>): void {
  // `sessionId` first, as every notification of the bridge has it (a `sessionId` in params is replaced).
  const { sessionId: _replaced, ...rest } = params as Record<string, unknown>;
  for (const sessionId of aliases) registry.broadcast(notification.method, { sessionId, ...rest });
}
