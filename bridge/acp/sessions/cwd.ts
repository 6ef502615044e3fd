/**
 * The working directory a client names in `session/new`, `session/load` and `session/resume`
 * checked before anything reaches zcode: a turn in a directory that is not there
 * would run tools against the wrong place or fail half-way.
 *
 * Every refusal is -32602 (invalid params) with the cwd in `data` and quoted in the message.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';

/** ACP paths are absolute; a relative cwd would silently point zcode at the bridge's own directory. */
export function requireAbsoluteCwd(cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path (got '${cwd}')`);
}

/**
 * A cwd zcode can work in: absolute, without NUL or a line break (which no shell or file API
 * handles the same way), and an existing directory (not a file, not a missing path).
 */
export async function requireUsableCwd(cwd: string): Promise<void> {
  requireAbsoluteCwd(cwd);
  if (/[\0\r\n]/.test(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must not contain NUL or line breaks (got ${JSON.stringify(cwd)})`);
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw RequestError.invalidParams({ cwd }, `cwd does not exist: '${cwd}'`);
    if (code === 'ENOTDIR') throw RequestError.invalidParams({ cwd }, `cwd is not a directory: '${cwd}'`);
    throw RequestError.invalidParams({ cwd }, `cwd cannot be used: '${cwd}' (${code ?? String(error)})`);
  }
  if (!isDirectory) throw RequestError.invalidParams({ cwd }, `cwd is not a directory: '${cwd}'`);
}
