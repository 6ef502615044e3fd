/**
 * Shared setup for the backend-client integration tests: a real `createZcodeBackend` running the
 * simulator as a child process, a record file per test, event collection, and cleanup that waits
 * until the process is gone.
 */
import type { TestContext } from 'node:test';
import { createZcodeBackend } from '../../../bridge/zcode/client.ts';
import type { BackendOptions, ExitInfo, ZcodeBackend } from '../../../bridge/zcode/backend.ts';
import type { ZcodeEvent } from '../../../bridge/zcode/protocol.ts';
import { readSimRecord, simLocateOptions, tempDir, testLogger } from '../../helpers/sim.ts';
import type { SimOptions, SimRecord, TestLogger } from '../../helpers/sim.ts';

export interface SimHarness {
  backend: ZcodeBackend;
  logger: TestLogger;
  recordFile: string;
  workspace: string;
  record(): SimRecord;
  /** Pids of every process the backend started, in order (read from its log). */
  pids(): number[];
  events: EventLog;
}

export function simBackend(t: TestContext, sim: SimOptions = {}, options: Partial<BackendOptions> = {}): SimHarness {
  const tmp = tempDir();
  const recordFile = tmp.file('record.jsonl');
  const logger = testLogger(t.name);
  const backend = createZcodeBackend({
    ...simLocateOptions({ recordFile, stateDir: tmp.file('state'), ...sim }),
    logger,
    ...options,
    timeouts: { requestMs: 5000, killGraceMs: 1000, ...options.timeouts },
  });
  const events = new EventLog(backend);
  t.after(async () => {
    await disposeAndWait(backend);
    tmp.cleanup();
  });
  return {
    backend,
    logger,
    recordFile,
    workspace: tmp.dir,
    record: () => readSimRecord(recordFile),
    pids: () => logger.find('info', 'zcode started (pid').map((l) => Number(/pid (\d+)/.exec(l)?.[1])),
    events,
  };
}

/** Dispose and resolve once the process (if any) has exited. */
export function disposeAndWait(backend: ZcodeBackend, timeoutMs = 5000): Promise<ExitInfo | undefined> {
  const running = backend.state === 'ready' || backend.state === 'starting';
  const exited = running
    ? new Promise<ExitInfo | undefined>((resolve) => {
        backend.onDidExit(resolve);
        setTimeout(() => resolve(undefined), timeoutMs).unref();
      })
    : Promise.resolve(undefined);
  backend.dispose();
  return exited;
}

/** Every event the backend delivered, with waiting helpers. */
export class EventLog {
  readonly all: ZcodeEvent[] = [];
  private waiters: { match: (e: ZcodeEvent) => boolean; resolve: (e: ZcodeEvent) => void }[] = [];

  constructor(backend: ZcodeBackend) {
    backend.onEvent((event) => {
      this.all.push(event);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(event)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    });
  }

  of(sessionId: string): ZcodeEvent[] {
    return this.all.filter((e) => e.sessionId === sessionId);
  }

  /** The first event (already seen or future) matching; rejects after `timeoutMs`. */
  waitFor(match: (e: ZcodeEvent) => boolean, what = 'event', timeoutMs = 8000): Promise<ZcodeEvent> {
    const seen = this.all.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got: ${this.all.map((e) => e.type).join(', ')}`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  /** Resolves with the turn's end event (`turn.completed` or `turn.failed`) for a session. */
  turnEnd(sessionId: string, afterIndex = 0): Promise<ZcodeEvent> {
    return this.waitFor(
      (e) => e.sessionId === sessionId && (e.type === 'turn.completed' || e.type === 'turn.failed') && this.all.indexOf(e) >= afterIndex,
      `end of turn in ${sessionId}`,
    );
  }
}

/** Create + subscribe: a session whose events flow. */
export async function openSession(h: SimHarness, mode?: string): Promise<string> {
  const created = await h.backend.createSession({ workspacePath: h.workspace, mode });
  const sessionId = created.session.sessionId;
  await h.backend.subscribe({ sessionId });
  return sessionId;
}

/** Run one prompt to the end of its turn; returns the turn's events. */
export async function runTurn(h: SimHarness, sessionId: string, content: string): Promise<ZcodeEvent[]> {
  const from = h.events.all.length;
  await h.backend.send({ sessionId, content });
  await h.events.turnEnd(sessionId, from);
  return h.events.all.slice(from).filter((e) => e.sessionId === sessionId);
}

/** true while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** true while any process of this process group exists. */
export function groupAlive(pgid: number): boolean {
  return isAlive(-pgid);
}

export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
