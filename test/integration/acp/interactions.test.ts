/**
 * zcode interactions routed to ACP: permission, questions and plan
 * approval, with and without form support, fallbacks, re-sent duplicates and cancellation. The
 * simulator checks the exact reply shapes zcode accepts (a wrong one is a recorded violation, which
 * fails the test through `assertClean`). Run in-process and over stdio.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { RequestError } from '@agentclientprotocol/sdk';
import type { AnyMessage, CreateElicitationRequest, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { buildCli, MODES } from './harness.ts';
import type { AcpHarness } from './harness.ts';
import { agentText, newSession, prompt, withHarness } from './helpers.ts';

const T = { timeout: 60_000 };
const FORMS = { elicitation: { form: {} } };
const LANGUAGE = 'Which language should the new service use?';
const CHECKS = 'Which checks should run in CI?';

before(async () => {
  await buildCli();
});

/** zcode's replies to interaction requests, in order (what the simulator received). */
function interactionReplies(h: AcpHarness): unknown[] {
  return h
    .simRecord()
    .received.filter((m) => 'result' in m && m.result !== null && typeof m.result === 'object' && ('decision' in m.result || 'action' in m.result))
    .map((m) => m.result);
}

/** The most copies of one interaction request the bridge has logged ("re-sent by zcode (copy N)"). */
function copiesSeen(h: AcpHarness): number {
  const log = `${h.logger.lines.join('\n')}\n${h.stderr}`;
  return Math.max(1, ...[...log.matchAll(/re-sent by zcode \(copy (\d+)\)/g)].map((m) => Number(m[1])));
}

function indexOf(sent: AnyMessage[], predicate: (m: AnyMessage) => boolean): number {
  return sent.findIndex(predicate);
}

