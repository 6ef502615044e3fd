/**
 * The zcode calls the session table (sessionTable.ts) makes for one runtime: creating its zcode
 * session (keeping tools the build cannot serve from the model), resuming and re-subscribing it
 * after a restart without losing or repeating an event, and re-applying the model the user chose.
 */
import { CONFIG_ID, modelSelectionFor } from '../../translate/config.ts';
import type { ZcodeBackend, ZcodeMcpServer } from '../../zcode/backend.ts';
import type { SessionRuntime } from './sessionRuntime.ts';
import type { SessionManagerOptions } from './sessionTable.ts';

/** `session/create`, keeping tools this build cannot serve from the model (automation.ts). */
export async function createZcodeSession(
  options: Pick<SessionManagerOptions, 'backend' | 'automation' | 'defaultMode'>,
  cwd: string,
  mcpServers: ZcodeMcpServer[] | undefined,
  mode = options.defaultMode,
): Promise<Awaited<ReturnType<ZcodeBackend['createSession']>>> {
  const { backend, automation } = options;
  const toolDenylist = await automation?.denylist();
  const base = { workspacePath: cwd, mode, mcpServers };
  try {
    return await backend.createSession({ ...base, ...(toolDenylist ? { toolDenylist } : {}) });
  } catch (error) {
    if (!toolDenylist || !automation?.rejected(error)) throw error;
    return backend.createSession(base);
  }
}

/**
 * Make the runtime's subscription current (called through `SessionManager.ensureOpen`): resume the
 * zcode session unless active in this backend generation, then subscribe with `afterSeq`.
 */
export async function openRuntime(options: Pick<SessionManagerOptions, 'backend' | 'logger'>, runtime: SessionRuntime, generation: number): Promise<void> {
  const { backend } = options;
  if (runtime.activeIn !== generation) {
    await resumeRuntime(backend, runtime, generation);
    await reapplyModel(options, runtime);
  }
  if (runtime.subscribedIn !== generation) {
    const asked = runtime.lastSeq;
    await backend.subscribe({ sessionId: runtime.zcodeId, afterSeq: asked, includeSnapshot: false }, { onSubscribed: ({ eventSeq }) => (runtime.lastSeq = startingSeq(asked, runtime.lastSeq, eventSeq)) });
    runtime.subscribedIn = generation;
  }
}

/** `session/resume` of the runtime's zcode session (with the client's MCP servers: zcode keeps none), active from now in `generation`. */
export async function resumeRuntime(backend: Pick<ZcodeBackend, 'resumeSession'>, runtime: SessionRuntime, generation: number): Promise<void> {
  await backend.resumeSession({ sessionId: runtime.zcodeId, workspacePath: runtime.cwd, mcpServers: runtime.mcpServers });
  runtime.activeIn = generation;
}

/**
 * After a resume (backend restart, eviction) zcode may silently fall back to its default model:
 * the user's choice made through this bridge is applied again. A failure is
 * logged, never fatal: the turn still runs, on zcode's model.
 */
async function reapplyModel(options: Pick<SessionManagerOptions, 'backend' | 'logger'>, runtime: SessionRuntime): Promise<void> {
  if (!runtime.chosenModel) return;
  try {
    const thoughtLevel = runtime.configOptions.find((o) => o.id === CONFIG_ID.thoughtLevel)?.currentValue;
    const selection = modelSelectionFor(runtime.settings, runtime.chosenModel, typeof thoughtLevel === 'string' ? thoughtLevel : undefined);
    await options.backend.setModel({ sessionId: runtime.zcodeId, ...selection });
    options.logger.info(`re-applied model ${runtime.chosenModel} to ${runtime.zcodeId} after resuming it`);
  } catch (error) {
    options.logger.warn(`could not re-apply model ${runtime.chosenModel} to ${runtime.zcodeId}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The seq a subscription's de-duplication starts from, decided by comparing numbers (never by
 * when an event arrived relative to the answer): `asked` is the `afterSeq` the subscribe was sent
 * with, `handled` the highest seq handled by now, `eventSeq` zcode's current seq from the answer.
 * - First subscribe: start after what already happened, keeping any newer event already handled.
 * - zcode's seq below the one asked for: the numbering restarted (a build that does not persist
 *   it); follow it, or every new event would be dropped as a duplicate.
 * - Otherwise the stream resumes after `asked` (replayed events are de-duplicated as they come).
 */
export function startingSeq(asked: number | undefined, handled: number | undefined, eventSeq: number | undefined): number | undefined {
  if (typeof eventSeq !== 'number') return handled;
  if (asked === undefined) return handled === undefined ? eventSeq : Math.max(handled, eventSeq);
  return eventSeq < asked ? eventSeq : handled;
}
