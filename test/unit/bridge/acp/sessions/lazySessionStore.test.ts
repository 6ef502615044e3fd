/**
 * The lazy-session store (lazySessionStore.ts, storeFormat.ts, storeLock.ts): persistence through the journal,
 * compaction, damaged and newer-version snapshots, the caps on never-prompted
 * placeholders and a change costing one appended line, sharing and the lock (the
 * two-process test is test/integration/acp/storeProcesses.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { LAZY_STORE_FILE, LAZY_STORE_JOURNAL, LAZY_STORE_LOCK, LazySessionStore, UNUSED_PLACEHOLDER_TTL_MS } from '../../../../../bridge/acp/sessions/lazySessionStore.ts';
import { appendJournal } from '../../../../../bridge/acp/sessions/storeFiles.ts';
import type { LazySessionStoreOptions } from '../../../../../bridge/acp/sessions/lazySessionStore.ts';
import { storedSessions } from '../../../../helpers/lazyStore.ts';
import { testLogger } from '../../../../helpers/sim.ts';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'zcode-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Recent creation times (older unused placeholders would be pruned). */
const NOW = Date.now();
const file = (): string => path.join(dir, LAZY_STORE_FILE);
const journal = (): string => path.join(dir, LAZY_STORE_JOURNAL);
const stored = (): Record<string, unknown> => storedSessions(dir);
const backups = (): string[] => readdirSync(dir).filter((f) => f.endsWith('.bak'));
const open = (options: Partial<LazySessionStoreOptions> = {}): LazySessionStore => new LazySessionStore({ storageDir: dir, logger: testLogger(), ...options });

