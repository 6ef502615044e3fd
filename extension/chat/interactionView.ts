/**
 * Permission prompts and elicitation forms → transcript cards, and their answers → one-line
 * summaries. Pure functions.
 *
 * Form kinds come from the bridge's tag `_meta.zcode.formKind` (shared/forms.ts), never from
 * field names:
 *   - `planFeedback`: one string field (`PLAN_FEEDBACK_FIELD`). Empty submit approves, text
 *     rejects with that text, the plain Reject declines.
 *   - `questions`: one choice field per question (a oneOf dropdown with the Skip choice, or an
 *     array of anyOf), each with its `<field>_other` free-text companion.
 *   - `form`: anything else in the ACP elicitation subset, rendered generically.
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  ElicitationSchema,
  RequestPermissionRequest,
} from '@agentclientprotocol/sdk';
import { choiceFieldOf, combineAnswer, otherFieldOf, PLAN_FEEDBACK_FIELD, readFormKind } from '../../shared/forms.ts';
import { ANSWER_WORDS, type ElicitationFormKind, type ElicitationItem, type PermissionItem, type ToolContentView, type ToolItem } from '../../webview-ui/viewModel.ts';
import { compactDiff } from './lineDiff.ts';
import { previewValue, type DiffSource } from './toolView.ts';

/**
 * The diff an edit permission proposes: the request's own diff content (the bridge sends an edit's
 * proposed diff with the request: bridge/translate/interactions.ts `permissionToAcp`).
 */
export function proposedDiffs(params: RequestPermissionRequest): DiffSource[] {
  return (params.toolCall.content ?? []).flatMap((c) => (c.type === 'diff' ? [{ path: c.path, oldText: c.oldText ?? null, newText: c.newText }] : []));
}

function diffViews(sources: readonly DiffSource[]): Extract<ToolContentView, { type: 'diff' }>[] {
  return sources.map((d, index) => ({ type: 'diff', index, path: d.path, isNew: d.oldText == null, ...compactDiff(d.oldText, d.newText) }));
}

export function permissionItem(id: string, params: RequestPermissionRequest, tool: ToolItem | undefined, diffs: readonly DiffSource[] = []): PermissionItem {
  const call = params.toolCall;
  const detail = (call.content ?? [])
    .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : ''))
    .filter(Boolean)
    .join('\n\n');
  return {
    type: 'permission',
    id,
    title: call.title ?? tool?.title ?? 'A tool wants to run',
    kind: call.kind ?? tool?.kind,
    input: call.rawInput !== undefined ? previewValue(call.rawInput) : tool?.input,
    ...(detail ? { detail } : {}),
    ...shellCommandOf(call.kind ?? tool?.kind, call.rawInput),
    // An edit shows what it will change rather than its raw JSON.
    ...(diffs.length ? { toolCallId: call.toolCallId, diffs: diffViews(diffs) } : {}),
    options: params.options,
    state: 'pending',
  };
}

/** A shell tool's command line and description (zcode's Bash input), shown as a command rather than JSON. */
function shellCommandOf(kind: string | undefined, rawInput: unknown): { command?: { line: string; description?: string } } {
  if (kind !== 'execute' || typeof rawInput !== 'object' || rawInput === null) return {};
  const input = rawInput as Record<string, unknown>;
  if (typeof input.command !== 'string' || !input.command.trim()) return {};
  const description = typeof input.description === 'string' && input.description.trim() ? input.description.trim() : undefined;
  return { command: { line: input.command, ...(description ? { description } : {}) } };
}

/** The form's kind as the bridge tagged it; `unsupported` for anything but a form. */
function formKindOf(params: CreateElicitationRequest): ElicitationFormKind {
  if (params.mode !== 'form' || !('requestedSchema' in params)) return 'unsupported';
  return readFormKind(params._meta);
}

export function elicitationItem(id: string, params: CreateElicitationRequest): ElicitationItem {
  const formKind = formKindOf(params);
  const schema: ElicitationSchema = formKind === 'unsupported' ? { type: 'object', properties: {} } : ((params as { requestedSchema: ElicitationSchema }).requestedSchema ?? { type: 'object' });
  return { type: 'elicitation', id, formKind, message: params.message, schema, state: 'pending' };
}

function titleOf(key: string, property: ElicitationPropertySchema | undefined): string {
  return typeof property?.title === 'string' && property.title ? property.title : key;
}

function choiceTitle(property: ElicitationPropertySchema | undefined, value: string): string {
  const p = property as Record<string, unknown> | undefined;
  const items = p?.type === 'array' ? (p.items as Record<string, unknown> | undefined) : p;
  const options = (items?.oneOf ?? items?.anyOf) as { const: string; title?: string }[] | undefined;
  return options?.find((o) => o.const === value)?.title ?? value;
}

/**
 * What the user answered, in words. For question forms this is the bridge's own rule
 * (`combineAnswer`, shared/forms.ts): "other" overrides a single pick / is added to multiple picks;
 * Skip or nothing = skipped.
 */
export function summarizeElicitation(item: ElicitationItem, response: CreateElicitationResponse): string {
  if (response.action !== 'accept') {
    return item.formKind === 'planFeedback' ? ANSWER_WORDS.planRejected : response.action === 'decline' ? ANSWER_WORDS.declined : ANSWER_WORDS.cancelled;
  }
  const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
  if (item.formKind === 'planFeedback') {
    const value = content[PLAN_FEEDBACK_FIELD];
    const feedback = typeof value === 'string' ? value.trim() : '';
    return feedback ? `${ANSWER_WORDS.rejectedWithFeedback}${feedback}` : ANSWER_WORDS.planApproved;
  }
  const properties = item.schema.properties ?? {};
  const lines: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    const base = choiceFieldOf(key);
    if (base !== undefined && base in properties) continue;
    const other = content[otherFieldOf(key)];
    const value = content[key];
    const picks = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => (typeof v === 'string' ? v : String(v)));
    const parts = combineAnswer(picks, typeof other === 'string' ? other : '', Array.isArray(value));
    // A typed "other" is not a choice: choiceTitle gives it back unchanged.
    const answer = parts.length ? parts.map((v) => choiceTitle(property, v)).join(', ') : ANSWER_WORDS.skipped;
    lines.push(`${titleOf(key, property)}: ${answer}`);
  }
  return lines.join('\n') || ANSWER_WORDS.submitted;
}
