/**
 * The environment zcode is started with (docs/zcode-protocol.md "Starting
 * zcode"). Pure: the file system and the platform come in through `LaunchHost`.
 *
 * 1. **The bridge's own variables never reach zcode**: every tool and shell command zcode
 *    runs inherits its environment, so the remote-access token and the rest of `ZCODE_ACP_*`,
 *    plus the bridge's discovery variables, are removed by name (`BRIDGE_ONLY_VARIABLES`, and the
 *    `ZCODE_ACP_` namespace as a whole). zcode's own variables (`ZCODE_MODEL`, `ZCODE_API_KEY` …)
 *    pass through untouched: they are the user's configuration of zcode.
 * 2. **The desktop app's bundled CLI needs its provider table** (3.12+): that CLI exits at once
 *    with `无法定位 CLI ZCode Built-in Provider Config：…` unless told where the table is. When the
 *    CLI being started is a bundled `…/glm/zcode.cjs`, the table is searched in both places it has
 *    lived (`<glm>/provider/`, `<resources>/config/provider/`, plus the CLI's own five-levels-up
 *    fallback), and `ZCODE_BUILTIN_PROVIDER_CONFIG_FILE`, `ZCODE_BUILTIN_PROVIDER_BUNDLED_CONFIG_FILE`,
 *    `ZCODE_PERSONAL_PROVIDER_CONFIG_FILE` and (when the app's version can be read)
 *    `ZCODE_APP_VERSION` are derived from that CLI — overriding inherited values, which go stale
 *    after an app update (seen live; the reference bridge does the same).
 * 3. **IPv4 first**: `--dns-result-order=ipv4first` is added to `NODE_OPTIONS` unless the
 *    user chose an order, because networks without working IPv6 made provider requests fail with
 *    "Cannot connect to API" (`william0wang/zcode-acp` `docs/TROUBLESHOOTING.md`).
 *
 * `describeLaunch` returns what was decided (for logs and `--doctor`): names and paths only, never
 * a value that could be a secret.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir as osHomedir } from 'node:os';
import path from 'node:path';

/** What the launch environment is computed from. */
export interface LaunchHost {
  platform: NodeJS.Platform;
  homedir: string;
  /** true when `file` exists and is a regular file. */
  exists(file: string): boolean;
  /** The real path of `file` (symlinks resolved); `file` itself when it cannot be resolved. */
  realpath(file: string): string;
  /** The text of a small file, or undefined when it cannot be read. */
  readText(file: string): string | undefined;
}

/** Variables of the bridge and the extension that zcode must not inherit. */
export const BRIDGE_ONLY_VARIABLES: readonly string[] = [
  'ZCODE_ACP_REMOTE',
  'ZCODE_ACP_REMOTE_TOKEN',
  'ZCODE_ACP_REMOTE_HOST',
  'ZCODE_ACP_REMOTE_PORT',
  'ZCODE_ACP_REMOTE_ALLOW_NON_LOOPBACK',
  'ZCODE_ACP_DEBUG',
  'ZCODE_ACP_STORE_DIR',
  'ZCODE_ACP_MODE',
  'ZCODE_BIN',
  'ZCODE_NODE',
];
/** The bridge's namespace: anything under it is the bridge's, whatever a later version adds. */
const BRIDGE_PREFIX = 'ZCODE_ACP_';

export const PROVIDER_ENV = {
  builtin: 'ZCODE_BUILTIN_PROVIDER_CONFIG_FILE',
  bundled: 'ZCODE_BUILTIN_PROVIDER_BUNDLED_CONFIG_FILE',
  personal: 'ZCODE_PERSONAL_PROVIDER_CONFIG_FILE',
  appVersion: 'ZCODE_APP_VERSION',
} as const;

const IPV4_FIRST = '--dns-result-order=ipv4first';
const TABLE_FILE = 'zcode-builtin.json';

/** What `buildLaunchEnv` decided, safe to log. */
export interface LaunchPlan {
  env: NodeJS.ProcessEnv;
  /** The CLI is the desktop app's bundled `zcode.cjs`. */
  bundled: boolean;
  /** The provider table found for a bundled CLI (undefined: none found, or not bundled). */
  providerTable: string | undefined;
  /** Every place the table was looked for (bundled CLIs only). */
  tableCandidates: string[];
  appVersion: string | undefined;
  /** Names of inherited variables that were removed or replaced, with why. */
  changes: string[];
}

