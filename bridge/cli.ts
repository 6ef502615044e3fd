/**
 * `zcode-acp`: the zcode ⇄ ACP bridge on stdio, for Zed, JetBrains and any ACP client.
 * stdout carries only ACP messages; every log line goes to stderr.
 */
import { BRIDGE_NAME, BRIDGE_VERSION } from './version.ts';

const args = process.argv.slice(2);
if (args.includes('--version') || args.includes('-v')) {
  process.stdout.write(`${BRIDGE_NAME} ${BRIDGE_VERSION}\n`);
  process.exit(0);
}
process.stderr.write(`${BRIDGE_NAME} ${BRIDGE_VERSION}: the stdio bridge is not implemented yet\n`);
process.exit(1);
