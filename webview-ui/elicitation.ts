/**
 * The elicitation form model: an ACP `requestedSchema` (the elicitation subset: string, number,
 * integer, boolean, single-select enum/oneOf, multi-select array of enum/anyOf) → fields, plus
 * validation and the exact `content` the bridge receives.
 *
 * "Other" companions: a string field named `<key>_other` next to a choice field `<key>` (the
 * bridge's question forms: `q_<i>` + `q_<i>_other`) is rendered directly under its choice field and
 * always sent, even empty (the bridge reads it to decide override / add / skip).
 */
import { choiceFieldOf, otherEffect as sharedOtherEffect, otherFieldOf, SKIP_CHOICE } from '../shared/forms.ts';
import { t } from './l10n.ts';
import type { ElicitationContentValue, ElicitationPropertySchema, ElicitationSchema } from '@agentclientprotocol/sdk';

export interface Choice {
  value: string;
  title: string;
  description?: string;
}

interface FieldBase {
  key: string;
  title: string;
  description?: string;
  required: boolean;
}

export type Field =
  | (FieldBase & { kind: 'select'; choices: Choice[]; other?: OtherField; defaultValue?: string })
  | (FieldBase & { kind: 'multi'; choices: Choice[]; other?: OtherField; minItems?: number; maxItems?: number; defaultValue?: string[] })
  | (FieldBase & { kind: 'text'; format?: string; minLength?: number; maxLength?: number; pattern?: string; defaultValue?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; defaultValue?: number })
  | (FieldBase & { kind: 'boolean'; defaultValue?: boolean })
  | (FieldBase & { kind: 'unsupported'; type: string });

/** The free-text companion of a choice field. */
export interface OtherField {
  key: string;
  title: string;
  description?: string;
}

/** Form state while editing: strings for text/number/select, arrays for multi, booleans. */
export type FormValues = Record<string, string | string[] | boolean>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const numOr = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function choicesOf(source: Record<string, unknown> | undefined): Choice[] {
  if (!source) return [];
  const titled = Array.isArray(source.oneOf) ? source.oneOf : Array.isArray(source.anyOf) ? source.anyOf : undefined;
  if (titled) {
    return titled
      .filter((o): o is Record<string, unknown> => typeof o === 'object' && o !== null && typeof (o as { const?: unknown }).const === 'string')
      .map((o) => ({ value: o.const as string, title: str(o.title) ?? (o.const as string), ...(str(o.description) ? { description: o.description as string } : {}) }));
  }
  if (Array.isArray(source.enum)) return source.enum.filter((v): v is string => typeof v === 'string').map((v) => ({ value: v, title: v }));
  return [];
}

function isChoiceField(p: ElicitationPropertySchema | undefined): boolean {
  if (!p) return false;
  if (p.type === 'array') return true;
  return p.type === 'string' && choicesOf(p as Record<string, unknown>).length > 0;
}

