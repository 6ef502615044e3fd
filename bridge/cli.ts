/**
 * `zcode-acp`: the zcode ⇄ ACP bridge on stdio, for Zed, JetBrains and any ACP client.
 *
 * stdout carries only ACP messages (one JSON-RPC message per line); every log line goes to stderr.
 * The process exits when stdin closes (the editor went away): the bridge is disposed, which stops
 * zcode, so no orphan process is left behind.
 *
 * Environment:
 *   ZCODE_BIN             the zcode CLI (else `zcode` on PATH, else the desktop app's bundled CLI)
 *   ZCODE_NODE            Node binary for a `.js/.cjs/.mjs` CLI (else `node` on PATH)
 *   ZCODE_ACP_DEBUG=1     debug logging
 *   ZCODE_ACP_STORE_DIR   where acp-lazy-sessions.json lives (default ~/.zcode/v2)
 *   ZCODE_ACP_MODE        mode for new zcode sessions (default build)
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createBridge } from './acp/bridge.ts';
import { formatDoctorReport, runDoctor } from './zcode/doctor.ts';
import { guardedNdJsonStream } from './acp/stdioStream.ts';
import type { Bridge } from './acp/bridge.ts';
import type { Logger } from './zcode/backend.ts';
import { BRIDGE_NAME, BRIDGE_VERSION } from './version.ts';

const HELP = `${BRIDGE_NAME} ${BRIDGE_VERSION}: zcode as an Agent Client Protocol (ACP) agent on stdio.

Usage: ${BRIDGE_NAME} [--help] [--version] [--doctor [--json]]

  --doctor   check which zcode would be used, how it is launched, whether its configuration has
             credentials (presence only) and whether it starts; prints a verdict with the fix.
             --json prints the same report as JSON. Exit code 0 when everything is fine, 1 otherwise.

Speaks ACP on stdin/stdout; logs go to stderr. Starts \`zcode app-server --stdio\` on first use.

Environment:
  ZCODE_BIN            path of the zcode CLI (default: zcode on PATH, then the ZCode desktop app)
  ZCODE_NODE           Node binary used to run a .js/.cjs/.mjs zcode CLI (default: node on PATH)
  ZCODE_ACP_DEBUG=1    verbose logging on stderr
  ZCODE_ACP_STORE_DIR  directory of acp-lazy-sessions.json (default: ~/.zcode/v2)
  ZCODE_ACP_MODE       mode of new zcode sessions: plan, build, edit, yolo (default: build)

Zed (settings.json):
  "agent_servers": { "ZCode": { "command": "zcode-acp", "args": [], "env": {} } }
`;

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

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--version') || args.includes('-v')) {
    process.stdout.write(`${BRIDGE_NAME} ${BRIDGE_VERSION}\n`);
    return;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  if (args.includes('--doctor')) {
    const report = await runDoctor({ env: process.env });
    process.stdout.write(args.includes('--json') ? `${JSON.stringify(report, null, 2)}\n` : formatDoctorReport(report));
    process.exitCode = report.verdict.ok ? 0 : 1;
    return;
  }
  const unknown = args.filter((a) => a.startsWith('-'));
  if (unknown.length > 0) {
    process.stderr.write(`${BRIDGE_NAME}: unknown option ${unknown[0]}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }

  const logger = stderrLogger(process.env.ZCODE_ACP_DEBUG === '1' || process.env.ZCODE_ACP_DEBUG === 'true');
  const bridge = createBridge({
    // Discovery reads ZCODE_BIN / ZCODE_NODE from the environment itself.
    locate: { env: process.env },
    logger,
    storageDir: process.env.ZCODE_ACP_STORE_DIR || join(homedir(), '.zcode', 'v2'),
    defaultMode: process.env.ZCODE_ACP_MODE || undefined,
  });
  // Guarded framing: an oversized, too-deep or malformed line is answered and skipped (issue 17.1, 17.2).
  const stream = guardedNdJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>, { logger });
  const connection = bridge.connect(stream, { kind: 'stdio' });
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

main().catch((error: unknown) => {
  process.stderr.write(`${BRIDGE_NAME}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
