/**
 * The v4 command client: sends zcode's `v4/command` envelopes the way the command inbox expects
 * them (docs/zcode-protocol.md "v4"), on top of the backend's raw `v4*` methods.
 *
 * - Every command gets a fresh `commandId` (a UUID) that is its idempotency key for its whole life:
 *   a `stale` answer is retried with the SAME id and the revision zcode decided at (bounded), and a
 *   lost reply (a timeout) is resolved with `v4/commands/query` under the original key — a command
 *   is never re-sent under a new id, so it can never run twice.
 * - CAS values come from v4 answers only (`rowsRange`'s `atRevision` / `atLogEpoch`, an ACK's
 *   `revisionAtDecision`), never from the legacy `stateRevision` (a different counter).
 * - zcode handles its requests strictly one at a time: this client sends one v4 request at a time
 *   (a command with its retries, a read) so that a burst of clicks does not pile up in zcode's
 *   queue in front of the legacy requests (`session/stop` bypasses it, `v4/command` does not).
 * - `probe()` learns once per spawned zcode whether the surface exists (a read-only
 *   `v4/commands/query` of a fresh id: "unknown" = present, -32601 = absent).
 */
import { randomUUID } from 'node:crypto';
import { BackendErrorCode, ZcodeError } from '../backend.ts';
import type { Disposable, ExitInfo } from '../backend.ts';
import type { Logger } from '../../logger.ts';
import type { ZcodeEvent } from '../protocol.ts';
import { V4_NEEDS_LOG_EPOCH, V4_NEEDS_REVISION } from './v4Shapes.ts';
import type { V4Ack, V4CommandKey, V4CommandsQueryResult, V4CommandType, V4Envelope, V4FileRewindPreview, V4RowsRange, V4RowTarget } from './v4Shapes.ts';

/** The raw requests this client is built on (the backend's; a fake transport in tests). */
export interface V4Port {
  v4Command(envelope: V4Envelope): Promise<V4Ack>;
  v4QueryCommands(keys: V4CommandKey[]): Promise<V4CommandsQueryResult>;
  v4RowsRange(params: { sessionId: string; limit: number; beforeRowId?: number }): Promise<V4RowsRange>;
  v4FileRewindPreview(params: { sessionId: string; target: V4RowTarget; baseRevision: number; baseLogEpoch: string }): Promise<V4FileRewindPreview>;
  onDidExit(listener: (info: ExitInfo) => void): Disposable;
  onEvent(listener: (event: ZcodeEvent) => void): Disposable;
}

/** Commands whose input may start a turn of its own (zcode uses the commandId as the turn's inputId). */
const TURN_STARTERS: ReadonlySet<V4CommandType> = new Set(['sendText', 'editUserQuery', 'retryTurn']);
/** How many such inputs are remembered (a guide the turn took in never starts one). */
const MAX_TURN_INPUTS = 256;

/** The CAS values a command is decided against. */
export interface V4Base {
  revision: number;
  logEpoch: string;
}

/** What a command carries on one attempt: its payload and the CAS values it was built from. */
export interface V4Prepared {
  payload: Record<string, unknown>;
  base?: V4Base;
}

/**
 * The reads a command's `resolve` may make while the command holds the client's turn (the public
 * `rows` / `fileRewindPreview` wait for it: calling them from inside would wait forever).
 */
export interface V4Reader {
  rows(sessionId: string, limit: number, beforeRowId?: number): Promise<V4RowsRange>;
  fileRewindPreview(sessionId: string, target: V4RowTarget, base: V4Base): Promise<V4FileRewindPreview>;
}

/** Finds a command's row target and CAS values (called again when the target went stale). */
export type V4Resolve = (read: V4Reader) => Promise<{ target: V4RowTarget; base: V4Base }>;

/** Whether this zcode has the v4 command surface, and why not. */
export type V4Probe = { present: true } | { present: false; reason: 'methodNotFound' | 'error'; detail: string };

export interface V4Options {
  /** The `clientId` zcode stores with the inputs this bridge sends (one stable label per bridge). */
  clientId?: string;
  /** Fresh command ids (tests pass a counter). */
  newCommandId?: () => string;
  /** `stale` answers retried before giving up (default 3, like zcode's own client). */
  staleRetries?: number;
}

