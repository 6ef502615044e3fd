/**
 * The `zcode-acp` bridge on stdio, loaded by cli.ts when it is needed: after an early `initialize`
 * answer, when the client sends more (earlyInitialize.ts); at once for `--doctor`, remote access or a
 * first message that is not a plain `initialize`. Kept apart from cli.ts, in its own bundle
 * (dist/cli-bridge.js), so that answering `initialize` does not load the ACP SDK, the zod schemas
 * and the zcode client (npm run bench -- startup).
 *
 * stdout carries only ACP messages (one JSON-RPC message per line); every log line goes to stderr.
 * The process exits when stdin closes (the editor went away): the bridge is disposed, which stops
 * zcode, so no orphan process is left behind.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { environmentLocale } from './l10n/messages.ts';
import { createBridge } from './acp/bridge.ts';
import { afterEarlyInitialize } from './acp/transport/earlyInitialize.ts';
import type { EarlyInitialize } from './acp/transport/earlyInitialize.ts';
import { formatDoctorReport, runDoctor } from './zcode/doctor.ts';
import { guardedNdJsonStream } from './acp/transport/stdioStream.ts';
import type { Bridge } from './acp/bridge.ts';
import type { Logger } from './logger.ts';
import { BRIDGE_NAME } from './version.ts';

function stderrLogger(debug: boolean): Logger {
  const write =
    (level: string, enabled: boolean) =>
    (message: string | Error, ...args: unknown[]): void => {
      if (!enabled) return;
      const text = [message instanceof Error ? (message.stack ?? message.message) : message, ...args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))].join(' ');
      process.stderr.write(`[${BRIDGE_NAME}] ${level} ${text}\n`);
    };
  return {
    trace: write('trace', false),
    debug: write('debug', debug),
    info: write('info', true),
    warn: write('warn', true),
    error: write('error', true),
  };
}

/**
 * ZCODE_ACP_REMOTE=1 + ZCODE_ACP_REMOTE_TOKEN (+ _HOST/_PORT): other ACP clients over WebSocket
 * (remote/env.ts decides; it never throws). Remote clients never keep the process alive: it ends
 * with stdin. Loaded only when asked for: the WebSocket server and `node:http` are a third of the
 * bundle, and an editor waiting for `initialize` should not pay for them (npm run bench -- startup).
 */
async function startRemoteAccess(bridge: Bridge, logger: Logger): Promise<void> {
  if (!process.env.ZCODE_ACP_REMOTE) return;
  const { startRemoteFromEnv } = await import('./remote/env.ts');
  await startRemoteFromEnv(bridge, process.env, logger);
}

/** `zcode-acp --doctor [--json]`. */
export async function doctorCommand(json: boolean): Promise<void> {
  const report = await runDoctor({ env: process.env });
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report));
  process.exitCode = report.verdict.ok ? 0 : 1;
}

/** What cli.ts hands on: the early `initialize` answer it sent, if any, and the stdin bytes it read but did not consume. */
export interface StdioStart {
  early?: EarlyInitialize;
  unread: Uint8Array;
}

/** stdin as a web stream, starting with the bytes cli.ts already read. */
function stdinAfter(unread: Uint8Array): ReadableStream<Uint8Array> {
  const rest = process.stdin.readableEnded ? undefined : (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).getReader();
  let pending = unread.length > 0 ? unread : undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        controller.enqueue(pending);
        pending = undefined;
        return;
      }
      const next = rest ? await rest.read() : { done: true as const, value: undefined };
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => rest?.cancel(reason),
  });
}

/**
 * Serves ACP on stdin/stdout until stdin ends. `start.early`: cli.ts already answered the client's
 * `initialize`; the bridge sees it replayed first and its own answer is not sent again.
 */
export async function serveStdio({ early, unread }: StdioStart): Promise<void> {
  const logger = stderrLogger(process.env.ZCODE_ACP_DEBUG === '1' || process.env.ZCODE_ACP_DEBUG === 'true');
  const bridge = createBridge({
    // Discovery reads ZCODE_BIN / ZCODE_NODE from the environment itself.
    locate: { env: process.env },
    logger,
    storageDir: process.env.ZCODE_ACP_STORE_DIR || join(homedir(), '.zcode', 'v2'),
    defaultMode: process.env.ZCODE_ACP_MODE || undefined,
    // What the bridge writes itself (form texts, option names, retry notices) follows the terminal's language.
    locale: environmentLocale(process.env),
  });
  // Guarded framing: an oversized, too-deep or malformed line is answered and skipped, so
  // one bad line never ends the connection nor gets echoed back whole.
  const stdio = guardedNdJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, stdinAfter(unread), { logger });
  const connection = bridge.connect(early ? afterEarlyInitialize(stdio, early, logger) : stdio, { kind: 'stdio' });
  await startRemoteAccess(bridge, logger);

  let exiting = false;
  const shutdown = async (why: string): Promise<void> => {
    if (exiting) return;
    exiting = true;
    logger.info(`${why}; shutting down`);
    // Never wait forever: an unresponsive zcode is killed by dispose(); this is the last resort.
    setTimeout(() => process.exit(process.exitCode ?? 0), 15_000).unref();
    await bridge.dispose().catch((error: unknown) => logger.error(`dispose failed: ${String(error)}`));
    process.exit(process.exitCode ?? 0);
  };
  // The connection closes when stdin ends (the client went away).
  void connection.closed.then(() => shutdown('the ACP client disconnected'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // stdout gone (EPIPE): nobody can hear us any more.
  process.stdout.on('error', () => void shutdown('stdout closed'));
}

