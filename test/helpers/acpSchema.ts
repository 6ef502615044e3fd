/**
 * Validation of ACP messages against the JSON schema the SDK ships
 * (`@agentclientprotocol/sdk/schema/v1/schema.json`, draft 2020-12; a v2 connection's messages
 * against `schema/v2/schema.json`, the draft ACP v2, with `version: 2`).
 *
 * The SDK validates what comes *in*, not what the agent sends *out*, and a client silently drops an
 * invalid `session/update`. Every test that produces ACP payloads runs them through
 * here. The few UNSTABLE fields the bridge sends on purpose (`UNSTABLE_FIELDS`, e.g. the prompt
 * response's `usage`) are checked against `schema.unstable.json` instead. Definitions are addressed by name (`SessionNotification`, `RequestPermissionRequest` …) or,
 * with `validateOutgoing`, by method name through the schema's `x-method` annotations.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { SessionUpdate } from '@agentclientprotocol/sdk';

type JsonObject = Record<string, unknown>;

const require = createRequire(import.meta.url);

/** The protocol version whose schema a message is checked against (v2: the draft, schema/v2/schema.json). */
export type AcpVersion = 1 | 2;

/** One version's schema, compiled on first use. */
interface SchemaSet {
  path: string;
  id: string;
  instance?: Ajv2020;
  defs: Record<string, JsonObject>;
  compiled: Map<string, ValidateFunction>;
  /**
   * v2's extensible unions end in an `other` branch that takes any tag: a receiver must accept a
   * future variant, but a sender may only use the variants the schema names, or a `_` extension.
   * With this set, a value that only the `other` branch takes is reported.
   */
  namedVariantsOnly?: boolean;
}

