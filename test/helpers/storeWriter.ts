/**
 * A process that writes the lazy-session store the way a bridge does, for the two-process test
 * (test/integration/acp/storeProcesses.test.ts):
 *
 *   node --import tsx test/helpers/storeWriter.ts <storeDir> <prefix> <placeholders> <mappings>
 *
 * Creates `<prefix>_<i>` placeholders in small bursts (as editors open sessions), then maps the
 * first `<mappings>` of them to zcode sessions (as their first prompt would), flushes and exits 0.
 * A low compaction threshold makes compactions happen while the other process appends.
 */
import { LazySessionStore } from '../../bridge/acp/sessions/lazySessionStore.ts';

const [storageDir, prefix, placeholders, mappings] = process.argv.slice(2);
const warnings: string[] = [];
const logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => warnings.push(message),
  error: (message: string) => warnings.push(message),
};
const store = new LazySessionStore({ storageDir, logger, compactMinLines: 100, maxUnused: 100_000 });
await store.load();
const now = Date.now();
for (let i = 0; i < Number(placeholders); i++) {
  store.set(`${prefix}_${i}`, { cwd: '/w', createdAt: now + i });
  if (i % 2 === 0) await store.flush();
}
for (let i = 0; i < Number(mappings); i++) {
  const entry = await store.get(`${prefix}_${i}`);
  if (!entry) throw new Error(`${prefix}_${i} vanished from memory`);
  store.set(`${prefix}_${i}`, { ...entry, zcodeSessionId: `sess_${prefix}_${i}`, lastUsedAt: Date.now() });
  await store.flush();
}
await store.flush();
if (warnings.length) {
  process.stderr.write(warnings.join('\n') + '\n');
  process.exitCode = 1;
}
