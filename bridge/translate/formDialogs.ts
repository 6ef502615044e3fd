/**
 * zcode's `interaction/requestUserInput` as ACP dialogs, and the answers back as the replies zcode
 * expects: questions (AskUserQuestion) as one `elicitation/create` form, or one permission dialog
 * per question for a client without forms; plan approval (ExitPlanMode) as a one-field feedback
 * form, or an Approve/Reject permission dialog. Routing is the ACP layer's (permissionDialogs.ts
 * header).
 */
import { bt, type BridgeLocale } from '../l10n/messages.ts';
import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  EnumOption,
  PermissionOption,
  RequestPermissionRequest,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { Question, UserInputReply } from '../zcode/protocol.ts';
import { combineAnswer, formKindMeta, otherFieldOf, otherTitle, PLAN_FEEDBACK_FIELD, SKIP_CHOICE, SKIP_TITLE } from '../../shared/forms.ts';
import { textContent } from './content.ts';

import { outcomeOf } from './permissionDialogs.ts';
import type { PermissionAnswer } from './permissionDialogs.ts';

// ---------------------------------------------------------------------------------------------
// Questions (AskUserQuestion)
// ---------------------------------------------------------------------------------------------

/** The form field of question `i` (`q_<i>`) and of its free-text companion (`q_<i>_other`). */
function questionFieldId(index: number): string {
  return `q_${index}`;
}
function otherFieldId(index: number): string {
  return otherFieldOf(questionFieldId(index));
}

function questionChoices(question: Question): EnumOption[] {
  const seen = new Set<string>();
  const choices: EnumOption[] = [];
  for (const option of question.options) {
    if (option.label === '' || option.label === SKIP_CHOICE || seen.has(option.label)) continue;
    seen.add(option.label);
    const choice: EnumOption = { const: option.label, title: option.label };
    if (option.description) choice.description = option.description;
    choices.push(choice);
  }
  return choices;
}

function titled(question: Question): { title: string; description?: string } {
  return question.header ? { title: question.header, description: question.question } : { title: question.question };
}

/**
 * `elicitation/create` params asking all questions in ONE form. Per question `q_<i>`: a string
 * field whose `oneOf` lists the suggested answers (`const` = `title` = the label, plus the
 * description) and a trailing Skip choice; multi-select questions are an array field with
 * `items.anyOf` of the same choices. Each gets a free-text companion `q_<i>_other`. Nothing is
 * required. Title = header (or the question), description = the question when a header is used.
 * A question without suggested answers is a single free-text field `q_<i>`.
 */
export function questionsToElicitation(sessionId: string, questions: readonly Question[], toolCallId?: string, locale: BridgeLocale = 'en'): CreateElicitationRequest {
  const properties: Record<string, ElicitationPropertySchema> = {};
  questions.forEach((question, i) => {
    const label = titled(question);
    const choices = questionChoices(question);
    if (choices.length === 0) {
      properties[questionFieldId(i)] = { type: 'string', ...label };
      return;
    }
    const withSkip: EnumOption[] = [...choices, { const: SKIP_CHOICE, title: bt(locale, SKIP_TITLE) }];
    properties[questionFieldId(i)] = question.multiSelect
      ? { type: 'array', ...label, items: { anyOf: withSkip } }
      : { type: 'string', ...label, oneOf: withSkip };
    properties[otherFieldId(i)] = { type: 'string', title: bt(locale, otherTitle(question.multiSelect === true)) };
  });
  const request: CreateElicitationRequest = {
    mode: 'form',
    sessionId,
    message: questions.length === 1 ? bt(locale, 'Please answer the question.') : bt(locale, 'Please answer {0} question(s).', questions.length),
    requestedSchema: { type: 'object', properties, required: [] },
    _meta: formKindMeta('questions'),
  };
  if (toolCallId) request.toolCallId = toolCallId;
  return request;
}

function trimmed(value: unknown): string {
  return typeof value === 'string' ? value.trim() : typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
}

/**
 * One question's answer from its pick and its free-text companion, or undefined to skip it
 * (`combineAnswer`, shared/forms.ts: `other` overrides a single pick and is added to multiple picks).
 */