const SETS: Record<AcpVersion, SchemaSet> = {
  1: { path: require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json'), id: 'acp-v1', defs: {}, compiled: new Map() },
  2: { path: require.resolve('@agentclientprotocol/sdk/schema/v2/schema.json'), id: 'acp-v2', defs: {}, compiled: new Map(), namedVariantsOnly: true },
};

const UNSTABLE_SCHEMA_PATH = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.unstable.json');
const UNSTABLE_SCHEMA_ID = 'acp-v1-unstable';

/**
 * Fields of the UNSTABLE schema the bridge sends on purpose, by the stable definition they extend:
 * each is checked against its unstable definition (and must declare no other key) instead of being
 * reported as an extension outside `_meta`.
 */
const UNSTABLE_FIELDS: Record<string, Record<string, string>> = {
  PromptResponse: { usage: 'Usage' },
};

let unstableInstance: Ajv2020 | undefined;
let unstableDefs: Record<string, JsonObject> = {};

function loadSchema(schemaPath: string, id: string): { instance: Ajv2020; defs: Record<string, JsonObject> } {
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as JsonObject & { $defs: Record<string, JsonObject> };
  const instance = new Ajv2020({ strict: false, allErrors: true, discriminator: true, logger: false });
  // The schema annotates numbers with Rust-style formats; enforce their ranges instead of ignoring them.
  const integer = (min: number, max: number) => ({
    type: 'number' as const,
    validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
  });
  instance.addFormat('int32', integer(-(2 ** 31), 2 ** 31 - 1));
  instance.addFormat('int64', integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  instance.addFormat('uint16', integer(0, 2 ** 16 - 1));
  instance.addFormat('uint32', integer(0, 2 ** 32 - 1));
  instance.addFormat('uint64', integer(0, Number.MAX_SAFE_INTEGER));
  instance.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  instance.addFormat('uri', {
    type: 'string',
    validate: (s: string) => {
      try {
        new URL(s);
        return true;
      } catch {
        return false;
      }
    },
  });
  instance.addSchema({ ...schema, $id: id });
  return { instance, defs: schema.$defs };
}

function ajv(set: SchemaSet): Ajv2020 {
  if (set.instance) return set.instance;
  const loaded = loadSchema(set.path, set.id);
  set.defs = loaded.defs;
  set.instance = loaded.instance;
  return set.instance;
}

/** Errors of `value` against the unstable schema's `#/$defs/<defName>`, undeclared keys included (one level). */
function unstableErrors(defName: string, value: unknown, path: string): string[] {
  if (!unstableInstance) {
    const loaded = loadSchema(UNSTABLE_SCHEMA_PATH, UNSTABLE_SCHEMA_ID);
    unstableInstance = loaded.instance;
    unstableDefs = loaded.defs;
  }
  const fn = unstableInstance.getSchema(`${UNSTABLE_SCHEMA_ID}#/$defs/${defName}`);
  if (!fn) throw new Error(`acpSchema: no definition named '${defName}' in schema.unstable.json`);
  if (!fn(value)) return readableErrors(fn.errors ?? []).map((e) => `${path} (unstable ${defName}): ${e}`);
  const declaredKeys = Object.keys((unstableDefs[defName]?.properties as JsonObject | undefined) ?? {});
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value)
    .filter((key) => key !== '_meta' && !declaredKeys.includes(key))
    .map((key) => `${path}.${key} is not in the unstable ACP ${defName}`);
}

function validator(defName: string, set: SchemaSet): ValidateFunction {
  const cached = set.compiled.get(defName);
  if (cached) return cached;
  const instance = ajv(set);
  if (!(defName in set.defs)) throw new Error(`acpSchema: no definition named '${defName}' in ${set.id}'s schema.json`);
  const fn = instance.getSchema(`${set.id}#/$defs/${defName}`);
  if (!fn) throw new Error(`acpSchema: could not compile '${defName}'`);
  set.compiled.set(defName, fn);
  return fn;
}

/**
 * Make Ajv's errors readable. Discriminated unions are already narrowed to their branch by Ajv's
 * `discriminator` support; what remains noisy are enums written as `oneOf` of `const`s (ToolKind,
 * StopReason …): those collapse into one "must be one of [...]" line. Generic "must match a schema
 * in oneOf/anyOf" summaries are dropped when a more precise error exists.
 */
function readableErrors(errors: ErrorObject[]): string[] {
  const allowed = new Map<string, unknown[]>();
  const collapsed = new Set<ErrorObject>();
  for (const e of errors) {
    const m = e.keyword === 'const' ? /^(.*\/(?:oneOf|anyOf))\/\d+\/const$/.exec(e.schemaPath) : null;
    if (!m) continue;
    const key = `${e.instancePath}|${m[1]}`;
    allowed.set(key, [...(allowed.get(key) ?? []), (e.params as { allowedValue?: unknown }).allowedValue]);
    collapsed.add(e);
  }
  const lines: string[] = [];
  for (const e of errors) {
    if (collapsed.has(e)) continue;
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    const values = allowed.get(`${e.instancePath}|${e.schemaPath}`);
    if (values) {
      lines.push(`${where} must be one of ${JSON.stringify(values)} [${e.schemaPath}]`);
      continue;
    }
    const params = e.keyword === 'additionalProperties' || e.keyword === 'required' ? ` ${JSON.stringify(e.params)}` : '';
    lines.push(`${where} ${e.message ?? e.keyword}${params} [${e.schemaPath}]`);
  }
  const precise = lines.filter((l) => !/must match (exactly one|a) schema in (oneOf|anyOf)/.test(l));
  return [...new Set(precise.length > 0 ? precise : lines)];
}

/**
 * The readable schema errors of `value` against `#/$defs/<defName>` (empty when valid), including
 * every key the schema does not declare (`strictKeyErrors`): the ACP schema leaves objects open,
 * but the bridge promises to put nothing outside it except under `_meta`.
 */
export function acpSchemaErrors(defName: string, value: unknown, version: AcpVersion = 1): string[] {
  const set = SETS[version];
  const unstable = version === 1 ? UNSTABLE_FIELDS[defName] : undefined;
  if (unstable && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const rest: Record<string, unknown> = { ...value };
    const errors: string[] = [];
    for (const [field, unstableDef] of Object.entries(unstable)) {
      if (!(field in rest)) continue;
      if (rest[field] !== null) errors.push(...unstableErrors(unstableDef, rest[field], `.${field}`));
      delete rest[field];
    }
    return [...errors, ...stableErrors(defName, rest, set)];
  }
  return stableErrors(defName, value, set);
}

function stableErrors(defName: string, value: unknown, set: SchemaSet): string[] {
  const fn = validator(defName, set);
  if (!fn(value)) return readableErrors(fn.errors ?? []);
  return walkedKeyErrors(defName, value, set);
}

/**
 * Keys of `value` (at any depth) that the schema's property lists do not declare, as
 * "<path> is not in the ACP schema" lines. `_meta` objects are free. The walk follows `$ref`,
 * merges `allOf`, and for `oneOf`/`anyOf` takes the branch the value validates against (by JSON
 * pointer into the schema, so Ajv decides, not a guess). A schema with `additionalProperties` as a
 * schema (a map) checks each value against it; `additionalProperties: true` or no `properties`
 * at all (a free object such as `rawInput`) is not walked.
 */
export function strictKeyErrors(defName: string, value: unknown, version: AcpVersion = 1): string[] {
  return walkedKeyErrors(defName, value, SETS[version]);
}

function walkedKeyErrors(defName: string, value: unknown, set: SchemaSet): string[] {
  ajv(set);
  const out: string[] = [];
  walkStrict(`#/$defs/${defName}`, value, '', out, set);
  return out;
}

function nodeAt(pointer: string, set: SchemaSet): JsonObject | undefined {
  let node: unknown = { $defs: set.defs };
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'object' && node !== null ? (node as JsonObject) : undefined;
}

function matches(pointer: string, value: unknown, set: SchemaSet): boolean {
  const fn = ajv(set).getSchema(`${set.id}${pointer}`);
  return fn ? fn(value) === true : false;
}

/** The property names (with the pointer of each one's schema) a schema node declares for `value`. */
function declared(pointer: string, value: unknown, props: Map<string, string>, maps: string[], set: SchemaSet, depth = 0, others: string[] = []): boolean {
  const node = nodeAt(pointer, set);
  if (!node || depth > 40) return false;
  let open = node.additionalProperties === true;
  if (typeof node.$ref === 'string') open = declared(node.$ref, value, props, maps, set, depth + 1, others) || open;
  if (node.properties && typeof node.properties === 'object') {
    for (const key of Object.keys(node.properties)) if (!props.has(key)) props.set(key, `${pointer}/properties/${escapePointer(key)}`);
  }
  if (typeof node.additionalProperties === 'object' && node.additionalProperties !== null) maps.push(`${pointer}/additionalProperties`);
  if (Array.isArray(node.allOf)) node.allOf.forEach((_, i) => (open = declared(`${pointer}/allOf/${i}`, value, props, maps, set, depth + 1, others) || open));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    const i = branches.findIndex((_, j) => matches(`${pointer}/${key}/${j}`, value, set));
    if (i >= 0 && (branches[i] as JsonObject).title === 'other') others.push(`${pointer}/${key}/${i}`);
    if (i >= 0) open = declared(`${pointer}/${key}/${i}`, value, props, maps, set, depth + 1, others) || open;
  }
  return open;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function walkStrict(pointer: string, value: unknown, path: string, out: string[], set: SchemaSet): void {
  if (Array.isArray(value)) {
    const node = resolveArrayItems(pointer, value, set);
    value.forEach((item, i) => node && walkStrict(node(item), item, `${path}[${i}]`, out, set));
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const props = new Map<string, string>();
  const maps: string[] = [];
  const others: string[] = [];
  const open = declared(pointer, value, props, maps, set, 0, others);
  if (set.namedVariantsOnly) {
    for (const other of others) {
      const tagKey = Object.keys((nodeAt(other, set)?.properties as JsonObject | undefined) ?? {})[0];
      const tag = tagKey === undefined ? undefined : (value as Record<string, unknown>)[tagKey];
      if (typeof tag === 'string' && !tag.startsWith('_')) out.push(`${path === '' ? '(root)' : path}.${tagKey} "${tag}" is no variant the ACP schema names (only a "_" extension may be unnamed) [${other}]`);
    }
  }
  if (props.size === 0 && maps.length === 0) return; // a free object (rawInput, rawOutput …)
  for (const [key, child] of Object.entries(value)) {
    if (key === '_meta') continue;
    const at = props.get(key) ?? maps[0];
    if (!at) {
      if (!open) out.push(`${path === '' ? '(root)' : path}.${key} is not in the ACP schema (only _meta may carry extensions) [${pointer}]`);
      continue;
    }
    walkStrict(at, child, `${path}.${key}`, out, set);
  }
}

/** For an array-typed schema node: a function giving each item's schema pointer (following $ref/allOf/oneOf to the `items`). */
function resolveArrayItems(pointer: string, value: unknown, set: SchemaSet, depth = 0): ((item: unknown) => string) | undefined {
  const node = nodeAt(pointer, set);
  if (!node || depth > 40) return undefined;
  if (node.items && typeof node.items === 'object') return () => `${pointer}/items`;
  if (typeof node.$ref === 'string') return resolveArrayItems(node.$ref, value, set, depth + 1);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const branches = node[key];
    if (!Array.isArray(branches)) continue;
    for (let i = 0; i < branches.length; i++) {
      if (key !== 'allOf' && !matches(`${pointer}/${key}/${i}`, value, set)) continue;
      const found = resolveArrayItems(`${pointer}/${key}/${i}`, value, set, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** Thrown when a value does not match its ACP definition. */
export class AcpSchemaError extends Error {
  constructor(
    readonly defName: string,
    readonly errors: string[],
    readonly value: unknown,
  ) {
    super(`ACP schema violation (${defName}):\n  ${errors.join('\n  ')}\nvalue: ${truncate(JSON.stringify(value))}`);
    this.name = 'AcpSchemaError';
  }
}

function truncate(s: string | undefined, max = 2000): string {
  if (s === undefined) return 'undefined';
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Validate `value` against `#/$defs/<defName>`; throws an `AcpSchemaError` listing readable errors. */
export function validateAcp(defName: string, value: unknown, version: AcpVersion = 1): void {
  const errors = acpSchemaErrors(defName, value, version);
  if (errors.length > 0) throw new AcpSchemaError(defName, errors, value);
}

/** Assertion form of `validateAcp` that also narrows the value's static type. */
export function assertValidAcp<T = unknown>(defName: string, value: unknown): asserts value is T {
  validateAcp(defName, value);
}

/** Validate one `session/update` payload by wrapping it into a `SessionNotification`. */
export function assertValidSessionUpdate(update: SessionUpdate | unknown, sessionId = 'sess_test'): void {
  validateAcp('SessionNotification', { sessionId, update });
}

/** Validate every update of a list (each wrapped into a `SessionNotification`). */
export function assertValidSessionUpdates(updates: readonly unknown[], sessionId = 'sess_test'): void {
  updates.forEach((update, i) => {
    try {
      assertValidSessionUpdate(update, sessionId);
    } catch (err) {
      if (err instanceof AcpSchemaError) err.message = `update #${i}: ${err.message}`;
      throw err;
    }
  });
}

/** What a message carries: a request's params, a notification's params, or a response's result. */
export type MessagePart = 'request' | 'notification' | 'response';

/**
 * The definition name that describes `method`'s `part`, from the schema's `x-method` annotations
 * (e.g. `session/update` + notification → `SessionNotification`, `session/request_permission` +
 * request → `RequestPermissionRequest`, `session/prompt` + response → `PromptResponse`).
 * Returns undefined for a method the schema does not know (extension methods, `_`-prefixed).
 */
export function definitionFor(method: string, part: MessagePart, version: AcpVersion = 1): string | undefined {
  const set = SETS[version];
  ajv(set);
  const suffix = part === 'request' ? 'Request' : part === 'notification' ? 'Notification' : 'Response';
  const matches = Object.entries(set.defs)
    .filter(([name, def]) => def['x-method'] === method && name.endsWith(suffix))
    .map(([name]) => name);
  return matches[0];
}

/**
 * Validate an outgoing ACP message part by method name: `value` is the request's or notification's
 * `params`, or the response's `result`. Extension methods (`_`-prefixed, e.g. `_zcode/session/fork`)
 * have no schema and pass; a non-extension method the schema does not know throws.
 */
export function validateOutgoing(method: string, value: unknown, part: MessagePart, version: AcpVersion = 1): void {
  const defName = definitionFor(method, part, version);
  if (defName) {
    validateAcp(defName, value, version);
    return;
  }
  if (method.startsWith('_')) return;
  throw new Error(`acpSchema: no ${part} definition for method '${method}' in the v${version} schema (x-method)`);
}
