// Process lifecycle against the real simulator process: crash, timeouts, dispose, no orphans.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BackendErrorCode, ZcodeError } from '../../../bridge/zcode/backend.ts';
import type { BackendState, ExitInfo } from '../../../bridge/zcode/backend.ts';
import { createZcodeBackend } from '../../../bridge/zcode/client.ts';
import { simLocateOptions, testLogger } from '../../helpers/sim.ts';
import { disposeAndWait, groupAlive, isAlive, openSession, simBackend, waitUntil } from './setup.ts';

async function rejectsWith(promise: Promise<unknown>, code: number, message?: RegExp): Promise<ZcodeError> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ZcodeError, `expected ZcodeError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  if (message) assert.match(error.message, message);
  return error;
}

test('crash scenario: onDidExit (unexpected), state crashed, the next call starts a fresh process', async (t) => {
  const h = simBackend(t);
  const states: BackendState[] = [];
  h.backend.onDidChangeState((s) => states.push(s));
  const sessionId = await openSession(h);
  const exited = new Promise<ExitInfo>((resolve) => h.backend.onDidExit(resolve));
  await h.backend.send({ sessionId, content: '[scenario:crash] please fall over' }).catch(() => undefined);
  const info = await exited;
  assert.equal(info.expected, false);
  assert.equal(info.code, 1);
  assert.equal(h.backend.state, 'crashed');
  assert.ok(h.logger.find('error', 'exited unexpectedly').length >= 1);
  const [firstPid] = h.pids();
  assert.equal(groupAlive(firstPid), false, 'nothing of the crashed process group is left');
  await h.backend.listSessions({ workspacePath: h.workspace });
  assert.equal(h.pids().length, 2, 'a fresh process');
  assert.notEqual(h.pids()[1], firstPid);
  assert.deepEqual(states, ['starting', 'ready', 'crashed', 'starting', 'ready']);
});

test('process death rejects pending requests promptly with ProcessExited', async (t) => {
  const h = simBackend(t, {}, { timeouts: { requestMs: 20_000 } });
  await h.backend.start();
  const [pid] = h.pids();
  // A stopped process cannot answer: the request stays pending until the process dies.
  process.kill(pid, 'SIGSTOP');
  const pending = h.backend.listSessions({});
  await new Promise((resolve) => setTimeout(resolve, 50));
  const exited = new Promise<ExitInfo>((resolve) => h.backend.onDidExit(resolve));
  process.kill(pid, 'SIGKILL');
  // ProcessExited, not the 20 s Timeout: the death itself settled the request.
  await rejectsWith(pending, BackendErrorCode.ProcessExited, /exited unexpectedly \(signal SIGKILL\)/);
  assert.equal((await exited).signal, 'SIGKILL');
  assert.equal(h.backend.state, 'crashed');
});

test('a request that gets no answer times out; the backend stays usable', async (t) => {
  // Long enough that the resumed process answers the next call even on a loaded machine.
  const h = simBackend(t, {}, { timeouts: { requestMs: 2000 } });
  await h.backend.start();
  const [pid] = h.pids();
  process.kill(pid, 'SIGSTOP');
  try {
    await rejectsWith(h.backend.listSessions({}), BackendErrorCode.Timeout, /did not answer session\/list within 2000 ms/);
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  assert.equal(h.backend.state, 'ready');
  const listed = await h.backend.listSessions({});
  assert.ok(Array.isArray(listed.sessions));
  assert.equal(h.pids().length, 1, 'same process');
});

test('dispose kills the process group, rejects pending requests with Disposed, and refuses new calls', async (t) => {
  const logger = testLogger(t.name);
  const backend = createZcodeBackend({ ...simLocateOptions(), logger, timeouts: { requestMs: 20_000, killGraceMs: 500 } });
  await backend.start();
  const pid = Number(/pid (\d+)/.exec(logger.find('info', 'zcode started')[0])?.[1]);
  assert.ok(isAlive(pid));
  process.kill(pid, 'SIGSTOP'); // make it ignore SIGTERM for a while: the SIGKILL fallback must kick in
  const pending = backend.listSessions({});
  await new Promise((resolve) => setTimeout(resolve, 30));
  const exited = disposeAndWait(backend);
  await rejectsWith(pending, BackendErrorCode.Disposed);
  const info = await exited;
  assert.equal(info?.expected, true);
  await waitUntil(() => !isAlive(pid) && !groupAlive(pid), 'the process group is gone', 3000);
  assert.equal(backend.state, 'stopped');
  await rejectsWith(backend.listSessions({}), BackendErrorCode.Disposed);
});

test('dispose of a healthy process: graceful exit well within the grace period', async (t) => {
  const logger = testLogger(t.name);
  const backend = createZcodeBackend({ ...simLocateOptions(), logger, timeouts: { killGraceMs: 2000 } });
  await backend.start();
  const pid = Number(/pid (\d+)/.exec(logger.find('info', 'zcode started')[0])?.[1]);
  const info = await disposeAndWait(backend);
  assert.ok(info, 'exited');
  assert.equal(info.signal === 'SIGKILL', false, 'no SIGKILL needed');
  assert.equal(isAlive(pid), false);
});

test('restart: a new process, the old one gone', async (t) => {
  const h = simBackend(t);
  await h.backend.start();
  const [first] = h.pids();
  await h.backend.restart();
  assert.equal(h.backend.state, 'stopped');
  assert.equal(isAlive(first), false);
  await h.backend.listSessions({});
  assert.equal(h.pids().length, 2);
});

test('a CLI that cannot be found: NotFound with what was tried', async (t) => {
  const logger = testLogger(t.name);
  const backend = createZcodeBackend({ zcodePath: '/definitely/not/here/zcode', env: {}, logger });
  t.after(() => backend.dispose());
  await rejectsWith(backend.start(), BackendErrorCode.NotFound, /zcode\.path is set to "\/definitely\/not\/here\/zcode"/);
  assert.equal(backend.state, 'stopped');
});
