/**
 * The slash menu a session's clients see (`available_commands_update`): the bridge's
 * own commands, then zcode's (translate/zcodeCommands.ts), discovered per session:
 *
 * - the session snapshot's `slashCommands` (current builds; kept on the runtime by sessionTable.ts);
 * - skills: `skills/referenceCatalog {workspace, sessionId?}` (with the zcode id once the session
 *   exists: zcode answers that session's own catalog); plugin commands: `plugins/list {workspace}`
 *   gives the enabled plugins' roots, whose `commands/*.md` are read;
 * - a build without those methods (-32601, remembered for the backend's life) → zcode's folders
 *   (zcode/commandFolders.ts). Any other failure of a listing also falls back to the folders, logged,
 *   and so does a zcode that is not running yet (a menu never starts it: session/new stays lazy).
 *
 * `refresh` re-discovers and says whether the menu changed since it was last sent for that id, so
 * the menu follows zcode's set (a plugin installed, a skill added) without re-sending an unchanged one.
 * The bridge's own commands the running zcode cannot do (`hidden`, from its probed capabilities)
 * are left out: a menu built before the probe lists them, the refresh after the next prompt drops them.
 */
import { homedir } from 'node:os';
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { availableCommands, SLASH_COMMANDS } from '../../translate/promptContent.ts';
import { mergeZcodeCommands, zcodeCommandEntry } from '../../translate/zcodeCommands.ts';
import type { ZcodeCommand } from '../../translate/zcodeCommands.ts';
import { BackendErrorCode, ZcodeError } from '../../zcode/backend.ts';
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import type { ZcodeSlashCommand } from '../../zcode/catalogShapes.ts';
import { enabledPluginRoots, folderSkills, pluginCommands } from '../../zcode/commandFolders.ts';
import type { BridgeLocale } from '../../l10n/messages.ts';

/** What discovery needs to know about the session. */
export interface CommandScope {
  cwd: string;
  /** The zcode session, once it exists (a lazy placeholder has none yet). */
  zcodeSessionId?: string;
  snapshot?: readonly ZcodeSlashCommand[];
}

const SKILLS_METHOD = 'skills/referenceCatalog';
const PLUGINS_METHOD = 'plugins/list';

/** The bridge's own command names, and the commands it answers itself beyond the menu's basics. */
const RESERVED = new Set<string>([...SLASH_COMMANDS, 'init', 'resume', 'quota']);

export class CommandCatalog {
  /** zcode methods this backend does not have (-32601). */
  private readonly absent = new Set<string>();
  private readonly zcode = new Map<string, ZcodeCommand[]>();
  private readonly sent = new Map<string, string>();
  /** The scope each id was last discovered with, and the discovery under way. */
  private readonly scopes = new Map<string, CommandScope>();
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly backend: ZcodeBackend,
    private readonly logger: Logger,
    private readonly home: string = process.env.HOME || process.env.USERPROFILE || homedir(),
    private readonly hidden: () => ReadonlySet<string> = () => new Set(),
    /** The language of the bridge's command descriptions, when the menu is built. */
    private readonly locale: () => BridgeLocale = () => 'en',
  ) {}

  /** The full menu for an ACP id, recorded as sent. */
  async menu(acpId: string, scope: CommandScope): Promise<AvailableCommand[]> {
    return (await this.build(acpId, scope)).menu;
  }

  /**
   * Re-discover; the new menu when it differs from the one last sent for this id, else undefined.
   * The comparison is made when discovery has finished (two refreshes in flight never both send).
   */
  async refresh(acpId: string, scope: CommandScope): Promise<AvailableCommand[] | undefined> {
    const { menu, changed } = await this.build(acpId, scope);
    return changed ? menu : undefined;
  }

  private async build(acpId: string, scope: CommandScope): Promise<{ menu: AvailableCommand[]; changed: boolean }> {
    this.scopes.set(acpId, scope);
    const discovery = this.discover(scope);
    this.pending.set(acpId, discovery);
    const commands = await discovery.finally(() => {
      if (this.pending.get(acpId) === discovery) this.pending.delete(acpId);
    });
    this.zcode.set(acpId, commands);
    const hidden = this.hidden();
    const menu = [...availableCommands(this.locale()).filter((command) => !hidden.has(command.name)), ...commands.map(zcodeCommandEntry)];
    const text = JSON.stringify(menu);
    const changed = this.sent.get(acpId) !== text;
    this.sent.set(acpId, text);
    return { menu, changed };
  }

  /**
   * The zcode command a `/name` names for this session, if any. A prompt may arrive before the
   * session's first menu was discovered, or name a command zcode gained since: then the commands
   * are discovered again (with the session's last scope, else `fallback`) before answering.
   */
  async find(acpId: string, name: string, fallback?: CommandScope): Promise<ZcodeCommand | undefined> {
    await this.pending.get(acpId)?.catch(() => undefined);
    const known = this.zcode.get(acpId)?.find((c) => c.name === name);
    if (known) return known;
    const scope = this.scopes.get(acpId) ?? fallback;
    if (!scope) return undefined;
    const commands = await this.discover(scope).catch(() => [] as ZcodeCommand[]);
    return commands.find((c) => c.name === name);
  }

  /** Forget an id (session closed). */
  forget(acpId: string): void {
    this.zcode.delete(acpId);
    this.sent.delete(acpId);
    this.scopes.delete(acpId);
  }

  private async discover(scope: CommandScope): Promise<ZcodeCommand[]> {
    const workspacePath = scope.cwd;
    const plugins = await this.list(PLUGINS_METHOD, () => this.backend.listPlugins({ workspacePath }));
    const roots = plugins ? plugins.plugins.flatMap((p) => (p.enabled !== false && p.rootPath ? [p.rootPath] : [])) : enabledPluginRoots(this.home);
    const catalog = await this.list(SKILLS_METHOD, () => this.backend.listSkills({ workspacePath, ...(scope.zcodeSessionId ? { sessionId: scope.zcodeSessionId } : {}) }));
    const skills = catalog ? catalog.skills.filter((s) => s.enabled !== false) : folderSkills(this.home, scope.cwd, roots);
    return mergeZcodeCommands({ snapshot: scope.snapshot ?? [], plugins: pluginCommands(roots), skills }, RESERVED);
  }

  /**
   * One listing; undefined means "read the folders instead". zcode is not started for a menu: while
   * it is not running (a fresh lazy session), the folders answer; the next refresh asks zcode.
   */
  private async list<T>(method: string, ask: () => Promise<T>): Promise<T | undefined> {
    if (this.absent.has(method) || this.backend.state !== 'ready') return undefined;
    try {
      return await ask();
    } catch (error) {
      if (error instanceof ZcodeError && error.code === BackendErrorCode.InvalidResponse) {
        this.logger.warn(`zcode answered ${method} with an unexpected shape; reading zcode's folders instead`);
        return undefined;
      }
      if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === -32601) {
        this.absent.add(method);
        this.logger.info(`this zcode build has no ${method}: the slash menu reads zcode's folders instead`);
      } else this.logger.debug(`${method} failed (${error instanceof Error ? error.message : String(error)}); reading zcode's folders instead`);
    }
    return undefined;
  }
}

/** The bridge's slash commands the running zcode cannot do (nothing before it was probed: not known is offered). */
export function unavailableSlashCommands(capabilities: { probed: boolean; steer: { available: boolean } }): ReadonlySet<string> {
  return new Set(capabilities.probed && !capabilities.steer.available ? ['steer'] : []);
}
