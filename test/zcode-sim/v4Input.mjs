// v4 input admission: starting a turn from a v4 input (sendText, createSession's first input, edit and retry
// re-runs, the queue's auto-drain), and the input queue a running turn collects: "queue" items wait for the
// turn to end; "guide" items are injected into the running turn at its next tool-batch boundary (zcode's
// guideModeTurnSteer), which the legacy stream shows as turn.steerQueued → turn.steerDrained on that turn.
// Sources: jimpablo/ZCode …/zcode-protocol-v4/commands/{prompt-turn.ts,handlers/session-flow.ts} and the live
// 3.12.3 steer capture described in the simulator README.
import { log } from './util.mjs';
import { loadSteps, parsePrompt } from './scenarios.mjs';
import { bump, v4Of } from './v4Rows.mjs';

function titleFrom(text, scenario) {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const t = line.trim() || `Simulated: ${scenario}`;
  return t.length > 60 ? `${t.slice(0, 59)}…` : t;
}

/**
 * Start a turn for a v4 input. The v4 path uses the commandId as the turn's inputId and queryId, and the
 * turn belongs to core admission (legacy `session/stop` does not reach it; v4 `stop` does). `userMessage`
 * re-runs an existing user message (retryTurn) instead of adding a second one.
 */
export async function startInput(sv, session, startTurn, { text, commandId, clientId, userMessage, editRerun }, ctx) {
  const picked = parsePrompt(text);
  const steps = await loadSteps(picked, { prompt: text, session, workspace: session.workspace.workspacePath, attachments: [] });
  await sv.hosts.runtimePreferences(session.sessionId, 'user-execution');
  sv.store.promote(session); // the first input makes a draft a real, listed session
  const first = session.title === 'New session';
  if (first) {
    session.previousTitle = session.title;
    session.title = titleFrom(picked.text, picked.name);
  }
  const announce = () => {
    session.notifyState({ status: 'running' }, 'prompt_started');
    if (first) session.emit('session.titleUpdated', { previousTitle: 'New session', source: 'first_input', title: session.title });
  };
  if (ctx) ctx.after(announce);
  else announce();
  const started = { inputId: commandId, queryId: commandId, foregroundExecutionId: `fx_${sv.ids.hex(16)}` };
  const userInfo = { sourceCommandId: commandId, clientId, ...(editRerun ? { editRerun: true } : {}) };
  return startTurn(sv, session, { steps, prompt: picked.text || text, label: titleFrom(picked.text, picked.name), userParts: [{ type: 'text', text }], scenario: picked.name, started, userInfo, userMessage, v4: true }, ctx);
}

/**
 * Stop the running turn (and compaction) and wait until the session is idle, without draining the queue.
 * `preserveAutoDrain` ("send now"): the cancel does not hold the queue as a stop does.
 */
export async function preempt(session, { preserveAutoDrain = false } = {}) {
  const v4 = v4Of(session);
  v4.holdDrain = true;
  v4.preserveAutoDrain = preserveAutoDrain;
  try {
    session.turn?.cancel();
    session.compaction?.abort();
    await session.whenIdle();
  } finally {
    v4.holdDrain = false;
    v4.preserveAutoDrain = false;
  }
}

/** The input intent zcode attaches to queue events. */
function intentOf(item, position) {
  const out = { sourceCommandId: item.commandId, queueItemId: item.queueItemId, clientId: item.clientId, kind: item.kind, text: item.text, requestedDelivery: item.requested ?? null, admittedDelivery: item.admitted, queuePosition: position };
  if (item.fallbackReasonCode) out.fallbackReasonCode = item.fallbackReasonCode;
  return out;
}

/** Put an input in the queue of the running turn; a guide also wakes a scenario waiting for a steer. */
export function enqueue(session, item, ctx) {
  const v4 = v4Of(session);
  v4.queue.push(item);
  bump(session);
  const turn = session.turn;
  if (!turn) return;
  const position = v4.queue.indexOf(item);
  session.emit('turn.steerQueued', { targetTurnId: turn.id, delivery: item.admitted, queueLength: v4.queue.length, pendingInputId: item.queueItemId, inputPreview: item.text.slice(0, 200), intent: intentOf(item, position) });
  if (item.admitted === 'guide') {
    item.targetTurnId = turn.id;
    // After the ACK line, like the legacy steer: the turn resumes only once the client has its answer.
    ctx.after(() => {
      turn.steerCount++;
      turn.steerWake?.();
    });
  }
}

/**
 * At a tool-batch boundary (the model request after tool results): inject this turn's guides as user
 * messages, report turn.steerDrained, and let the model answer them.
 */
export async function toolBoundary(sv, turn) {
  const { session } = turn;
  if (!session.v4) return;
  const v4 = v4Of(session);
  const items = v4.queue.filter((i) => i.admitted === 'guide' && i.targetTurnId === turn.id);
  if (items.length === 0) return;
  v4.queue = v4.queue.filter((i) => !items.includes(i));
  const drained = items.map((item, i) => {
    const message = { info: { id: `msg_${sv.ids.hex(16)}`, role: 'user', createdAt: Date.now(), turnId: turn.id, guided: true, sourceCommandId: item.commandId, clientId: item.clientId }, parts: [{ type: 'text', text: item.text }] };
    // The injected message sits between what the model said before and after it.
    const at = session.messages.indexOf(turn.assistant);
    if (turn.assistant.parts.length === 0) session.messages.splice(at, 0, message);
    else {
      session.messages.push(message);
      turn.assistant = { info: { ...turn.assistant.info, id: `msg_${sv.ids.hex(16)}`, createdAt: Date.now() }, parts: [] };
      session.messages.push(turn.assistant);
    }
    return { pendingInputId: item.queueItemId, messageId: message.info.id, text: item.text, delivery: 'guide', intent: intentOf(item, i) };
  });
  session.emit('turn.steerDrained', { injectedMessageIds: drained.map((d) => d.messageId), pendingInputIds: drained.map((d) => d.pendingInputId), drainedInputs: drained });
  for (const item of items) await turn.stream('text_delta', `\n\n> Steer received: "${item.text}". Adjusting course accordingly.\n\n`, { steering: true });
}

/**
 * The session went idle: with autoDrain on (zcode's initial projection has it on), the queue head starts
 * the next turn by itself — including a guide whose turn ended before a tool boundary came.
 */
export function drainQueue(sv, session, startTurn, legacy) {
  const v4 = session.v4;
  if (!v4 || v4.holdDrain || !v4.autoDrain || v4.queue.length === 0 || session.turn || session.compaction) return;
  const item = v4.queue.shift();
  bump(session);
  const run = item.kind === 'compact'
    ? legacy['session/compact']({ sessionId: session.sessionId }, { after: (fn) => fn() })
    : startInput(sv, session, startTurn, { text: item.text, commandId: item.commandId, clientId: item.clientId });
  run.catch((err) => log(`queued input ${item.queueItemId} could not start:`, err?.message ?? String(err)));
}
