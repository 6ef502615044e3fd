import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateElicitationRequest as ElicitationGuard } from '@agentclientprotocol/sdk';
import type { CreateElicitationRequest, CreateElicitationResponse, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { permissionOutcomeToReply, permissionToAcp } from '../../../../bridge/translate/permissionDialogs.ts';
import { elicitationToAnswers, permissionAnswersToReply, planElicitationToReply, planPermissionToReply, planToElicitation, planToPermission, questionToPermission, questionsToElicitation } from '../../../../bridge/translate/formDialogs.ts';
import { interactionCardId, pendingInteractionCard } from '../../../../bridge/translate/interactionCards.ts';
import { noteInteraction, settleInteraction } from '../../../../bridge/translate/sessionTranslator.ts';
import { classifyUserInput, PermissionRequestParams, UserInputRequestParams, type Question } from '../../../../bridge/zcode/protocol.ts';
import { assertValidSessionUpdate, assertValidSessionUpdates, validateAcp, validateOutgoing } from '../../../helpers/acpSchema.ts';
import { ev, translator, updatesOf } from './support.ts';

function validElicitation(request: CreateElicitationRequest): void {
  validateOutgoing('elicitation/create', request, 'request');
  assert.ok(ElicitationGuard.isForm(request), 'the SDK guard accepts it as a form elicitation');
}

function response(value: CreateElicitationResponse): CreateElicitationResponse {
  validateAcp('CreateElicitationResponse', value);
  return value;
}

function permissionResponse(value: RequestPermissionResponse): RequestPermissionResponse {
  validateAcp('RequestPermissionResponse', value);
  return value;
}

const permissionParams = PermissionRequestParams.parse({
  requestId: 'req_1',
  sessionId: 'sess_z',
  toolCallId: 'call_bash',
  toolName: 'Bash',
  reason: 'Bash needs approval in build mode',
  input: { command: 'rm -rf dist' },
  options: [
    { optionId: 'allow', kind: 'allow', name: 'Allow' },
    { optionId: 'allow_project', kind: 'allow_project', name: 'Allow for this project' },
    { optionId: 'deny', kind: 'deny', name: 'Deny' },
    { optionId: 'defer', kind: 'defer', name: 'Ask me later' },
  ],
});

describe('tool permission', () => {
  test('options mapped; the card referenced by id, title, kind, rawInput', () => {
    const request = permissionToAcp(permissionParams, { toolCallId: 'call_bash', title: 'Run `rm -rf dist`', kind: 'execute', rawInput: { command: 'rm -rf dist' } }, { sessionId: 'acp_sess' });
    validateOutgoing('session/request_permission', request, 'request');
    assert.deepEqual(request, {
      sessionId: 'acp_sess',
      toolCall: { toolCallId: 'call_bash', title: 'Run `rm -rf dist`', kind: 'execute', rawInput: { command: 'rm -rf dist' } },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'allow_project', name: 'Allow for this project', kind: 'allow_always' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
        { optionId: 'defer', name: 'Ask me later', kind: 'reject_once' },
      ],
      _meta: { zcode: { requestId: 'req_1', toolName: 'Bash', reason: 'Bash needs approval in build mode' } },
    });
  });

  test('without a known card the request fills the card from zcode; no options → Allow / Deny', () => {
    const params = PermissionRequestParams.parse({ requestId: 'req_2', sessionId: 'sess_z', toolName: 'Edit', input: { file_path: '/work/proj/a.ts' } });
    const request = permissionToAcp(params, undefined, { cwd: '/work/proj' });
    validateOutgoing('session/request_permission', request, 'request');
    assert.deepEqual(request.toolCall, { toolCallId: 'permission_req_2', title: 'Edit a.ts', kind: 'edit', rawInput: { file_path: '/work/proj/a.ts' } });
    assert.deepEqual(request.options, [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
    ]);
    assert.equal(request.sessionId, 'sess_z');
    assert.deepEqual(permissionOutcomeToReply({ outcome: 'selected', optionId: 'allow' }, params), { decision: 'allow' });
  });

  test('an edit the bridge shows no card for asks with the diff it proposes (every client can show it)', () => {
    const params = PermissionRequestParams.parse({ requestId: 'req_3', sessionId: 'sess_z', toolName: 'Edit', input: { file_path: 'src/a.ts', old_string: 'one', new_string: 'two' } });
    const request = permissionToAcp(params, undefined, { cwd: '/work/proj' });
    validateOutgoing('session/request_permission', request, 'request');
    assert.deepEqual(request.toolCall.content, [{ type: 'diff', path: '/work/proj/src/a.ts', oldText: 'one', newText: 'two' }]);
    // A card the bridge already shows keeps its own content.
    const own = [{ type: 'content' as const, content: { type: 'text' as const, text: 'kept' } }];
    assert.deepEqual(permissionToAcp(params, { toolCallId: 'c1', content: own }, { cwd: '/work/proj' }).toolCall.content, own);
  });

  test('answers → the exact zcode replies', () => {
    const selected = (optionId: string) => permissionResponse({ outcome: { outcome: 'selected', optionId } });
    assert.deepEqual(permissionOutcomeToReply(selected('allow'), permissionParams), { decision: 'allow' });
    assert.deepEqual(permissionOutcomeToReply(selected('allow_project'), permissionParams), { decision: 'allow' });
    assert.deepEqual(permissionOutcomeToReply(selected('deny'), permissionParams), { decision: 'deny', reason: 'rejected (deny)' });
    assert.deepEqual(permissionOutcomeToReply(selected('defer'), permissionParams), { decision: 'deny', reason: 'rejected (defer)' });
    assert.deepEqual(permissionOutcomeToReply(selected('made_up'), permissionParams), { decision: 'deny', reason: 'rejected (made_up)' });
    assert.deepEqual(permissionOutcomeToReply(permissionResponse({ outcome: { outcome: 'cancelled' } }), permissionParams), {
      decision: 'deny',
      reason: 'cancelled by user',
    });
    // the bare outcome is accepted too
    assert.deepEqual(permissionOutcomeToReply({ outcome: 'cancelled' }, permissionParams), { decision: 'deny', reason: 'cancelled by user' });
  });
});

