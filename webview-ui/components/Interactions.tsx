/**
 * The native forms: permission cards, the plan feedback box, and schema-driven elicitation forms
 * (the question form is one: a dropdown per question with its "other" field right under it).
 * Keyboard: Tab order follows the layout, Enter submits, Escape cancels. A new card focuses its
 * heading (never a decision) and ignores keys pressed before it appeared (useCardFocus.ts). Once
 * answered or withdrawn by the bridge, a form collapses into a one-line record.
 */
import { t } from '../l10n.ts';
import { answerText } from '../answerText.ts';
import { PLAN_FEEDBACK_FIELD } from '../../shared/forms.ts';
import { useId, useRef, useState } from 'preact/hooks';
import { useCardFocus } from './useCardFocus.ts';
import type { ElicitationItem, PermissionItem } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { DiffView } from './DiffView.tsx';
import { Icon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';
import { SchemaForm } from './SchemaForm.tsx';
import { InlineCode, KIND_ICON } from './ToolCard.tsx';

const withdrawnText = (): string => t('Withdrawn: answered elsewhere or the turn was cancelled.');


function Resolved({ icon, title, text, withdrawn }: { icon: string; title: string; text: string; withdrawn: boolean }) {
  return (
    <section class={`card resolved${withdrawn ? ' withdrawn' : ''}`} aria-label={title}>
      <div class="card-header static">
        <Icon name={withdrawn ? 'circle-slash' : icon} />
        <span class="card-title">{title}</span>
      </div>
      <div class="resolved-text">{text}</div>
    </section>
  );
}

// ------------------------------------------------------------------------------------------------
// Permission

export function PermissionCard({ item }: { item: PermissionItem }) {
  const actions = useActions();
  const heading = useRef<HTMLElement>(null);
  const titleId = useId();
  const guard = useCardFocus(heading);
  if (item.state !== 'pending') {
    return <Resolved icon="shield" title={t('Permission: {0}', item.title)} text={item.state === 'withdrawn' ? withdrawnText() : t('Answered: {0}', answerText(item.answer ?? ''))} withdrawn={item.state === 'withdrawn'} />;
  }
  const reject = item.options.find((o) => o.kind === 'reject_once') ?? item.options.find((o) => o.kind === 'reject_always');
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && reject) {
      e.preventDefault();
      actions.answerPermission(item.id, reject.optionId);
    }
  };
  return (
    <section class="card interaction permission" role="group" aria-labelledby={titleId} onKeyDown={onKeyDown} {...guard}>
      <div class="card-header static">
        <Icon name="shield" />
        <span class="card-title" id={titleId} ref={heading} tabIndex={-1} role="heading" aria-level={3}>
          {t('Allow')} {item.kind ? <Icon name={KIND_ICON[item.kind] ?? 'tools'} /> : null} <InlineCode text={item.title} />?
        </span>
      </div>
      {item.detail && <Markdown text={item.detail} class="interaction-detail" />}
      {item.diffs?.length && item.toolCallId ? (
        item.diffs.map((d) => <DiffView key={d.index} toolCallId={item.toolCallId!} diff={d} />)
      ) : item.command ? (
        <div class="shell-command">
          {item.command.description && <div class="field-hint">{item.command.description}</div>}
          <pre aria-label={t('Command')}>
            <code>{item.command.line}</code>
          </pre>
        </div>
      ) : (
        item.input && <pre class="raw" aria-label={t('Tool input')}>{item.input}</pre>
      )}
      <div class="button-row">
        {item.options.map((option, i) => {
          const allow = option.kind.startsWith('allow');
          return (
            <button
              key={option.optionId}
              type="button"
              class={`button ${allow && i === 0 ? 'primary' : 'secondary'}`}
              onClick={() => actions.answerPermission(item.id, option.optionId)}
            >
              <Icon name={option.kind === 'allow_always' ? 'check-all' : allow ? 'check' : 'close'} /> {option.name}
            </button>
          );
        })}
      </div>
    </section>
  );
}

// ------------------------------------------------------------------------------------------------
// Plan feedback

function PlanFeedbackForm({ item }: { item: ElicitationItem }) {
  const actions = useActions();
  const [feedback, setFeedback] = useState('');
  const heading = useRef<HTMLElement>(null);
  const titleId = useId();
  const boxId = useId();
  const hintId = useId();
  const guard = useCardFocus(heading);
  const description = item.schema.properties?.[PLAN_FEEDBACK_FIELD]?.description;
  const rejecting = feedback.trim() !== '';
  const submit = (e?: Event): void => {
    e?.preventDefault();
    actions.answerElicitation(item.id, { action: 'accept', content: { [PLAN_FEEDBACK_FIELD]: feedback.trim() } });
  };
  const reject = (): void => actions.answerElicitation(item.id, { action: 'decline' });
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      // First Escape clears typed feedback; Escape on an empty box is the plain Reject.
      if (feedback) setFeedback('');
      else reject();
    } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.target instanceof HTMLTextAreaElement) {
      submit(e);
    }
  };
  return (
    <form class="card interaction plan-feedback" aria-labelledby={titleId} onSubmit={submit} onKeyDown={onKeyDown} {...guard}>
      <div class="card-header static">
        <Icon name="checklist" />
        <span class="card-title" id={titleId} ref={heading} tabIndex={-1} role="heading" aria-level={3}>
          {t('Review the plan')}
        </span>
      </div>
      <Markdown text={item.message} class="interaction-detail" />
      <label for={boxId} class="field-label">
        {t('Feedback')}
      </label>
      <textarea
        id={boxId}
        name={PLAN_FEEDBACK_FIELD}
        class="textarea"
        rows={3}
        value={feedback}
        aria-describedby={hintId}
        onInput={(e) => setFeedback((e.currentTarget as HTMLTextAreaElement).value)}
      />
      {/* The rule is said once: here, not also as a placeholder. */}
      <div id={hintId} class="field-hint">
        {description ?? t('Empty = approve the plan. Anything typed = reject and use this text as the redirection.')}
      </div>
      <div class="button-row">
        <button type="submit" class="button primary" data-outcome={rejecting ? 'reject-with-feedback' : 'approve'}>
          <Icon name={rejecting ? 'feedback' : 'check'} /> {rejecting ? t('Reject with feedback') : t('Approve plan')}
        </button>
        <button type="button" class="button secondary" onClick={reject}>
          <Icon name="close" /> {t('Reject')}
        </button>
      </div>
    </form>
  );
}

export function ElicitationCard({ item }: { item: ElicitationItem }) {
  const actions = useActions();
  const isPlan = item.formKind === 'planFeedback';
  if (item.state !== 'pending') {
    const title = isPlan ? t('Plan review') : item.formKind === 'questions' ? t('Questions') : t('Form');
    return <Resolved icon={isPlan ? 'checklist' : 'question'} title={title} text={item.state === 'withdrawn' ? withdrawnText() : (item.answer !== undefined ? answerText(item.answer) : t('Answered'))} withdrawn={item.state === 'withdrawn'} />;
  }
  if (isPlan) return <PlanFeedbackForm item={item} />;
  if (item.formKind === 'unsupported') {
    return (
      <section class="card interaction" aria-label={t('Unsupported request')}>
        <Markdown text={item.message} class="interaction-detail" />
        <div class="field-hint">{t('This kind of request cannot be answered here.')}</div>
        <div class="button-row">
          <button type="button" class="button secondary" onClick={() => actions.answerElicitation(item.id, { action: 'decline' })}>
            {t('Decline')}
          </button>
        </div>
      </section>
    );
  }
  return <SchemaForm item={item} />;
}