/**
 * The environment for the CLI at `cliPath` (the script of a script CLI, else the executable),
 * starting from `base` (the bridge's own environment or the one the caller gave).
 */
export function buildLaunchEnv(cliPath: string, base: NodeJS.ProcessEnv, host: LaunchHost): LaunchPlan {
  const env: NodeJS.ProcessEnv = { ...base };
  const changes: string[] = [];
  for (const name of Object.keys(env)) {
    if (BRIDGE_ONLY_VARIABLES.includes(name) || name.startsWith(BRIDGE_PREFIX)) {
      delete env[name];
      changes.push(`${name} removed (the bridge's own)`);
    }
  }

  const options = env.NODE_OPTIONS ?? '';
  if (!/--dns-result-order\b/.test(options)) env.NODE_OPTIONS = options.trim() === '' ? IPV4_FIRST : `${options} ${IPV4_FIRST}`;

  const plan: LaunchPlan = { env, bundled: false, providerTable: undefined, tableCandidates: [], appVersion: undefined, changes };
  const layout = bundledLayout(cliPath, host);
  if (!layout) return plan;
  plan.bundled = true;
  plan.tableCandidates = layout.tableCandidates;
  plan.providerTable = layout.tableCandidates.find((file) => host.exists(file));
  const p = host.platform === 'win32' ? path.win32 : path.posix;
  const personal = p.join(host.homedir, '.zcode', 'v2', 'provider_config.json');
  if (plan.providerTable) {
    setDerived(env, PROVIDER_ENV.builtin, plan.providerTable, changes);
    setDerived(env, PROVIDER_ENV.bundled, plan.providerTable, changes);
    // Both or neither: with only the builtin one, zcode works from a version-keyed copy and
    // ignores later account pushes (docs/zcode-protocol.md "Starting zcode").
    setDerived(env, PROVIDER_ENV.personal, personal, changes);
  }
  plan.appVersion = appVersion(layout.resources, host);
  if (plan.appVersion) setDerived(env, PROVIDER_ENV.appVersion, plan.appVersion, changes);
  return plan;
}

function setDerived(env: NodeJS.ProcessEnv, name: string, value: string, changes: string[]): void {
  const inherited = env[name];
  if (inherited !== undefined && inherited !== value) changes.push(`${name} replaced (inherited ${inherited}, stale for this CLI)`);
  env[name] = value;
}

interface BundledLayout {
  glm: string;
  resources: string;
  tableCandidates: string[];
}

/**
 * A desktop-bundled CLI is `<resources>/glm/zcode.cjs` (docs/zcode-protocol.md "Starting zcode"; the name is fixed).
 * The CLI resolves its fallbacks from its real path, so the layout is read from it too.
 */
export function bundledLayout(cliPath: string, host: LaunchHost): BundledLayout | undefined {
  const p = host.platform === 'win32' ? path.win32 : path.posix;
  const real = host.realpath(cliPath);
  if (p.basename(real).toLowerCase() !== 'zcode.cjs') return undefined;
  const glm = p.dirname(real);
  if (p.basename(glm).toLowerCase() !== 'glm') return undefined;
  const resources = p.dirname(glm);
  const tableCandidates = [
    // 3.14+ (and the desktop resolver): next to the app.
    p.join(resources, 'config', 'provider', TABLE_FILE),
    // Older packages shipped it beside the CLI (the CLI's first own candidate).
    p.join(glm, 'provider', TABLE_FILE),
    // The CLI's second own candidate, five levels up from glm/.
    p.join(glm, '..', '..', '..', '..', '..', 'config', 'provider', TABLE_FILE),
  ];
  return { glm, resources, tableCandidates: [...new Set(tableCandidates.map((c) => p.normalize(c)))] };
}

/**
 * The desktop app's version, when it can be read without unpacking the app: macOS keeps it in
 * `Contents/Info.plist`; a `version` file or `package.json` beside the resources is used where a
 * package has one. Undefined otherwise (zcode then keys its caches under `0.0.0-dev`, which works).
 */
