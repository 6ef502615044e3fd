/**
 * A form for any elicitation schema in the ACP subset (string, number, integer, boolean,
 * single-select enum/oneOf as a dropdown, multi-select array as checkboxes). A `<key>_other`
 * free-text companion sits directly under its choice field, and says visibly whether it replaces
 * (single) or adds to (multi) the pick. The bridge's question form is one of these.
 */
import { t } from '../l10n.ts';
import type { ComponentChildren } from 'preact';
import { useId, useMemo, useRef, useState } from 'preact/hooks';
import type { ElicitationItem } from '../viewModel.ts';
import { useActions } from '../actions.ts';
import { formContent, formFields, initialValues, otherEffect, toggleChoice, validateForm, type Field, type FormValues } from '../elicitation.ts';
import { SKIP_CHOICE } from '../../shared/forms.ts';
import { Icon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';
import { useCardFocus } from './useCardFocus.ts';

function FieldError({ id, error }: { id: string; error?: string }) {
  return error ? (
    <div id={id} class="field-error" role="alert">
      {error}
    </div>
  ) : null;
}

/** A field whose control can be named by a `<label for>`: label, hint, the control (and any "other" box), error. */
function LabelledField(props: { class: string; id: string; label: ComponentChildren; hint: ComponentChildren; errorId: string; error?: string; children: ComponentChildren }) {
  return (
    <div class={props.class}>
      <label for={props.id} class="field-label">
        {props.label}
      </label>
      {props.hint}
      {props.children}
      <FieldError id={props.errorId} error={props.error} />
    </div>
  );
}

function FieldView({ field, values, errors, set, formId }: { field: Field; values: FormValues; errors: Record<string, string>; set: (key: string, value: FormValues[string]) => void; formId: string }) {
  const id = `${formId}-${field.key}`;
  const errorId = `${id}-error`;
  const descId = `${id}-desc`;
  const error = errors[field.key];
  const describedBy = [field.description ? descId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      {field.title}
      {field.required && <span class="required" aria-hidden="true"> *</span>}
    </>
  );
  const desc = field.description ? (
    <div id={descId} class="field-hint">
      {field.description}
    </div>
  ) : null;
  const str = (v: FormValues[string] | undefined): string => (typeof v === 'string' ? v : '');
  const other = (field.kind === 'select' || field.kind === 'multi') && field.other ? field.other : undefined;
  const effect = otherEffect(field, values);
  const otherBlock = other ? (
    <div class="other-field">
      <label for={`${id}-other`} class="other-label">
        {other.title}
      </label>
      <input
        id={`${id}-other`}
        name={other.key}
        type="text"
        class="input"
        value={str(values[other.key])}
        aria-describedby={effect ? `${id}-effect` : undefined}
        onInput={(e) => set(other.key, (e.currentTarget as HTMLInputElement).value)}
      />
      {effect && (
        <div id={`${id}-effect`} class="other-effect" aria-live="polite">
          <Icon name="info" /> {effect === 'overrides' ? t('Your text replaces the selected answer.') : t('Your text is added to the selected answers.')}
        </div>
      )}
    </div>
  ) : null;

  const frame = { id, label, hint: desc, errorId, error };
  /** What a single-value control needs: its name, value, and required / invalid / described-by state. */
  const control = { id, name: field.key, value: str(values[field.key]), 'aria-required': field.required, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy };
  const onInput = (e: Event): void => set(field.key, (e.currentTarget as HTMLInputElement).value);

  switch (field.kind) {
    case 'select':
      return (
        <LabelledField class={`field select-field${effect ? ' overridden' : ''}`} {...frame}>
          <select class="select" {...control} onChange={(e) => set(field.key, (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">{t('Choose an answer…')}</option>
            {field.choices.map((c) => (
              <option key={c.value} value={c.value} title={c.description}>
                {c.title}
              </option>
            ))}
          </select>
          {otherBlock}
        </LabelledField>
      );
    case 'multi': {
      const picked = Array.isArray(values[field.key]) ? (values[field.key] as string[]) : [];
      const order = field.choices.map((c) => c.value);
      return (
        <fieldset class="field multi-field" aria-describedby={describedBy}>
          <legend class="field-label">{label}</legend>
          {desc}
          {field.choices
            .filter((c) => c.value !== SKIP_CHOICE)
            .map((c) => (
              <label key={c.value} class="checkbox-label" title={c.description}>
                <input
                  type="checkbox"
                  name={field.key}
                  value={c.value}
                  checked={picked.includes(c.value)}
                  onChange={(e) => set(field.key, toggleChoice(picked, c.value, (e.currentTarget as HTMLInputElement).checked, order))}
                />
                {c.title}
              </label>
            ))}
          {otherBlock}
          {/* Skip is its own choice, not one more box to tick beside real answers (shared/forms.ts). */}
          {field.choices
            .filter((c) => c.value === SKIP_CHOICE)
            .map((c) => (
              <button
                key={c.value}
                type="button"
                class="link-button skip-choice"
                aria-pressed={picked.includes(SKIP_CHOICE)}
                onClick={() => set(field.key, toggleChoice(picked, SKIP_CHOICE, !picked.includes(SKIP_CHOICE), order))}
              >
                <Icon name={picked.includes(SKIP_CHOICE) ? 'pass-filled' : 'circle-large-outline'} /> {c.title}
              </button>
            ))}
          <FieldError id={errorId} error={error} />
        </fieldset>
      );
    }
    case 'text': {
      const type = (field.format === 'email' ? 'email' : field.format === 'uri' ? 'url' : field.format === 'date' ? 'date' : 'text') as 'text';
      return (
        <LabelledField class="field" {...frame}>
          <input type={type} class="input" {...control} onInput={onInput} />
        </LabelledField>
      );
    }
    case 'number':
      return (
        <LabelledField class="field" {...frame}>
          <input type="number" class="input" step={field.integer ? 1 : 'any'} min={field.minimum} max={field.maximum} {...control} onInput={onInput} />
        </LabelledField>
      );
    case 'boolean':
      return (
        <div class="field">
          <label class="checkbox-label">
            <input type="checkbox" name={field.key} checked={values[field.key] === true} aria-describedby={describedBy} onChange={(e) => set(field.key, (e.currentTarget as HTMLInputElement).checked)} />
            {label}
          </label>
          {desc}
        </div>
      );
    case 'unsupported':
      return (
        <div class="field">
          <div class="field-label">{label}</div>
          <div class="field-hint">{t('This field asks for a “{0}” value, which this view cannot show; it is left empty.', field.type)}</div>
          <FieldError id={errorId} error={error} />
        </div>
      );
  }
}

export function SchemaForm({ item }: { item: ElicitationItem }) {
  const actions = useActions();
  const fields = useMemo(() => formFields(item.schema), [item.schema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [showErrors, setShowErrors] = useState(false);
  const ref = useRef<HTMLFormElement>(null);
  const heading = useRef<HTMLElement>(null);
  const formId = useId();
  const guard = useCardFocus(heading);
  const errors = showErrors ? validateForm(fields, values) : {};
  const set = (key: string, value: FormValues[string]): void => setValues((v) => ({ ...v, [key]: value }));
  const submit = (e: Event): void => {
    e.preventDefault();
    const problems = validateForm(fields, values);
    if (Object.keys(problems).length) {
      setShowErrors(true);
      ref.current?.querySelector<HTMLElement>('[aria-invalid="true"], .field-error')?.focus?.();
      return;
    }
    actions.answerElicitation(item.id, { action: 'accept', content: formContent(fields, values) });
  };
  const cancel = (): void => actions.answerElicitation(item.id, { action: 'cancel' });
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      cancel();
    }
  };
  const isQuestions = item.formKind === 'questions';
  return (
    <form ref={ref} class={`card interaction ${isQuestions ? 'questions' : 'schema-form'}`} aria-labelledby={`${formId}-title`} onSubmit={submit} onKeyDown={onKeyDown} noValidate {...guard}>
      <div class="card-header static">
        <Icon name={isQuestions ? 'question' : 'comment-discussion'} />
        <span class="card-title" id={`${formId}-title`} ref={heading} tabIndex={-1} role="heading" aria-level={3}>
          {item.schema.title ?? (isQuestions ? t('zcode has questions') : t('zcode needs input'))}
        </span>
      </div>
      {item.message && <Markdown text={item.message} class="interaction-detail" />}
      {fields.map((field) => (
        <FieldView key={field.key} field={field} values={values} errors={errors} set={set} formId={formId} />
      ))}
      <div class="button-row">
        <button type="submit" class="button primary">
          <Icon name="check" /> {t('Submit')}
        </button>
        <button type="button" class="button secondary" onClick={cancel}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  );
}