const questionsRequest = UserInputRequestParams.parse({
  requestId: 'req_q',
  sessionId: 'sess_z',
  toolCallId: 'call_ask',
  toolName: 'AskUserQuestion',
  input: {
    questions: [
      {
        question: 'Select the files to test',
        multiSelect: false,
        options: [{ label: 'auth.test.ts' }, { label: 'user.test.ts' }],
      },
      {
        question: 'Which checks should run?',
        header: 'Checks',
        multiSelect: true,
        options: [
          { label: 'lint', description: 'eslint over the repo' },
          { label: 'types', description: 'tsc --noEmit' },
        ],
      },
      { question: 'Anything else?', options: [] },
    ],
  },
});
const questionsInteraction = classifyUserInput(questionsRequest);
assert.equal(questionsInteraction.kind, 'questions');
const questions: Question[] = questionsInteraction.kind === 'questions' ? questionsInteraction.questions : [];

describe('questions form', () => {
  test('one form: q_<i> choices + Skip, multi-select as an array, q_<i>_other free text, nothing required', () => {
    const request = questionsToElicitation('acp_sess', questions, 'call_ask');
    validElicitation(request);
    assert.deepEqual(request, {
      mode: 'form',
      sessionId: 'acp_sess',
      toolCallId: 'call_ask',
      message: 'Please answer 3 question(s).',
      requestedSchema: {
        type: 'object',
        properties: {
          q_0: {
            type: 'string',
            title: 'Select the files to test',
            oneOf: [
              { const: 'auth.test.ts', title: 'auth.test.ts' },
              { const: 'user.test.ts', title: 'user.test.ts' },
              { const: '__skip__', title: 'Skip this question' },
            ],
          },
          q_0_other: { type: 'string', title: '↳ or type a custom value (overrides the selection)' },
          q_1: {
            type: 'array',
            title: 'Checks',
            description: 'Which checks should run?',
            items: {
              anyOf: [
                { const: 'lint', title: 'lint', description: 'eslint over the repo' },
                { const: 'types', title: 'types', description: 'tsc --noEmit' },
                { const: '__skip__', title: 'Skip this question' },
              ],
            },
          },
          q_1_other: { type: 'string', title: '↳ or type another value (added to the selection)' },
          q_2: { type: 'string', title: 'Anything else?' },
        },
        required: [],
      },
      // The tag clients read instead of guessing from field names (shared/forms.ts).
      _meta: { zcode: { formKind: 'questions' } },
    });
  });

  test('answers: other overrides a single pick, is appended to multi picks; Skip or blank skips only that question', () => {
    const reply = elicitationToAnswers(
      questions,
      response({ action: 'accept', content: { q_0: 'auth.test.ts', q_0_other: '', q_1: ['lint', 'types'], q_1_other: ' e2e ', q_2: 'no' } }),
    );
    assert.deepEqual(reply, {
      action: 'accept',
      content: { answers: { 'Select the files to test': 'auth.test.ts', 'Which checks should run?': 'lint, types, e2e', 'Anything else?': 'no' } },
    });

    assert.deepEqual(elicitationToAnswers(questions, response({ action: 'accept', content: { q_0: 'user.test.ts', q_0_other: 'all of them' } })), {
      action: 'accept',
      content: { answers: { 'Select the files to test': 'all of them' } },
    });

    assert.deepEqual(
      elicitationToAnswers(questions, response({ action: 'accept', content: { q_0: '__skip__', q_1: ['lint', '__skip__'], q_1_other: '', q_2: '  ' } })),
      { action: 'accept', content: { answers: {} } },
    );
    assert.deepEqual(elicitationToAnswers(questions, response({ action: 'accept' })), { action: 'accept', content: { answers: {} } });
  });

  test('decline / cancel → the whole form cancelled', () => {
    assert.deepEqual(elicitationToAnswers(questions, response({ action: 'decline' })), { action: 'decline', reason: 'cancelled' });
    assert.deepEqual(elicitationToAnswers(questions, response({ action: 'cancel' })), { action: 'decline', reason: 'cancelled' });
  });
});

