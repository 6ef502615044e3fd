// Interaction requests the backend sends during a turn (permission, plan approval, questions) and the
// EXACT reply shapes it accepts (docs/zcode-protocol.md "Requests zcode sends"). A reply of any other
// shape is a violation: recorded, logged, and the turn ends with turn.failed so tests notice.
import { Cancelled, TurnFailure, hasExactKeys, isObject } from './util.mjs';

const PERMISSION_OPTIONS = [
  { optionId: 'allow', kind: 'allow_once', name: 'Allow' },
  { optionId: 'allow_always', kind: 'allow_always', name: 'Always allow' },
  { optionId: 'deny', kind: 'reject_once', name: 'Deny' },
];

/**
 * Current builds (zcodePermissionRequestParamsSchema): each option carries the exact `response` to reply with;
 * "always allow" differs from "once" only in its `permissionUpdates` (a rule the session keeps).
 */
function currentPermissionOptions(toolName, input) {
  const ruleContent = typeof input?.command === 'string' ? input.command : typeof input?.file_path === 'string' ? input.file_path : undefined;
  const rule = ruleContent === undefined ? { toolName } : { toolName, ruleContent };
  return [
    { optionId: 'allow_once', kind: 'allow_once', name: 'Allow once', response: { decision: 'allow' } },
    { optionId: 'allow_always', kind: 'allow_always', name: 'Always allow', description: `Allow ${toolName} like this from now on`, response: { decision: 'allow', permissionUpdates: [{ type: 'addRules', behavior: 'allow', rules: [rule] }] } },
    { optionId: 'reject_once', kind: 'reject_once', name: 'Deny', response: { decision: 'deny', reason: 'The user denied this tool call' } },
  ];
}

/** Current reply check: exactly one option's `response` (deep-equal), or a deny with any reason (cancelled). */
function checkCurrentPermission(options) {
  return (r) => {
    const chosen = options.find((o) => JSON.stringify(o.response) === JSON.stringify(r));
    if (chosen) {
      return { ok: true, value: chosen.response.decision === 'allow' ? { allowed: true, updates: chosen.response.permissionUpdates } : { allowed: false, reason: chosen.response.reason } };
    }
    if (isObject(r) && r.decision === 'deny' && typeof r.reason === 'string' && hasExactKeys(r, ['decision', 'reason'])) return { ok: true, value: { allowed: false, reason: r.reason } };
    return { ok: false, why: `expected one option's response unchanged (${options.map((o) => JSON.stringify(o.response)).join(' | ')}) or {"decision":"deny","reason":string}` };
  };
}

/** Whether a rule the session keeps ("always allow") already covers this tool call. */
function allowedByRule(session, toolName, input) {
  const content = typeof input?.command === 'string' ? input.command : typeof input?.file_path === 'string' ? input.file_path : undefined;
  return (session.rules ?? []).some((r) => r.toolName === toolName && (r.ruleContent === undefined || r.ruleContent === content));
}

/** Current question options carry a `value` next to the label, and `header` is required. */
function currentQuestions(questions) {
  return questions.map((q) => ({
    question: q.question,
    header: q.header ?? q.question.slice(0, 12),
    options: q.options.map((o) => ({ value: o.label.toLowerCase().replace(/[^a-z0-9]+/g, '-'), label: o.label, ...(o.description ? { description: o.description } : {}) })),
    multiSelect: Boolean(q.multiSelect),
  }));
}

/** Each validator returns { ok:true, value } or { ok:false, why }. */
function checkPermission(r) {
  if (isObject(r) && r.decision === 'allow' && hasExactKeys(r, ['decision'])) return { ok: true, value: { allowed: true } };
  if (isObject(r) && r.decision === 'deny' && typeof r.reason === 'string' && hasExactKeys(r, ['decision', 'reason'])) {
    return { ok: true, value: { allowed: false, reason: r.reason } };
  }
  return { ok: false, why: 'expected {"decision":"allow"} or {"decision":"deny","reason":string}' };
}