describe('LazySessionStore', () => {
  test('persists placeholders and mappings; a new store reads them back; no temp or lock file is left', async () => {
    const a = open();
    await a.load();
    a.set('lazy_1', { cwd: '/w', createdAt: NOW + 1 });
    a.set('lazy_2', { cwd: '/w', createdAt: NOW + 2, zcodeSessionId: 'sess_2', lastUsedAt: NOW + 3 });
    await a.flush();
    assert.deepEqual(stored(), { lazy_1: { cwd: '/w', createdAt: NOW + 1 }, lazy_2: { cwd: '/w', createdAt: NOW + 2, zcodeSessionId: 'sess_2', lastUsedAt: NOW + 3 } });
    assert.deepEqual(readdirSync(dir), [LAZY_STORE_JOURNAL]);
    const b = open();
    assert.equal((await b.get('lazy_2'))?.zcodeSessionId, 'sess_2');
    assert.equal(await b.get('nope'), undefined);
  });

  test('a change appends one journal line and leaves the snapshot alone, however big the store', async () => {
    const sessions = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`lazy_${i}`, { cwd: '/w', createdAt: NOW, zcodeSessionId: `sess_${i}` }]));
    writeFileSync(file(), JSON.stringify({ version: 1, sessions }));
    const before = statSync(file());
    const store = open();
    await store.load();
    for (let i = 0; i < 3; i++) {
      store.set(`lazy_new_${i}`, { cwd: '/w', createdAt: NOW });
      await store.flush();
    }
    const after = statSync(file());
    assert.equal(after.ino, before.ino, 'the snapshot was not replaced');
    assert.equal(after.size, before.size);
    assert.equal(readFileSync(journal(), 'utf8').trim().split('\n').filter((l) => l.startsWith('{"id":')).length, 3);
    assert.equal(Object.keys(stored()).length, 5003);
  });

  test('the journal is compacted into the snapshot; a store that read the old journal follows the new one', async () => {
    const a = open({ compactMinLines: 10 });
    const b = open({ compactMinLines: 10 });
    await Promise.all([a.load(), b.load()]);
    b.set('from_b', { cwd: '/b', createdAt: NOW });
    await b.flush();
    for (let i = 0; i < 25; i++) {
      a.set(`from_a_${i}`, { cwd: '/a', createdAt: NOW + i });
      await a.flush();
    }
    const snapshot = JSON.parse(readFileSync(file(), 'utf8')) as { version: number; sessions: Record<string, unknown> };
    assert.equal(snapshot.version, 1);
    assert.ok(Object.keys(snapshot.sessions).length >= 11, 'compacted at least once');
    assert.ok(readFileSync(journal(), 'utf8').split('\n').length < 12, 'the journal was restarted');
    // b read the journal before it was replaced: it notices by the header and reloads.
    assert.equal((await b.get('from_a_24'))?.cwd, '/a');
    assert.equal((await b.all()).length, 26);
    b.set('from_b_2', { cwd: '/b', createdAt: NOW });
    await b.flush();
    assert.equal(Object.keys(stored()).length, 27);
  });

  test('a change made to an id while its append is under way is written too (the mapping recorded right after session/new)', async () => {
    const appended: string[] = [];
    // The store's own append seam: the placeholder's line is on disk, the store has not yet
    // finished its write, and the mapping arrives — the order session/new → first prompt takes.
    const append = async (target: string, text: string): Promise<number> => {
      const size = await appendJournal(target, text);
      appended.push(text);
      if (appended.length === 1) store.set('lazy_1', { cwd: '/w', createdAt: NOW, zcodeSessionId: 'sess_1', lastUsedAt: NOW + 1 });
      return size;
    };
    const store = open({ append });
    await store.load();
    store.set('lazy_1', { cwd: '/w', createdAt: NOW });
    await store.flush();
    assert.equal(appended.length, 2, 'the change made during the first append got an append of its own');
    assert.deepEqual(stored(), { lazy_1: { cwd: '/w', createdAt: NOW, zcodeSessionId: 'sess_1', lastUsedAt: NOW + 1 } });
    assert.equal((await open().get('lazy_1'))?.zcodeSessionId, 'sess_1', 'a restarted store finds the mapping');
  });

  test('two stores sharing the files see and keep each other’s changes; a delete is kept too', async () => {
    const a = open();
    const b = open();
    await Promise.all([a.load(), b.load()]);
    a.set('from_a', { cwd: '/a', createdAt: NOW + 1 });
    await a.flush();
    b.set('from_b', { cwd: '/b', createdAt: NOW + 2 });
    await b.flush();
    assert.equal((await b.get('from_a'))?.cwd, '/a', 'an id the other store added later is found');
    a.delete('from_a');
    await a.flush();
    assert.deepEqual(Object.keys(stored()), ['from_b']);
  });

  test('a byte-order mark and trailing garbage cost no entry; the original is kept as a dated backup and logged', async () => {
    const body = JSON.stringify({ version: 1, sessions: { a: { cwd: '/w', createdAt: NOW }, b: { cwd: '/w', createdAt: NOW, zcodeSessionId: 's' } } });
    for (const text of [`\uFEFF${body}`, `${body}\n}\u0000garbage{"x":`, `\uFEFF${body}}}`]) {
      writeFileSync(file(), text);
      const logger = testLogger();
      const store = open({ logger });
      assert.equal((await store.get('b'))?.zcodeSessionId, 's', JSON.stringify(text.slice(-12)));
      assert.ok(await store.get('a'));
      assert.equal(backups().length, 1);
      assert.equal(readFileSync(path.join(dir, backups()[0]), 'utf8'), text, 'the backup is the file as it was');
      assert.match(backups()[0], /^acp-lazy-sessions\.json\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.[0-9a-f]{4}\.bak$/);
      assert.equal(logger.find('warn', /damaged .*recovered 2 entries, the original is kept as .*\.bak/).length, 1);
      assert.deepEqual(Object.keys(stored()).sort(), ['a', 'b'], 'rewritten clean');
      assert.equal(JSON.parse(readFileSync(file(), 'utf8')).version, 1);
      for (const f of backups()) rmSync(path.join(dir, f));
    }
  });

  test('a truncated snapshot keeps every intact entry; binary junk keeps nothing but is backed up before it is replaced', async () => {
    const full = JSON.stringify({ version: 1, sessions: { a: { cwd: '/w', createdAt: NOW }, b: { cwd: '/x', createdAt: NOW, zcodeSessionId: 's' }, c: { cwd: '/y', createdAt: NOW } } });
    const truncated = full.slice(0, full.indexOf('"c"') + 12);
    writeFileSync(file(), truncated);
    const store = open();
    assert.deepEqual((await store.all()).map(([id]) => id).sort(), ['a', 'b']);
    assert.equal(readFileSync(path.join(dir, backups()[0]), 'utf8'), truncated);
    rmSync(dir, { recursive: true });
    dir = mkdtempSync(path.join(tmpdir(), 'zcode-store-'));
    const junk = Buffer.from([0xff, 0xfe, 0x00, 0x13, 0x37, 0x80, 0x81]);
    writeFileSync(file(), junk);
    const logger = testLogger();
    const other = open({ logger });
    other.set('lazy_1', { cwd: '/w', createdAt: NOW });
    await other.flush();
    assert.deepEqual(readFileSync(path.join(dir, backups()[0])), junk);
    assert.equal(logger.find('warn', 'not valid JSON').length, 1);
    assert.deepEqual(Object.keys(stored()), ['lazy_1']);
  });

  test('entries of a foreign shape are dropped one by one (and the file backed up first)', async () => {
    writeFileSync(file(), JSON.stringify({ version: 1, sessions: { good: { cwd: '/w', createdAt: NOW + 5 }, bad: { cwd: 7 }, worse: 'x' } }));
    const store = open();
    assert.deepEqual(await store.get('good'), { cwd: '/w', createdAt: NOW + 5 });
    assert.equal(await store.get('bad'), undefined);
    assert.equal(backups().length, 1);
    writeFileSync(file(), JSON.stringify([1, 2, 3]));
    rmSync(journal());
    const other = open();
    assert.equal(await other.get('good'), undefined);
  });

  test('fields this version does not know survive a compaction', async () => {
    writeFileSync(file(), JSON.stringify({ version: 1, sessions: { a: { cwd: '/w', createdAt: NOW, pinned: true, extra: { n: 1 } } } }));
    const store = open({ compactMinLines: 1 });
    await store.load();
    store.set('b', { cwd: '/w', createdAt: NOW });
    store.set('c', { cwd: '/w', createdAt: NOW });
    await store.flush();
    assert.deepEqual(JSON.parse(readFileSync(file(), 'utf8')).sessions.a, { cwd: '/w', createdAt: NOW, pinned: true, extra: { n: 1 } });
  });

  test('a store of a newer version is used read-only — never rewritten — and the log says why', async () => {
    const text = JSON.stringify({ version: 99, sessions: { a: { cwd: '/w', createdAt: NOW, zcodeSessionId: 's', future: [1] } }, more: 'stuff' });
    writeFileSync(file(), text);
    const logger = testLogger();
    const store = open({ logger });
    assert.equal((await store.get('a'))?.zcodeSessionId, 's');
    store.set('b', { cwd: '/w', createdAt: NOW });
    store.delete('a');
    await store.flush();
    assert.equal(readFileSync(file(), 'utf8'), text);
    assert.deepEqual(readdirSync(dir), [LAZY_STORE_FILE], 'no journal, no backup');
    assert.equal(logger.find('warn', /read-only because it was written by a newer zcode-acp \(store version 99/).length, 1);
    assert.ok(await store.get('b'), 'the new session works in memory');
  });

  test('never-prompted placeholders are capped by age (30 days) and count (the newest are kept); prompted ones are kept', async () => {
    const now = 100 * UNUSED_PLACEHOLDER_TTL_MS;
    const sessions: Record<string, unknown> = {
      old_unused: { cwd: '/w', createdAt: now - UNUSED_PLACEHOLDER_TTL_MS - 1 },
      old_used: { cwd: '/w', createdAt: 0, zcodeSessionId: 'sess_1', lastUsedAt: 0 },
    };
    for (let i = 0; i < 6; i++) sessions[`young_${i}`] = { cwd: '/w', createdAt: now - 1000 + i };
    writeFileSync(file(), JSON.stringify({ version: 1, sessions }));
    const store = open({ now: () => now, maxUnused: 4 });
    await store.load();
    assert.deepEqual((await store.all()).map(([id]) => id).sort(), ['old_used', 'young_2', 'young_3', 'young_4', 'young_5']);
    await store.flush();
    assert.deepEqual(Object.keys(stored()).sort(), ['old_used', 'young_2', 'young_3', 'young_4', 'young_5'], 'the pruning was written back');
    // New placeholders push the oldest unused ones out; a prompted one is never counted.
    store.set('young_2', { cwd: '/w', createdAt: now - 998, zcodeSessionId: 'sess_2' });
    store.set('new_1', { cwd: '/w', createdAt: now });
    store.set('new_2', { cwd: '/w', createdAt: now });
    assert.deepEqual((await store.all()).map(([id]) => id).sort(), ['new_1', 'new_2', 'old_used', 'young_2', 'young_4', 'young_5']);
  });

  test('a lock left by a dead process, an old lock and a broken lock are taken over; a torn journal line does not swallow the next one', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const stale = [
      JSON.stringify({ pid: Number(dead.stdout), host: hostname(), at: Date.now() }),
      JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() - 60_000 }),
      '{"pid":',
    ];
    appendFileSync(journal(), `${JSON.stringify({ id: 'before', entry: { cwd: '/w', createdAt: NOW } })}\n{"id":"torn","ent`);
    const store = open({ lock: { staleMs: 30_000, timeoutMs: 5000 } });
    await store.load();
    for (const [i, content] of stale.entries()) {
      writeFileSync(path.join(dir, LAZY_STORE_LOCK), content);
      store.set(`after_${i}`, { cwd: '/w', createdAt: NOW });
      await store.flush();
    }
    assert.deepEqual(Object.keys(stored()).sort(), ['after_0', 'after_1', 'after_2', 'before']);
    assert.ok(!readdirSync(dir).includes(LAZY_STORE_LOCK), 'released');
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
