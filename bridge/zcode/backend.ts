/**
 * The contract between the ACP layer (bridge/acp) and the zcode backend client (bridge/zcode).
 *
 * The ACP layer programs against `ZcodeBackend` only; `createZcodeBackend()` (client.ts) is the
 * real implementation that locates, spawns and talks to `zcode app-server --stdio`.
 */
import type {
  CancelBackgroundTaskResult,
  CheckpointTarget,
  CreateSessionResult,
  ForkResult,
  GoalAction,
  GoalResult,
  Interaction,
  InteractionReply,
  ListSessionsResult,
  MessagesResult,
  ReadSessionResult,
  SubscribeResult,
  WireError,
  ZcodeEvent,
} from './protocol.ts';
import type { CheckpointsResult, CompactResult, McpListResult, RewindResult } from './operationShapes.ts';
import type { PluginListResult, SkillCatalogResult } from './catalogShapes.ts';
import type { V4Commands } from './v4/v4Commands.ts';
import type { Logger } from '../logger.ts';
import type { V4Ack, V4CommandKey, V4CommandsQueryResult, V4Envelope, V4FileRewindPreview, V4RowsRange, V4RowTarget } from './v4/v4Shapes.ts';
import type { BridgeLocale } from '../l10n/messages.ts';

export interface Disposable {
  dispose(): void;
}

/** How to find and start zcode. Every field optional: discovery fills the gaps (docs/zcode-protocol.md "Starting zcode"). */
export interface LocateOptions {
  /** Explicit CLI path (VS Code setting `zcode.path`); else `ZCODE_BIN`; else PATH; else desktop-app locations. */
  zcodePath?: string;
  /** Node binary for script CLIs (`.js/.cjs/.mjs`): setting `zcode.nodePath`; else `ZCODE_NODE`; else `node` on PATH. */
  nodePath?: string;
  /** Environment used for discovery and the child (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** Extra args placed before `app-server --stdio` (the simulator takes `--profile`, quirk flags …). */
  extraArgs?: string[];
  /** Working directory for the child. */
  cwd?: string;
  /** The language of a "not found" explanation, asked when zcode is looked for (the client's, l10n/messages.ts); else English. */
  locale?: () => BridgeLocale;
}

/** Per-request timeouts in ms; turns are event-driven, so these only bound request/response pairs. */
export interface BackendTimeouts {
  /** Default for every request (e.g. 30 s). */
  requestMs?: number;
  /** Grace period between SIGTERM and SIGKILL on dispose. */
  killGraceMs?: number;
}

export interface BackendOptions extends LocateOptions {
  logger: Logger;
  timeouts?: BackendTimeouts;
}

/**
 * A typed failure of a backend call. `code` is zcode's error code when zcode answered with an
 * error, or one of the bridge-side codes below.
 */
export class ZcodeError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly method?: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ZcodeError';
  }

  static fromWire(method: string, error: WireError): ZcodeError {
    return new ZcodeError(error.message, error.code, method, error.data);
  }
}

/** Bridge-side error codes (outside zcode's range). */
export const BackendErrorCode = {
  /** The request timed out. */
  Timeout: -33001,
  /** The zcode process exited (crash or dispose) while the request was pending. */
  ProcessExited: -33002,
  /** zcode could not be located or started. */
  NotFound: -33003,
  /** zcode is older than 0.14.8 (no `session/subscribe`). */
  Incompatible: -33004,
  /** The backend was disposed. */
  Disposed: -33005,
  /** zcode answered, but the result does not have the shape the bridge relies on. */
  InvalidResponse: -33006,
} as const;

/** Why the process went away. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** true when we asked it to stop (dispose / restart). */
  expected: boolean;
  /** Last stderr lines, for the crash notification. */
  stderrTail: string;
  /** What went wrong, in words, when the bridge knows better than the exit code (start-up failure, output closed). */
  reason?: string;
}

/**
 * Answers one zcode interaction. Re-sent duplicates (same `requestId`) are collapsed by the
 * backend client: the handler is called once, and its reply goes to every id zcode used.
 * The `signal` aborts if the backend goes away before an answer.
 */
