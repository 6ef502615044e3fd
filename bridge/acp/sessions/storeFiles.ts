/**
 * The lazy-session store's file operations (lazySessionStore.ts decides when): appending to the
 * journal, replacing the snapshot atomically, reading the journal's complete lines. Files are
 * created 0600: they name the user's sessions and workspaces.
 */
import { open, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { JOURNAL_HEADER_BYTES } from './storeFormat.ts';

/** Append `text` to the journal `file` (created 0600 if missing) and return its size afterwards. */
export async function appendJournal(file: string, text: string): Promise<number> {
  const handle = await open(file, 'a', 0o600);
  try {
    await handle.writeFile(text);
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}

/** Write `text` to `file` atomically: a temp file in the same directory, then rename. */
export async function replaceFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** The complete lines of the journal, its header (its identity), and whether a torn line follows them. */
export async function readJournal(file: string): Promise<{ lines: string[]; id: string | undefined; complete: number; torn: boolean }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], id: undefined, complete: 0, torn: false };
    throw error;
  }
  try {
    const buffer = await handle.readFile();
    const complete = buffer.lastIndexOf(0x0a) + 1;
    const id = buffer.length ? buffer.subarray(0, JOURNAL_HEADER_BYTES).toString('latin1') : undefined;
    return { lines: buffer.subarray(0, complete).toString('utf8').split('\n'), id, complete, torn: complete < buffer.length };
  } finally {
    await handle.close();
  }
}
