/**
 * The typed zcode methods (docs/zcode-protocol.md "Sessions"): how each call's params
 * are built and which schema its result is parsed with. Wire `noun/verb` maps to `verbNoun`.
 *
 * Abstract over `call` / `notify` so that this file is only the method table; the transport,
 * timeouts and lifecycle live in client.ts.
 */
import path from 'node:path';
import type * as z from 'zod';
import { ZcodeError } from '../backend.ts';
import type { CreateSessionParams, ImageAttachment, SessionPersistence, ZcodeBackend, ZcodeMcpServer } from '../backend.ts';
import {
  AnyResult,
  CancelBackgroundTaskResult,
  CreateSessionResult,
  ForkResult,
  GoalResult,
  ListSessionsResult,
  MessagesResult,
  ReadSessionResult,
  SubscribeResult,
} from '../protocol.ts';
import type { CheckpointTarget, GoalAction } from '../protocol.ts';
import { CheckpointsResult, CompactResult, McpListResult, RewindResult, SessionUsageResult } from '../operationShapes.ts';
import { PluginListResult, SkillCatalogResult } from '../catalogShapes.ts';
import { V4Ack, V4CommandsQueryResult, V4FileRewindPreview, V4RowsRange } from '../v4/v4Shapes.ts';
import type { V4CommandKey, V4Envelope, V4RowTarget } from '../v4/v4Shapes.ts';

/** The one `deliveryKind` the bridge subscribes with: a continuous push, like the desktop app. */
const DELIVERY_KIND = 'desktop-continuous';

/**
 * The `workspaceKey` zcode groups sessions by: the normalized workspace path itself (resolved,
 * no trailing separator). A path is stable across restarts and machines' reinstalls, readable in
 * zcode's own session list, and the same folder always yields the same key, so `session/list`
 * finds the sessions `session/create` made. (A hash would hide nothing and be harder to debug.)
 */
export function workspaceKeyFor(workspacePath: string): string {
  const resolved = path.resolve(workspacePath);
  const root = path.parse(resolved).root;
  return resolved.length > root.length ? resolved.replace(/[\\/]+$/, '') : resolved;
}

/** The `workspace` object zcode takes in create/list/resume. */
function workspaceParam(workspacePath: string): { workspacePath: string; workspaceKey: string } {
  return { workspacePath, workspaceKey: workspaceKeyFor(workspacePath) };
}

type Methods = Omit<
  ZcodeBackend,
  'state' | 'onDidChangeState' | 'onDidExit' | 'onEvent' | 'onDidDrainEvents' | 'setInteractionHandler' | 'start' | 'restart' | 'dispose' | 'v4'
>;

export abstract class ZcodeMethods implements Methods {
  /**
   * One request: started lazily, timed out, errors explained, result parsed with `schema`.
   * `atAnswer` gets the parsed result at the answer's place in the stream (connection.ts `onAnswer`).
   */
  protected abstract call<S extends z.ZodType>(method: string, params: unknown, schema: S, atAnswer?: (result: z.infer<S>) => void): Promise<z.infer<S>>;
  /** One notification to the running process (none is started for it). */
  protected abstract notify(method: string, params: unknown): void;
  /** `session/stop` to the running process, in the form it accepts (client.ts). */
  protected abstract sendStop(sessionId: string): void;
  /** Say something once per backend (a shape fallback); `key` de-duplicates. */
  protected abstract noteOnce(key: string, message: string): void;
  /** Replayed events a subscribe result carries (current builds: `events`), delivered like live ones. */
  protected abstract deliverEvents(events: readonly unknown[]): void;

  /** Set once a build refused the current `session/setModel` shape: send the legacy one from then on. */
  private legacySetModel = false;

  /**
   * `mode` and `persistence` are sent only when given; otherwise zcode applies its own defaults. The
   * keys sent are the ones every current build's strict schema lists (3.15 dropped agentMemory,
   * officialMcpServers and confineFileToolsToWorkspace: the bridge never sends them).
   */
  createSession(params: CreateSessionParams): Promise<CreateSessionResult> {
    const denied = params.toolDenylist?.length ? { toolDenylist: [...params.toolDenylist] } : {};
    const mcp = params.mcpServers?.length ? { mcpServers: params.mcpServers } : {};
    const persistence = params.persistence === undefined ? {} : { persistence: params.persistence };
    return this.call('session/create', { workspace: workspaceParam(params.workspacePath), mode: params.mode, ...persistence, ...denied, ...mcp }, CreateSessionResult);
  }

  closeSession(params: { sessionId: string; expectedPersistence?: SessionPersistence }): Promise<unknown> {
    const expected = params.expectedPersistence === undefined ? {} : { expectedPersistence: params.expectedPersistence };
    return this.call('session/close', { sessionId: params.sessionId, ...expected }, AnyResult);
  }