export type InteractionHandler = (interaction: Interaction, signal: AbortSignal) => Promise<InteractionReply>;

export type BackendState = 'stopped' | 'starting' | 'ready' | 'crashed';

/**
 * A connection to one zcode app-server process, started lazily on the first call.
 * After a crash the next call starts a fresh process (callers re-subscribe / resume sessions).
 */
export interface ZcodeBackend extends Disposable {
  readonly state: BackendState;
  /** Fires whenever `state` changes. */
  onDidChangeState(listener: (state: BackendState) => void): Disposable;
  /** Fires when the process exits (crash or expected). Pending requests are already rejected. */
  onDidExit(listener: (info: ExitInfo) => void): Disposable;
  /** Every parsed `session/event`, for every session. */
  onEvent(listener: (event: ZcodeEvent) => void): Disposable;
  /**
   * Fires when zcode's reader has delivered everything it had read and stops (waiting for more
   * output, for a message to be dispatched, or yielding mid-burst): the end of a burst of events.
   * Streaming text merged during the burst goes out here (acp/turns/updateSink.ts).
   */
  onDidDrainEvents(listener: () => void): Disposable;
  /** The one handler for interaction requests (the ACP layer installs it). */
  setInteractionHandler(handler: InteractionHandler): void;
  /** Start the process now (otherwise the first request does). Rejects with ZcodeError NotFound/Incompatible. */
  start(): Promise<void>;
  /** Stop the process (SIGTERM then SIGKILL); the next call starts a fresh one. */
  restart(): Promise<void>;

  /**
   * `toolDenylist`: tools zcode must not offer the model in this session (automation.ts); `mcpServers`:
   * the client's servers (sent only when non-empty; zcode does not keep them: re-send on resume).
   */
  createSession(params: CreateSessionParams): Promise<CreateSessionResult>;
  /**
   * `session/close {sessionId, expectedPersistence?}`: zcode drops the live record (a deferred draft
   * entirely); `expectedPersistence` makes zcode refuse when the session is not what the caller thinks.
   */
  closeSession(params: { sessionId: string; expectedPersistence?: SessionPersistence }): Promise<unknown>;
  /** `runtime/capabilities {}`: current builds answer; seed builds answer -32601 (modelDraft.ts asks it once). */
  runtimeCapabilities(): Promise<unknown>;
  listSessions(params: { workspacePath?: string }): Promise<ListSessionsResult>;
  resumeSession(params: { sessionId: string; workspacePath: string; mcpServers?: ZcodeMcpServer[] }): Promise<unknown>;
  /**
   * `onAccepted` runs when zcode's answer admitting the input is read, at its place in the stream:
   * before any event that follows it is delivered (a promise continuation runs later). The turn
   * engine marks the turn as zcode's there, so the turn's own events are never taken for an
   * earlier turn's.
   */
  send(params: { sessionId: string; content: string; attachments?: ImageAttachment[] }, hooks?: { onAccepted?: () => void }): Promise<unknown>;
  /**
   * Stop the running turn. Fire-and-forget for the caller: sent as a request (current builds drop
   * client notifications and answer `{}`), as a notification on builds that refuse the request.
   */
  stop(params: { sessionId: string }): void;
  read(params: { sessionId: string }): Promise<ReadSessionResult>;
  messages(params: { sessionId: string }): Promise<MessagesResult>;
  /**
   * Throws ZcodeError(Incompatible) on builds without subscribe (0.14.5–0.14.7). `onSubscribed`
   * runs with the result at the answer's place in the stream, before the events the result replays
   * and before any live event after the answer: where a subscriber sets its starting seq.
   */
  subscribe(
    params: { sessionId: string; afterSeq?: number; includeSnapshot?: boolean },
    hooks?: { onSubscribed?: (result: SubscribeResult) => void },
  ): Promise<SubscribeResult>;
  fork(params: { sessionId: string; target: CheckpointTarget }): Promise<ForkResult>;
  rewind(params: { sessionId: string; target: CheckpointTarget; cascade?: boolean }): Promise<RewindResult>;
  goal(params: { sessionId: string; action: GoalAction; objective?: string }): Promise<GoalResult>;
  /** `instructions`: what the summary should keep. */
  compact(params: { sessionId: string; instructions?: string }): Promise<CompactResult>;
  steer(params: { sessionId: string; content: string }): Promise<unknown>;
  setMode(params: { sessionId: string; mode: string }): Promise<unknown>;
  setThoughtLevel(params: { sessionId: string; thoughtLevel: string }): Promise<unknown>;
  /**
   * Current builds take `{sessionId, model:{providerId, modelId, options?:{reasoningLevel}}}`; seed
   * builds `{sessionId, modelId}`. With a `providerId` the current shape is tried first and a -32602
   * about the params switches this backend to the legacy shape (docs/zcode-protocol.md, `session/setModel`).
   */
  setModel(params: { sessionId: string; modelId: string; providerId?: string; reasoningLevel?: string }): Promise<unknown>;
  cancelBackgroundTask(params: { sessionId: string; taskId: string }): Promise<CancelBackgroundTaskResult>;
  /** `session/checkpoints` (0.15 builds; current builds answer -32601). */
  checkpoints(params: { sessionId: string }): Promise<CheckpointsResult>;
  /** `mcp/list {workspace, mcpServers?, mode:"status"}` (docs/zcode-protocol.md "Listings, usage and quota"). */
  listMcpServers(params: { workspacePath: string; mcpServers?: readonly ZcodeMcpServer[] }): Promise<McpListResult>;
  /** `skills/referenceCatalog` (current builds; -32601 on older ones). */
  listSkills(params: { workspacePath: string; sessionId?: string }): Promise<SkillCatalogResult>;
  /** `plugins/list` (current builds; -32601 on older ones). */
  listPlugins(params: { workspacePath: string }): Promise<PluginListResult>;
  /** `session/usage {sessionId}` (docs/zcode-protocol.md "Listings, usage and quota"). */
  sessionUsage(params: { sessionId: string }): Promise<Record<string, unknown>>;
  /** `automation/list`: asked to learn whether the build has automation methods (-32601 when not). */
  listAutomations(): Promise<unknown>;

