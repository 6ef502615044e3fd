/**
 * Remote access for the stdio CLI, configured from the environment:
 *
 * | Variable                               | Meaning                                                       |
 * | -------------------------------------- | ------------------------------------------------------------- |
 * | `ZCODE_ACP_REMOTE=1`                   | turn the WebSocket endpoint on (off by default)               |
 * | `ZCODE_ACP_REMOTE_TOKEN`               | bearer token, ≥ 22 chars; required — without it remote stays off |
 * | `ZCODE_ACP_REMOTE_HOST`                | bind address, default 127.0.0.1                               |
 * | `ZCODE_ACP_REMOTE_PORT`                | first port to try, default 8378 (next free one if taken)      |
 * | `ZCODE_ACP_REMOTE_ALLOW_NON_LOOPBACK=1`| allow a non-loopback host (logged as a warning)               |
 *
 * Never throws: every refusal is a logged reason and `undefined`, so a bad remote setting cannot
 * take the stdio bridge down. The endpoint closes itself when the bridge is disposed (if the bridge
 * exposes `onDidDispose`); the CLI should still `await server.close()` on shutdown.
 */
import type { Logger } from '../logger.ts';
import { DEFAULT_REMOTE_HOST, DEFAULT_REMOTE_PORT, startRemoteServer } from './server.ts';
import type { RemoteHost, RemoteServer } from './server.ts';

const TRUE_VALUES = new Set(['1', 'true', 'yes', 'on']);

function flag(value: string | undefined): boolean {
  return value !== undefined && TRUE_VALUES.has(value.trim().toLowerCase());
}

/** Start the remote endpoint when the environment asks for it; `undefined` when off or refused. */
export async function startRemoteFromEnv(
  bridge: RemoteHost,
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<RemoteServer | undefined> {
  if (!flag(env.ZCODE_ACP_REMOTE)) return undefined;
  const token = env.ZCODE_ACP_REMOTE_TOKEN?.trim();
  if (!token) {
    logger.warn('remote access stays off: ZCODE_ACP_REMOTE=1 but ZCODE_ACP_REMOTE_TOKEN is not set');
    return undefined;
  }
  const portText = env.ZCODE_ACP_REMOTE_PORT?.trim();
  let port = DEFAULT_REMOTE_PORT;
  if (portText) {
    const parsed = Number(portText);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) {
      logger.warn(`remote access stays off: ZCODE_ACP_REMOTE_PORT is not a port number (${JSON.stringify(portText)})`);
      return undefined;
    }
    port = parsed;
  }
  try {
    return await startRemoteServer({
      bridge,
      token,
      logger,
      host: env.ZCODE_ACP_REMOTE_HOST?.trim() || DEFAULT_REMOTE_HOST,
      port,
      allowNonLoopback: flag(env.ZCODE_ACP_REMOTE_ALLOW_NON_LOOPBACK),
    });
  } catch (error) {
    logger.warn(`remote access stays off: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
