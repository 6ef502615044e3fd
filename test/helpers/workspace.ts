/**
 * Real working directories for tests that open ACP sessions: the bridge refuses a cwd that does not
 * exist, so a test names a directory made for it, not a made-up path like `/w`.
 * The directory is removed when the test process exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty directory `$TMPDIR/zcode-<name>-XXXXXX` that lives as long as the test process. */
export function testWorkspace(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `zcode-${name}-`));
  made.push(dir);
  return dir;
}