for (const mode of MODES) {
  describe(`interactions (${mode})`, () => {
    test('permission: the pending tool card comes first, then the dialog that references it', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
        const request = h.dialogs[0].params as RequestPermissionRequest;
        const sent = h.traffic.sent;
        const card = indexOf(sent, (m) => 'method' in m && m.method === 'session/update' && JSON.stringify(m.params).includes(`"toolCallId":"${request.toolCall.toolCallId}"`));
        const dialog = indexOf(sent, (m) => 'method' in m && m.method === 'session/request_permission');
        assert.ok(card !== -1 && card < dialog, 'card before dialog');
        assert.equal(request.toolCall.kind, 'execute');
        assert.match(request.toolCall.title ?? '', /npm test/);
        assert.deepEqual(interactionReplies(h), [{ decision: 'allow' }]);
        assert.match(agentText(h.updatesOf(sessionId)), /Permission granted/);
      });
    });

    for (const scenario of ['questions', 'questions-input']) {
      test(`${scenario} with a form-capable client: one elicitation/create form, answers assembled`, T, async () => {
        await withHarness(mode, { caps: FORMS }, async (h) => {
          const sessionId = await newSession(h);
          h.onForm = async () => ({ action: 'accept', content: { q_0: 'Go', q_0_other: '', q_1: ['Lint', 'Type check'], q_1_other: 'Docs' } });
          assert.equal((await prompt(h, sessionId, `[scenario:${scenario}]`)).stopReason, 'end_turn');
          assert.equal(h.dialogs.length, 1);
          const form = h.dialogs[0].params as CreateElicitationRequest & { message: string; requestedSchema: { properties: Record<string, unknown> } };
          assert.equal(h.dialogs[0].method, 'elicitation/create');
          assert.equal(form.message, 'Please answer 2 question(s).');
          assert.deepEqual(Object.keys(form.requestedSchema.properties), ['q_0', 'q_0_other', 'q_1', 'q_1_other']);
          assert.deepEqual(interactionReplies(h), [{ action: 'accept', content: { answers: { [LANGUAGE]: 'Go', [CHECKS]: 'Lint, Type check, Docs' } } }]);
        });
      });
    }

    test('questions: a declined form → decline "cancelled"; skip leaves a question out', T, async () => {
      await withHarness(mode, { caps: FORMS }, async (h) => {
        const sessionId = await newSession(h);
        h.onForm = async () => ({ action: 'decline' });
        await prompt(h, sessionId, '[scenario:questions]');
        h.onForm = async () => ({ action: 'accept', content: { q_0: '__skip__', q_1: ['Unit tests'] } });
        await prompt(h, sessionId, '[scenario:questions]');
        assert.deepEqual(interactionReplies(h), [
          { action: 'decline', reason: 'cancelled' },
          { action: 'accept', content: { answers: { [CHECKS]: 'Unit tests' } } },
        ]);
      });
    });

    test('questions without forms: one permission dialog per question', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        h.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[1].optionId } });
        assert.equal((await prompt(h, sessionId, '[scenario:questions]')).stopReason, 'end_turn');
        assert.deepEqual(
          h.dialogs.map((d) => d.method),
          ['session/request_permission', 'session/request_permission'],
        );
        assert.deepEqual(interactionReplies(h), [{ action: 'accept', content: { answers: { [LANGUAGE]: 'Go', [CHECKS]: 'Lint' } } }]);
      });
    });

    test('questions without forms: the card keeps its title; each dialog carries its question as content', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        h.onPermission = async (params) => ({ outcome: { outcome: 'selected', optionId: params.options[0].optionId } });
        assert.equal((await prompt(h, sessionId, '[scenario:questions]')).stopReason, 'end_turn');
        const dialogs = h.dialogs.map((d) => d.params as RequestPermissionRequest);
        assert.equal(dialogs.length, 2);
        const cardId = dialogs[0].toolCall.toolCallId;
        // The title a client shows: the card's own, then whatever an update or a dialog's toolCall sets.
        const titles: string[] = [];
        for (const u of h.updatesOf(sessionId)) {
          if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === cardId && typeof u.title === 'string') titles.push(u.title);
        }
        const original = titles[0];
        assert.ok(original, 'the questions card was shown with a title');
        for (const d of dialogs) if (typeof d.toolCall.title === 'string') titles.push(d.toolCall.title);
        assert.deepEqual(new Set(titles), new Set([original]), `the card is never retitled (titles seen: ${JSON.stringify(titles)})`);
        assert.doesNotMatch(original, /Which/);
        const asked = dialogs.map((d) => JSON.stringify(d.toolCall.content));
        assert.ok(asked[0].includes(LANGUAGE) && asked[1].includes(CHECKS), 'each dialog shows its question');
      });
    });

    test('plan with forms: approve (empty feedback), reject with text, cancel', T, async () => {
      await withHarness(mode, { caps: FORMS }, async (h) => {
        const sessionId = await newSession(h);
        for (const answer of [
          { action: 'accept' as const, content: { feedback: '' } },
          { action: 'accept' as const, content: { feedback: 'Use argon2 instead of scrypt' } },
          { action: 'cancel' as const },
        ]) {
          h.onForm = async () => answer;
          assert.equal((await prompt(h, sessionId, '[scenario:plan]')).stopReason, 'end_turn');
        }
        const form = h.dialogs[0].params as { message: string; requestedSchema: { properties: Record<string, { title?: string }> } };
        assert.match(form.message, /^Ready to code\?/);
        assert.equal(form.requestedSchema.properties.feedback.title, 'Feedback');
        assert.deepEqual(interactionReplies(h), [
          { action: 'accept', content: { answer_0: 'approve' } },
          { action: 'decline', reason: 'Use argon2 instead of scrypt' },
          { action: 'decline', reason: 'rejected' },
        ]);
        assert.match(agentText(h.updatesOf(sessionId)), /Re-planning with your feedback: Use argon2/);
      });
    });

    test('plan without forms: Approve / Reject permission with the plan as switch_mode content', T, async () => {
      await withHarness(mode, {}, async (h) => {
        const sessionId = await newSession(h);
        h.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'approve' } });
        await prompt(h, sessionId, '[scenario:plan]');
        const request = h.dialogs[0].params as RequestPermissionRequest;
        assert.equal(request.toolCall.kind, 'switch_mode');
        assert.match(JSON.stringify(request.toolCall.content), /Plan: add login/);
        assert.deepEqual(interactionReplies(h), [{ action: 'accept', content: { answer_0: 'approve' } }]);
      });
    });

    test('plan: a failing form falls back once to the permission dialog', T, async () => {
      await withHarness(mode, { caps: FORMS }, async (h) => {
        const sessionId = await newSession(h);
        h.onForm = async () => {
          throw RequestError.internalError(undefined, 'form renderer crashed');
        };
        h.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'approve' } });
        assert.equal((await prompt(h, sessionId, '[scenario:plan]')).stopReason, 'end_turn');
        assert.deepEqual(
          h.dialogs.map((d) => d.method),
          ['elicitation/create', 'session/request_permission'],
        );
        assert.deepEqual(interactionReplies(h), [{ action: 'accept', content: { answer_0: 'approve' } }]);
      });
    });

    test('re-sent interactions show one dialog and every zcode id gets the answer', T, async () => {
      await withHarness(mode, { sim: { quirks: ['resend-interactions'], resendMs: 50 } }, async (h) => {
        const sessionId = await newSession(h);
        // Answer once the bridge has seen the third copy (its log says so, in either mode), not
        // after a pause that a loaded machine may spend before zcode re-sends anything.
        h.onPermission = async (params) => {
          await h.waitFor('zcode to re-send the request twice', () => copiesSeen(h) >= 3);
          return { outcome: { outcome: 'selected', optionId: params.options[0].optionId } };
        };
        assert.equal((await prompt(h, sessionId, '[scenario:permission]')).stopReason, 'end_turn');
        assert.equal(h.dialogs.length, 1, 'one dialog');
        const replies = interactionReplies(h);
        assert.ok(replies.length >= 3, `every copy answered (${replies.length})`);
        assert.ok(replies.every((r) => JSON.stringify(r) === '{"decision":"allow"}'));
      });
    });

    test('cancelling the turn withdraws an open form and declines it to zcode', T, async () => {
      await withHarness(mode, { caps: FORMS }, async (h) => {
        const sessionId = await newSession(h);
        h.onForm = (_params, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }));
        const running = prompt(h, sessionId, '[scenario:questions]');
        const dialog = await h.dialog(1);
        await h.agent.notify('session/cancel', { sessionId });
        assert.equal((await running).stopReason, 'cancelled');
        await h.waitFor('the form to be withdrawn', () => dialog.signal.aborted);
        await h.waitFor('the decline to reach zcode', () => interactionReplies(h).length > 0);
        assert.deepEqual(interactionReplies(h), [{ action: 'decline', reason: 'cancelled' }]);
        const cancels = h.traffic.sent.filter((m) => 'method' in m && m.method === '$/cancel_request');
        assert.equal(cancels.length, 1, 'the client got $/cancel_request for the form');
      });
    });
  });
}

describe('interactions (inproc only: timing knobs)', () => {
  test('plan: a form nobody answers times out and falls back to the permission dialog', T, async () => {
    await withHarness('inproc', { caps: FORMS, tuning: { interactions: { formTimeoutMs: 150 } } }, async (h) => {
      const sessionId = await newSession(h);
      h.onForm = (_params, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }));
      h.onPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
      assert.equal((await prompt(h, sessionId, '[scenario:plan]')).stopReason, 'end_turn');
      assert.ok(h.dialogs[0].signal.aborted, 'the form was withdrawn');
      assert.equal(h.dialogs[1].method, 'session/request_permission');
      assert.deepEqual(interactionReplies(h), [{ action: 'decline', reason: 'rejected' }]);
    });
  });
});
