/**
 * `zcode-acp`: the zcode ⇄ ACP bridge on stdio, for Zed, JetBrains and any ACP client.
 *
 * This file is what starts first, so it is kept small (start-up time): options, then the client's
 * first line. A well-formed `initialize` is answered here at once (earlyInitialize.ts); the bridge
 * itself (cliBridge.ts, bundled apart as dist/cli-bridge.js) is loaded when the client sends
 * anything more. Everything else — `--doctor`, remote access, any other first message — loads the
 * bridge straight away and leaves the input to it.
 *
 * Environment:
 *   ZCODE_BIN             the zcode CLI (else `zcode` on PATH, else the desktop app's bundled CLI)
 *   ZCODE_NODE            Node binary for a `.js/.cjs/.mjs` CLI (else `node` on PATH)
 *   ZCODE_ACP_DEBUG=1     debug logging
 *   ZCODE_ACP_STORE_DIR   where acp-lazy-sessions.json lives (default ~/.zcode/v2)
 *   ZCODE_ACP_MODE        mode for new zcode sessions (default build)
 */
import { earlyInitialize } from './acp/transport/earlyInitialize.ts';
// Types only (erased): the module itself is loaded on demand by loadBridge().
import type * as CliBridge from './cliBridge.ts';
import type { EarlyInitialize } from './acp/transport/earlyInitialize.ts';
import { checkIncoming } from './acp/transport/wireGuard.ts';
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

/** Longest first line read for an early answer; a longer one goes to the bridge (an `initialize` is a few hundred bytes). */
const EARLY_LINE_LIMIT = 64 * 1024;
const NEWLINE = 0x0a;

interface Read {
  /** Every byte read so far. */
  bytes: Buffer;
  /** stdin ended. */
  ended: boolean;
}

/** Reads stdin until `enough(chunk, bytesSoFar)` or its end, then pauses it: the bytes stay ours to hand on. */
function readUntil(enough: (chunk: Buffer, bytesSoFar: number) => boolean): Promise<Read> {
  const input = process.stdin;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (ended: boolean): void => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.pause();
      resolve({ bytes: Buffer.concat(chunks), ended });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      length += chunk.length;
      if (enough(chunk, length)) finish(false);
    };
    const onEnd = (): void => finish(true);
    input.on('data', onData);
    input.once('end', onEnd);
    // A paused stream stays paused when a 'data' listener is added.
    input.resume();
  });
}

/** The bridge, loaded on demand (a separate bundle: see esbuild.mjs). */
const loadBridge = (): Promise<typeof CliBridge> => import('./cliBridge.ts');

/**
 * Answers a first-line `initialize` early when it can, then waits for more input before loading the
 * bridge. Returns what the bridge must be given: the early answer (if one was sent) and the bytes
 * read but not yet consumed; undefined when the client left without asking for anything more.
 */
async function answerInitializeEarly(): Promise<{ early?: EarlyInitialize; unread: Buffer } | undefined> {
  const first = await readUntil((chunk, length) => chunk.includes(NEWLINE) || length > EARLY_LINE_LIMIT);
  const newline = first.bytes.indexOf(NEWLINE);
  const checked = newline >= 0 && newline <= EARLY_LINE_LIMIT ? checkIncoming(first.bytes.subarray(0, newline).toString('utf8').trim()) : undefined;
  const early = checked?.ok ? earlyInitialize(checked.message) : undefined;
  if (!early) return { unread: first.bytes };
  process.stdout.write(`${JSON.stringify(early.response)}\n`);
  const rest = first.bytes.subarray(newline + 1);
  if (rest.length > 0) return { early, unread: rest };
  if (first.ended) return undefined;
  const more = await readUntil(() => true);
  return more.bytes.length > 0 ? { early, unread: more.bytes } : undefined;
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
    await (await loadBridge()).doctorCommand(args.includes('--json'));
    return;
  }
  const unknown = args.filter((a) => a.startsWith('-'));
  if (unknown.length > 0) {
    process.stderr.write(`${BRIDGE_NAME}: unknown option ${unknown[0]}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  // Remote clients may connect at any time: their WebSocket server starts with the bridge, now.
  if (process.env.ZCODE_ACP_REMOTE) {
    await (await loadBridge()).serveStdio({ unread: Buffer.alloc(0) });
    return;
  }
  const start = await answerInitializeEarly();
  if (!start) {
    process.stderr.write(`[${BRIDGE_NAME}] info the ACP client disconnected after initialize; nothing was started\n`);
    return;
  }
  await (await loadBridge()).serveStdio(start);
}

main().catch((error: unknown) => {
  process.stderr.write(`${BRIDGE_NAME}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