/** Fields in schema order; `<key>_other` companions are folded into their choice field. */
export function formFields(schema: ElicitationSchema): Field[] {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const companions = new Set<string>();
  for (const key of Object.keys(properties)) {
    const base = choiceFieldOf(key);
    if (base && isChoiceField(properties[base]) && properties[key].type === 'string' && choicesOf(properties[key] as Record<string, unknown>).length === 0) companions.add(key);
  }
  const fields: Field[] = [];
  for (const [key, property] of Object.entries(properties)) {
    if (companions.has(key)) continue;
    const p = property as Record<string, unknown>;
    const base: FieldBase = { key, title: str(p.title) ?? key, required: required.has(key), ...(str(p.description) ? { description: p.description as string } : {}) };
    const otherKey = otherFieldOf(key);
    const other: OtherField | undefined = companions.has(otherKey)
      ? {
          key: otherKey,
          title: str((properties[otherKey] as Record<string, unknown>).title) ?? t('Other'),
          ...(str((properties[otherKey] as Record<string, unknown>).description) ? { description: (properties[otherKey] as Record<string, unknown>).description as string } : {}),
        }
      : undefined;
    switch (property.type) {
      case 'string': {
        const choices = choicesOf(p);
        if (choices.length) fields.push({ ...base, kind: 'select', choices, ...(other ? { other } : {}), ...(str(p.default) ? { defaultValue: p.default as string } : {}) });
        else
          fields.push({
            ...base,
            kind: 'text',
            ...(str(p.format) ? { format: p.format as string } : {}),
            ...(numOr(p.minLength) !== undefined ? { minLength: p.minLength as number } : {}),
            ...(numOr(p.maxLength) !== undefined ? { maxLength: p.maxLength as number } : {}),
            ...(str(p.pattern) ? { pattern: p.pattern as string } : {}),
            ...(typeof p.default === 'string' ? { defaultValue: p.default } : {}),
          });
        break;
      }
      case 'number':
      case 'integer':
        fields.push({
          ...base,
          kind: 'number',
          integer: property.type === 'integer',
          ...(numOr(p.minimum) !== undefined ? { minimum: p.minimum as number } : {}),
          ...(numOr(p.maximum) !== undefined ? { maximum: p.maximum as number } : {}),
          ...(numOr(p.default) !== undefined ? { defaultValue: p.default as number } : {}),
        });
        break;
      case 'boolean':
        fields.push({ ...base, kind: 'boolean', ...(typeof p.default === 'boolean' ? { defaultValue: p.default } : {}) });
        break;
      case 'array': {
        const items = typeof p.items === 'object' && p.items !== null ? (p.items as Record<string, unknown>) : undefined;
        fields.push({
          ...base,
          kind: 'multi',
          choices: choicesOf(items),
          ...(other ? { other } : {}),
          ...(numOr(p.minItems) !== undefined ? { minItems: p.minItems as number } : {}),
          ...(numOr(p.maxItems) !== undefined ? { maxItems: p.maxItems as number } : {}),
          ...(Array.isArray(p.default) ? { defaultValue: (p.default as unknown[]).filter((v): v is string => typeof v === 'string') } : {}),
        });
        break;
      }
      default:
        fields.push({ ...base, kind: 'unsupported', type: String(property.type) });
    }
  }
  return fields;
}

/** Initial values: the schema's defaults, else empty. */
export function initialValues(fields: Field[]): FormValues {
  const values: FormValues = {};
  for (const f of fields) {
    switch (f.kind) {
      case 'select':
        values[f.key] = f.defaultValue ?? '';
        break;
      case 'multi':
        values[f.key] = f.defaultValue ?? [];
        break;
      case 'text':
        values[f.key] = f.defaultValue ?? '';
        break;
      case 'number':
        values[f.key] = f.defaultValue !== undefined ? String(f.defaultValue) : '';
        break;
      case 'boolean':
        values[f.key] = f.defaultValue ?? false;
        break;
      case 'unsupported':
        break;
    }
    if ((f.kind === 'select' || f.kind === 'multi') && f.other) values[f.other.key] = '';
  }
  return values;
}

const asString = (v: FormValues[string] | undefined): string => (typeof v === 'string' ? v : '');
const asArray = (v: FormValues[string] | undefined): string[] => (Array.isArray(v) ? v : []);

/** How the "other" text combines with the pick, for the visible hint under the field (the bridge's rule, shared/forms.ts). */
export function otherEffect(field: Field, values: FormValues): 'overrides' | 'adds' | undefined {
  if ((field.kind !== 'select' && field.kind !== 'multi') || !field.other) return undefined;
  return sharedOtherEffect(asString(values[field.other.key]), field.kind === 'multi');
}

