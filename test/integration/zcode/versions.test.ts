// Version profiles: behaviour-discovered incompatibilities become clear typed errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendErrorCode, ZcodeError } from '../../../bridge/zcode/backend.ts';
import { runTurn, simBackend } from './setup.ts';

async function errorOf(promise: Promise<unknown>): Promise<ZcodeError> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ZcodeError, `expected ZcodeError, got ${String(error)}`);
  return error;
}

test('0.14.6 (no session/subscribe): Incompatible, with the clear message', async (t) => {
  const h = simBackend(t, { profile: '0.14.6' });
  const created = await h.backend.createSession({ workspacePath: h.workspace });
  const error = await errorOf(h.backend.subscribe({ sessionId: created.session.sessionId }));
  assert.equal(error.code, BackendErrorCode.Incompatible);
  assert.match(error.message, /^zcode 0\.14\.8 or newer is required \(this build has no session\/subscribe\)/);
  assert.equal(h.backend.state, 'ready', 'not a crash');
});

test('0.14.8: subscribe works, rewindCascade is not there yet (-32601, explained)', async (t) => {
  const h = simBackend(t, { profile: '0.14.8' });
  const created = await h.backend.createSession({ workspacePath: h.workspace });
  const sessionId = created.session.sessionId;
  await h.backend.subscribe({ sessionId });
  await runTurn(h, sessionId, '[scenario:text] hi');
  const error = await errorOf(h.backend.rewind({ sessionId, target: { kind: 'latestCheckpoint' }, cascade: true }));
  assert.equal(error.code, -32601);
  assert.match(error.message, /session\/rewindCascade is not supported by this zcode version/);
});

test('0.16: steer and rewind answer -32601 with a "not supported by this zcode version" error', async (t) => {
  const h = simBackend(t, { profile: '0.16' });
  const created = await h.backend.createSession({ workspacePath: h.workspace });
  const sessionId = created.session.sessionId;
  await h.backend.subscribe({ sessionId });
  await runTurn(h, sessionId, '[scenario:text] hi');
  const steer = await errorOf(h.backend.steer({ sessionId, content: 'also this' }));
  assert.equal(steer.code, -32601);
  assert.equal(steer.method, 'session/steer');
  assert.match(steer.message, /session\/steer is not supported by this zcode version/);
  const rewind = await errorOf(h.backend.rewind({ sessionId, target: { kind: 'latestCheckpoint' } }));
  assert.equal(rewind.code, -32601);
  assert.match(rewind.message, /session\/rewind is not supported by this zcode version/);
  assert.equal(h.backend.state, 'ready');
  // Everything else keeps working.
  assert.equal((await h.backend.read({ sessionId })).projection?.status, 'idle');
});

test('0.15.2: steer lifecycle and turn.terminal events parse', async (t) => {
  const h = simBackend(t, { profile: '0.15.2' });
  const created = await h.backend.createSession({ workspacePath: h.workspace });
  const sessionId = created.session.sessionId;
  assert.ok(created.settings?.model?.available?.length, 'create returns settings on 0.15.2');
  await h.backend.subscribe({ sessionId });
  const from = h.events.all.length;
  await h.backend.send({ sessionId, content: '[scenario:long] go' });
  await h.events.waitFor((e) => e.sessionId === sessionId && e.type === 'model.streaming', 'streaming');
  await h.backend.steer({ sessionId, content: 'also mention tests' });
  await h.events.waitFor((e) => e.sessionId === sessionId && e.type === 'turn.steerQueued', 'turn.steerQueued');
  h.backend.stop({ sessionId });
  await h.events.turnEnd(sessionId, from);
  assert.ok(h.events.of(sessionId).some((e) => e.type === 'turn.terminal'));
  assert.equal(h.logger.find('warn', 'malformed').length, 0, h.logger.find('warn').join('\n'));
});
