/**
 * Permission prompts and elicitation forms → transcript cards, and their answers → one-line
 * summaries. Pure functions.
 *
 * Form kinds (the bridge's shapes, seed "elicitation form example" / "ExitPlanMode elicitation form"):
 *   - `planFeedback`: exactly one string field `feedback`. Empty submit approves, text rejects with
 *     that text, the plain Reject declines.
 *   - `questions`: `q_<i>` fields (oneOf dropdown incl. `__skip__`, or an array of anyOf) each with
 *     a `q_<i>_other` free-text companion.
 *   - `form`: anything else in the ACP elicitation subset, rendered generically.
 */
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  ElicitationSchema,
  RequestPermissionRequest,
} from '@agentclientprotocol/sdk';
import { toolDiffContent } from '../../bridge/translate/toolInfo.ts';
import type { ElicitationFormKind, ElicitationItem, PermissionItem, ToolContentView, ToolItem } from '../../webview-ui/contract.ts';
import { compactDiff } from './lineDiff.ts';
import { previewValue, type DiffSource } from './toolView.ts';

/** The bridge's "Skip this question" choice. */
export const SKIP_VALUE = '__skip__';

/**
 * The diff an edit permission proposes: the request's own diff content, else the diff the bridge
 * would show for the tool's input (zcode's `_meta.zcode.toolName` + `rawInput`, bridge/translate/toolInfo.ts).
 */
export function proposedDiffs(params: RequestPermissionRequest): DiffSource[] {
  const call = params.toolCall;
  const own = (call.content ?? []).flatMap((c) => (c.type === 'diff' ? [{ path: c.path, oldText: c.oldText ?? null, newText: c.newText }] : []));
  if (own.length) return own;
  const zcode = params._meta?.zcode;
  const toolName = typeof zcode === 'object' && zcode !== null ? (zcode as Record<string, unknown>).toolName : undefined;
  if (typeof toolName !== 'string' || call.rawInput === undefined) return [];
  return toolDiffContent(toolName, call.rawInput, '').flatMap((c) => (c.type === 'diff' ? [{ path: c.path, oldText: c.oldText ?? null, newText: c.newText }] : []));
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
    // An edit shows what it will change rather than its raw JSON.
    ...(diffs.length ? { toolCallId: call.toolCallId, diffs: diffViews(diffs) } : {}),
    options: params.options,
    state: 'pending',
  };
}

export function formKindOf(params: CreateElicitationRequest): ElicitationFormKind {
  if (params.mode !== 'form' || !('requestedSchema' in params)) return 'unsupported';
  const properties = (params.requestedSchema as ElicitationSchema).properties ?? {};
  const keys = Object.keys(properties);
  if (keys.length === 1 && keys[0] === 'feedback' && properties.feedback.type === 'string') return 'planFeedback';
  if (keys.some((k) => /^q_\d+$/.test(k))) return 'questions';
  return 'form';
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
 * What the user answered, in words. For question forms this mirrors the bridge's rule: a non-empty
 * `q_<i>_other` overrides a single pick / is added to multiple picks; `__skip__` or nothing = skipped.
 */
export function summarizeElicitation(item: ElicitationItem, response: CreateElicitationResponse): string {
  if (response.action !== 'accept') {
    return item.formKind === 'planFeedback' ? 'Plan rejected' : response.action === 'decline' ? 'Declined' : 'Cancelled';
  }
  const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
  if (item.formKind === 'planFeedback') {
    const feedback = typeof content.feedback === 'string' ? content.feedback.trim() : '';
    return feedback ? `Rejected with feedback: ${feedback}` : 'Plan approved';
  }
  const properties = item.schema.properties ?? {};
  const lines: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    if (key.endsWith('_other') && key.slice(0, -'_other'.length) in properties) continue;
    const other = content[`${key}_other`];
    const otherText = typeof other === 'string' ? other.trim() : '';
    const value = content[key];
    let answer: string;
    if (Array.isArray(value)) {
      const picks = value.filter((v): v is string => typeof v === 'string' && v !== SKIP_VALUE).map((v) => choiceTitle(property, v));
      if (otherText) picks.push(otherText);
      answer = picks.length ? picks.join(', ') : 'skipped';
    } else if (otherText) {
      answer = otherText;
    } else if (value === undefined || value === '' || value === SKIP_VALUE) {
      answer = 'skipped';
    } else {
      answer = typeof value === 'string' ? choiceTitle(property, value) : String(value);
    }
    lines.push(`${titleOf(key, property)}: ${answer}`);
  }
  return lines.join('\n') || 'Submitted';
}