function checkPlan(r) {
  if (isObject(r) && r.action === 'accept' && hasExactKeys(r, ['action', 'content']) && isObject(r.content) && hasExactKeys(r.content, ['answer_0']) && r.content.answer_0 === 'approve') {
    return { ok: true, value: { approved: true } };
  }
  if (isObject(r) && r.action === 'decline' && typeof r.reason === 'string' && hasExactKeys(r, ['action', 'reason'])) {
    return { ok: true, value: { approved: false, reason: r.reason } };
  }
  return { ok: false, why: 'expected {"action":"accept","content":{"answer_0":"approve"}} or {"action":"decline","reason":string}' };
}

function checkQuestions(questions) {
  const texts = new Set(questions.map((q) => q.question));
  return (r) => {
    const expected = 'expected {"action":"accept","content":{"answers":{<question text>:string}}} or {"action":"decline","reason":"cancelled"}';
    if (isObject(r) && r.action === 'decline' && r.reason === 'cancelled' && hasExactKeys(r, ['action', 'reason'])) {
      return { ok: true, value: { declined: true } };
    }
    if (!(isObject(r) && r.action === 'accept' && hasExactKeys(r, ['action', 'content']) && isObject(r.content) && hasExactKeys(r.content, ['answers']) && isObject(r.content.answers))) {
      return { ok: false, why: expected };
    }
    for (const [key, value] of Object.entries(r.content.answers)) {
      if (!texts.has(key)) return { ok: false, why: `answers key ${JSON.stringify(key)} is not one of the question texts` };
      if (typeof value !== 'string') return { ok: false, why: `answer to ${JSON.stringify(key)} must be a string` };
    }
    return { ok: true, value: { declined: false, answers: r.content.answers } };
  };
}

export class Interactions {
  constructor({ conn, ids, quirks, resendMs, current = false }) {
    this.conn = conn;
    this.current = current;
    this.ids = ids;
    this.resend = quirks.has('resend-interactions');
    this.resendMs = resendMs;
  }

  /** `interaction/requestPermission` → { allowed, reason? } */
  permission(turn, { toolCallId, toolName, input, reason }) {
    if (!this.current) {
      const params = { requestId: `perm_${this.ids.hex(12)}`, sessionId: turn.session.sessionId, toolCallId, toolName, reason, input, options: PERMISSION_OPTIONS };
      return this.ask(turn, 'interaction/requestPermission', params, checkPermission);
    }
    const { session } = turn;
    // "Always allow" sticks: a kept rule answers without asking again.
    if (allowedByRule(session, toolName, input)) return Promise.resolve({ allowed: true, byRule: true });
    const options = currentPermissionOptions(toolName, input);
    const params = { requestId: `perm_${this.ids.hex(12)}`, sessionId: session.sessionId, turnId: turn.id, toolCallId, toolName, reason, riskLevel: 'medium', input, options };
    return this.ask(turn, 'interaction/requestPermission', params, checkCurrentPermission(options)).then((answer) => {
      for (const update of answer.updates ?? []) if (update.behavior === 'allow') (session.rules ??= []).push(...update.rules);
      return answer;
    });
  }

  /** `interaction/requestUserInput` plan approval → { approved, reason? } */
  plan(turn, { toolCallId, plan }) {
    const params = { requestId: `input_${this.ids.hex(12)}`, sessionId: turn.session.sessionId, toolCallId, toolName: 'ExitPlanMode', schema: { interaction: 'plan_approval' }, input: { plan } };
    return this.ask(turn, 'interaction/requestUserInput', params, checkPlan);
  }

  /** `interaction/requestUserInput` questions, top level or under `input` → { declined, answers? } */
  questions(turn, { toolCallId, questions, underInput }) {
    const base = { requestId: `input_${this.ids.hex(12)}`, sessionId: turn.session.sessionId, ...(this.current ? { turnId: turn.id } : {}), toolCallId, toolName: 'AskUserQuestion', schema: { interaction: 'ask_user_question' } };
    const wire = this.current ? currentQuestions(questions) : questions;
    const params = underInput ? { ...base, input: { questions: wire } } : { ...base, questions: wire };
    return this.ask(turn, 'interaction/requestUserInput', params, checkQuestions(questions));
  }

