/**
 * The `BridgeContext` (context.ts) the ACP core gives the features layered on it, the `_zcode/*`
 * extension methods and the slash commands: session handles over the core's runtimes, updates and
 * notifications through its pipe, config changes, idle waits. Built once by bridge.ts.
 */
import type { ZcodeBackend } from '../zcode/backend.ts';
import type { Logger } from '../logger.ts';
import type { BridgeContext, SessionHandle } from './context.ts';
import type { CommandCatalog } from './extensions/commandCatalog.ts';
import type { QuotaService } from './extensions/quota.ts';
import type { ZcodeFeatures } from './extensions/capabilities.ts';
import type { ConfigService } from './sessions/configOptions.ts';
import type { SessionRuntime } from './sessions/sessionRuntime.ts';
import type { SessionManager } from './sessions/sessionTable.ts';
import type { ClientRegistry } from './transport/clients.ts';
import { notifyAliases } from './turns/signals.ts';
import type { TurnEngine } from './turns/turns.ts';

/** The parts of the core the context is made of. */
export interface ContextCore {
  readonly backend: ZcodeBackend;
  readonly logger: Logger;
  readonly registry: ClientRegistry;
  readonly commands: CommandCatalog;
  readonly quota: QuotaService;
  readonly features: ZcodeFeatures;
  readonly sessions: SessionManager;
  readonly turns: TurnEngine;
  readonly config: ConfigService;
}

export function coreContext(core: ContextCore): BridgeContext {
  const handle = (acpId: string, runtime: SessionRuntime): SessionHandle => {
    return {
      acpSessionId: acpId,
      zcodeSessionId: runtime.zcodeId,
      cwd: runtime.cwd,
      translator: runtime.translator,
      get settings() {
        return runtime.settings;
      },
      get running() {
        return core.turns.isRunning(runtime);
      },
      get announcedCheckpoints() {
        return runtime.checkpoints;
      },
      get configOptions() {
        return runtime.configOptions;
      },
      get mcpServers() {
        return runtime.mcpServers;
      },
    };
  };
  return {
    backend: core.backend,
    logger: core.logger,
    get locale() {
      return core.sessions.locale;
    },
    clients: core.registry,
    commands: core.commands,
    quota: core.quota,
    features: core.features,
    materialize: async (acpId) => handle(acpId, await core.sessions.materialize(acpId)),
    peek: (acpId) => {
      const runtime = core.sessions.peek(acpId);
      return runtime ? handle(acpId, runtime) : undefined;
    },
    sendUpdates: (acpId, updates) => {
      const runtime = core.sessions.peek(acpId);
      if (runtime) {
        core.sessions.events.emit(runtime, updates);
        // Out now: the caller's response (e.g. a slash command's) must follow its text.
        core.sessions.events.flush(runtime);
      } else for (const update of updates) core.registry.broadcast('session/update', { sessionId: acpId, update });
    },
    notifySession: (sessionId, notification, params) => {
      const runtime = core.sessions.peek(sessionId) ?? core.sessions.byZcodeId(sessionId);
      core.sessions.events.flush(runtime);
      notifyAliases(core.registry, runtime && runtime.aliases.size > 0 ? runtime.aliases : [sessionId], notification, params);
    },
    applyConfig: async (acpId, patch) => core.config.apply(await core.sessions.materialize(acpId), patch),
    onSignal: (listener) =>
      core.sessions.events.onSignal(({ runtime, signal }) => {
        for (const alias of runtime.aliases) listener(alias, signal);
      }),
    whenIdle: async (acpId) => {
      const runtime = core.sessions.peek(acpId);
      if (runtime) await core.turns.whenIdle(runtime);
    },
    renameLocally: (acpId, title) => {
      const runtime = core.sessions.peek(acpId);
      if (runtime) core.turns.titles.renameLocally(runtime, title);
    },
  };
}
