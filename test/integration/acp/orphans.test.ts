/**
 * zcode's process group ends when the bridge dies, even by SIGKILL: the bundled
 * `zcode-acp` CLI runs the simulator; the bridge is killed outright (its exit hook cannot run) and
 * the simulator's whole group must still go (bridge/zcode/orphanWatchdog.ts).
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { AcpHarness, buildCli } from './harness.ts';
import { newSession, prompt } from './helpers.ts';

before(async () => {
  await buildCli();
});

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

test('SIGKILL of the bridge: zcode\'s process group is gone soon after', { timeout: 60_000, skip: process.platform === 'win32' }, async () => {
  // The simulator exits on stdin EOF by itself; the grandchild (a tool shell) would not.
  const h = await AcpHarness.start('stdio', { sim: { env: { ZCODE_SIM_FAULTS: 'spawn-grandchild' } } });
  try {
    const sessionId = await newSession(h);
    assert.equal((await prompt(h, sessionId, '[scenario:text]')).stopReason, 'end_turn');
    const pid = Number(/zcode started \(pid (\d+)\)/.exec(h.stderr)?.[1]);
    assert.ok(pid > 0 && groupAlive(pid), 'zcode runs in its own group');
    h.child!.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (groupAlive(pid)) {
      if (Date.now() > deadline) assert.fail(`zcode's group ${pid} outlived the bridge by 10 s`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } catch (error) {
    // Leave nothing behind even when the assertion failed.
    const pid = Number(/zcode started \(pid (\d+)\)/.exec(h.stderr)?.[1]);
    if (pid > 0 && groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    throw error;
  } finally {
    await h.dispose();
  }
});
