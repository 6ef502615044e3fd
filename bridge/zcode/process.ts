/**
 * The zcode app-server child process: spawn, stderr to the log, graceful stop, no orphans.
 *
 * `<cli> [extraArgs] app-server --stdio` runs in its own process group (`detached: true`) so that
 * stopping it also stops whatever it started (tool shells, sub-agents): we signal the group, not
 * just the leader. stdin/stdout carry the protocol (see lineCodec.ts); stderr is diagnostics only,
 * sent to the logger line by line and kept as a short tail for crash reports — never parsed.
 *
 * Stop: end stdin (zcode exits on EOF), SIGTERM the group, SIGKILL it after the grace period.
 * After the leader is gone (stopped or crashed) the group gets a final SIGKILL so that nothing it
 * started outlives it, and a process 'exit' hook kills any group still alive when the host exits.
 * Windows has no process groups: there `taskkill /T /F` kills the tree.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { BackendErrorCode, ZcodeError } from './backend.ts';
import type { ExitInfo } from './backend.ts';
import type { Logger } from '../logger.ts';
import { Emitter } from './emitter.ts';
import type { LocatedCli } from './locateZcode.ts';
import { startOrphanWatchdog } from './orphanWatchdog.ts';
import type { OrphanWatchdog } from './orphanWatchdog.ts';

export const DEFAULT_KILL_GRACE_MS = 2000;
/** How long to wait for stdout/stderr to drain after 'exit' before reporting the exit anyway. */
const CLOSE_AFTER_EXIT_MS = 200;
const STDERR_TAIL_LINES = 40;

export interface StartProcessOptions {
  cli: LocatedCli;
  /** Placed before `app-server --stdio` (e.g. the simulator's `--profile`). */
  extraArgs?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  logger: Logger;
}

/**
 * What the client needs from a running zcode. `ZcodeProcess` is the real one; unit tests pass an
 * in-memory fake speaking over stream pairs.
 */
export interface ZcodeChild {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Fires once when the process is gone. */
  onExit(listener: (info: ExitInfo) => void): { dispose(): void };
  readonly exited: Promise<ExitInfo>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when gone (`expected: true`). */
  stop(graceMs?: number): Promise<ExitInfo>;
}

export type StartZcodeProcess = (options: StartProcessOptions) => Promise<ZcodeChild>;

/** Every group we started and have not seen exit: killed synchronously if the host exits. */
const live = new Set<ZcodeProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) child.killNow();
  });
}

export class ZcodeProcess implements ZcodeChild {
  private readonly onExitEmitter: Emitter<ExitInfo>;
  /** Fires once, after stdout/stderr have drained (or shortly after the exit). */
  readonly onExit;
  /** Resolves with the same ExitInfo `onExit` fires. */
  readonly exited: Promise<ExitInfo>;

