// Interaction requests from the simulator: one dialog per requestId, every id answered, exact shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Interaction } from '../../../bridge/zcode/protocol.ts';
import { openSession, runTurn, simBackend, waitUntil } from './setup.ts';

/** The bridge's replies to the simulator's own requests of one method, from the record. */
function repliesTo(received: Record<string, unknown>[], shape: (r: Record<string, unknown>) => boolean) {
  return received.filter((m) => typeof m.id === 'string' && m.method === undefined && typeof m.result === 'object' && m.result !== null && shape(m.result as Record<string, unknown>));
}

test('resend-interactions: the handler runs once, every id zcode used gets the one answer', async (t) => {
  const h = simBackend(t, { quirks: ['resend-interactions'], resendMs: 40 });
  const seen: Interaction[] = [];
  const aborted: boolean[] = [];
  h.backend.setInteractionHandler(async (interaction, signal) => {
    seen.push(interaction);
    // Keep the "user" thinking long enough for several re-sends.
    await new Promise((resolve) => setTimeout(resolve, 300));
    aborted.push(signal.aborted);
    return { decision: 'allow' };
  });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:permission] run the tests');
  assert.equal(seen.length, 1, 'one dialog');
  assert.equal(seen[0].kind, 'permission');
  assert.deepEqual(aborted, [false]);
  const copies = 1 + h.logger.find('debug', /interaction perm_\w+ re-sent/).length;
  assert.ok(copies >= 3, `expected several re-sends, saw ${copies}`);
  // The copies' answers leave together, but the simulator may finish the turn before it has read
  // them all from the pipe: wait until the record has caught up.
  await waitUntil(() => repliesTo(h.record().received, (r) => 'decision' in r).length >= copies, 'every answer is recorded', 3000).catch(() => undefined);
  const { received, violations } = h.record();
  const answers = repliesTo(received, (r) => 'decision' in r);
  assert.equal(answers.length, copies, 'every id got an answer');
  assert.ok(answers.every((a) => JSON.stringify(a.result) === '{"decision":"allow"}'));
  assert.equal(new Set(answers.map((a) => a.id)).size, answers.length, 'each id answered once');
  assert.deepEqual(violations, []);
  const text = events.flatMap((e) => (e.type === 'model.streaming' && e.payload.kind === 'text_delta' ? [e.payload.delta] : [])).join('');
  assert.match(text, /Permission granted/);
});

test('permission denied: the reason reaches zcode', async (t) => {
  const h = simBackend(t);
  h.backend.setInteractionHandler(async () => ({ decision: 'deny', reason: 'not today' }));
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:permission] run the tests');
  const text = events.flatMap((e) => (e.type === 'model.streaming' && e.payload.kind === 'text_delta' ? [e.payload.delta] : [])).join('');
  assert.match(text, /Permission denied \(not today\)/);
  assert.deepEqual(h.record().violations, []);
});

test('questions: classified with their options, answers keyed by question text', async (t) => {
  const h = simBackend(t);
  let asked: Interaction | undefined;
  h.backend.setInteractionHandler(async (interaction) => {
    asked = interaction;
    if (interaction.kind !== 'questions') return { action: 'decline', reason: 'cancelled' };
    const [lang, ci] = interaction.questions;
    return { action: 'accept', content: { answers: { [lang.question]: lang.options[0].label, [ci.question]: `${ci.options[0].label}, ${ci.options[1].label}` } } };
  });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:questions] scaffold a service');
  assert.equal(asked?.kind, 'questions');
  assert.ok(asked?.kind === 'questions' && asked.questions.length === 2 && asked.questions[1].multiSelect === true);
  const text = events.flatMap((e) => (e.type === 'model.streaming' && e.payload.kind === 'text_delta' ? [e.payload.delta] : [])).join('');
  assert.match(text, /You chose: /);
  assert.deepEqual(h.record().violations, []);
});

test('questions under input, and a plan approval', async (t) => {
  const h = simBackend(t);
  const kinds: string[] = [];
  h.backend.setInteractionHandler(async (interaction) => {
    kinds.push(interaction.kind);
    if (interaction.kind === 'plan') return { action: 'accept', content: { answer_0: 'approve' } };
    return { action: 'decline', reason: 'cancelled' };
  });
  const sessionId = await openSession(h);
  await runTurn(h, sessionId, '[scenario:questions-input] ask me');
  const planEvents = await runTurn(h, sessionId, '[scenario:plan] plan it');
  assert.deepEqual(kinds, ['questions', 'plan']);
  const text = planEvents.flatMap((e) => (e.type === 'model.streaming' && e.payload.kind === 'text_delta' ? [e.payload.delta] : [])).join('');
  assert.match(text, /Plan approved/);
  assert.deepEqual(h.record().violations, []);
});

test('no handler installed: permission denied, plan rejected, questions cancelled — all shapes zcode accepts', async (t) => {
  const h = simBackend(t);
  const sessionId = await openSession(h);
  await runTurn(h, sessionId, '[scenario:permission] go');
  await runTurn(h, sessionId, '[scenario:plan] go');
  await runTurn(h, sessionId, '[scenario:questions] go');
  const { received, violations } = h.record();
  assert.deepEqual(violations, []);
  assert.equal(repliesTo(received, (r) => r.decision === 'deny').length, 1);
  assert.equal(repliesTo(received, (r) => r.action === 'decline' && r.reason === 'rejected').length, 1);
  assert.equal(repliesTo(received, (r) => r.action === 'decline' && r.reason === 'cancelled').length, 1);
});
