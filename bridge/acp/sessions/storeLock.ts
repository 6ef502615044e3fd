/**
 * A lock file shared by every process that writes the lazy-session store (the VS Code window and
 * a `zcode-acp` for Zed may share `~/.zcode/v2`).
 *
 * The lock is a file created atomically and exclusively (`link`, which fails with EEXIST like O_EXCL) holding `{pid, host, at}`. It is held for a few
 * milliseconds (an append, or a compaction), so waiting for it is a short poll. A lock left behind
 * by a crash is stale when its process is gone (same host, `kill(pid, 0)` says ESRCH) or when it is
 * older than `staleMs` whoever holds it (a hung writer must not stop every other one).
 *
 * What must stay true: a stale lock is taken over without removing a fresh lock that another
 * process created in the meantime (the take-over moves the file aside and checks it moved the
 * stale one; otherwise it puts the fresh one back).
 */
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';

export interface FileLockOptions {
  /** A lock older than this is stale even if its process still runs. Default 30 s. */
  staleMs?: number;
  /** Give up (reject) after waiting this long for a live lock. Default 10 s. */
  timeoutMs?: number;
}

interface LockContent {
  pid: number;
  host: string;
  at: number;
}

/** Run `body` while holding `lockFile`; the lock is removed afterwards, whatever `body` does. */
export async function withFileLock<T>(lockFile: string, body: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  await acquire(lockFile, options.staleMs ?? 30_000, options.timeoutMs ?? 10_000);
  try {
    return await body();
  } finally {
    await unlink(lockFile).catch(() => undefined);
  }
}

async function acquire(lockFile: string, staleMs: number, timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(lockFile)) return;
    const held = await readFile(lockFile, 'utf8').catch(() => undefined);
    // Gone meanwhile (released between our create and our read): try again at once.
    if (held === undefined) continue;
    if (isStale(held, staleMs)) {
      await takeOverStale(lockFile, held);
      continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${lockFile} is held by ${describeHolder(held)} for more than ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt * 2)));
  }
}

/**
 * Create the lock with its content already in it: write a private temp file, then `link` it to the
 * lock name (atomic, EEXIST when the lock exists). A reader never sees a half-written lock.
 */
async function tryCreate(lockFile: string): Promise<boolean> {
  const temp = `${lockFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const content: LockContent = { pid: process.pid, host: hostname(), at: Date.now() };
  await writeFile(temp, JSON.stringify(content), { mode: 0o600 });
  try {
    await link(temp, lockFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

function parse(text: string): LockContent | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    if (typeof value.pid === 'number' && typeof value.at === 'number' && typeof value.host === 'string') return value as LockContent;
  } catch {
    // fall through: not a lock this code wrote
  }
  return undefined;
}

/** Stale: its process is gone (only decidable on the same host), or it is older than `staleMs`. */
export function isStale(text: string, staleMs: number, now = Date.now()): boolean {
  const content = parse(text);
  // Locks appear complete (tryCreate), so an unreadable one is debris, not a writer at work.
  if (!content) return true;
  if (now - content.at > staleMs) return true;
  return content.host === hostname() && !processAlive(content.pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove the stale lock whose content is `stale`, leaving a fresh lock that replaced it in place. */
async function takeOverStale(lockFile: string, stale: string): Promise<void> {
  const aside = `${lockFile}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(lockFile, aside);
  } catch {
    return; // someone else removed it first
  }
  const moved = await readFile(aside, 'utf8').catch(() => stale);
  if (moved !== stale) {
    // We moved a fresh lock another process took meanwhile: give it back (unless yet another exists).
    await link(aside, lockFile).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

function describeHolder(text: string): string {
  const content = parse(text);
  return content ? `process ${content.pid} on ${content.host}` : 'an unreadable lock';
}