  /**
   * Plan approval / questions asked by a started ExitPlanMode / AskUserQuestion tool. Returns the tool's
   * outcome and the scenario branch to run (`accept` / `decline`); sets `{{answers}}`, `{{answer}}`, `{{reason}}`.
   */
  async duringTool(turn, kind, toolCallId, input) {
    if (kind === 'plan') {
      const a = await this.plan(turn, { toolCallId, plan: input.plan });
      if (a.approved) return { branch: 'accept', outcome: { result: { success: true, content: 'User has approved your plan. You can now start coding.' } } };
      turn.vars.reason = a.reason;
      return { branch: 'decline', outcome: { error: `The user doesn't want to proceed with this plan. Feedback: ${a.reason}` } };
    }
    const questions = input.questions ?? [];
    const a = await this.questions(turn, { toolCallId, questions, underInput: kind === 'questions-input' });
    if (a.declined) {
      turn.vars.reason = 'cancelled';
      return { branch: 'decline', outcome: { error: 'User declined to answer the questions' } };
    }
    // Skipped questions are simply absent from `answers`.
    turn.vars.answers = questions.map((q) => a.answers[q.question] ?? '(skipped)').join('; ');
    turn.vars.answer = a.answers[questions[0]?.question] ?? '(skipped)';
    const summary = Object.entries(a.answers).map(([q, v]) => `"${q}"="${v}"`).join(', ');
    const content = `User has answered your questions: ${summary}. You can now continue with the user's answers in mind.`;
    return { branch: 'accept', outcome: { result: { success: true, content, metadata: { answers: a.answers } } } };
  }

  /**
   * Send the request, and (quirk `resend-interactions`) re-send it with the same params (same requestId)
   * under a new id until any id is answered. Every reply is checked, also late ones for other ids.
   * Rejects with Cancelled when the turn is stopped, TurnFailure on a wrong reply shape.
   */
  ask(turn, method, params, check) {
    const sentIds = [];
    let settled = false;
    let timer;
    return new Promise((resolve, reject) => {
      const onReply = (id, msg) => {
        const verdict = 'error' in msg
          ? { ok: false, why: `answered with an error instead of a result: ${JSON.stringify(msg.error)}` }
          : check(msg.result);
        if (!verdict.ok) this.conn.violation(`invalid reply to ${method} (${id}, requestId ${params.requestId}): ${verdict.why}`, msg);
        if (settled) return;
        settle();
        if (verdict.ok) resolve(verdict.value);
        else reject(new TurnFailure(-32602, `zcode-sim: invalid reply to ${method}: ${verdict.why}`));
      };
      const sendOnce = () => {
        const { id, response } = this.conn.request(method, params);
        sentIds.push(id);
        response.then((msg) => onReply(id, msg));
      };
      // "every id gets the answer": ids still unanswered 2 s after the outcome are violations.
      const checkAllAnswered = () =>
        setTimeout(() => {
          for (const id of this.conn.unanswered(sentIds)) this.conn.violation(`${method} ${id} (requestId ${params.requestId}) was never answered`);
        }, 2000).unref();
      const settle = () => {
        settled = true;
        clearInterval(timer);
        turn.signal.removeEventListener('abort', onAbort);
        checkAllAnswered();
      };
      const onAbort = () => {
        if (settled) return;
        // Stop re-sending; the client still has to answer every id (declined/denied); those replies are still checked.
        settled = true;
        clearInterval(timer);
        checkAllAnswered();
        reject(new Cancelled());
      };
      turn.signal.addEventListener('abort', onAbort, { once: true });
      sendOnce();
      if (this.resend) timer = setInterval(sendOnce, this.resendMs);
    });
  }
}
