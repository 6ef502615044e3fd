/**
 * The seam between the ACP core (bridge.ts, sessionTable.ts, turns.ts) and the features layered on it:
 * the `_zcode/*` extension methods (extensionMethods.ts) and the slash commands (slashCommands.ts).
 * Those files receive a `BridgeContext` and never reach into the core's internals, so the core can
 * change without breaking them and they can be tested against the same contract.
 */
import type { ContentBlock, PromptResponse, SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Disposable, ZcodeBackend, ZcodeMcpServer } from '../zcode/backend.ts';
import type { Logger } from '../logger.ts';
import type { SessionSettings } from '../zcode/protocol.ts';
import type { ClientRegistry } from './transport/clients.ts';
import type { CommandCatalog } from './extensions/commandCatalog.ts';
import type { QuotaService } from './extensions/quota.ts';
import type { ZcodeFeatures } from './extensions/capabilities.ts';
import type { CheckpointInfo, ExtensionNotification, SessionNotificationParams } from './extensions/contractDescriptors.ts';
import type { TranslatorState, TurnSignal } from './translation.ts';

/** A live zcode session as seen through one ACP session id. */
export interface SessionHandle {
  /** The ACP id the client used (a lazy placeholder or a real zcode id). */
  readonly acpSessionId: string;
  /** The zcode session behind it (materialized: always set). */
  readonly zcodeSessionId: string;
  readonly cwd: string;
  /** The session's translator state (tool cache, background tasks …). Mutated only by the core and translate/. */
  readonly translator: TranslatorState;
  /** zcode's settings as last read or changed (mode, model, thought level). */
  readonly settings: SessionSettings | undefined;
  /** The session's config options as announced (they also list the modes the build takes, zcode/buildModes.ts). */
  readonly configOptions?: readonly SessionConfigOption[];
  /** Whether a prompt turn is running right now (steer needs one; compact prefers none). */
  readonly running: boolean;
  /**
   * Checkpoints zcode announced in this process (`checkpoint.created`, current builds), oldest first:
   * the list `_zcode/session/checkpoints` offers where the build has no `session/checkpoints`.
   */
  readonly announcedCheckpoints?: readonly CheckpointInfo[];
  /** The client's MCP servers for this session, in zcode's shape (`/mcp` asks zcode about them). */
  readonly mcpServers: readonly ZcodeMcpServer[];
}

/** Config changes the core knows how to apply (and announce with config_option_update); `model` is a model id. */
export type { ConfigPatch } from '../translate/config.ts';
import type { ConfigPatch } from '../translate/config.ts';
import type { BridgeLocale } from '../l10n/messages.ts';

export interface BridgeContext {
  readonly backend: ZcodeBackend;
  readonly logger: Logger;
  readonly clients: ClientRegistry;
  /** The slash menu per session, with zcode's own commands (commandCatalog.ts). */
  readonly commands: CommandCatalog;
  /** The GLM Coding Plan quota, read from the provider (quota.ts). */
  readonly quota: QuotaService;
  /** What the running zcode can do (capabilities.ts): probed once per process. */
  readonly features: ZcodeFeatures;
  /**
   * Resolve an ACP session id to its live zcode session, creating the zcode session of a lazy
   * placeholder and resuming/re-subscribing after a backend restart as needed.
   * Rejects with `RequestError` -32002 (data.sessionId) for an id the bridge does not know.
   */
  materialize(acpSessionId: string): Promise<SessionHandle>;
  /** The handle if the session is known and already materialized; never creates anything. */
  peek(acpSessionId: string): SessionHandle | undefined;
  /** Send session updates for this session to every client (in order). */
  sendUpdates(acpSessionId: string, updates: readonly SessionUpdate[]): void;
  /**
   * Broadcast an extension notification about one session the way the core sends its own
   * (`BackgroundTasksNotification`, `SteerStateNotification`): once per ACP id naming the session — a
   * placeholder and its real zcode id may both be open — each with `sessionId` set to that id.
   * `sessionId` may be an ACP id or a zcode session id; one that no live session has goes out once
   * under that id. Held streaming text of the session is sent first.
   */
  notifySession<D extends ExtensionNotification>(sessionId: string, notification: D, params: SessionNotificationParams<D>): void;
  /** Apply a config change through zcode, update the core's view and announce it to every client. */
  applyConfig(acpSessionId: string, patch: ConfigPatch): Promise<void>;
  /** Every turn/lifecycle signal the translator produces, for every session (compact waits on `compaction`). */
  onSignal(listener: (acpSessionId: string, signal: TurnSignal) => void): Disposable;
  /** Resolves when no prompt turn is running or queued for the session. */
  whenIdle(acpSessionId: string): Promise<void>;
  /** Give the session a title the bridge keeps itself (announced as `session_info_update`); zcode's generated titles no longer replace it. */
  renameLocally(acpSessionId: string, title: string): void;
  /** The language of the bridge's own words now (l10n/language.ts): slash command replies use it. */
  readonly locale: BridgeLocale;
}

/**
 * The slash-command hook in the prompt path. Called for every prompt once it holds the session
 * (its turn in the session's FIFO has come), except `/steer`, which is called at once so that it
 * reaches a running turn (`steersRunningTurn`, slashCommands.ts); return undefined to let the
 * prompt go to zcode unchanged.
 * A handled command reports its outcome itself (agent text via `ctx.sendUpdates`) and returns the
 * prompt response (normally `{stopReason: 'end_turn'}`). Throw a `RequestError` for user errors.
 * `signal` is the prompt's: it aborts on `session/cancel` of the session and on `$/cancel_request`
 * (and when the requesting client disconnects); a command that waits must stop on it. A response
 * returned after a cancel goes out as `cancelled` (its `_meta` kept). A `PromptRewrite` sends
 * other text to zcode instead.
 */
export type SlashCommandRunner = (
  ctx: BridgeContext,
  call: {
    sessionId: string;
    prompt: readonly ContentBlock[];
    signal: AbortSignal;
    /**
     * Hold the session's events from now until this prompt's response has been written (a command
     * whose reply must reach the client before what zcode does next). Never for a command that
     * waits for an event of the session itself: that would wait forever.
     */
    holdEvents?: () => void;
    /**
     * The prompt holds the session (it waited its turn): a command must not wait for the session
     * to become idle, which would wait for itself.
     */
    holdsSession?: boolean;
  },
) => Promise<PromptResponse | PromptRewrite | undefined>;

/**
 * A command that becomes another prompt for zcode (a skill invocation, `/init`): the turn runs as if
 * the client had sent `sendInstead`, queued like any prompt.
 */
export interface PromptRewrite {
  sendInstead: ContentBlock[];
}
