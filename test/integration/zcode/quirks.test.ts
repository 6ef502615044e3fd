// Every simulator quirk switch, through the real backend client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ZcodeError } from '../../../bridge/zcode/backend.ts';
import type { EventOf, ZcodeEvent } from '../../../bridge/zcode/protocol.ts';
import { openSession, runTurn, simBackend } from './setup.ts';

const toolEvents = (events: ZcodeEvent[]) => events.filter((e): e is EventOf<'tool.updated'> => e.type === 'tool.updated');

async function codeOf(promise: Promise<unknown>): Promise<number> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ZcodeError, `expected ZcodeError, got ${String(error)}`);
  return error.code;
}

test('reject-jsonrpc (default on): nothing the client sends is rejected', async (t) => {
  const h = simBackend(t, { quirks: ['reject-jsonrpc'] });
  const sessionId = await openSession(h);
  await runTurn(h, sessionId, '[scenario:tools] look around');
  const { received, violations } = h.record();
  assert.deepEqual(violations, []);
  assert.ok(received.every((m) => !('jsonrpc' in m)));
});

test('split-lines: lines arriving in pieces are reassembled; nothing skipped', async (t) => {
  const h = simBackend(t, { quirks: ['split-lines'] });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:text] hello');
  assert.ok(events.some((e) => e.type === 'model.streaming'));
  assert.equal(h.logger.find('warn').length, 0, h.logger.find('warn').join('\n'));
  const seqs = events.map((e) => e.seq ?? 0);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seqs[0] + i), 'no event lost');
});

test('big-output: a >= 1 MB tool result line parses', async (t) => {
  const h = simBackend(t, { quirks: ['big-output'] });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:bash] run it');
  const results = toolEvents(events).filter((e) => e.payload.kind === 'result');
  const big = results.find((e) => e.payload.kind === 'result' && String(e.payload.result.content ?? '').length >= 1_000_000);
  assert.ok(big, `no >= 1 MB result among ${results.length} results`);
  assert.equal(h.logger.find('warn').length, 0);
});

test('noise: non-JSON lines are skipped and logged, the turn is intact', async (t) => {
  const h = simBackend(t, { quirks: ['noise'] });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:tools] look around');
  assert.ok(h.logger.find('warn', 'non-JSON').length >= 1, 'noise was seen and logged');
  assert.equal(events.at(-1)?.type, 'turn.completed');
  const seqs = events.map((e) => e.seq ?? 0);
  assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => seqs[0] + i), 'no event lost');
});

test('toolcall-before-scheduled: tool_call first, scheduled without input — both parse', async (t) => {
  const h = simBackend(t, { quirks: ['toolcall-before-scheduled'] });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:tools] look around');
  const firstCall = events.findIndex((e) => e.type === 'model.streaming' && e.payload.kind === 'tool_call');
  assert.ok(firstCall >= 0, 'a tool_call announcement');
  const call = events[firstCall] as EventOf<'model.streaming'>;
  assert.ok(call.payload.kind === 'tool_call' && call.payload.input);
  const scheduled = toolEvents(events).find((e) => e.payload.kind === 'scheduled' && e.payload.toolCallId === (call.payload.kind === 'tool_call' ? call.payload.toolCallId : ''));
  assert.ok(scheduled && events.indexOf(scheduled) > firstCall);
  assert.ok(scheduled.payload.kind === 'scheduled' && scheduled.payload.input === undefined);
  assert.equal(h.logger.find('warn').length, 0, h.logger.find('warn').join('\n'));
});

test('result-without-toolname: results without toolName parse', async (t) => {
  const h = simBackend(t, { quirks: ['result-without-toolname'] });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, '[scenario:tools] look around');
  const results = toolEvents(events).filter((e) => e.payload.kind === 'result');
  assert.ok(results.length > 0);
  assert.ok(results.every((e) => e.payload.kind === 'result' && e.payload.toolName === undefined));
  assert.equal(h.logger.find('warn').length, 0, h.logger.find('warn').join('\n'));
});

test('busy: a send while a turn runs fails with 1308', async (t) => {
  // 1308 is the seed-era busy code (current builds answer -32010; test/unit/zcodeSim.test.ts).
  const h = simBackend(t, { profile: '0.15.2', quirks: ['busy'] });
  const sessionId = await openSession(h);
  await h.backend.send({ sessionId, content: '[scenario:long] work' });
  const error = await codeOf(h.backend.send({ sessionId, content: 'again' }));
  assert.equal(error, 1308);
  h.backend.stop({ sessionId });
});

test('busy-32010: the other spelling of busy', async (t) => {
  const h = simBackend(t, { profile: '0.15.2', quirks: ['busy-32010'] });
  const sessionId = await openSession(h);
  await h.backend.send({ sessionId, content: '[scenario:long] work' });
  assert.equal(await codeOf(h.backend.send({ sessionId, content: 'again' })), -32010);
  h.backend.stop({ sessionId });
});

test('busy-once: the first send is refused even when idle, the retry works', async (t) => {
  const h = simBackend(t, { profile: '0.15.2', quirks: ['busy-once'] });
  const sessionId = await openSession(h);
  assert.equal(await codeOf(h.backend.send({ sessionId, content: '[scenario:text] hi' })), 1308);
  const events = await runTurn(h, sessionId, '[scenario:text] hi');
  assert.equal(events.at(-1)?.type, 'turn.completed');
});

test('evict-once: -32004 surfaces; resume and retry works', async (t) => {
  const h = simBackend(t, { quirks: ['evict-once'] });
  const sessionId = await openSession(h);
  const error = await h.backend.read({ sessionId }).then(
    () => assert.fail('expected -32004'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ZcodeError && error.code === -32004 && /not active/.test(error.message), String(error));
  await h.backend.resumeSession({ sessionId, workspacePath: h.workspace });
  assert.equal((await h.backend.read({ sessionId })).projection?.status, 'idle');
});