  runtimeCapabilities(): Promise<unknown> {
    return this.call('runtime/capabilities', {}, AnyResult);
  }

  listSessions(params: { workspacePath?: string }): Promise<ListSessionsResult> {
    return this.call('session/list', params.workspacePath === undefined ? {} : { workspace: workspaceParam(params.workspacePath) }, ListSessionsResult);
  }

  resumeSession(params: { sessionId: string; workspacePath: string; mcpServers?: ZcodeMcpServer[] }): Promise<unknown> {
    const mcp = params.mcpServers?.length ? { mcpServers: params.mcpServers } : {};
    return this.call('session/resume', { sessionId: params.sessionId, workspace: workspaceParam(params.workspacePath), ...mcp }, AnyResult);
  }

  send(params: { sessionId: string; content: string; attachments?: ImageAttachment[] }, hooks: { onAccepted?: () => void } = {}): Promise<unknown> {
    const { sessionId, content, attachments } = params;
    const { onAccepted } = hooks;
    return this.call('session/send', attachments?.length ? { sessionId, content, attachments } : { sessionId, content }, AnyResult, onAccepted && (() => onAccepted()));
  }

  /**
   * Seed builds took `session/stop` as a notification; current builds drop every client frame
   * without an id ("ZCode Protocol notification ignored") and answer the request `{}`
   * (docs/zcode-protocol.md "Framing"). client.ts sends the request and falls back per process.
   */
  stop(params: { sessionId: string }): void {
    this.sendStop(params.sessionId);
  }

  read(params: { sessionId: string }): Promise<ReadSessionResult> {
    return this.call('session/read', { sessionId: params.sessionId }, ReadSessionResult);
  }

  messages(params: { sessionId: string }): Promise<MessagesResult> {
    return this.call('session/messages', { sessionId: params.sessionId }, MessagesResult);
  }

  /**
   * Start the `session/event` push for a session. `afterSeq` replays the events after that `seq`
   * (pass the last one seen to resume a stream after a reconnect); omitted, only new events flow.
   */
  subscribe(
    params: { sessionId: string; afterSeq?: number; includeSnapshot?: boolean },
    hooks: { onSubscribed?: (result: SubscribeResult) => void } = {},
  ): Promise<SubscribeResult> {
    const { sessionId, afterSeq, includeSnapshot } = params;
    return this.call(
      'session/subscribe',
      { sessionId, deliveryKind: DELIVERY_KIND, includeSnapshot: includeSnapshot ?? false, ...(afterSeq === undefined ? {} : { afterSeq }) },
      SubscribeResult,
      (result) => {
        hooks.onSubscribed?.(result);
        // Current builds return the events after `afterSeq` in the result; seed builds re-send them
        // as notifications. Delivered here, at the answer's place: before the live events after it.
        if (result.events?.length) this.deliverEvents(result.events);
      },
    );
  }

  fork(params: { sessionId: string; target: CheckpointTarget }): Promise<ForkResult> {
    return this.call('session/fork', { sessionId: params.sessionId, target: params.target }, ForkResult);
  }

  /** `cascade` uses `session/rewindCascade` (some builds only). */
  rewind(params: { sessionId: string; target: CheckpointTarget; cascade?: boolean }): Promise<RewindResult> {
    return this.call(params.cascade ? 'session/rewindCascade' : 'session/rewind', { sessionId: params.sessionId, target: params.target }, RewindResult);
  }

  goal(params: { sessionId: string; action: GoalAction; objective?: string }): Promise<GoalResult> {
    return this.call('session/goal', { sessionId: params.sessionId, action: params.action, objective: params.objective }, GoalResult);
  }

  compact(params: { sessionId: string; instructions?: string }): Promise<CompactResult> {
    const { sessionId, instructions } = params;
    return this.call('session/compact', instructions === undefined ? { sessionId } : { sessionId, instructions }, CompactResult);
  }

  steer(params: { sessionId: string; content: string }): Promise<unknown> {
    return this.call('session/steer', { sessionId: params.sessionId, content: params.content }, AnyResult);
  }

  setMode(params: { sessionId: string; mode: string }): Promise<unknown> {
    return this.call('session/setMode', { sessionId: params.sessionId, mode: params.mode }, AnyResult);
  }

  setThoughtLevel(params: { sessionId: string; thoughtLevel: string }): Promise<unknown> {
    return this.call('session/setThoughtLevel', { sessionId: params.sessionId, thoughtLevel: params.thoughtLevel }, AnyResult);
  }

