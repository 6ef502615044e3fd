/**
 * Finding the zcode CLI and, for script builds, a Node to run it (docs/zcode-protocol.md "Starting zcode").
 *
 * Pure: everything it looks at (environment, platform, home directory, the file system, the
 * running Node) comes in through `LocateHost`, so every branch is unit-tested with a fake host.
 *
 * CLI, first hit wins:
 *   1. `zcodePath` (the `zcode.path` setting)         — explicit: if it is missing we fail, we do
 *   2. `ZCODE_BIN`                                      not silently fall back to another zcode
 *   3. `zcode` on PATH (Windows: with PATHEXT extensions)
 *   4. the CLI bundled with the desktop app (macOS, Windows, Linux locations below)
 * A `.js/.cjs/.mjs` CLI is a script, run with Node, first hit wins:
 *   1. `nodePath` (`zcode.nodePath`)  2. `ZCODE_NODE`  3. `node` on PATH
 *   4. a few well-known install locations (GUI-launched editors on macOS often have a short PATH)
 *   5. `process.execPath`, but only when it is a plain Node. In the VS Code desktop extension
 *      host it is Electron (`process.versions.electron` is set): Electron can act as Node with
 *      ELECTRON_RUN_AS_NODE=1, but its embedded Node may be older than zcode needs and on macOS
 *      the helper binary runs with the editor's sandbox/entitlements, so we refuse it and tell
 *      the user to set `zcode.nodePath` instead. (In code-server the host is plain Node: fine.)
 */
import { statSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import path from 'node:path';
import { BackendErrorCode, ZcodeError } from './backend.ts';
import type { LocateOptions } from './backend.ts';
import { bt } from '../l10n/messages.ts';
import type { BridgeLocale } from '../l10n/messages.ts';

/** Where the desktop app and users are pointed when nothing is found. */
export const ZCODE_INSTALL_URL = 'https://zcode.z.ai';

/** Everything `locateZcode` reads from the outside world. */
export interface LocateHost {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
  /** true when `file` exists and is a regular file. */
  exists(file: string): boolean;
  /** `process.execPath` of the running host. */
  execPath: string;
  /** true when `execPath` is Electron (VS Code desktop), not a plain Node binary. */
  execPathIsElectron: boolean;
}

/** What to spawn: `command args… [extraArgs] app-server --stdio`. */
export interface LocatedCli {
  command: string;
  /** `[script]` for a script CLI run with Node, else `[]`. */
  args: string[];
  /** Every candidate looked at, in order, as `source: path` (for logs and error messages). */
  tried: string[];
}

/** The real host: this process. */
function defaultLocateHost(): LocateHost {
  return {
    env: process.env,
    platform: process.platform,
    homedir: osHomedir(),
    exists: (file) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false,
    execPath: process.execPath,
    execPathIsElectron: typeof process.versions.electron === 'string',
  };
}

const SCRIPT_RE = /\.(?:c|m)?js$/i;

/** Find the zcode CLI (and a Node for it). Throws `ZcodeError(NotFound)` with an actionable message. */
export function locateZcode(options: LocateOptions = {}, host: LocateHost = defaultLocateHost()): LocatedCli {
  const env = options.env ?? host.env;
  // The sentences are in the client's language; the places tried stay as they are (paths, setting names).
  const L = options.locale?.() ?? 'en';
  const finder = new Finder({ ...host, env }, L);

  const cli =
    finder.explicit('zcode.path', options.zcodePath) ??
    finder.explicit('ZCODE_BIN', env.ZCODE_BIN) ??
    finder.onPath('zcode') ??
    finder.firstExisting('desktop app', desktopAppCandidates(host.platform, env, host.homedir));
  if (!cli) {
    throw new ZcodeError(
      bt(
        L,
        'zcode was not found. Tried: {0}. Install ZCode ({1}), or set the "zcode.path" setting (or the ZCODE_BIN environment variable) to the zcode CLI (a "zcode" executable or the desktop app\'s resources/glm/zcode.cjs).',
        finder.tried.join('; '),
        ZCODE_INSTALL_URL,
      ),
      BackendErrorCode.NotFound,
    );
  }
  if (!SCRIPT_RE.test(cli)) return { command: cli, args: [], tried: finder.tried };

  const node =
    finder.explicit('zcode.nodePath', options.nodePath) ??
    finder.explicit('ZCODE_NODE', env.ZCODE_NODE) ??
    finder.onPath('node') ??
    finder.firstExisting('well-known node', wellKnownNodes(host.platform)) ??
    finder.execPath();
  if (!node) {
    throw new ZcodeError(
      bt(
        L,
        'zcode at {0} is a Node.js script, but no Node.js was found to run it. Tried: {1}. Install Node.js 20 or newer, or set the "zcode.nodePath" setting (or the ZCODE_NODE environment variable) to a node binary.',
        cli,
        finder.tried.join('; '),
      ),
      BackendErrorCode.NotFound,
    );
  }
  return { command: node, args: [cli], tried: finder.tried };
}

/** Desktop-app CLI locations (docs/zcode-protocol.md "Starting zcode"). */
function desktopAppCandidates(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, homedir: string): string[] {
  const p = platform === 'win32' ? path.win32 : path.posix;
  switch (platform) {
    case 'darwin':
      return [
        '/Applications/ZCode.app/Contents/Resources/glm/zcode.cjs',
        p.join(homedir, 'Applications/ZCode.app/Contents/Resources/glm/zcode.cjs'),
      ];
    case 'win32': {
      // Per-user install first, then a machine-wide one (seen live on Windows).
      const localAppData = env.LOCALAPPDATA ?? p.join(homedir, 'AppData', 'Local');
      const programFiles = env.ProgramFiles ?? env.PROGRAMFILES ?? 'C:\\Program Files';
      return [p.join(localAppData, 'Programs', 'ZCode', 'resources', 'glm', 'zcode.cjs'), p.join(programFiles, 'ZCode', 'resources', 'glm', 'zcode.cjs')];
    }
    default:
      return ['/opt/ZCode/resources/glm/zcode.cjs', '/usr/share/zcode/resources/glm/zcode.cjs'];
  }
}

function wellKnownNodes(platform: NodeJS.Platform): string[] {
  switch (platform) {
    case 'darwin':
      return ['/opt/homebrew/bin/node', '/usr/local/bin/node'];
    case 'win32':
      return [];
    default:
      return ['/usr/local/bin/node', '/usr/bin/node'];
  }
}

/** Candidate checks that record what they looked at. */
class Finder {
  readonly tried: string[] = [];
  private readonly p: path.PlatformPath;

  constructor(
    private readonly host: LocateHost,
    private readonly locale: BridgeLocale,
  ) {
    this.p = host.platform === 'win32' ? path.win32 : path.posix;
  }

  /**
   * A user-given path (setting or env var). A bare name (`zcode`, `node22`) is looked up on PATH;
   * anything else must exist — a wrong explicit path is an error, never a silent fallback.
   */
  explicit(source: string, value: string | undefined): string | undefined {
    const raw = value?.trim();
    if (!raw) return undefined;
    const expanded = this.expandHome(raw);
    if (!/[\\/]/.test(expanded)) {
      const hit = this.onPath(expanded, source);
      if (hit) return hit;
      throw this.explicitMissing(source, raw);
    }
    this.tried.push(`${source}: ${expanded}`);
    if (this.host.exists(expanded)) return expanded;
    throw this.explicitMissing(source, raw);
  }

  /** Search PATH for `name` (on Windows also with each PATHEXT extension). */
  onPath(name: string, source = 'PATH'): string | undefined {
    const { env, platform } = this.host;
    // process.env is case-insensitive on Windows, an injected object is not.
    const pathVar = env.PATH ?? env.Path ?? env.path ?? '';
    const dirs = pathVar.split(platform === 'win32' ? ';' : ':').filter((d) => d.trim() !== '');
    const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean).map((e) => e.toLowerCase())] : [''];
    for (const dir of dirs) {
      for (const ext of exts) {
        const candidate = this.p.join(dir.replace(/^"|"$/g, ''), name + ext);
        this.tried.push(`${source}: ${candidate}`);
        if (this.host.exists(candidate)) return candidate;
      }
    }
    if (dirs.length === 0) this.tried.push(`${source}: (PATH is empty)`);
    return undefined;
  }

  firstExisting(source: string, candidates: string[]): string | undefined {
    for (const candidate of candidates) {
      this.tried.push(`${source}: ${candidate}`);
      if (this.host.exists(candidate)) return candidate;
    }
    return undefined;
  }

  /** Last resort for scripts: the running Node, never Electron (see the file comment). */
  execPath(): string | undefined {
    const { execPath, execPathIsElectron } = this.host;
    if (execPathIsElectron) {
      this.tried.push(`process.execPath: ${execPath} (skipped: Electron, not a plain Node)`);
      return undefined;
    }
    this.tried.push(`process.execPath: ${execPath}`);
    return this.host.exists(execPath) ? execPath : undefined;
  }

  private expandHome(value: string): string {
    if (value === '~') return this.host.homedir;
    if (value.startsWith('~/') || value.startsWith('~\\')) return this.p.join(this.host.homedir, value.slice(2));
    return value;
  }

  private explicitMissing(source: string, value: string): ZcodeError {
    const isNode = source === 'zcode.nodePath' || source === 'ZCODE_NODE';
    const tried = this.tried.join('; ');
    return new ZcodeError(
      isNode
        ? bt(this.locale, '{0} is set to "{1}", but no file exists there. Point {0} at a node binary. Tried: {2}.', source, value, tried)
        : bt(this.locale, '{0} is set to "{1}", but no file exists there. Point {0} at the zcode CLI, or unset it to let the bridge find zcode (install: {2}). Tried: {3}.', source, value, ZCODE_INSTALL_URL, tried),
      BackendErrorCode.NotFound,
    );
  }
}
