// `skills/referenceCatalog` and `plugins/list` of current builds (docs/zcode-protocol.md "Listings, usage and quota"), from the folders zcode
// keeps them in (the layout the reference bridge reads: ~/.zcode/skills, <workspace>/.zcode/skills, plugins
// enabled in ~/.zcode/cli/config.json and cached under ~/.zcode/cli/plugins/cache/<marketplace>/<name>/<version>).
// Shapes follow zcode's strict schemas: skills `{id, name, description, path, scope, enabled:true, pluginName?}`,
// plugins `{id, name, description?, version?, enabled, source, marketplace, skillRootCount, commandRootCount,
// mcpServerNames, rootPath}`. A session's skill catalog is frozen the first time it is asked for (zcode freezes
// it at the session's first context initialisation: "authority: session"); without a sessionId it is a fresh scan.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { SimError } from './util.mjs';
import { sessionOf } from './params.mjs';
import { strict, workspaceRef } from './current.mjs';

const home = () => process.env.HOME || homedir();

function dirs(dir) {
  try {
    return readdirSync(dir).filter((d) => statSync(path.join(dir, d)).isDirectory()).sort();
  } catch {
    return [];
  }
}

function frontMatter(file) {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(readFileSync(file, 'utf8'));
  const out = {};
  for (const line of m ? m[1].split(/\r?\n/) : []) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim().replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

function cliConfig() {
  try {
    return JSON.parse(readFileSync(path.join(home(), '.zcode', 'cli', 'config.json'), 'utf8'));
  } catch {
    return {};
  }
}

function plugins() {
  const cache = path.join(home(), '.zcode', 'cli', 'plugins', 'cache');
  const out = [];
  for (const [id, enabled] of Object.entries(cliConfig().plugins?.enabledPlugins ?? {})) {
    const [name, marketplace] = id.split('@');
    if (!name || !marketplace) continue;
    const version = dirs(path.join(cache, marketplace, name)).at(-1);
    if (!version) continue;
    const rootPath = path.join(cache, marketplace, name, version);
    const manifest = path.join(rootPath, 'plugin.json');
    const description = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).description : undefined;
    out.push({
      id, name, ...(description ? { description } : {}), version, enabled: enabled === true, source: 'marketplace', marketplace,
      skillRootCount: existsSync(path.join(rootPath, 'skills')) ? 1 : 0, commandRootCount: existsSync(path.join(rootPath, 'commands')) ? 1 : 0,
      mcpServerNames: [], rootPath,
    });
  }
  return out;
}

function skillsIn(dir, scope, pluginName) {
  return dirs(dir).flatMap((entry) => {
    const file = path.join(dir, entry, 'SKILL.md');
    if (!existsSync(file)) return [];
    const fm = frontMatter(file);
    const name = fm.name || entry;
    return [{ id: `${scope}:${pluginName ? `${pluginName}:` : ''}${name}`, name, description: fm.description ?? '', path: file, scope, enabled: true, ...(pluginName ? { pluginName } : {}) }];
  });
}

function scanSkills(workspacePath) {
  return [
    ...skillsIn(path.join(home(), '.zcode', 'skills'), 'user'),
    ...plugins().filter((p) => p.enabled).flatMap((p) => skillsIn(path.join(p.rootPath, 'skills'), 'plugin', p.name)),
    ...skillsIn(path.join(workspacePath, '.zcode', 'skills'), 'workspace'),
  ];
}

export function catalogMethods(sv) {
  return {
    async 'skills/referenceCatalog'(params) {
      const p = strict(params, { required: ['workspace'], optional: ['sessionId'] });
      const workspace = workspaceRef(p.workspace);
      if (p.sessionId === undefined) return { authority: 'workspace', skills: scanSkills(workspace.workspacePath) };
      // An unknown or inactive session fails closed (never falls back to the workspace's catalog).
      const session = sessionOf(sv, p);
      if (!session.active) throw new SimError(-32004, `session not active: ${session.sessionId}`);
      session.skillCatalog ??= scanSkills(workspace.workspacePath);
      return { authority: 'session', skills: session.skillCatalog };
    },

    // `session/usage {sessionId}` (docs/zcode-protocol.md "Listings, usage and quota"): the session's token totals; the simulator counts only
    // totals, so the split fields are 0 (the shape is zcode's, the figures the simulator's).
    async 'session/usage'(params) {
      const session = sessionOf(sv, strict(params, { required: ['sessionId'] }));
      const totalTokens = session.totalTokenCount;
      return {
        sessionId: session.sessionId, totalTokens, inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0,
        modelRequestCount: session.messages.filter((m) => m.info.role === 'assistant').length, modelErrorCount: 0, inputBaselineBySource: {},
      };
    },

    async 'plugins/list'(params) {
      const p = strict(params, { required: ['workspace'], optional: ['configScope'] });
      workspaceRef(p.workspace);
      return { plugins: plugins(), diagnostics: [] };
    },
  };
}
