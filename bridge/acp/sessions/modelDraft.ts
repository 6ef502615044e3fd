/**
 * zcode's model list before any session exists, from a deferred draft (docs/zcode-protocol.md
 * "Drafts and the model list").
 *
 * zcode has no method that lists models without a session; the only catalogue a headless client
 * gets is a session snapshot's `settings.model.available`. On a fresh install (no earlier session,
 * an empty model cache) `session/new` would otherwise announce no model option, and clients
 * conclude the agent has no model support (`acpx --model … exec` fails, Zed shows no picker).
 *
 * So, once per zcode process and workspace, the bridge creates a draft —
 * `session/create {workspace, persistence:"deferred"}` with no model (no last-used preference is
 * written) and no first input (nothing runs) — reads its settings, and closes it with
 * `session/close {sessionId, expectedPersistence:"deferred"}`. A draft is never listed nor
 * persisted. The same create learns whether the build has the `guarded` mode (buildModes.ts).
 *
 * Builds without drafts fall back to no list (the last one seen, modelCache.ts, if any):
 * - seed builds answer `runtime/capabilities` with -32601: no draft is tried at all (they would
 *   ignore `persistence` and keep an empty session);
 * - a current build whose strict create schema does not list `persistence` answers -32602 naming
 *   it: nothing was created.
 * Any other failure is logged and leaves the list unknown; `session/new` never fails because of it.
 */
import type { BuildModes } from '../../zcode/buildModes.ts';
import { GUARDED_MODE } from '../../zcode/buildModes.ts';
import { ZcodeError } from '../../zcode/backend.ts';
import type { CreateSessionParams, Disposable, ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { workspaceKeyFor } from '../../zcode/legacy/legacyMethods.ts';
import type { CreateSessionResult, SessionSettings } from '../../zcode/protocol.ts';

/** Whether this zcode process makes drafts: not asked yet, yes, or no (the fallback then holds). */
type DraftSupport = 'unknown' | 'yes' | 'no';

export class ModelDraft implements Disposable {
  private support: DraftSupport = 'unknown';
  private readonly exitWatch: Disposable;
  /** Per workspace key: the settings a draft showed (kept for the process's life). */
  private readonly settings = new Map<string, Promise<SessionSettings | undefined>>();
  private readonly resolved = new Map<string, SessionSettings>();

  constructor(
    private readonly backend: ZcodeBackend,
    private readonly modes: BuildModes,
    private readonly logger: Logger,
  ) {
    this.exitWatch = backend.onDidExit(() => {
      // Another process may be another build: learn everything again.
      this.support = 'unknown';
      this.settings.clear();
      this.resolved.clear();
      this.modes.forget();
    });
  }

  dispose(): void {
    this.exitWatch.dispose();
  }

  /** The settings a draft showed for `cwd`, if one already did (no I/O). */
  peek(cwd: string): SessionSettings | undefined {
    return this.resolved.get(workspaceKeyFor(cwd));
  }

  /** zcode's settings for a new session in `cwd` (one draft per process and workspace), or undefined. */
  settingsFor(cwd: string): Promise<SessionSettings | undefined> {
    const key = workspaceKeyFor(cwd);
    let pending = this.settings.get(key);
    if (!pending) {
      pending = this.draft(cwd).then(
        (settings) => {
          if (settings) this.resolved.set(key, settings);
          // A failure is not remembered: the next session/new may try again (unless drafts are known to be missing).
          else this.settings.delete(key);
          return settings;
        },
        (error: unknown) => {
          this.settings.delete(key);
          this.logger.warn(`could not read zcode's model list from a draft: ${describe(error)}`);
          return undefined;
        },
      );
      this.settings.set(key, pending);
    }
    return pending;
  }

  private async draft(cwd: string): Promise<SessionSettings | undefined> {
    if (this.support === 'no' || !(await this.buildMakesDrafts())) return undefined;
    const started = Date.now();
    const created = await this.create(cwd);
    if (!created) return undefined;
    const sessionId = created.session.sessionId;
    if (!created.protocol) {
      // An answer without the current snapshot envelope: a build that ignores `persistence`, so this is a
      // real (empty) session. Close it and never draft again in this process.
      this.support = 'no';
      this.logger.warn(`zcode answered the draft create without a current snapshot: closing session ${sessionId}; no model list before the first prompt on this build`);
      await this.close(sessionId, undefined);
      return undefined;
    }
    await this.close(sessionId, 'deferred');
    this.logger.info(`read zcode's model list (${created.settings?.model?.available?.length ?? 0} models) from draft ${sessionId} in ${Date.now() - started} ms`);
    return created.settings;
  }

  /** Seed builds (no current protocol) answer `runtime/capabilities` with -32601; asked once per process. */
  private async buildMakesDrafts(): Promise<boolean> {
    if (this.support !== 'unknown') return this.support === 'yes';
    try {
      await this.backend.runtimeCapabilities();
    } catch (error) {
      if (!(error instanceof ZcodeError && error.code === -32601)) throw error;
      this.support = 'no';
      this.logger.info('zcode has no runtime/capabilities (a seed build): no draft, no model list before the first prompt');
      return false;
    }
    return true;
  }

  /**
   * The draft's `session/create`. While it is unknown whether the build has `guarded`, the draft asks
   * for it: a -32602 about `mode` means it has not, and the create is sent again without a mode (once).
   */
  private async create(cwd: string): Promise<CreateSessionResult | undefined> {
    const base: CreateSessionParams = { workspacePath: cwd, persistence: 'deferred' };
    const probe = this.modes.guardedUnknown;
    try {
      const created = await this.backend.createSession(probe ? { ...base, mode: GUARDED_MODE } : base);
      if (probe) this.modes.learnGuarded(true);
      this.support = 'yes';
      return created;
    } catch (error) {
      if (refusesKey(error, 'persistence')) {
        this.support = 'no';
        this.logger.info(`this zcode build has no deferred drafts (${describe(error)}): no model list before the first prompt`);
        return undefined;
      }
      if (!probe || !refusesKey(error, 'mode')) throw error;
      this.modes.learnGuarded(false);
      this.logger.info(`this zcode build has no '${GUARDED_MODE}' mode (${describe(error)}); creating the draft without a mode`);
      const created = await this.backend.createSession(base);
      this.support = 'yes';
      return created;
    }
  }

  private async close(sessionId: string, expectedPersistence: 'deferred' | undefined): Promise<void> {
    try {
      await this.backend.closeSession({ sessionId, ...(expectedPersistence ? { expectedPersistence } : {}) });
    } catch (error) {
      // A draft that stays open lives in memory until zcode exits (drafts are never evicted); nothing else leaks.
      this.logger.warn(`could not close zcode draft ${sessionId}: ${describe(error)}`);
    }
  }
}

/** A -32602 whose message or issues name `key` (zod's unrecognized key or invalid value). */
export function refusesKey(error: unknown, key: string): boolean {
  if (!(error instanceof ZcodeError) || error.code !== -32602) return false;
  return new RegExp(`\\b${key}\\b`).test(`${error.message} ${JSON.stringify(error.data ?? '')}`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
