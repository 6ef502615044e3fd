/**
 * zcode's skill and plugin folders, for builds without the listing methods (`skills/referenceCatalog`,
 * `plugins/list` answer -32601, docs/zcode-protocol.md "Listings, usage and quota"). The layout is the one
 * the reference bridge `william0wang/zcode-acp` reads (not verified live):
 *
 * - skills: `<dir>/<skill>/SKILL.md` with YAML front matter (`name`, `description`,
 *   `user-invocable: false` hides one) under `~/.zcode/skills`, `~/.agents/skills`,
 *   `<cwd>/.zcode/skills`, `<cwd>/.agents/skills`, and `skills/` of every enabled plugin; a skill
 *   whose SKILL.md path is `enable:false` in `~/.zcode/cli/config.json` `skills` is left out;
 * - plugin commands: `<plugin root>/commands/<name>.md` (`description`, `argument-hint`), plugins
 *   enabled in `~/.zcode/cli/config.json` `plugins.enabledPlugins` ("name@marketplace": true) and
 *   kept in `~/.zcode/cli/plugins/cache/<marketplace>/<name>/<version>/` (the highest version).
 *
 * Everything here is best effort: an unreadable folder or file is skipped, never fatal.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface FolderSkill {
  name: string;
  description: string;
  path: string;
}

export interface FolderCommand {
  name: string;
  description: string;
  hint?: string;
}

interface CliConfig {
  skills?: Record<string, { enable?: boolean } | undefined>;
  plugins?: { enabledPlugins?: Record<string, boolean> };
}

function readCliConfig(home: string): CliConfig {
  try {
    const raw: unknown = JSON.parse(readFileSync(path.join(home, '.zcode', 'cli', 'config.json'), 'utf8'));
    return typeof raw === 'object' && raw !== null ? (raw as CliConfig) : {};
  } catch {
    return {};
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readText(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

/** The flat `key: value` lines of a front matter block (quotes stripped); nested YAML is ignored. */
export function frontMatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const out: Record<string, string> = {};
  if (!m) return out;
  for (const line of m[1].split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0 || /^\s/.test(line)) continue;
    const value = line.slice(i + 1).trim().replace(/^(["'])(.*)\1$/, '$2');
    out[line.slice(0, i).trim()] = value;
  }
  return out;
}

/** Compare dotted versions numerically where they are numbers ("1.10.0" > "1.9.2"). */
function newerVersion(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const d = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (d !== 0) return d;
  }
  return 0;
}

/** Root folders of the enabled plugins in zcode's plugin cache. */
export function enabledPluginRoots(home: string): string[] {
  const enabled = readCliConfig(home).plugins?.enabledPlugins ?? {};
  const cache = path.join(home, '.zcode', 'cli', 'plugins', 'cache');
  const roots: string[] = [];
  for (const [key, on] of Object.entries(enabled)) {
    const at = key.indexOf('@');
    if (!on || at <= 0) continue;
    const dir = path.join(cache, key.slice(at + 1), key.slice(0, at));
    const latest = list(dir).filter((v) => isDir(path.join(dir, v))).sort(newerVersion).at(-1);
    if (latest) roots.push(path.join(dir, latest));
  }
  return roots;
}

/** Skills found in zcode's skill folders (first one of a name wins). */
export function folderSkills(home: string, cwd: string, pluginRoots: readonly string[] = enabledPluginRoots(home)): FolderSkill[] {
  const disabled = new Set(Object.entries(readCliConfig(home).skills ?? {}).flatMap(([p, c]) => (c?.enable === false ? [path.resolve(p)] : [])));
  const dirs = [
    path.join(home, '.zcode', 'skills'),
    path.join(home, '.agents', 'skills'),
    ...pluginRoots.map((root) => path.join(root, 'skills')),
    path.join(cwd, '.zcode', 'skills'),
    path.join(cwd, '.agents', 'skills'),
  ];
  const seen = new Set<string>();
  const out: FolderSkill[] = [];
  for (const dir of dirs) {
    for (const entry of list(dir)) {
      const file = path.join(dir, entry, 'SKILL.md');
      if (disabled.has(path.resolve(file))) continue;
      const text = readText(file);
      if (text === undefined) continue;
      const fm = frontMatter(text);
      if (fm['user-invocable'] === 'false') continue;
      const name = fm.name || entry;
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ name, description: fm.description ?? '', path: file });
    }
  }
  return out;
}

/** The commands (`commands/*.md`) of the given plugin roots. */
export function pluginCommands(pluginRoots: readonly string[]): FolderCommand[] {
  const out: FolderCommand[] = [];
  for (const root of pluginRoots) {
    const dir = path.join(root, 'commands');
    for (const file of list(dir)) {
      if (!file.endsWith('.md')) continue;
      const text = readText(path.join(dir, file));
      if (text === undefined) continue;
      const fm = frontMatter(text);
      const command: FolderCommand = { name: file.slice(0, -3), description: fm.description ?? '' };
      if (fm['argument-hint']) command.hint = fm['argument-hint'];
      out.push(command);
    }
  }
  return out;
}