describe('questions without forms', () => {
  test('one permission per question: its options plus Skip; answers assembled the same way', () => {
    const requests = questions.map((q, i) => questionToPermission('acp_sess', q, i, { toolCallId: 'call_ask' }));
    requests.forEach((r) => validateOutgoing('session/request_permission', r, 'request'));
    assert.deepEqual(requests[1], {
      sessionId: 'acp_sess',
      // The card keeps its title and kind: the question is its content, not a new name.
      toolCall: {
        toolCallId: 'call_ask',
        status: 'pending',
        content: [{ type: 'content', content: { type: 'text', text: 'Checks: Which checks should run?\n- **lint**: eslint over the repo\n- **types**: tsc --noEmit' } }],
      },
      options: [
        { optionId: 'q_1_opt_0', name: 'lint', kind: 'allow_once' },
        { optionId: 'q_1_opt_1', name: 'types', kind: 'allow_once' },
        { optionId: '__skip__', name: 'Skip this question', kind: 'reject_once' },
      ],
      _meta: { zcode: { questionIndex: 1, question: 'Which checks should run?', multiSelect: true, header: 'Checks' } },
    });
    assert.deepEqual(requests[2].options, [{ optionId: '__skip__', name: 'Skip this question', kind: 'reject_once' }]);
    // With no card behind the dialog there is nothing else to show: the dialog names one.
    const alone = questionToPermission('acp_sess', questions[1], 1);
    validateOutgoing('session/request_permission', alone, 'request');
    assert.equal(alone.toolCall.title, 'Checks: Which checks should run?');
    assert.equal(alone.toolCall.toolCallId, 'question_1');

    assert.deepEqual(
      permissionAnswersToReply(questions, [
        permissionResponse({ outcome: { outcome: 'selected', optionId: 'q_0_opt_1' } }),
        { outcome: 'selected', optionId: '__skip__' },
        { outcome: 'selected', optionId: '__skip__' },
      ]),
      { action: 'accept', content: { answers: { 'Select the files to test': 'user.test.ts' } } },
    );
    assert.deepEqual(permissionAnswersToReply(questions, [{ outcome: 'selected', optionId: 'q_0_opt_0' }, { outcome: 'cancelled' }]), {
      action: 'decline',
      reason: 'cancelled',
    });
  });
});