  /**
   * zcode's v4 command surface (current builds): probed once per process, one request at a time,
   * ids, CAS and retries handled (v4Commands.ts). Only for what the legacy methods cannot do.
   */
  readonly v4: V4Commands;
  /** `v4/command`, raw (use `v4`). */
  v4Command(envelope: V4Envelope): Promise<V4Ack>;
  /** `v4/commands/query`, raw (use `v4`). */
  v4QueryCommands(keys: V4CommandKey[]): Promise<V4CommandsQueryResult>;
  /** `v4/conversation/rowsRange`, raw (use `v4`). */
  v4RowsRange(params: { sessionId: string; limit: number; beforeRowId?: number }): Promise<V4RowsRange>;
  /** `v4/conversation/fileRewindPreview`, raw (use `v4`). */
  v4FileRewindPreview(params: { sessionId: string; target: V4RowTarget; baseRevision: number; baseLogEpoch: string }): Promise<V4FileRewindPreview>;
}

/** `immediate` (zcode's default) or `deferred`: a draft, kept in memory only until its first input. */
export type SessionPersistence = 'immediate' | 'deferred';

/** What the bridge sends with `session/create` (every key is one zcode's strict schema lists; see docs/zcode-protocol.md). */
export interface CreateSessionParams {
  workspacePath: string;
  mode?: string;
  toolDenylist?: readonly string[];
  mcpServers?: ZcodeMcpServer[];
  /** Only for the model-list draft (modelDraft.ts); sent only when given. */
  persistence?: SessionPersistence;
}

/** An MCP server in the shape zcode's `session/create` / `session/resume` take (docs/zcode-protocol.md "Listings, usage and quota"). */
export type ZcodeMcpServer =
  | { name: string; command: string; args: string[]; env: Array<{ name: string; value: string }> }
  | { name: string; type: 'http' | 'sse'; url: string; headers: Array<{ name: string; value: string }> };

/** An image attachment for `session/send` (zcode takes image attachments). */
export interface ImageAttachment {
  type: 'image';
  mimeType: string;
  /** base64 data */
  data: string;
  name?: string;
}