/** A command's final ACK and the id it went under (`queue_<commandId>` names queued input). */
export interface V4Outcome {
  commandId: string;
  ack: V4Ack;
}

/** The v4 surface failed in a way no ACK describes (the process died, zcode never answered). */
export class V4TransportError extends Error {
  constructor(
    message: string,
    readonly commandId: string | undefined,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'V4TransportError';
  }
}

const DEFAULT_CLIENT_ID = 'zcode-vscode-bridge';

export class V4Commands implements Disposable {
  private readonly clientId: string;
  private readonly newCommandId: () => string;
  private readonly staleRetries: number;
  /** One v4 request at a time (see the header). */
  private tail: Promise<unknown> = Promise.resolve();
  /** The probe of the running process; dropped when it exits (the next process is probed again). */
  private probed: Promise<V4Probe> | undefined;
  private readonly subscriptions: Disposable[];
  /** Inputs this client sent that may become turns: commandId → zcode session. */
  private readonly turnInputs = new Map<string, string>();
  /** zcode sessions whose running turn one of them started: legacy `session/stop` does not stop those. */
  private readonly v4Turns = new Map<string, string>();

  constructor(
    private readonly port: V4Port,
    private readonly logger: Logger,
    options: V4Options = {},
  ) {
    this.clientId = options.clientId ?? DEFAULT_CLIENT_ID;
    this.newCommandId = options.newCommandId ?? randomUUID;
    this.staleRetries = options.staleRetries ?? 3;
    this.subscriptions = [
      port.onDidExit(() => {
        this.probed = undefined;
        this.v4Turns.clear();
        this.turnInputs.clear();
      }),
      port.onEvent((event) => this.onEvent(event)),
    ];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  /** Whether the session's running turn was started by a v4 command of this client (a re-asked or retried turn, a deferred steer). */
  runsV4Turn(sessionId: string): boolean {
    return this.v4Turns.has(sessionId);
  }

  /**
   * Stop a turn a v4 command started (`stop {}`: zcode's own stop reaches turns its core admitted;
   * legacy `session/stop` only aborts turns legacy `session/send` started). Logged, never thrown.
   */
  async stopV4Turn(sessionId: string): Promise<void> {
    if (!this.v4Turns.has(sessionId)) return;
    try {
      const { ack } = await this.run(sessionId, 'stop', async () => ({ payload: {} }));
      this.logger.info(`v4 stop of ${sessionId}: ${ack.status}${ack.reasonCode ? ` (${ack.reasonCode})` : ''}`);
    } catch (error) {
      this.logger.warn(`v4 stop of ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private onEvent(event: ZcodeEvent): void {
    switch (event.type) {
      case 'turn.started': {
        const inputId = event.payload.inputId;
        if (inputId && this.turnInputs.get(inputId) === event.sessionId) {
          this.turnInputs.delete(inputId);
          this.v4Turns.set(event.sessionId, inputId);
        } else this.v4Turns.delete(event.sessionId);
        return;
      }
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.terminal':
        this.v4Turns.delete(event.sessionId);
        return;
      default:
        return;
    }
  }

  /** Probe the running zcode once (starting it if needed); the answer holds until it exits. */
  probe(): Promise<V4Probe> {
    const probed = (this.probed ??= this.exclusive(() => this.runProbe()));
    // A probe that failed because the process went away is not an answer about the next one.
    void probed.then((p) => {
      if (!p.present && p.reason === 'error' && this.probed === probed) this.probed = undefined;
    });
    return probed;
  }

  // --- Reads ------------------------------------------------------------------------------------

  /** The latest `limit` rows (before `beforeRowId`), with the CAS values they were read at. */
  rows(sessionId: string, limit: number, beforeRowId?: number): Promise<V4RowsRange> {
    return this.exclusive(() => this.reader.rows(sessionId, limit, beforeRowId));
  }

  fileRewindPreview(sessionId: string, target: V4RowTarget, base: V4Base): Promise<V4FileRewindPreview> {
    return this.exclusive(() => this.reader.fileRewindPreview(sessionId, target, base));
  }

  /** Unlocked reads, for `resolve` callbacks running inside a command. */
  private readonly reader: V4Reader = {
    rows: (sessionId, limit, beforeRowId) => this.port.v4RowsRange({ sessionId, limit, ...(beforeRowId === undefined ? {} : { beforeRowId }) }),
    fileRewindPreview: (sessionId, target, base) => this.port.v4FileRewindPreview({ sessionId, target, baseRevision: base.revision, baseLogEpoch: base.logEpoch }),
  };

  // --- Commands ---------------------------------------------------------------------------------

  /**
   * Add `text` to the running turn (`sendText` with delivery "guide"). zcode's ACK says "queue"
   * even for a guide: whether the turn took it in is told by the legacy `turn.steerQueued` /
   * `turn.steerDrained` events, not here. The queued input's id is `queue_<commandId>`.
   */
  guide(sessionId: string, text: string): Promise<V4Outcome> {
    return this.run(sessionId, 'sendText', async () => ({ payload: { text, requestedDelivery: 'guide' } }));
  }

  deleteQueueItem(sessionId: string, queueItemId: string): Promise<V4Outcome> {
    return this.run(sessionId, 'deleteQueueItem', async () => ({ payload: { queueItemId }, base: await this.currentBase(sessionId) }));
  }

  editQueueItem(sessionId: string, queueItemId: string, newText: string): Promise<V4Outcome> {
    return this.run(sessionId, 'editQueueItem', async () => ({ payload: { queueItemId, newText }, base: await this.currentBase(sessionId) }));
  }

  /**
   * Cut the conversation at a user message and ask again. `resolve` reads the target and the CAS
   * values (again after a stale target: the rows moved).
   */
  editUserQuery(sessionId: string, resolve: V4Resolve, newText: string, workspaceMode: 'preserve' | 'rewind'): Promise<V4Outcome> {
    return this.run(sessionId, 'editUserQuery', async () => {
      const { target, base } = await resolve(this.reader);
      return { payload: { target, newText, workspaceMode }, base };
    });
  }

  applyFileRewind(sessionId: string, resolve: V4Resolve): Promise<V4Outcome> {
    return this.run(sessionId, 'applyFileRewind', async () => {
      const { target, base } = await resolve(this.reader);
      return { payload: { target }, base };
    });
  }

  retryTurn(sessionId: string, resolve: V4Resolve): Promise<V4Outcome> {
    return this.run(sessionId, 'retryTurn', async () => {
      const { target, base } = await resolve(this.reader);
      return { payload: { target }, base };
    });
  }

  forkAssistant(sessionId: string, resolve: V4Resolve): Promise<V4Outcome> {
    return this.run(sessionId, 'forkAssistant', async () => {
      const { target, base } = await resolve(this.reader);
      return { payload: { target }, base };
    });
  }

  renameSession(sessionId: string, title: string): Promise<V4Outcome> {
    return this.run(sessionId, 'renameSession', async () => ({ payload: { title } }));
  }

  // -------------------------------------------------------------------------------------------

  /**
   * One command to its final ACK: `prepare` builds the payload and CAS values (called again only
   * when the target itself went stale); a `stale` revision is retried with zcode's revision; a
   * lost reply is looked up under the same key. Resolves with the last ACK, whatever its status.
   */
  run(sessionId: string, type: V4CommandType, prepare: () => Promise<V4Prepared>): Promise<V4Outcome> {
    const commandId = this.newCommandId();
    if (TURN_STARTERS.has(type)) {
      this.turnInputs.set(commandId, sessionId);
      if (this.turnInputs.size > MAX_TURN_INPUTS) this.turnInputs.delete(this.turnInputs.keys().next().value as string);
    }
    return this.exclusive(async () => {
      let prepared = await prepare();
      let base = prepared.base;
      for (let attempt = 0; ; attempt++) {
        const ack = await this.sendOnce(this.envelope(commandId, sessionId, type, prepared.payload, base));
        if (ack.status !== 'stale' || attempt >= this.staleRetries) {
          if (ack.status === 'stale') this.logger.info(`v4 ${type} ${commandId}: still stale after ${attempt + 1} tries (${ack.reasonCode ?? 'no reason'}); giving up`);
          return { commandId, ack };
        }
        this.logger.debug(`v4 ${type} ${commandId}: stale (${ack.reasonCode ?? 'no reason'}) at revision ${ack.revisionAtDecision}; retrying with the same id`);
        if (ack.reasonCode === 'proto.staleRevision' && base) {
          base = { ...base, revision: ack.revisionAtDecision };
        } else {
          // The log epoch or the target moved: read them again.
          prepared = await prepare();
          base = prepared.base ? { ...prepared.base, revision: Math.max(prepared.base.revision, ack.revisionAtDecision) } : undefined;
        }
      }
    });
  }

  private envelope(commandId: string, sessionId: string, type: V4CommandType, payload: Record<string, unknown>, base: V4Base | undefined): V4Envelope {
    const envelope: V4Envelope = { commandId, clientId: this.clientId, sessionId, type, payload, issuedAt: Date.now() };
    if (V4_NEEDS_REVISION.has(type)) {
      if (!base) throw new Error(`v4 ${type} needs the session's revision`);
      envelope.baseRevision = base.revision;
    }
    if (V4_NEEDS_LOG_EPOCH.has(type)) {
      if (!base) throw new Error(`v4 ${type} needs the session's log epoch`);
      envelope.baseLogEpoch = base.logEpoch;
    }
    return envelope;
  }

  /** One envelope to an ACK; a lost reply is resolved under the same key (queried, then re-sent once under the SAME id if zcode never saw it). */
  private async sendOnce(envelope: V4Envelope): Promise<V4Ack> {
    try {
      return await this.port.v4Command(envelope);
    } catch (error) {
      if (!(error instanceof ZcodeError && error.code === BackendErrorCode.Timeout)) throw this.transportError(envelope, error);
      this.logger.warn(`v4 ${envelope.type} ${envelope.commandId}: no answer in time; asking zcode what became of it`);
    }
    const known = await this.lookUp(envelope);
    if (known) return known;
    // Unknown: zcode never took it in, or decided stale/rejected (those are not remembered). The
    // same id again is safe either way: zcode keeps one outcome per id.
    this.logger.info(`v4 ${envelope.type} ${envelope.commandId}: zcode has no record of it; sending it again under the same id`);
    try {
      return await this.port.v4Command(envelope);
    } catch (error) {
      throw this.transportError(envelope, error);
    }
  }

  private async lookUp(envelope: V4Envelope): Promise<V4Ack | undefined> {
    let answer: V4CommandsQueryResult;
    try {
      answer = await this.port.v4QueryCommands([{ sessionId: envelope.sessionId, commandId: envelope.commandId }]);
    } catch (error) {
      throw this.transportError(envelope, error);
    }
    const found = answer.results.find((r) => r.key.commandId === envelope.commandId);
    return found && found.result !== 'unknown' ? found.result : undefined;
  }

  private transportError(envelope: V4Envelope, error: unknown): V4TransportError {
    const why = error instanceof Error ? error.message : String(error);
    return new V4TransportError(`zcode did not confirm ${envelope.type} (${why}); its outcome is unknown`, envelope.commandId, error);
  }

  /** The session's current revision and log epoch, read from the newest row (`rowsRange` of one). */
  private async currentBase(sessionId: string): Promise<V4Base> {
    const range = await this.port.v4RowsRange({ sessionId, limit: 1 });
    return { revision: range.atRevision, logEpoch: range.atLogEpoch };
  }

  private async runProbe(): Promise<V4Probe> {
    try {
      const answer = await this.port.v4QueryCommands([{ sessionId: null, commandId: `probe-${this.newCommandId()}` }]);
      const first = answer.results[0];
      if (first?.result === 'unknown') return { present: true };
      // An ACK for an id nobody used would be odd, but the method is there.
      this.logger.info(`zcode answered the v4 probe with a command record: ${JSON.stringify(first?.result)?.slice(0, 200)}`);
      return { present: true };
    } catch (error) {
      if (error instanceof ZcodeError && error.code === -32601) return { present: false, reason: 'methodNotFound', detail: error.message };
      const detail = error instanceof Error ? error.message : String(error);
      this.logger.warn(`the v4 probe failed (${detail}); treating the v4 command surface as absent`);
      return { present: false, reason: 'error', detail };
    }
  }

  /** Run `job` after every earlier v4 request of this client has settled. */
  private exclusive<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