function answerOf(question: Question, pick: unknown, other: unknown): string | undefined {
  const picks = (Array.isArray(pick) ? pick : pick === undefined ? [] : [pick]).map(trimmed);
  const parts = combineAnswer(picks, trimmed(other), question.multiSelect === true && questionChoices(question).length > 0);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/**
 * The zcode reply to the questions form: accept → `{action:"accept", content:{answers:{"<question
 * text>": "<answer>"}}}` with skipped questions left out; decline / cancel (anything but accept) →
 * `{action:"decline", reason:"cancelled"}`.
 */
export function elicitationToAnswers(questions: readonly Question[], response: CreateElicitationResponse): UserInputReply {
  if (response.action !== 'accept') return { action: 'decline', reason: 'cancelled' };
  const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
  const answers: Record<string, string> = {};
  questions.forEach((question, i) => {
    const answer = answerOf(question, content[questionFieldId(i)], content[otherFieldId(i)]);
    if (answer !== undefined) answers[question.question] = answer;
  });
  return { action: 'accept', content: { answers } };
}

/** Permission option id of question `index`'s option `option` (clients without forms). */
function questionOptionId(index: number, option: number): string {
  return `q_${index}_opt_${option}`;
}

/**
 * For clients without forms: question `index` as a `session/request_permission`, one option per
 * suggested answer (allow_once) plus "Skip this question" (reject_once, id `SKIP_CHOICE`). Free text
 * and several picks cannot be expressed in a permission dialog: a multi-select question takes one
 * answer.
 *
 * ACP has no message field on this request: the dialog's `toolCall` is an update of the card the
 * client already shows (Zed applies it, then renders the options under it). So the question travels
 * as the card's content (and under `_meta.zcode`), never as its `title`: retitling the card per
 * question would leave e.g. "2 questions" named after the last question once answered. Only a
 * dialog with no card behind it (`toolCall` absent) names one, since a client then has nothing else
 * to show.
 */
export function questionToPermission(sessionId: string, question: Question, index: number, toolCall?: ToolCallUpdate): RequestPermissionRequest {
  const heading = question.header ? `${question.header}: ${question.question}` : question.question;
  const lines = [heading, ...question.options.map((o) => `- **${o.label}**${o.description ? `: ${o.description}` : ''}`)];
  const options: PermissionOption[] = question.options
    .map((o, j) => ({ optionId: questionOptionId(index, j), name: o.label, kind: 'allow_once' as const }))
    .filter((o) => o.name !== '');
  options.push({ optionId: SKIP_CHOICE, name: SKIP_TITLE, kind: 'reject_once' });
  const card: ToolCallUpdate = toolCall
    ? { toolCallId: toolCall.toolCallId, status: 'pending', content: [textContent(lines.join('\n'))] }
    : { toolCallId: `question_${index}`, title: heading, kind: 'other', status: 'pending', content: [textContent(lines.join('\n'))] };
  const zcode: Record<string, unknown> = { questionIndex: index, question: question.question, multiSelect: question.multiSelect };
  if (question.header) zcode.header = question.header;
  return { sessionId, toolCall: card, options, _meta: { zcode } };
}

/**
 * The zcode reply from one permission answer per question (same order as `questions`): a selected
 * option is that option's label, Skip leaves the question out, and a cancelled (or missing) answer
 * cancels the whole form → `{action:"decline", reason:"cancelled"}`.
 */
export function permissionAnswersToReply(questions: readonly Question[], answers: readonly (PermissionAnswer | undefined)[]): UserInputReply {
  const result: Record<string, string> = {};
  for (let i = 0; i < questions.length; i++) {
    const outcome = outcomeOf(answers[i]);
    if (outcome.outcome !== 'selected') return { action: 'decline', reason: 'cancelled' };
    const m = /^q_(\d+)_opt_(\d+)$/.exec(outcome.optionId);
    const label = m && Number(m[1]) === i ? questions[i].options[Number(m[2])]?.label : undefined;
    if (label) result[questions[i].question] = label;
  }
  return { action: 'accept', content: { answers: result } };
}

// ---------------------------------------------------------------------------------------------
// Plan approval (ExitPlanMode)
// ---------------------------------------------------------------------------------------------

/**
 * `elicitation/create` params for plan approval: one optional free-text `feedback` field. Submitting
 * it empty approves; text rejects and redirects; decline/cancel rejects.
 */
export function planToElicitation(sessionId: string, plan: string, toolCallId?: string, locale: BridgeLocale = 'en'): CreateElicitationRequest {
  const request: CreateElicitationRequest = {
    mode: 'form',
    sessionId,
    // The rule (empty approves, text redirects) is said once, by the field it is about.
    message: `${bt(locale, 'Ready to code?')}\n\n${plan}`,
    requestedSchema: {
      type: 'object',
      properties: {
        [PLAN_FEEDBACK_FIELD]: {
          type: 'string',
          title: bt(locale, 'Feedback'),
          description: bt(locale, 'Empty = approve the plan. Anything typed = reject and use this text as the redirection.'),
        },
      },
      required: [],
    },
    _meta: formKindMeta('planFeedback'),
  };
  if (toolCallId) request.toolCallId = toolCallId;
  return request;
}

const APPROVE: UserInputReply = { action: 'accept', content: { answer_0: 'approve' } };
const REJECT: UserInputReply = { action: 'decline', reason: 'rejected' };

/**
 * The zcode reply to the plan form: accept with empty feedback → approve
 * (`{action:"accept", content:{answer_0:"approve"}}`); accept with text → `{action:"decline",
 * reason:"<text, trimmed>"}`; decline / cancel → `{action:"decline", reason:"rejected"}`.
 */
export function planElicitationToReply(response: CreateElicitationResponse): UserInputReply {
  if (response.action !== 'accept') return REJECT;
  const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
  const feedback = trimmed(content[PLAN_FEEDBACK_FIELD]);
  return feedback === '' ? APPROVE : { action: 'decline', reason: feedback };
}

/** Permission option ids of the plan dialog (clients without forms). */
const PLAN_APPROVE_OPTION = 'approve';
const PLAN_REJECT_OPTION = 'reject';

/**
 * For clients without forms: plan approval as `session/request_permission` with the plan as the
 * card's content (kind switch_mode), options Approve / Reject.
 */
export function planToPermission(sessionId: string, plan: string, toolCall?: ToolCallUpdate): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      ...toolCall,
      toolCallId: toolCall?.toolCallId ?? 'plan_approval',
      title: toolCall?.title ?? 'Plan ready for approval',
      kind: 'switch_mode',
      status: 'pending',
      content: [textContent(plan)],
    },
    options: [
      { optionId: PLAN_APPROVE_OPTION, name: 'Approve', kind: 'allow_once' },
      { optionId: PLAN_REJECT_OPTION, name: 'Reject', kind: 'reject_once' },
    ],
  };
}

/** The zcode reply to the plan dialog: Approve → approve; Reject or cancelled → `{action:"decline", reason:"rejected"}`. */
export function planPermissionToReply(answer: PermissionAnswer): UserInputReply {
  const outcome = outcomeOf(answer);
  return outcome.outcome === 'selected' && outcome.optionId === PLAN_APPROVE_OPTION ? APPROVE : REJECT;
}