  async setModel(params: { sessionId: string; modelId: string; providerId?: string; reasoningLevel?: string }): Promise<unknown> {
    const { sessionId, modelId, providerId, reasoningLevel } = params;
    if (providerId !== undefined && !this.legacySetModel) {
      const model = { providerId, modelId, ...(reasoningLevel === undefined ? {} : { options: { reasoningLevel } }) };
      try {
        // Not the workspace default: the choice belongs to this session (docs/zcode-protocol.md, `session/setModel`).
        return await this.call('session/setModel', { sessionId, model, persistAsWorkspaceLastUsed: false }, AnyResult);
      } catch (error) {
        if (!refusesModelShape(error)) throw error;
        this.legacySetModel = true;
        this.noteOnce('setModel', `zcode refused session/setModel {model:{providerId, modelId}} (${error instanceof Error ? error.message : String(error)}); using the legacy {modelId} shape from now on`);
      }
    }
    return this.call('session/setModel', { sessionId, modelId }, AnyResult);
  }

  cancelBackgroundTask(params: { sessionId: string; taskId: string }): Promise<CancelBackgroundTaskResult> {
    return this.call('session/cancelBackgroundTask', { sessionId: params.sessionId, taskId: params.taskId }, CancelBackgroundTaskResult);
  }

  /** 0.15 builds; current builds answer -32601 (they announce checkpoints with `checkpoint.created`). */
  checkpoints(params: { sessionId: string }): Promise<CheckpointsResult> {
    return this.call('session/checkpoints', { sessionId: params.sessionId }, CheckpointsResult);
  }

  /** zcode's view of MCP servers: the workspace's plus the client's (`mcpServers`, sent when non-empty). */
  listMcpServers(params: { workspacePath: string; mcpServers?: readonly ZcodeMcpServer[] }): Promise<McpListResult> {
    const mcp = params.mcpServers?.length ? { mcpServers: params.mcpServers } : {};
    return this.call('mcp/list', { workspace: workspaceParam(params.workspacePath), ...mcp, mode: 'status' }, McpListResult);
  }

  /** `automation/list`, asked only to learn whether the build has automation methods (automation.ts). */
  /** `skills/referenceCatalog {workspace, sessionId?}`: the skills zcode offers (a session's own with its id). */
  listSkills(params: { workspacePath: string; sessionId?: string }): Promise<SkillCatalogResult> {
    return this.call('skills/referenceCatalog', { workspace: workspaceParam(params.workspacePath), ...(params.sessionId ? { sessionId: params.sessionId } : {}) }, SkillCatalogResult);
  }

  /** `plugins/list {workspace}`: the installed plugins and their roots. */
  listPlugins(params: { workspacePath: string }): Promise<PluginListResult> {
    return this.call('plugins/list', { workspace: workspaceParam(params.workspacePath) }, PluginListResult);
  }

  /** `session/usage {sessionId}`: zcode's token counts for the session (deprecated upstream, still served). */
  sessionUsage(params: { sessionId: string }): Promise<Record<string, unknown>> {
    return this.call('session/usage', { sessionId: params.sessionId }, SessionUsageResult);
  }

  listAutomations(): Promise<unknown> {
    return this.call('automation/list', {}, AnyResult);
  }

  // --- v4 (raw: v4Commands.ts adds ids, CAS, retries and lost-reply recovery) ---------------------

  v4Command(envelope: V4Envelope): Promise<V4Ack> {
    return this.call('v4/command', envelope, V4Ack);
  }

  /** Strict on zcode's side: only `commands` (no `clock`, which older schemas lack). */
  v4QueryCommands(keys: V4CommandKey[]): Promise<V4CommandsQueryResult> {
    return this.call('v4/commands/query', { commands: keys }, V4CommandsQueryResult);
  }

  /** Strict on zcode's side: exactly these keys. */
  v4RowsRange(params: { sessionId: string; limit: number; beforeRowId?: number }): Promise<V4RowsRange> {
    return this.call('v4/conversation/rowsRange', params, V4RowsRange);
  }

  v4FileRewindPreview(params: { sessionId: string; target: V4RowTarget; baseRevision: number; baseLogEpoch: string }): Promise<V4FileRewindPreview> {
    return this.call('v4/conversation/fileRewindPreview', params, V4FileRewindPreview);
  }
}

/**
 * Whether a `session/setModel` error says the build wants the other params shape: -32602 whose
 * message is about the `model` / `options` / `modelId` keys (seed builds: "Unrecognized key:
 * options", a missing `modelId`; docs/zcode-protocol.md, `session/setModel`). Other errors (an unknown model) are real.
 */
export function refusesModelShape(error: unknown): boolean {
  if (!(error instanceof ZcodeError) || error.code !== -32602) return false;
  const text = `${error.message} ${JSON.stringify(error.data ?? '')}`;
  return /\bmodel(Id)?\b|\boptions\b|unrecognized key/i.test(text);
}
