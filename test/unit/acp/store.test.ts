/** The lazy-session store (store.ts): persistence, atomic writes, corrupt files, pruning, merging. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { LAZY_STORE_FILE, LazySessionStore, UNUSED_PLACEHOLDER_TTL_MS } from '../../../bridge/acp/store.ts';
import { testLogger } from '../../helpers/sim.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zcode-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Recent creation times (older unused placeholders would be pruned). */
const NOW = Date.now();
const file = (): string => path.join(dir, LAZY_STORE_FILE);
const read = (): { version: number; sessions: Record<string, unknown> } => JSON.parse(readFileSync(file(), 'utf8'));

describe('LazySessionStore', () => {
  test('persists placeholders and mappings; a new store reads them back', async () => {
    const a = new LazySessionStore({ storageDir: dir, logger: testLogger() });
    await a.load();
    a.set('lazy_1', { cwd: '/w', createdAt: NOW + 1 });
    a.set('lazy_2', { cwd: '/w', createdAt: NOW + 2, zcodeSessionId: 'sess_2', lastUsedAt: NOW + 3 });
    await a.flush();
    assert.deepEqual(read(), { version: 1, sessions: { lazy_1: { cwd: '/w', createdAt: NOW + 1 }, lazy_2: { cwd: '/w', createdAt: NOW + 2, zcodeSessionId: 'sess_2', lastUsedAt: NOW + 3 } } });
    assert.deepEqual(readdirSync(dir), [LAZY_STORE_FILE], 'the temp file was renamed into place');
    const b = new LazySessionStore({ storageDir: dir, logger: testLogger() });
    assert.equal((await b.get('lazy_2'))?.zcodeSessionId, 'sess_2');
    assert.equal(await b.get('nope'), undefined);
  });

  test('a corrupt file reads as empty (logged) and is replaced by the next write', async () => {
    writeFileSync(file(), '{ this is not json');
    const logger = testLogger();
    const store = new LazySessionStore({ storageDir: dir, logger });
    assert.equal(await store.get('lazy_1'), undefined);
    assert.equal(logger.find('warn', 'not valid JSON').length, 1);
    store.set('lazy_1', { cwd: '/w', createdAt: NOW + 1 });
    await store.flush();
    assert.deepEqual(Object.keys(read().sessions), ['lazy_1']);
  });

  test('entries of a foreign shape are dropped one by one', async () => {
    writeFileSync(file(), JSON.stringify({ version: 1, sessions: { good: { cwd: '/w', createdAt: NOW + 5 }, bad: { cwd: 7 }, worse: 'x' } }));
    const store = new LazySessionStore({ storageDir: dir, logger: testLogger() });
    assert.deepEqual(await store.get('good'), { cwd: '/w', createdAt: NOW + 5 });
    assert.equal(await store.get('bad'), undefined);
    writeFileSync(file(), JSON.stringify([1, 2, 3]));
    const other = new LazySessionStore({ storageDir: dir, logger: testLogger() });
    assert.equal(await other.get('good'), undefined);
  });

  test('unused placeholders are pruned 30 days after creation; used ones are kept', async () => {
    const now = 100 * UNUSED_PLACEHOLDER_TTL_MS;
    writeFileSync(
      file(),
      JSON.stringify({
        version: 1,
        sessions: {
          old_unused: { cwd: '/w', createdAt: now - UNUSED_PLACEHOLDER_TTL_MS - 1 },
          young_unused: { cwd: '/w', createdAt: now - UNUSED_PLACEHOLDER_TTL_MS + 1000 },
          old_used: { cwd: '/w', createdAt: 0, zcodeSessionId: 'sess_1', lastUsedAt: 0 },
        },
      }),
    );
    const store = new LazySessionStore({ storageDir: dir, logger: testLogger(), now: () => now });
    await store.load();
    assert.equal(await store.get('old_unused'), undefined);
    assert.ok(await store.get('young_unused'));
    assert.ok(await store.get('old_used'));
    await store.flush();
    assert.deepEqual(Object.keys(read().sessions).sort(), ['old_used', 'young_unused'], 'the pruning was written back');
  });

  test('two bridges sharing the file do not clobber each other', async () => {
    const a = new LazySessionStore({ storageDir: dir, logger: testLogger() });
    const b = new LazySessionStore({ storageDir: dir, logger: testLogger() });
    await Promise.all([a.load(), b.load()]);
    a.set('from_a', { cwd: '/a', createdAt: NOW + 1 });
    await a.flush();
    b.set('from_b', { cwd: '/b', createdAt: NOW + 2 });
    await b.flush();
    a.delete('from_a');
    await a.flush();
    assert.deepEqual(Object.keys(read().sessions), ['from_b']);
  });

  test('a directory that cannot be written is logged, never thrown', async () => {
    const blocker = path.join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const logger = testLogger();
    const store = new LazySessionStore({ storageDir: path.join(blocker, 'sub'), logger });
    store.set('lazy_1', { cwd: '/w', createdAt: NOW + 1 });
    await store.flush();
    assert.equal(logger.find('warn', 'could not write').length, 1);
    assert.deepEqual(await store.get('lazy_1'), { cwd: '/w', createdAt: NOW + 1 }, 'still known in memory');
  });
});
