/**
 * The native forms in a DOM: the question form (dropdown + "other" + skip) produces exactly the
 * `content` the bridge expects; the plan feedback box's three outcomes; permission cards.
 */
import { document, mount, setValue, setChecked, click, key, button, unmount } from './dom.ts';
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { h } from 'preact';
import type { ElicitationSchema } from '@agentclientprotocol/sdk';
import { ActionsContext } from '../../../webview-ui/actions.ts';
import type { ElicitationItem, PermissionItem } from '../../../webview-ui/viewModel.ts';
import { ElicitationCard, PermissionCard } from '../../../webview-ui/components/Interactions.tsx';
import { recordingActions } from './fakeActions.ts';

const OTHER_TITLE = '↳ or type a custom value (overrides the selection)';
const OTHER_TITLE_MULTI = '↳ or type another value (added to the selection)';

/** The bridge's AskUserQuestion form : one single-select and one multi-select question. */
const QUESTIONS: ElicitationSchema = {
  type: 'object',
  properties: {
    q_0: {
      type: 'string',
      title: 'Select the files to test',
      oneOf: [
        { const: 'auth.test.ts', title: 'auth.test.ts' },
        { const: 'user.test.ts', title: 'user.test.ts', description: 'the user model' },
        { const: '__skip__', title: 'Skip this question' },
      ],
    },
    q_0_other: { type: 'string', title: OTHER_TITLE },
    q_1: {
      type: 'array',
      title: 'Which checks should run?',
      items: {
        anyOf: [
          { const: 'a', title: 'lint' },
          { const: 'b', title: 'typecheck' },
          { const: '__skip__', title: 'Skip this question' },
        ],
      },
    },
    q_1_other: { type: 'string', title: OTHER_TITLE_MULTI },
  },
  required: [],
};

function questionItem(schema = QUESTIONS): ElicitationItem {
  return { type: 'elicitation', id: 'elicitation:1', formKind: 'questions', message: 'Please answer 2 question(s).', schema, state: 'pending' };
}

function render(item: ElicitationItem | PermissionItem) {
  const actions = recordingActions();
  const card = item.type === 'permission' ? h(PermissionCard, { item }) : h(ElicitationCard, { item });
  const root = mount(h(ActionsContext.Provider, { value: actions }, card));
  return { root, actions };
}

let roots: HTMLElement[] = [];
afterEach(() => {
  for (const r of roots) unmount(r);
  roots = [];
});

function answers(actions: ReturnType<typeof recordingActions>) {
  return actions.calls.filter((c) => c.name === 'answerElicitation').map((c) => c.args);
}

