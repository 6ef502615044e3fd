/**
 * The session table: ACP session ids ⇄ zcode sessions.
 *
 * - An ACP session id is either a lazy placeholder (`session/new`, persisted in lazySessionStore.ts) or a real
 *   zcode id (from `session/list`, forks …), which passes through unchanged.
 * - A `SessionRuntime` is one live zcode session in this bridge: its translator state, its event
 *   subscription (per backend process: `generation`), its settings and its prompt queue. Several
 *   ACP ids may name the same runtime (a placeholder and, after a restart, its real id): updates go
 *   out under every alias, and clients ignore ids they do not know.
 * - zcode's events leave through the table's outbound pipe, `events` (sessionEvents.ts); the zcode
 *   calls for one runtime (create, resume + subscribe, re-apply the model) are sessionCalls.ts; the
 *   config options a session shows, and the language they are named in, are sessionOptions.ts.
 * - After a backend crash every runtime is stale; `ensureOpen` resumes + re-subscribes (afterSeq)
 *   on next use, and all open runtimes are re-opened as soon as the new process is ready.
 */
import type { ZcodeSlashCommand } from '../../zcode/catalogShapes.ts';
import { randomUUID } from 'node:crypto';
import { RequestError } from '@agentclientprotocol/sdk';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { ConfigPatch } from '../../translate/config.ts';
import type { Disposable, ZcodeBackend, ZcodeMcpServer } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { sessionTitleOf } from '../../zcode/protocol.ts';
import type { ReadSessionResult, SessionSettings } from '../../zcode/protocol.ts';
import type { ClientRegistry } from '../transport/clients.ts';
import { isNotActive, isSessionNotFound } from '../requestErrors.ts';
import type { LazyEntry, LazySessionStore } from './lazySessionStore.ts';
import { applyChoices } from './lazyChoices.ts';
import { deletedError, goneError } from './goneErrors.ts';
import type { AutomationProbe } from '../../zcode/automation.ts';
import type { BridgeLocale } from '../../l10n/messages.ts';
import type { BridgeLanguage } from '../../l10n/language.ts';
import { newTranslator } from '../translation.ts';
import { SessionEvents } from './sessionEvents.ts';
import { SessionRuntime } from './sessionRuntime.ts';
import { createZcodeSession, openRuntime, resumeRuntime } from './sessionCalls.ts';
import { SessionOptionBuilder } from './sessionOptions.ts';
import type { SessionOptionSources } from './sessionOptions.ts';

/** Placeholder ids look like this so logs show at a glance that a session was never materialized. */
const PLACEHOLDER_PREFIX = 'lazy_';

interface AcpEntry {
  readonly id: string;
  cwd: string;
  runtime: SessionRuntime | undefined;
  /** The MCP servers the client sent with new/load/resume (zcode's shape). */
  mcpServers: ZcodeMcpServer[];
  /** In-flight materialization (first use of a placeholder). */
  materializing: Promise<SessionRuntime> | undefined;
  /** The options a placeholder was announced with, including what the client chose before its zcode session exists. */
  options?: SessionConfigOption[];
  /** Choices made before the zcode session exists: the create (mode) and the calls right after it (model, thought level) carry them. */
  pending?: ConfigPatch;
}

/** What the table needs; the option sources (default mode, models, draft, modes, language) are sessionOptions.ts's. */
export interface SessionManagerOptions extends SessionOptionSources {
  backend: ZcodeBackend;
  store: LazySessionStore;
  clients: ClientRegistry;
  logger: Logger;
  /** Which tools a build without `automation/*` must not offer (automation.ts). */
  automation?: AutomationProbe;
}

export class SessionManager implements Disposable {
  private readonly entries = new Map<string, AcpEntry>();
  private readonly runtimes = new Map<string, SessionRuntime>();
  /** Incremented on every backend exit: subscriptions of older generations are gone. */
  private generation = 0;
  /** The outbound pipe: zcode's events in, ACP updates and translator signals out (sessionEvents.ts). */
  readonly events: SessionEvents;
  private readonly subscriptions: Disposable[] = [];
  /** The sessions' config options and the language they are named in (sessionOptions.ts). */
  private readonly optionBuilder: SessionOptionBuilder;