  private resolveExited!: (info: ExitInfo) => void;
  private stopRequested = false;
  private exitInfo: ExitInfo | undefined;
  private readonly tail: string[] = [];
  private stderrPartial = '';
  /** Ends zcode's group if the bridge is killed outright (orphanWatchdog.ts). */
  private watchdog: OrphanWatchdog | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    private readonly logger: Logger,
  ) {
    this.onExitEmitter = new Emitter<ExitInfo>('zcode process exit', logger);
    this.onExit = this.onExitEmitter.event;
    this.exited = new Promise<ExitInfo>((resolve) => (this.resolveExited = resolve));
  }

  /**
   * Spawn zcode and resolve once the OS has started it. A missing or non-executable binary
   * rejects with `ZcodeError(NotFound)`.
   */
  static start(options: StartProcessOptions): Promise<ZcodeProcess> {
    const { cli, logger } = options;
    const args = [...cli.args, ...(options.extraArgs ?? []), 'app-server', '--stdio'];
    // Windows cannot spawn .cmd/.bat shims (npm's `zcode.cmd`) without a shell.
    const viaShell = process.platform === 'win32' && /\.(?:cmd|bat)$/i.test(cli.command);
    const quote = (s: string): string => (viaShell && /\s/.test(s) ? `"${s}"` : s);
    logger.info(`starting zcode: ${[cli.command, ...args].join(' ')}`);
    const child = spawn(quote(cli.command), args.map(quote), {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: viaShell,
    });
    // Writes after the child died raise EPIPE on stdin; the writer reports them per message.
    child.stdin?.on('error', (error) => logger.debug(`zcode stdin: ${error.message}`));
    return new Promise<ZcodeProcess>((resolve, reject) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        reject(
          new ZcodeError(
            `could not start zcode (${cli.command}): ${error.code ?? error.message}. ` +
              `Check the "zcode.path" / "zcode.nodePath" settings (ZCODE_BIN / ZCODE_NODE).`,
            BackendErrorCode.NotFound,
          ),
        );
      });
      child.once('spawn', () => {
        const proc = new ZcodeProcess(child, child.pid!, logger);
        proc.attach();
        resolve(proc);
      });
    });
  }

  get stdin(): Writable {
    return this.child.stdin!;
  }

  get stdout(): Readable {
    return this.child.stdout!;
  }

  /** The last stderr lines (for crash reports). */
  get stderrTail(): string {
    return [...this.tail, ...(this.stderrPartial ? [this.stderrPartial] : [])].join('\n');
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /**
   * Graceful stop: end stdin, SIGTERM the group, SIGKILL after `graceMs`. Resolves when the
   * process is gone; `ExitInfo.expected` is true.
   */
  stop(graceMs = DEFAULT_KILL_GRACE_MS): Promise<ExitInfo> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.child.stdin?.end();
      this.signalGroup('SIGTERM');
      const timer = setTimeout(() => {
        if (!this.exitInfo) {
          this.logger.warn(`zcode (pid ${this.pid}) did not exit within ${graceMs} ms; killing it`);
          this.killNow();
        }
      }, graceMs);
      timer.unref();
      void this.exited.then(() => clearTimeout(timer));
    }
    return this.exited;
  }

  /** SIGKILL the whole group now (also used by the host-exit hook; must stay synchronous). */
  killNow(): void {
    this.signalGroup('SIGKILL');
  }

  private attach(): void {
    live.add(this);
    installExitHook();
    this.watchdog = startOrphanWatchdog(this.pid, this.logger);
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => this.onStderr(chunk));
    this.child.stdout?.on('error', (error) => this.logger.debug(`zcode stdout: ${error.message}`));
    this.child.on('error', (error) => this.logger.warn(`zcode process error: ${error.message}`));

    let closed = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const finish = (): void => {
      if (this.exitInfo || !exit) return;
      live.delete(this);
      this.watchdog?.release();
      // Anything the leader started dies with it (no orphans). The group id cannot have been
      // reused while members remain, and ESRCH (group already empty) is ignored.
      this.signalGroup('SIGKILL');
      if (this.stderrPartial) this.pushTail(this.stderrPartial);
      this.stderrPartial = '';
      this.exitInfo = { code: exit.code, signal: exit.signal, expected: this.stopRequested, stderrTail: this.stderrTail };
      this.resolveExited(this.exitInfo);
      this.onExitEmitter.fire(this.exitInfo);
      this.onExitEmitter.dispose();
    };
    this.child.once('exit', (code, signal) => {
      exit = { code, signal };
      if (closed) finish();
      // stdio may stay open when a grandchild inherited it: do not wait for it forever.
      else setTimeout(finish, CLOSE_AFTER_EXIT_MS).unref();
    });
    this.child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      closed = true;
      exit ??= { code, signal };
      finish();
    });
  }

  private onStderr(chunk: string): void {
    const lines = (this.stderrPartial + chunk).split(/\r?\n/);
    this.stderrPartial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.logger.debug(`[zcode stderr] ${line}`);
      this.pushTail(line);
    }
  }

  private pushTail(line: string): void {
    this.tail.push(line);
    if (this.tail.length > STDERR_TAIL_LINES) this.tail.shift();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (process.platform === 'win32') {
      // No groups or SIGTERM on Windows: ending stdin is the graceful request, and the kill takes
      // the tree while the leader still exists (the tree is found through it). Synchronous so it
      // also works in the exit hook.
      const leaderAlive = this.child.exitCode === null && this.child.signalCode === null;
      if (signal === 'SIGKILL' && leaderAlive) {
        spawnSync('taskkill', ['/pid', String(this.pid), '/T', '/F'], { windowsHide: true, stdio: 'ignore' });
      }
      return;
    }
    try {
      process.kill(-this.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') {
        this.logger.warn(`could not send ${signal} to zcode's process group ${this.pid}: ${(error as Error).message}`);
      }
    }
  }
}
