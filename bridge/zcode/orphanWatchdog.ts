/**
 * zcode's process group ends when the bridge dies, even by SIGKILL.
 *
 * The bridge's own exit hook (process.ts) cannot run when the bridge is killed outright, and zcode
 * then keeps running with whatever it started (tool shells, sub-agents). Node has no
 * parent-death signal (`prctl(PR_SET_PDEATHSIG)`), so a tiny watchdog process does the job: it
 * holds the read end of a pipe from the bridge, and when that pipe reaches end-of-file — which
 * the kernel guarantees when the bridge dies, however it dies — it SIGKILLs zcode's group and
 * exits. No polling: the end of the pipe is the signal. When zcode ends normally the bridge kills
 * the watchdog itself (never by closing the pipe, so a reused group id is never signalled).
 *
 * The watchdog runs in a group of its own (so the group kill does not reach it) with the running
 * Node (Electron as Node in the VS Code extension host). POSIX only: Windows kills trees through
 * the job of the process (`taskkill /T` in process.ts) and has no process groups.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Logger } from '../logger.ts';

/** The watchdog's whole program: argv[1] is the group to kill. */
const WATCHDOG_SOURCE = `
const group = Number(process.argv[1]);
const killGroup = () => { try { process.kill(-group, 'SIGKILL'); } catch {} process.exit(0); };
process.stdin.on('end', killGroup);
process.stdin.on('error', killGroup);
process.stdin.resume();
`;

export interface OrphanWatchdog {
  /** zcode ended normally: the watchdog goes without touching the group. */
  release(): void;
  readonly pid: number | undefined;
}

export function startOrphanWatchdog(group: number, logger: Logger): OrphanWatchdog | undefined {
  if (process.platform === 'win32') return undefined;
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, ['-e', WATCHDOG_SOURCE, String(group)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      // Only what Node needs: zcode's environment (and any secret) is none of its business.
      env: { ELECTRON_RUN_AS_NODE: '1', PATH: process.env.PATH ?? '' },
    });
  } catch (error) {
    logger.warn(`could not start the orphan watchdog for zcode's group ${group}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  child.on('error', (error) => logger.warn(`orphan watchdog: ${error.message}`));
  child.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps the bridge alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    pid: child.pid,
    release: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
