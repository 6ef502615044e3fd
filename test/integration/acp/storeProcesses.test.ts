/**
 * Two processes writing one lazy-session store at the same time (the CLI and the
 * extension share `~/.zcode/v2`) lose nothing. Two real Node processes run test/helpers/storeWriter.ts
 * on the same directory at once; every placeholder and every mapping of both must be on disk, and a
 * fresh store must read them all.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LazySessionStore } from '../../../bridge/acp/sessions/lazySessionStore.ts';
import { storedSessions } from '../../helpers/lazyStore.ts';
import { testLogger } from '../../helpers/sim.ts';

const WRITER = fileURLToPath(new URL('../../helpers/storeWriter.ts', import.meta.url));
const PLACEHOLDERS = 750;
const MAPPINGS = 3;

function runWriter(dir: string, prefix: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, prefix, String(PLACEHOLDERS), String(MAPPINGS)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

test('two processes writing one store at once lose 0 of 1,500 placeholders and 0 of 6 mappings', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'zcode-store-2proc-'));
  try {
    const results = await Promise.all([runWriter(dir, 'a'), runWriter(dir, 'b')]);
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const sessions = storedSessions(dir);
    const expected = ['a', 'b'].flatMap((p) => Array.from({ length: PLACEHOLDERS }, (_, i) => `${p}_${i}`));
    const lost = expected.filter((id) => !(id in sessions));
    assert.deepEqual(lost, [], `${lost.length} of ${expected.length} placeholders lost`);
    const mapped = Object.entries(sessions).filter(([, e]) => e.zcodeSessionId).map(([id, e]) => `${id}=${e.zcodeSessionId}`).sort();
    assert.deepEqual(mapped, ['a_0=sess_a_0', 'a_1=sess_a_1', 'a_2=sess_a_2', 'b_0=sess_b_0', 'b_1=sess_b_1', 'b_2=sess_b_2']);
    const fresh = new LazySessionStore({ storageDir: dir, logger: testLogger(), maxUnused: 100_000 });
    assert.equal((await fresh.all()).length, 2 * PLACEHOLDERS);
    assert.deepEqual(readdirSync(dir).filter((f) => !f.startsWith('acp-lazy-sessions.json') && f !== 'acp-lazy-sessions.journal'), [], 'no lock or temp file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