describe('question form', () => {
  test('one dropdown pick + one "other" text → exactly the content the bridge expects', () => {
    const { root, actions } = render(questionItem());
    roots.push(root);
    setValue(root.querySelector('select[name="q_0"]'), 'auth.test.ts', 'change');
    setChecked(root.querySelector('input[type="checkbox"][name="q_1"][value="a"]'), true);
    setValue(root.querySelector('input[name="q_1_other"]'), 'custom');
    click(button(root, 'Submit'));
    assert.deepEqual(answers(actions), [['elicitation:1', { action: 'accept', content: { q_0: 'auth.test.ts', q_0_other: '', q_1: ['a'], q_1_other: 'custom' } }]]);
  });

  test('"other" on a single question overrides the pick, visibly; the raw fields are sent for the bridge to combine', () => {
    const { root, actions } = render(questionItem());
    roots.push(root);
    setValue(root.querySelector('select[name="q_0"]'), 'user.test.ts', 'change');
    assert.equal(root.querySelector('.other-effect'), null);
    setValue(root.querySelector('input[name="q_0_other"]'), '  session.test.ts ');
    const field = root.querySelector('select[name="q_0"]')!.closest('.field')!;
    assert.ok(field.classList.contains('overridden'), 'the dropdown is shown as overridden');
    assert.match(field.querySelector('.other-effect')!.textContent!, /replaces the selected answer/);
    click(button(root, 'Submit'));
    assert.deepEqual(answers(actions)[0][1], { action: 'accept', content: { q_0: 'user.test.ts', q_0_other: 'session.test.ts', q_1: [], q_1_other: '' } });
  });

  test('"other" on a multi-select question says it adds to the picks', () => {
    const { root } = render(questionItem());
    roots.push(root);
    setValue(root.querySelector('input[name="q_1_other"]'), 'e2e');
    const effects = [...root.querySelectorAll('.other-effect')].map((e) => e.textContent);
    assert.equal(effects.length, 1);
    assert.match(effects[0]!, /added to the selected answers/);
  });

  test('Skip this question is a choice of each dropdown; skipping and leaving blank submit without cancelling', () => {
    const { root, actions } = render(questionItem());
    roots.push(root);
    const options = [...root.querySelectorAll('select[name="q_0"] option')].map((o) => [(o as HTMLOptionElement).value, o.textContent]);
    assert.deepEqual(options, [
      ['', 'Choose an answer…'],
      ['auth.test.ts', 'auth.test.ts'],
      ['user.test.ts', 'user.test.ts'],
      ['__skip__', 'Skip this question'],
    ]);
    setValue(root.querySelector('select[name="q_0"]'), '__skip__', 'change');
    click(button(root, 'Submit'));
    assert.deepEqual(answers(actions)[0][1], { action: 'accept', content: { q_0: '__skip__', q_0_other: '', q_1: [], q_1_other: '' } });
  });

  test('multi-select: Skip is its own choice, not a box beside the answers; it clears the picks, a pick clears it; picks follow the schema order', () => {
    const { root, actions } = render(questionItem());
    roots.push(root);
    const box = (v: string) => root.querySelector(`input[type="checkbox"][name="q_1"][value="${v}"]`) as HTMLInputElement;
    assert.equal(box('__skip__'), null, 'no Skip checkbox');
    const skip = root.querySelector('.multi-field .skip-choice') as HTMLButtonElement;
    setChecked(box('b'), true);
    setChecked(box('a'), true);
    click(skip);
    assert.deepEqual([box('a').checked, box('b').checked, skip.getAttribute('aria-pressed')], [false, false, 'true']);
    setChecked(box('b'), true);
    setChecked(box('a'), true);
    assert.equal(skip.getAttribute('aria-pressed'), 'false');
    click(button(root, 'Submit'));
    assert.deepEqual((answers(actions)[0][1] as { content: Record<string, unknown> }).content.q_1, ['a', 'b']);
  });

  test('each "other" field sits directly under its own question, labelled for screen readers', () => {
    const { root } = render(questionItem());
    roots.push(root);
    const fields = [...root.querySelectorAll('.field')];
    assert.equal(fields.length, 2);
    const first = fields[0];
    const order = [...first.querySelectorAll('select, input')].map((e) => e.getAttribute('name'));
    assert.deepEqual(order, ['q_0', 'q_0_other']);
    const other = first.querySelector('input[name="q_0_other"]')!;
    const label = root.querySelector(`label[for="${other.id}"]`);
    assert.equal(label?.textContent, OTHER_TITLE);
    const select = first.querySelector('select')!;
    assert.equal(root.querySelector(`label[for="${select.id}"]`)?.textContent, 'Select the files to test');
    assert.equal(root.querySelector('form')?.getAttribute('aria-labelledby') !== null, true);
  });

  test('Cancel and Escape cancel the form', () => {
    const { root, actions } = render(questionItem());
    roots.push(root);
    click(button(root, 'Cancel'));
    key(root.querySelector('select'), 'Escape');
    assert.deepEqual(answers(actions), [
      ['elicitation:1', { action: 'cancel' }],
      ['elicitation:1', { action: 'cancel' }],
    ]);
  });

  test('a withdrawn form is replaced by a one-line note (no controls left)', () => {
    const { root } = render({ ...questionItem(), state: 'withdrawn' });
    roots.push(root);
    assert.equal(root.querySelector('form, select, input, button'), null);
    assert.match(root.textContent!, /Withdrawn: answered elsewhere or the turn was cancelled/);
  });

  test('an answered form shows the answers', () => {
    const { root } = render({ ...questionItem(), state: 'answered', answer: 'Select the files to test: auth.test.ts' });
    roots.push(root);
    assert.match(root.textContent!, /Select the files to test: auth\.test\.ts/);
    assert.equal(root.querySelector('form'), null);
  });
});

describe('generic elicitation forms (any schema in the ACP subset)', () => {
  const schema: ElicitationSchema = {
    type: 'object',
    title: 'Deployment',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2 },
      email: { type: 'string', title: 'Email', format: 'email' },
      replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 2 },
      ratio: { type: 'number', title: 'Ratio' },
      confirm: { type: 'boolean', title: 'Confirm', default: false },
      region: { type: 'string', title: 'Region', enum: ['eu', 'us'] },
    },
    required: ['name', 'region'],
  };
  const item: ElicitationItem = { type: 'elicitation', id: 'e:2', formKind: 'form', message: 'Fill this in', schema, state: 'pending' };

  test('required and constraint errors block submit and are announced', () => {
    const { root, actions } = render(item);
    roots.push(root);
    click(button(root, 'Submit'));
    assert.equal(answers(actions).length, 0);
    const errors = [...root.querySelectorAll('[role="alert"]')].map((e) => e.textContent);
    assert.deepEqual(errors, ['Required.', 'Choose an answer.']);
    assert.equal(root.querySelector('input[name="name"]')!.getAttribute('aria-invalid'), 'true');
  });

  test('typed values become typed content (numbers, booleans, enum); empty optional text is omitted', () => {
    const { root, actions } = render(item);
    roots.push(root);
    setValue(root.querySelector('input[name="name"]'), 'api');
    setValue(root.querySelector('input[name="replicas"]'), '3');
    setChecked(root.querySelector('input[name="confirm"]'), true);
    setValue(root.querySelector('select[name="region"]'), 'eu', 'change');
    assert.equal(root.querySelector('input[name="email"]')!.getAttribute('type'), 'email');
    click(button(root, 'Submit'));
    assert.deepEqual(answers(actions), [['e:2', { action: 'accept', content: { name: 'api', replicas: 3, confirm: true, region: 'eu' } }]]);
  });
});

