/**
 * What the bridge's elicitation forms mean, declared once for the three layers that build, render
 * and summarize them: bridge/translate/interactions.ts builds the forms and reads the answers,
 * webview-ui/ renders them, extension/chat/interactionView.ts summarizes an answer in words.
 * Dependency-free (shared/ imports nothing: eslint.config.mjs).
 */

/**
 * Which native form an elicitation is. The bridge tags every `elicitation/create` it sends with
 * `_meta.zcode.formKind` (`formKindMeta`); a client reads the tag (`readFormKind`) instead of
 * guessing from field names. An untagged form is a generic `form`.
 */
export type FormKind = 'questions' | 'planFeedback' | 'form';

/** `_meta` of an elicitation of this kind. */
export function formKindMeta(kind: FormKind): { zcode: { formKind: FormKind } } {
  return { zcode: { formKind: kind } };
}

/** The tag of an elicitation's `_meta`, or `form` when it has none (or one this build does not know). */
export function readFormKind(meta: unknown): FormKind {
  const zcode = isRecord(meta) ? meta.zcode : undefined;
  const kind = isRecord(zcode) ? zcode.formKind : undefined;
  return kind === 'questions' || kind === 'planFeedback' ? kind : 'form';
}

/** The `const` of the "Skip this question" choice every question with suggested answers offers. */
export const SKIP_CHOICE = '__skip__';
/** Its readable title. */
export const SKIP_TITLE = 'Skip this question';

/** The plan-approval form's single field (empty = approve, text = reject and redirect). */
export const PLAN_FEEDBACK_FIELD = 'feedback';

/** A choice field `<key>` may have a free-text companion `<key>_other` (question `q_<i>` → `q_<i>_other`). */
export function otherFieldOf(key: string): string {
  return `${key}_other`;
}

/** The choice field a companion belongs to (`q_0_other` → `q_0`), or undefined for any other key. */
export function choiceFieldOf(key: string): string | undefined {
  return key.endsWith('_other') && key.length > '_other'.length ? key.slice(0, -'_other'.length) : undefined;
}

/** The "other" field's title says which half of `combineAnswer`'s rule applies to its question. */
export function otherTitle(multiple: boolean): string {
  return multiple ? '↳ or type another value (added to the selection)' : '↳ or type a custom value (overrides the selection)';
}

/**
 * One question's answer from its picks and its "other" text — the rule the bridge answers zcode
 * with and every client shows:
 * - single choice: non-empty `other` overrides the pick; Skip or nothing skips;
 * - multiple choice: the picks (Skip among them drops them) with `other` added after them.
 * Returns the answer's parts in order; empty = the question is skipped.
 */
export function combineAnswer(picks: readonly string[], other: string, multiple: boolean): string[] {
  const typed = other.trim();
  const chosen = picks.map((p) => p.trim()).filter((p) => p !== '');
  if (multiple) {
    const values = chosen.includes(SKIP_CHOICE) ? [] : chosen;
    return typed === '' ? values : [...values, typed];
  }
  if (typed !== '') return [typed];
  return chosen.includes(SKIP_CHOICE) ? [] : chosen;
}

/** How the "other" text combines with the pick (the hint under the field); undefined while it is empty. */
export function otherEffect(other: string, multiple: boolean): 'overrides' | 'adds' | undefined {
  if (other.trim() === '') return undefined;
  return multiple ? 'adds' : 'overrides';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
