/**
 * The host requests of current zcode builds, sent by the simulator at the start of
 * every turn (ZCODE_SIM_HOST_REQUESTS) and checked by it against zcode's own reply schemas: a wrong
 * reply is a recorded violation.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { START_PLAN_MESSAGE } from '../../../bridge/zcode/hostRequests.ts';
import { tempDir } from '../../helpers/sim.ts';
import { openSession, runTurn, simBackend } from './setup.ts';

const KEY = 'cp-fake-0123456789';

function homeWithKey(dir: string): string {
  mkdirSync(path.join(dir, '.zcode', 'v2'), { recursive: true });
  writeFileSync(path.join(dir, '.zcode', 'v2', 'config.json'), JSON.stringify({ provider: { 'builtin:zai-coding-plan': { options: { apiKey: KEY } } } }));
  return dir;
}

test('coding plan headers, official MCP auth, browser and an unknown request: each answered as zcode expects', async (t) => {
  const home = tempDir();
  t.after(() => home.cleanup());
  const h = simBackend(t, { env: { HOME: homeWithKey(home.dir), ZCODE_SIM_HOST_REQUESTS: 'headers:coding-plan,official-mcp,browser,unknown' } });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, 'hello');
  assert.equal(events.at(-1)?.type, 'turn.completed', 'the turn ran with the stored key');
  const { received, violations } = h.record();
  assert.deepEqual(violations, []);
  const headersReply = received.find((m) => typeof m.id === 'string' && (m.result as { headersApplied?: boolean } | undefined)?.headersApplied !== undefined);
  assert.deepEqual(headersReply?.result, { headersApplied: true, requestAuth: { apiKey: KEY } });
  assert.ok(!h.logger.lines.some((l) => l.includes(KEY)), 'the key is never logged');
});

test('Start Plan: headersApplied:false, and the turn fails with the message the user should read', async (t) => {
  const home = tempDir();
  t.after(() => home.cleanup());
  const h = simBackend(t, { env: { HOME: homeWithKey(home.dir), ZCODE_SIM_HOST_REQUESTS: 'headers:start-plan' } });
  const sessionId = await openSession(h);
  const events = await runTurn(h, sessionId, 'hello');
  const end = events.at(-1);
  assert.equal(end?.type, 'turn.failed');
  assert.equal((end?.payload as { error: { message: string } }).error.message, START_PLAN_MESSAGE);
  assert.deepEqual(h.record().violations, []);
});
