/**
 * Which zcode is in use, as `zcode --version` says it: for people (the empty chat names it, the
 * doctor reports it), never for deciding what the bridge does — builds that print the same version
 * answer different methods, so the bridge learns from answers instead (docs/zcode-protocol.md).
 */
import { execFile } from 'node:child_process';
import type { LocateOptions } from './backend.ts';
import { buildLaunchEnv, cliFileOf, defaultLaunchHost } from './launchEnv.ts';
import { locateZcode } from './locateZcode.ts';

/** What `command args…` printed first on stdout, or why it printed nothing. Never rejects. */
export function runVersionCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ text?: string; error?: string }> {
  return new Promise((resolve) => {
    execFile(command, [...args], { env, timeout: 15_000, windowsHide: true, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const text = String(stdout).trim().split('\n')[0];
      if (error && !text) resolve({ error: (String(stderr).trim().split('\n').pop() || error.message).slice(0, 500) });
      else resolve({ text });
    });
  });
}

/**
 * The version the zcode that `options` locate prints (`zcode 0.16.9` → `0.16.9`; a line without a
 * version number is kept as printed), launched as the bridge launches it. Undefined when zcode is not
 * found or prints nothing. Never rejects.
 */
export async function readZcodeVersion(options: LocateOptions): Promise<string | undefined> {
  let cli: ReturnType<typeof locateZcode>;
  try {
    cli = locateZcode(options);
  } catch {
    return undefined;
  }
  const plan = buildLaunchEnv(cliFileOf(cli), options.env ?? process.env, defaultLaunchHost());
  const { text } = await runVersionCommand(cli.command, [...cli.args, ...(options.extraArgs ?? []), '--version'], plan.env);
  if (!text) return undefined;
  return /\b(\d+\.\d+\.\d+[\w.+-]*)/.exec(text)?.[1] ?? text.slice(0, 80);
}