describe('plan feedback box', () => {
  const plan: ElicitationItem = {
    type: 'elicitation',
    id: 'elicitation:7',
    formKind: 'planFeedback',
    message: 'Ready to code?\n\n1. Implement login\n2. Implement signup\n\nLeave the box empty and submit to approve; type feedback to reject and redirect.',
    schema: {
      type: 'object',
      properties: { feedback: { type: 'string', title: 'Feedback', description: 'Empty = approve the plan. Anything typed = reject and use this text as the redirection.' } },
      required: [],
    },
    state: 'pending',
  };

  test('renders the plan as markdown with one text area', () => {
    const { root } = render(plan);
    roots.push(root);
    assert.deepEqual([...root.querySelectorAll('ol li')].map((li) => li.textContent), ['Implement login', 'Implement signup']);
    assert.equal(root.querySelectorAll('textarea').length, 1);
    assert.equal(root.querySelectorAll('input, select').length, 0);
  });

  test('empty box: the button says "Approve plan" and approves', () => {
    const { root, actions } = render(plan);
    roots.push(root);
    click(button(root, 'Approve plan'));
    assert.deepEqual(answers(actions), [['elicitation:7', { action: 'accept', content: { feedback: '' } }]]);
  });

  test('typed feedback: the button turns into "Reject with feedback" and sends the text', () => {
    const { root, actions } = render(plan);
    roots.push(root);
    setValue(root.querySelector('textarea'), 'Add rate limiting first');
    assert.throws(() => button(root, 'Approve plan'));
    click(button(root, 'Reject with feedback'));
    assert.deepEqual(answers(actions), [['elicitation:7', { action: 'accept', content: { feedback: 'Add rate limiting first' } }]]);
  });

  test('the plain Reject declines without a reason', () => {
    const { root, actions } = render(plan);
    roots.push(root);
    setValue(root.querySelector('textarea'), 'ignored');
    click(button(root, 'Reject'));
    assert.deepEqual(answers(actions), [['elicitation:7', { action: 'decline' }]]);
  });

  test('keyboard: Enter submits, Shift+Enter does not; Escape clears the text first, then rejects', () => {
    const { root, actions } = render(plan);
    roots.push(root);
    const box = root.querySelector('textarea')!;
    setValue(box, 'x');
    key(box, 'Enter', { shiftKey: true });
    assert.equal(answers(actions).length, 0);
    key(box, 'Escape');
    assert.equal((root.querySelector('textarea') as HTMLTextAreaElement).value, '');
    assert.equal(answers(actions).length, 0);
    key(box, 'Enter');
    assert.deepEqual(answers(actions)[0][1], { action: 'accept', content: { feedback: '' } });
    key(box, 'Escape');
    assert.deepEqual(answers(actions)[1][1], { action: 'decline' });
  });
});

describe('permission card', () => {
  const item: PermissionItem = {
    type: 'permission',
    id: 'permission:3',
    title: 'Run npm test',
    kind: 'execute',
    input: '{\n  "command": "npm test"\n}',
    options: [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
      { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
    ],
    state: 'pending',
  };

  test('one button per option, the tool title and input visible', () => {
    const { root, actions } = render(item);
    roots.push(root);
    assert.deepEqual([...root.querySelectorAll('button')].map((b) => b.textContent?.trim()), ['Allow once', 'Always allow', 'Reject']);
    assert.match(root.textContent!, /Run npm test/);
    assert.match(root.querySelector('pre')!.textContent!, /"command": "npm test"/);
    assert.equal(root.querySelector('[role="group"]')?.getAttribute('aria-labelledby') !== null, true);
    click(button(root, 'Always allow'));
    assert.deepEqual(actions.calls, [{ name: 'answerPermission', args: ['permission:3', 'allow_always'] }]);
  });

  test('Escape rejects once (never "cancelled", which would end the turn)', () => {
    const { root, actions } = render(item);
    roots.push(root);
    key(root.querySelector('button'), 'Escape');
    assert.deepEqual(actions.calls, [{ name: 'answerPermission', args: ['permission:3', 'deny'] }]);
  });

  test('answered and withdrawn cards keep a record, without buttons', () => {
    const answered = render({ ...item, state: 'answered', answer: 'Allow once' });
    const withdrawn = render({ ...item, state: 'withdrawn' });
    roots.push(answered.root, withdrawn.root);
    assert.match(answered.root.textContent!, /Answered: Allow once/);
    assert.equal(answered.root.querySelectorAll('button').length, 0);
    assert.match(withdrawn.root.textContent!, /Withdrawn/);
  });
});

void document;