  constructor(private readonly options: SessionManagerOptions) {
    this.optionBuilder = new SessionOptionBuilder(options);
    // First, so that on a backend exit the streamed text goes out before anything else reacts.
    this.events = new SessionEvents(options.backend, options.clients, this.runtimes, options.logger);
    const { backend } = options;
    this.subscriptions.push(
      backend.onDidExit(() => this.generation++),
      backend.onDidChangeState((state) => {
        if (state === 'ready' && this.generation > 0) this.reopenAll();
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Lookup

  /** Create a lazy placeholder (ACP `session/new`). No zcode session is created for it yet. */
  createPlaceholder(cwd: string, mcpServers: ZcodeMcpServer[] = []): string {
    const id = `${PLACEHOLDER_PREFIX}${randomUUID()}`;
    this.entries.set(id, { id, cwd, runtime: undefined, mcpServers, materializing: undefined, options: this.placeholderConfig(cwd) });
    this.options.store.set(id, { cwd, createdAt: Date.now() });
    return id;
  }

  /**
   * Before `session/new` answers: zcode's model list for `cwd` from a draft (once per zcode process
   * and workspace, modelDraft.ts), so a fresh install offers a model picker before the first prompt.
   * Never fails: without a draft the placeholder gets what is known (modelCache.ts).
   */
  async prepareNew(cwd: string): Promise<void> {
    await this.options.draft?.settingsFor(cwd).catch(() => undefined);
  }

  /**
   * The options of a placeholder zcode has no session for yet (not even one being created), or
   * undefined: then choices go through zcode (configOptions.ts).
   */
  async unusedPlaceholderOptions(acpId: string): Promise<SessionConfigOption[] | undefined> {
    const entry = await this.require(acpId);
    if (entry.runtime || entry.materializing || !entry.id.startsWith(PLACEHOLDER_PREFIX)) return undefined;
    if ((await this.options.store.get(acpId))?.zcodeSessionId) return undefined;
    // Re-checked after the read: a prompt may have started creating the session meanwhile.
    if (entry.runtime || entry.materializing) return undefined;
    entry.options ??= this.placeholderConfig(entry.cwd);
    return entry.options;
  }

  /**
   * A choice on an unused placeholder: kept until the zcode session is created (materializeEntry),
   * announced to every client now. Returns the new options. Call right after
   * `unusedPlaceholderOptions` answered (same tick), so no materialization started in between.
   */
  choose(acpId: string, patch: ConfigPatch): SessionConfigOption[] {
    const entry = this.entries.get(acpId);
    if (!entry) throw RequestError.sessionNotFound(acpId);
    const { after, updates } = this.optionBuilder.choose(entry.options ?? this.placeholderConfig(entry.cwd), patch);
    entry.pending = { ...entry.pending, ...patch };
    entry.options = after;
    for (const update of updates) this.options.clients.broadcast('session/update', { sessionId: acpId, update });
    return after;
  }

  /** The options to answer `session/load` / `session/resume` of a placeholder that is still lazy. */
  lazyOptions(acpId: string, cwd: string): SessionConfigOption[] {
    return this.entries.get(acpId)?.options ?? this.placeholderConfig(cwd);
  }

  /** The entry for an ACP id known in memory or as a persisted placeholder; undefined otherwise. */
  async lookup(acpId: string): Promise<AcpEntry | undefined> {
    const known = this.entries.get(acpId);
    if (known) return known;
    const stored = await this.options.store.get(acpId);
    if (!stored || (await this.isDeleted(stored))) return undefined;
    // Re-check: another request may have created the entry while we read the store.
    const entry = this.entries.get(acpId) ?? { id: acpId, cwd: stored.cwd, runtime: undefined, mcpServers: [], materializing: undefined };
    this.entries.set(acpId, entry);
    return entry;
  }

  /** Every persisted placeholder (session/list lists conversations under the id a client was given). */
  storedPlaceholders(): Promise<Array<[string, LazyEntry]>> {
    return this.options.store.all();
  }

  /** Like lookup, but -32002 (with the id) for an unknown session. */
  async require(acpId: string): Promise<AcpEntry> {
    const entry = await this.lookup(acpId);
    if (!entry) throw RequestError.sessionNotFound(acpId);
    return entry;
  }

  /** The runtime behind an ACP id, if it is live in this bridge (no I/O). */
  peek(acpId: string): SessionRuntime | undefined {
    return this.entries.get(acpId)?.runtime;
  }

  /** The runtime of a zcode session, if some ACP session has it open. */
  byZcodeId(zcodeId: string): SessionRuntime | undefined {
    return this.runtimes.get(zcodeId);
  }

  /** The language of the bridge's own words; a client's `initialize` may name it (l10n/language.ts). */
  get language(): BridgeLanguage {
    return this.optionBuilder.language;
  }

  /** The language to write the bridge's own words in now. */
  get locale(): BridgeLocale {
    return this.optionBuilder.locale;
  }

  /** Every runtime (for summaries and shutdown). */
  get allRuntimes(): SessionRuntime[] {
    return [...this.runtimes.values()];
  }

  /** Known ACP ids with their runtime (GET /status). */
  get allEntries(): ReadonlyArray<{ id: string; runtime: SessionRuntime | undefined }> {
    return [...this.entries.values()];
  }

  // -------------------------------------------------------------------------------------------
  // Materialize / open

  /**
   * The live runtime of an ACP session: creates the zcode session of an unused placeholder
   * (`session/create` with the workspace = cwd and the default mode), follows a stored mapping,
   * and makes sure the subscription is current. -32002 for an unknown id.
   */
  async materialize(acpId: string): Promise<SessionRuntime> {
    const entry = await this.require(acpId);
    if (entry.runtime) {
      await this.ensureOpen(entry.runtime);
      return entry.runtime;
    }
    entry.materializing ??= this.materializeEntry(entry).finally(() => (entry.materializing = undefined));
    return entry.materializing;
  }

  private async materializeEntry(entry: AcpEntry): Promise<SessionRuntime> {
    const stored = await this.options.store.get(entry.id);
    if (stored?.zcodeSessionId) {
      // A placeholder used before a restart: follow the mapping.
      const runtime = await this.attach(entry, stored.zcodeSessionId, entry.cwd, { resume: true });
      this.options.store.set(entry.id, { ...stored, lastUsedAt: Date.now() });
      return runtime;
    }
    const pending = entry.pending;
    const created = await createZcodeSession(this.options, entry.cwd, entry.mcpServers, pending?.mode);
    const zcodeId = created.session.sessionId;
    this.options.logger.info(`materialized ${entry.id} as zcode session ${zcodeId}`);
    if (stored || entry.id.startsWith(PLACEHOLDER_PREFIX)) {
      this.options.store.set(entry.id, { cwd: entry.cwd, createdAt: stored?.createdAt ?? Date.now(), zcodeSessionId: zcodeId, lastUsedAt: Date.now() });
    }
    const runtime = await this.attach(entry, zcodeId, entry.cwd, { resume: false, settings: created.settings, title: created.session.title, slashCommands: created.slashCommands });
    if (pending) await applyChoices(this.options.backend, this.options.logger, runtime, pending);
    entry.pending = undefined;
    this.announceMaterialized(runtime, entry.options);
    return runtime;
  }

  /**
   * The client was given the placeholder's options (`session/new`, or `session/load`/`resume` of an
   * unused placeholder); now that zcode's settings are known (create result, else `session/read`)
   * it learns the real ones (sessionOptions.ts `materializedUpdates`). A mapped placeholder or a
   * real id is opened through `session/load`/`resume`, whose response carries the real options.
   */
  private announceMaterialized(runtime: SessionRuntime, given: SessionConfigOption[] = this.placeholderConfig(runtime.cwd)): void {
    const updates = this.optionBuilder.materializedUpdates(runtime.configOptions, given);
    if (updates.length > 0) this.events.emit(runtime, updates);
  }

  /**
   * `session/load` / `session/resume`: make an ACP id live. A placeholder that was never used stays
   * lazy (its zcode session is created on first use, exactly like after `session/new`); a mapped
   * placeholder or a real zcode id is resumed. Returns the runtime, or undefined for a lazy one.
   */
  async open(acpId: string, cwd: string, mcpServers: ZcodeMcpServer[] = []): Promise<SessionRuntime | undefined> {
    const entry = await this.lookup(acpId);
    if (entry) {
      // The servers of this request win: the client sends its current set with every load/resume.
      entry.mcpServers = mcpServers;
      if (entry.runtime) entry.runtime.mcpServers = mcpServers;
      if (entry.runtime) {
        await this.ensureOpen(entry.runtime);
        await this.refresh(entry.runtime);
        return entry.runtime;
      }
      const stored = await this.options.store.get(acpId);
      if (!stored?.zcodeSessionId) return undefined;
      // A mapped conversation zcode no longer has answers like an unknown real id (below).
      return this.materialize(acpId).catch((error: unknown) => {
        throw isSessionNotFound(error) || isNotActive(error) ? goneError(acpId, error) : error;
      });
    }
    const tombstone = await this.options.store.get(acpId);
    if (tombstone?.deletedAt !== undefined) throw deletedError(acpId);
    // A real zcode id this bridge has not seen yet.
    const real: AcpEntry = { id: acpId, cwd, runtime: undefined, mcpServers, materializing: undefined };
    try {
      const runtime = await this.attach(real, acpId, cwd, { resume: true });
      this.entries.set(acpId, real);
      return runtime;
    } catch (error) {
      // An id zcode cannot resume is unknown, however zcode words it: -32004 "not active" is what a
      // build answers for a session it does not hold. One unknown id gets one answer (-32002), as
      // `session/prompt` gives it.
      if (isSessionNotFound(error) || isNotActive(error)) throw goneError(acpId, error);
      throw error;
    }
  }

  /** Bind an entry to a zcode session: runtime, subscription, settings. */
  private async attach(entry: AcpEntry, zcodeId: string, cwd: string, how: { resume: boolean; settings?: SessionSettings; title?: string; slashCommands?: ZcodeSlashCommand[] }): Promise<SessionRuntime> {
    let runtime = this.runtimes.get(zcodeId);
    const fresh = !runtime;
    if (!runtime) {
      runtime = new SessionRuntime(zcodeId, cwd, newTranslator(cwd, this.events.terminalOutput, this.locale), this.placeholderConfig(cwd));
      runtime.mcpServers = entry.mcpServers;
      this.events.attachSink(runtime);
      if (how.settings) this.setSettings(runtime, how.settings);
      runtime.title = how.title;
      runtime.slashCommands = how.slashCommands;
      this.runtimes.set(zcodeId, runtime);
      // Fresh create: already active in this process; only a resume needs `session/resume`.
      if (!how.resume) runtime.activeIn = this.generation;
    }
    try {
      await this.ensureOpen(runtime);
      if (!runtime.settings || how.resume) await this.refresh(runtime);
    } catch (error) {
      // Do not leave a runtime behind for a session zcode could not open.
      if (fresh) this.runtimes.delete(zcodeId);
      throw error;
    }
    runtime.aliases.add(entry.id);
    entry.runtime = runtime;
    return runtime;
  }

  /**
   * Make the runtime's subscription current: after a backend restart (or the first time), resume
   * the zcode session and subscribe with `afterSeq` so no event is lost. Subscribe always happens
   * before any `session/send` (turns.ts awaits this first).
   */
  ensureOpen(runtime: SessionRuntime): Promise<void> {
    if (runtime.subscribedIn === this.generation && runtime.activeIn === this.generation) return Promise.resolve();
    runtime.opening ??= openRuntime(this.options, runtime, this.generation).finally(() => (runtime.opening = undefined));
    return runtime.opening;
  }

  /** Re-read settings, todos and title (`session/read`); an evicted session is resumed first. */
  async refresh(runtime: SessionRuntime): Promise<ReadSessionResult> {
    let read: ReadSessionResult;
    try {
      read = await this.options.backend.read({ sessionId: runtime.zcodeId });
    } catch (error) {
      if (!isNotActive(error)) throw error;
      await resumeRuntime(this.options.backend, runtime, this.generation);
      read = await this.options.backend.read({ sessionId: runtime.zcodeId });
    }
    if (read.settings) this.setSettings(runtime, read.settings);
    if (read.todos) runtime.todos = read.todos;
    if (read.slashCommands) runtime.slashCommands = read.slashCommands;
    const title = sessionTitleOf(read);
    if (title) runtime.title = title;
    return read;
  }

  /** The config options of a session zcode has no session for yet (lazyChoices.ts). */
  placeholderConfig(cwd?: string): SessionConfigOption[] {
    return this.optionBuilder.placeholder(cwd);
  }

  /** New settings from zcode: the config options are rebuilt from them. */
  private setSettings(runtime: SessionRuntime, settings: SessionSettings): void {
    runtime.settings = settings;
    runtime.configOptions = this.optionBuilder.fromSettings(settings);
  }

  /** After a crash: bring every open session back (events of background tasks keep flowing). */
  private reopenAll(): void {
    for (const runtime of this.runtimes.values()) {
      if (runtime.subscribedIn === this.generation) continue;
      this.ensureOpen(runtime).catch((error: unknown) => {
        this.options.logger.warn(`could not re-open zcode session ${runtime.zcodeId} after a restart: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }

  /** Force the next use to resume (zcode said -32004: evicted after idling). */
  markInactive(runtime: SessionRuntime): void {
    runtime.activeIn = -1;
  }

  /** `session/close`: forget the ACP id; the runtime goes when its last alias does. */
  close(acpId: string): SessionRuntime | undefined {
    const entry = this.entries.get(acpId);
    if (!entry) return undefined;
    this.entries.delete(acpId);
    const runtime = entry.runtime;
    if (runtime) {
      runtime.aliases.delete(acpId);
      if (runtime.aliases.size === 0) this.runtimes.delete(runtime.zcodeId);
    }
    return runtime;
  }

  /**
   * `session/close` of a placeholder that was never prompted: nothing exists in zcode, so the
   * stored entry goes too (it would otherwise stay in `session/list` as an empty conversation).
   */
  async dropUnprompted(acpId: string): Promise<void> {
    if (!acpId.startsWith(PLACEHOLDER_PREFIX)) return;
    const stored = await this.options.store.get(acpId);
    if (stored && !stored.zcodeSessionId) this.options.store.delete(acpId);
  }

  /**
   * `session/delete`: the conversation is gone for every ACP id it has (docs/acp.md "Deleting a
   * session"). Every alias is closed and a tombstone is stored under each id and under zcode's id,
   * so `session/list` leaves it out and `session/load`, `session/resume` and `session/prompt` answer
   * -32002. A placeholder that was never prompted is simply dropped. `zcodeKnows` tells whether an
   * id this bridge never saw is one of zcode's (else -32002). Returns the zcode id, if there is one.
   */
  async delete(acpId: string, zcodeKnows: (zcodeId: string) => Promise<boolean>): Promise<{ zcodeId: string | undefined; ids: string[] }> {
    const entry = await this.lookup(acpId);
    // A materialization in flight would store its mapping after the tombstone: let it finish first.
    await entry?.materializing?.catch(() => undefined);
    const stored = await this.options.store.get(acpId);
    const runtime = entry?.runtime;
    const zcodeId = runtime?.zcodeId ?? stored?.zcodeSessionId ?? (acpId.startsWith(PLACEHOLDER_PREFIX) ? undefined : acpId);
    if (!entry && !(zcodeId !== undefined && stored?.deletedAt === undefined && (await zcodeKnows(zcodeId)))) throw RequestError.sessionNotFound(acpId);
    const ids = [...new Set([acpId, ...(runtime?.aliases ?? [])])];
    for (const id of ids) this.close(id);
    const cwd = entry?.cwd ?? stored?.cwd ?? runtime?.cwd ?? '';
    const now = Date.now();
    for (const id of zcodeId === undefined ? ids : new Set([...ids, zcodeId])) {
      if (zcodeId === undefined) this.options.store.delete(id);
      else this.options.store.set(id, { cwd, createdAt: now, zcodeSessionId: zcodeId, deletedAt: now });
    }
    return { zcodeId, ids };
  }

  /** A stored entry `session/delete` left, or one mapped to a zcode session that was deleted under another id. */
  private async isDeleted(stored: LazyEntry): Promise<boolean> {
    if (stored.deletedAt !== undefined) return true;
    if (!stored.zcodeSessionId) return false;
    return (await this.options.store.get(stored.zcodeSessionId))?.deletedAt !== undefined;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.events.dispose();
  }
}
