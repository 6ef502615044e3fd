import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchTurn } from '../../../../../bridge/acp/turns/turnWatchdog.ts';
import type { WatchdogVerdict } from '../../../../../bridge/acp/turns/turnWatchdog.ts';
import type { SessionRuntime } from '../../../../../bridge/acp/sessions/sessionRuntime.ts';
import type { ZcodeBackend } from '../../../../../bridge/zcode/backend.ts';
import { testLogger } from '../../../../helpers/sim.ts';

/** Only what the watchdog reads of a runtime and a backend. */
function fakes(read: () => Promise<{ projection?: { status?: string } }>): { backend: ZcodeBackend; runtime: SessionRuntime; reads: () => number } {
  let reads = 0;
  const backend = { read: () => (reads++, read()) } as unknown as ZcodeBackend;
  const runtime = { zcodeId: 'z1', lastSeq: 5 } as unknown as SessionRuntime;
  return { backend, runtime, reads: () => reads };
}

const tuning = { quietMs: 10, readTimeoutMs: 20, unansweredLimit: 2 };

test('a zcode that never answers session/read ends the quiet turn as unresponsive after the limit', async () => {
  const { backend, runtime, reads } = fakes(() => new Promise(() => undefined));
  const verdict = await new Promise<WatchdogVerdict>((resolve) => watchTurn(backend, runtime, testLogger(), tuning, resolve));
  assert.deepEqual(verdict, { kind: 'unresponsive', reads: 2 });
  assert.equal(reads(), 2);
});

test('events in between keep zcode from being asked; "idle" with no new event ends the turn', async () => {
  const { backend, runtime, reads } = fakes(async () => ({ projection: { status: 'idle' } }));
  let ticks = 0;
  // Progress for the first few checks, then silence.
  const progress = setInterval(() => {
    if (ticks++ < 3) (runtime as { lastSeq: number }).lastSeq++;
  }, 5);
  const verdict = await new Promise<WatchdogVerdict>((resolve) => watchTurn(backend, runtime, testLogger(), tuning, resolve));
  clearInterval(progress);
  assert.deepEqual(verdict, { kind: 'idle' });
  assert.ok(reads() >= 1);
});