function appVersion(resources: string, host: LaunchHost): string | undefined {
  const p = host.platform === 'win32' ? path.win32 : path.posix;
  const plist = host.readText(p.join(resources, '..', 'Info.plist'));
  const fromPlist = plist?.match(/<key>CFBundleShortVersionString<\/key>\s*<string>([^<]+)<\/string>/)?.[1]?.trim();
  if (fromPlist) return fromPlist;
  for (const file of [p.join(resources, 'app', 'package.json'), p.join(resources, 'version')]) {
    const text = host.readText(file);
    if (!text) continue;
    const version = file.endsWith('.json') ? safeJsonVersion(text) : text.trim();
    if (version && /^\d+\.\d+\.\d+/.test(version)) return version;
  }
  return undefined;
}

function safeJsonVersion(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && typeof (value as { version?: unknown }).version === 'string' ? (value as { version: string }).version : undefined;
  } catch {
    return undefined;
  }
}

/** One log line about the launch: what was derived and removed, names and paths only. */
export function describeLaunch(plan: LaunchPlan): string {
  const parts: string[] = [];
  if (plan.bundled) {
    parts.push(plan.providerTable ? `desktop-bundled CLI, provider table ${plan.providerTable}` : `desktop-bundled CLI, no provider table found (looked at ${plan.tableCandidates.join(', ')})`);
    if (plan.appVersion) parts.push(`app version ${plan.appVersion}`);
  }
  if (plan.changes.length > 0) parts.push(plan.changes.join('; '));
  return parts.length > 0 ? `zcode launch environment: ${parts.join('; ')}` : 'zcode launch environment: inherited (bridge variables removed, IPv4 first)';
}

/** The provider-table error of a bundled CLI started without its table (docs/zcode-protocol.md "Starting zcode"). */
const MISSING_TABLE = /无法定位\s*CLI\s*ZCode\s*Built-in\s*Provider\s*Config/i;
const MISSING_MODEL = /Model config is missing/i;

/** stderr carries one of the start-up failures docs/zcode-protocol.md "Starting zcode" names. */
export function isKnownStartupFailure(stderrTail: string): boolean {
  return MISSING_TABLE.test(stderrTail) || MISSING_MODEL.test(stderrTail);
}

/**
 * zcode ended before it answered anything: its own words plus what to do (never a bare "exited
 * with code 1"). `stderrTail` is zcode's last stderr lines.
 */
export function explainStartupExit(how: string, stderrTail: string, plan: LaunchPlan | undefined): string {
  const said = stderrTail.trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' | ');
  const quoted = said ? `zcode said: "${said}"` : 'zcode wrote nothing to stderr';
  if (MISSING_TABLE.test(stderrTail)) {
    const where = plan?.tableCandidates.length ? ` The bridge looked for it at ${plan.tableCandidates.join(', ')}.` : '';
    return (
      `zcode exited at start (${how}): it cannot find its provider table (zcode-builtin.json). ${quoted}.${where} ` +
      `Update or reinstall the ZCode desktop app, or set ${PROVIDER_ENV.builtin} to the app's resources/config/provider/zcode-builtin.json. ` +
      `Run "zcode-acp --doctor" for details.`
    );
  }
  if (MISSING_MODEL.test(stderrTail)) {
    return (
      `zcode exited at start (${how}): no model is configured. ${quoted}. ` +
      `Sign in once in the ZCode desktop app, or configure a provider in ~/.zcode/cli/config.json ` +
      `(or set ZCODE_MODEL, ZCODE_BASE_URL and ZCODE_API_KEY). Run "zcode-acp --doctor" for details.`
    );
  }
  return `zcode exited at start (${how}). ${quoted}. Run the same zcode with "app-server --stdio" in a terminal to see why, or run "zcode-acp --doctor".`;
}

/** The real host: this machine. */
export function defaultLaunchHost(): LaunchHost {
  return {
    platform: process.platform,
    homedir: osHomedir(),
    exists: (file) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false,
    realpath: (file) => {
      try {
        return realpathSync(file);
      } catch {
        return file;
      }
    },
    readText: (file) => {
      try {
        return statSync(file).size > 1_000_000 ? undefined : readFileSync(file, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** The file that identifies a located CLI: the script of a script CLI, else the executable. */
export function cliFileOf(cli: { command: string; args: string[] }): string {
  return cli.args[0] ?? cli.command;
}