describe('plan approval', () => {
  const plan = '1. Implement login\n2. Implement signup';

  test('form: a single feedback field, the exact message', () => {
    const request = planToElicitation('sess_abc123', plan);
    validElicitation(request);
    assert.deepEqual(request, {
      mode: 'form',
      sessionId: 'sess_abc123',
      message: 'Ready to code?\n\n1. Implement login\n2. Implement signup',
      requestedSchema: {
        type: 'object',
        properties: {
          feedback: {
            type: 'string',
            title: 'Feedback',
            description: 'Empty = approve the plan. Anything typed = reject and use this text as the redirection.',
          },
        },
        required: [],
      },
      _meta: { zcode: { formKind: 'planFeedback' } },
    });
  });

  test('form answers: empty → approve, text → decline with it, decline/cancel → rejected', () => {
    assert.deepEqual(planElicitationToReply(response({ action: 'accept', content: { feedback: '' } })), { action: 'accept', content: { answer_0: 'approve' } });
    assert.deepEqual(planElicitationToReply(response({ action: 'accept', content: { feedback: '   ' } })), { action: 'accept', content: { answer_0: 'approve' } });
    assert.deepEqual(planElicitationToReply(response({ action: 'accept' })), { action: 'accept', content: { answer_0: 'approve' } });
    assert.deepEqual(planElicitationToReply(response({ action: 'accept', content: { feedback: '  Use OAuth instead.\n' } })), {
      action: 'decline',
      reason: 'Use OAuth instead.',
    });
    assert.deepEqual(planElicitationToReply(response({ action: 'decline' })), { action: 'decline', reason: 'rejected' });
    assert.deepEqual(planElicitationToReply(response({ action: 'cancel' })), { action: 'decline', reason: 'rejected' });
  });

  test('without forms: the plan on a switch_mode card, Approve / Reject', () => {
    const request = planToPermission('sess_abc123', plan, { toolCallId: 'call_plan' });
    validateOutgoing('session/request_permission', request, 'request');
    assert.deepEqual(request, {
      sessionId: 'sess_abc123',
      toolCall: {
        toolCallId: 'call_plan',
        title: 'Plan ready for approval',
        kind: 'switch_mode',
        status: 'pending',
        content: [{ type: 'content', content: { type: 'text', text: plan } }],
      },
      options: [
        { optionId: 'approve', name: 'Approve', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    assert.deepEqual(planPermissionToReply({ outcome: { outcome: 'selected', optionId: 'approve' } }), { action: 'accept', content: { answer_0: 'approve' } });
    assert.deepEqual(planPermissionToReply({ outcome: { outcome: 'selected', optionId: 'reject' } }), { action: 'decline', reason: 'rejected' });
    assert.deepEqual(planPermissionToReply({ outcome: { outcome: 'cancelled' } }), { action: 'decline', reason: 'rejected' });
  });
});

describe('pending interaction card', () => {
  test('one card per interaction kind, schema-valid, stable ids for re-sent duplicates', () => {
    const planInteraction = classifyUserInput(
      UserInputRequestParams.parse({ requestId: 'req_p', sessionId: 's', schema: { interaction: 'plan_approval' }, input: { plan: '1. x' } }),
    );
    const permission = pendingInteractionCard({ kind: 'permission', params: permissionParams }, { cwd: '/work/proj', terminalOutput: true });
    const planCard = pendingInteractionCard(planInteraction);
    const questionCard = pendingInteractionCard(questionsInteraction);
    for (const card of [permission, planCard, questionCard]) assertValidSessionUpdate(card);

    assert.deepEqual(permission, {
      sessionUpdate: 'tool_call',
      toolCallId: 'call_bash',
      title: 'Run `rm -rf dist`',
      kind: 'execute',
      status: 'pending',
      rawInput: { command: 'rm -rf dist' },
      name: 'Bash',
      content: [{ type: 'terminal', terminalId: 'call_bash' }],
      _meta: { zcode: { toolName: 'Bash', requestId: 'req_1', interaction: 'permission' }, terminal_info: { terminal_id: 'call_bash', cwd: '/work/proj' } },
    });
    assert.deepEqual(planCard, {
      sessionUpdate: 'tool_call',
      toolCallId: 'plan_req_p',
      title: 'Plan ready for approval',
      kind: 'switch_mode',
      status: 'pending',
      rawInput: { plan: '1. x' },
      name: 'ExitPlanMode',
      content: [{ type: 'content', content: { type: 'text', text: '1. x' } }],
      _meta: { zcode: { toolName: 'ExitPlanMode', requestId: 'req_p', interaction: 'plan' } },
    });
    assert.equal(questionCard.toolCallId, 'call_ask');
    assert.equal(questionCard.title, '3 questions');
    assert.equal(questionCard.kind, 'other');
    assert.equal(interactionCardId(planInteraction), 'plan_req_p');
  });

  test('noteInteraction: reuses a shown tool card, otherwise shows the pending card once; synthetic cards settle', () => {
    const state = translator(false);
    updatesOf(state, [ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_bash', toolName: 'Bash', input: { command: 'rm -rf dist' } })]);
    const known = noteInteraction(state, { kind: 'permission', params: permissionParams });
    assert.deepEqual(known, {
      updates: [],
      toolCall: { toolCallId: 'call_bash', title: 'Run `rm -rf dist`', kind: 'execute', rawInput: { command: 'rm -rf dist' }, status: 'pending' },
    });

    const planInteraction = classifyUserInput(
      UserInputRequestParams.parse({ requestId: 'req_p', sessionId: 's', schema: { interaction: 'plan_approval' }, input: { plan: '1. x' } }),
    );
    const first = noteInteraction(state, planInteraction);
    assertValidSessionUpdates(first.updates);
    assert.equal(first.updates.length, 1);
    assert.equal(first.toolCall.toolCallId, 'plan_req_p');
    assert.equal((first.toolCall as { sessionUpdate?: string }).sessionUpdate, undefined);
    validateOutgoing('session/request_permission', planToPermission('s', '1. x', first.toolCall), 'request');
    // the re-sent duplicate does not show a second card
    assert.deepEqual(noteInteraction(state, planInteraction).updates, []);
    const settled = settleInteraction(state, planInteraction, 'approved');
    assertValidSessionUpdates(settled);
    assert.deepEqual(settled, [{ sessionUpdate: 'tool_call_update', toolCallId: 'plan_req_p', status: 'completed' }]);
    assert.deepEqual(settleInteraction(state, planInteraction, 'approved'), []);
    // a real tool's card is left to the tool's own events
    assert.deepEqual(settleInteraction(state, { kind: 'permission', params: permissionParams }, 'rejected'), []);

    // the scheduled event for a tool first shown by its interaction does not duplicate the card
    const state2 = translator(false);
    const shown = noteInteraction(state2, questionsInteraction);
    assert.equal(shown.updates.length, 1);
    assert.deepEqual(updatesOf(state2, [ev('tool.updated', { kind: 'scheduled', toolCallId: 'call_ask', toolName: 'AskUserQuestion', input: {} })]), []);
  });
});
