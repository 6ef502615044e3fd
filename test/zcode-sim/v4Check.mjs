// A small zod-like checker for the v4 schemas (v4Schemas.mjs). The simulator has no dependencies, so it
// carries its own: a schema is a plain object, `parse` returns the cleaned value (unknown keys of a
// non-strict object dropped, as zod's z.object does) or the issues, worded like zod's.
import { isObject } from './util.mjs';

const t = (kind, extra = {}) => ({ kind, ...extra });
export const S = {
  string: (o = {}) => t('string', o),
  number: (o = {}) => t('number', o),
  boolean: () => t('boolean'),
  literal: (value) => t('literal', { value }),
  enum: (values) => t('enum', { values }),
  unknown: () => t('unknown'),
  record: () => t('record'),
  array: (item, o = {}) => t('array', { item, ...o }),
  optional: (inner) => t('optional', { inner }),
  nullable: (inner) => t('nullable', { inner }),
  /** `strict`: unknown keys are an issue; otherwise they are dropped. `refine(value) → issue[]` runs last. */
  object: (shape, o = {}) => t('object', { shape, ...o }),
  union: (options) => t('union', { options }),
  /** A discriminated union on `key`. */
  tagged: (key, options) => t('tagged', { key, options }),
};

const typeName = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function walk(schema, value, path, issues) {
  const add = (code, message, extra = {}) => issues.push({ code, path, message, ...extra });
  switch (schema.kind) {
    case 'unknown':
      return value;
    case 'optional':
      return value === undefined ? undefined : walk(schema.inner, value, path, issues);
    case 'nullable':
      return value === null ? null : walk(schema.inner, value, path, issues);
    case 'string': {
      if (typeof value !== 'string') return void add('invalid_type', `Invalid input: expected string, received ${typeName(value)}`, { expected: 'string' });
      const v = schema.trim ? value.trim() : value;
      if (schema.min !== undefined && v.length < schema.min) add('too_small', `Too small: expected string to have >=${schema.min} characters`, { minimum: schema.min });
      if (schema.max !== undefined && v.length > schema.max) add('too_big', `Too big: expected string to have <=${schema.max} characters`, { maximum: schema.max });
      return v;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return void add('invalid_type', `Invalid input: expected number, received ${typeName(value)}`, { expected: 'number' });
      if (schema.int && !Number.isInteger(value)) add('invalid_type', 'Invalid input: expected int, received number', { expected: 'int' });
      if (schema.min !== undefined && value < schema.min) add('too_small', `Too small: expected number to be >=${schema.min}`, { minimum: schema.min });
      if (schema.positive && value <= 0) add('too_small', 'Too small: expected number to be >0', { minimum: 0 });
      if (schema.max !== undefined && value > schema.max) add('too_big', `Too big: expected number to be <=${schema.max}`, { maximum: schema.max });
      return value;
    }
    case 'boolean':
      if (typeof value !== 'boolean') add('invalid_type', `Invalid input: expected boolean, received ${typeName(value)}`, { expected: 'boolean' });
      return value;
    case 'literal':
      if (value !== schema.value) add('invalid_value', `Invalid input: expected ${JSON.stringify(schema.value)}`, { values: [schema.value] });
      return value;
    case 'enum':
      if (!schema.values.includes(value)) add('invalid_value', `Invalid option: expected one of ${schema.values.map((v) => JSON.stringify(v)).join('|')}`, { values: schema.values });
      return value;
    case 'record':
      if (!isObject(value)) add('invalid_type', `Invalid input: expected record, received ${typeName(value)}`, { expected: 'record' });
      return value;
    case 'array': {
      if (!Array.isArray(value)) return void add('invalid_type', `Invalid input: expected array, received ${typeName(value)}`, { expected: 'array' });
      if (schema.min !== undefined && value.length < schema.min) add('too_small', `Too small: expected array to have >=${schema.min} items`, { minimum: schema.min });
      if (schema.max !== undefined && value.length > schema.max) add('too_big', `Too big: expected array to have <=${schema.max} items`, { maximum: schema.max });
      return value.map((item, i) => walk(schema.item, item, [...path, i], issues));
    }
    case 'object': {
      if (!isObject(value)) return void add('invalid_type', `Invalid input: expected object, received ${typeName(value)}`, { expected: 'object' });
      const out = {};
      for (const [key, sub] of Object.entries(schema.shape)) {
        const v = walk(sub, value[key], [...path, key], issues);
        if (v !== undefined) out[key] = v;
      }
      const extra = Object.keys(value).filter((k) => !Object.hasOwn(schema.shape, k));
      if (extra.length && schema.strict) add('unrecognized_keys', `Unrecognized key${extra.length > 1 ? 's' : ''}: ${extra.map((k) => JSON.stringify(k)).join(', ')}`, { keys: extra });
      if (schema.refine && issues.length === 0) for (const issue of schema.refine(out)) issues.push({ code: 'custom', path: [...path, ...(issue.path ?? [])], message: issue.message });
      return out;
    }
    case 'tagged': {
      const option = isObject(value) ? schema.options.find((o) => check(o.shape[schema.key], value[schema.key]).length === 0) : undefined;
      if (!option) return void add('invalid_union', `Invalid input: no matching "${schema.key}"`, { discriminator: schema.key });
      return walk(option, value, path, issues);
    }
    case 'union': {
      for (const option of schema.options) {
        const sub = [];
        const v = walk(option, value, path, sub);
        if (sub.length === 0) return v;
      }
      return void add('invalid_union', 'Invalid input');
    }
    default:
      throw new Error(`unknown schema kind ${schema.kind}`);
  }
}

/** The issues of `value` against `schema` (empty when it fits). */
export function check(schema, value) {
  const issues = [];
  walk(schema, value, [], issues);
  return issues;
}

/** `{ok:true, value}` (unknown keys of non-strict objects dropped) or `{ok:false, issues}`. */
export function parse(schema, value) {
  const issues = [];
  const out = walk(schema, value, [], issues);
  return issues.length ? { ok: false, issues } : { ok: true, value: out };
}

/** zod's `error.message`: the issues as pretty JSON (what zcode puts in an invalidPayload ACK's message). */
export function issuesText(issues) {
  return JSON.stringify(issues, null, 2);
}