/** Problems that block submitting, by field key (empty object = valid). */
export function validateForm(fields: Field[], values: FormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.key];
    switch (f.kind) {
      case 'select': {
        const other = f.other ? asString(values[f.other.key]).trim() : '';
        if (f.required && asString(v) === '' && other === '') errors[f.key] = t('Choose an answer.');
        break;
      }
      case 'multi': {
        const count = asArray(v).filter((x) => x !== SKIP_CHOICE).length + (f.other && asString(values[f.other.key]).trim() ? 1 : 0);
        if (f.required && count === 0 && !asArray(v).includes(SKIP_CHOICE)) errors[f.key] = t('Choose at least one answer.');
        else if (f.minItems !== undefined && count > 0 && count < f.minItems) errors[f.key] = `Choose at least ${f.minItems}.`;
        else if (f.maxItems !== undefined && count > f.maxItems) errors[f.key] = `Choose at most ${f.maxItems}.`;
        break;
      }
      case 'text': {
        const s = asString(v);
        if (s === '') {
          if (f.required) errors[f.key] = t('Required.');
          break;
        }
        if (f.minLength !== undefined && s.length < f.minLength) errors[f.key] = `At least ${f.minLength} characters.`;
        else if (f.maxLength !== undefined && s.length > f.maxLength) errors[f.key] = `At most ${f.maxLength} characters.`;
        else if (f.pattern && !safeTest(f.pattern, s)) errors[f.key] = t('Does not match the expected format.');
        else if (f.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(s)) errors[f.key] = t('Enter an email address.');
        else if (f.format === 'uri' && !isUri(s)) errors[f.key] = 'Enter a URI.';
        else if (f.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(s)) errors[f.key] = 'Enter a date (YYYY-MM-DD).';
        break;
      }
      case 'number': {
        const s = asString(v).trim();
        if (s === '') {
          if (f.required) errors[f.key] = t('Required.');
          break;
        }
        const n = Number(s);
        if (!Number.isFinite(n)) errors[f.key] = t('Enter a number.');
        else if (f.integer && !Number.isInteger(n)) errors[f.key] = t('Enter a whole number.');
        else if (f.minimum !== undefined && n < f.minimum) errors[f.key] = `At least ${f.minimum}.`;
        else if (f.maximum !== undefined && n > f.maximum) errors[f.key] = `At most ${f.maximum}.`;
        break;
      }
      case 'boolean':
        break;
      case 'unsupported':
        if (f.required) errors[f.key] = t('This form asks for a "{0}" value, which this view cannot show.', f.type);
        break;
    }
  }
  return errors;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true; // an invalid pattern from the agent must not block the user
  }
}

function isUri(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The `content` of an `accept` response, keyed by field name exactly as the schema names them:
 * a picked single choice (omitted when nothing is picked), multi-select arrays (possibly empty),
 * booleans, numbers (omitted when empty), text (omitted when empty), and every `_other` companion
 * as a trimmed string, even empty.
 */
export function formContent(fields: Field[], values: FormValues): Record<string, ElicitationContentValue> {
  const content: Record<string, ElicitationContentValue> = {};
  for (const f of fields) {
    const v = values[f.key];
    switch (f.kind) {
      case 'select':
        if (asString(v) !== '') content[f.key] = asString(v);
        break;
      case 'multi':
        content[f.key] = asArray(v).slice();
        break;
      case 'text':
        if (asString(v) !== '') content[f.key] = asString(v);
        break;
      case 'number':
        if (asString(v).trim() !== '') content[f.key] = Number(asString(v));
        break;
      case 'boolean':
        content[f.key] = v === true;
        break;
      case 'unsupported':
        break;
    }
    if ((f.kind === 'select' || f.kind === 'multi') && f.other) content[f.other.key] = asString(values[f.other.key]).trim();
  }
  return content;
}

/**
 * Toggling a multi-select choice: "Skip" clears the others, any other choice clears "Skip".
 * The result follows `order` (the schema's choice order), not click order.
 */
export function toggleChoice(current: string[], value: string, checked: boolean, order: string[] = []): string[] {
  if (!checked) return current.filter((v) => v !== value);
  if (value === SKIP_CHOICE) return [SKIP_CHOICE];
  const next = [...current.filter((v) => v !== SKIP_CHOICE && v !== value), value];
  const rank = (v: string): number => {
    const i = order.indexOf(v);
    return i < 0 ? order.length : i;
  };
  return next.sort((a, b) => rank(a) - rank(b));
}
