/**
 * The ACP agent registry's rules for an entry (github.com/agentclientprotocol/registry), checked on
 * a folder laid out as the registry wants it: `<id>/agent.json` and `<id>/icon.svg`.
 *
 * Two sources. The registry's JSON schema, vendored unmodified as a test fixture
 * (test/fixtures/acp-registry/, Apache-2.0, its source named there). And the rules its CI applies
 * beyond the schema, as its CONTRIBUTING.md and AUTHENTICATION.md document them, in our own code:
 * the id is lowercase letters, digits and hyphens, starts with a letter and names the folder; the
 * version is `x.y.z` with numeric parts; an npm package pinned in `distribution.npx` carries that same
 * version and never `@latest`; the icon is a square 16×16 SVG whose fills and strokes are only
 * `currentColor`, `none` or `inherit` and which uses `currentColor`; `initialize` answers
 * `authMethods` with at least one method of type `agent` (the default when no type is given) or
 * `terminal`. What needs the network (the npm package exists on the registry) is left to their CI.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';

const SCHEMA_FILE = fileURLToPath(new URL('../fixtures/acp-registry/agent.schema.json', import.meta.url));

let validate: ReturnType<Ajv['compile']> | undefined;

function schemaErrors(entry: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addFormat('uri', (s: string) => URL.canParse(s) && /^[a-z][a-z0-9+.-]*:/i.test(s));
    validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
  }
  return validate(entry) ? [] : (validate.errors ?? []).map((e) => `schema: ${e.instancePath || '/'} ${e.message}`);
}

/** `name@version` → version, for plain and scoped npm names (`@scope/name@version`). */
function npmSpecVersion(spec: string): string | undefined {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at < 0 ? undefined : spec.slice(at + 1);
}

export function iconErrors(svg: string): string[] {
  const errors: string[] = [];
  const root = /<svg\b[^>]*>/i.exec(svg)?.[0] ?? '';
  const attr = (name: string) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(root)?.[1];
  let size: [number, number] | undefined;
  const [w, h] = [attr('width'), attr('height')];
  if (w !== undefined && h !== undefined) size = [Number.parseFloat(w), Number.parseFloat(h)];
  else {
    const box = attr('viewBox')?.trim().split(/[\s,]+/).map(Number);
    if (box?.length === 4) size = [box[2], box[3]];
  }
  if (!size) errors.push('icon: no width/height and no viewBox');
  else if (size[0] !== 16 || size[1] !== 16) errors.push(`icon: must be 16x16, is ${size[0]}x${size[1]}`);
  const allowed = new Set(['currentcolor', 'none', 'inherit']);
  const paints = [...svg.matchAll(/\b(fill|stroke)\s*=\s*["']([^"']*)["']/gi), ...svg.matchAll(/\b(fill|stroke)\s*:\s*([^;"']+)/gi)];
  for (const [, what, value] of paints) if (!allowed.has(value.trim().toLowerCase())) errors.push(`icon: ${what} "${value.trim()}" is a fixed colour (currentColor, none or inherit only)`);
  if (!/currentColor/i.test(svg)) errors.push('icon: does not use currentColor');
  return errors;
}

/** Every rule the registry's CI would report for an entry in folder `folderName` with that icon; empty when it passes. */
export function registryEntryErrors(entry: unknown, folderName: string, iconSvg: string | undefined): string[] {
  const errors = schemaErrors(entry);
  if (errors.length > 0) return errors;
  const e = entry as { id: string; version: string; distribution: { npx?: { package: string }; uvx?: { package: string } } };
  if (!/^[a-z][a-z0-9-]*$/.test(e.id)) errors.push(`id "${e.id}": lowercase letters, digits and hyphens, starting with a letter`);
  if (e.id !== folderName) errors.push(`id "${e.id}" must match its folder "${folderName}"`);
  if (!/^\d+\.\d+\.\d+$/.test(e.version)) errors.push(`version "${e.version}" is not x.y.z with numeric parts`);
  for (const kind of ['npx', 'uvx'] as const) {
    const spec = e.distribution[kind]?.package;
    if (spec === undefined) continue;
    if (/@latest/i.test(spec)) errors.push(`${kind} package "${spec}" uses @latest: pin the version`);
    const pinned = kind === 'npx' ? npmSpecVersion(spec) : /[=@]+([\d.]+)/.exec(spec)?.[1];
    if (pinned !== undefined && pinned.toLowerCase() !== 'latest' && pinned !== e.version) errors.push(`${kind} package "${spec}" is not at the entry's version ${e.version}`);
  }
  if (iconSvg !== undefined) errors.push(...iconErrors(iconSvg));
  return errors;
}

/** The entry in `dir` (a registry-shaped folder), read and checked. */
export function registryFolderErrors(dir: string): string[] {
  const entry: unknown = JSON.parse(readFileSync(path.join(dir, 'agent.json'), 'utf8'));
  const icon = path.join(dir, 'icon.svg');
  return registryEntryErrors(entry, path.basename(dir), existsSync(icon) ? readFileSync(icon, 'utf8') : undefined);
}

/** What the registry's auth check says of an `initialize` result (empty: it passes). */
export function registryAuthErrors(result: { authMethods?: ReadonlyArray<Record<string, unknown>> | null }): string[] {
  const methods = result.authMethods ?? [];
  if (methods.length === 0) return ['initialize: no authMethods'];
  const typeOf = (m: Record<string, unknown>): unknown => {
    if (typeof m.type === 'string') return m.type;
    const meta = m._meta;
    if (typeof meta === 'object' && meta !== null) {
      if ('terminal-auth' in meta) return 'terminal';
      if ('agent-auth' in meta) return 'agent';
    }
    return 'agent';
  };
  return methods.some((m) => typeOf(m) === 'agent' || typeOf(m) === 'terminal') ? [] : [`initialize: no auth method of type agent or terminal (${methods.map(typeOf).join(', ')})`];
}
