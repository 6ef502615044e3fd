/**
 * `zcode-acp --doctor` and "ZCode: Check zcode Installation": which zcode the
 * bridge would use and how it was found, its version, how it would be launched, whether zcode's
 * own configuration has a provider with credentials, whether it really starts, and a short
 * verdict with the fix. Presence only: no key, token or other secret value is ever part of it.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { LocateOptions } from './backend.ts';
import type { Logger } from '../logger.ts';
import { createZcodeBackend } from './client.ts';
import { defaultConfigSource, isEncodedSecret } from './hostRequests.ts';
import { buildLaunchEnv, cliFileOf, defaultLaunchHost, PROVIDER_ENV } from './launchEnv.ts';
import { locateZcode } from './locateZcode.ts';
import { runVersionCommand } from './versionProbe.ts';

export interface DoctorReport {
  zcode: { found: boolean; command?: string; args?: string[]; how?: string; tried: string[]; error?: string };
  version?: { text?: string; error?: string };
  launch?: { bundled: boolean; providerTable?: string; tableCandidates: string[]; appVersion?: string; derived: Record<string, string>; removed: string[]; nodeOptions?: string };
  configuration: {
    zcodeConfig: {
      file: string;
      exists: boolean;
      providersWithApiKey: string[];
      providersWithoutApiKey: string[];
      /** Of those with a key, the ones stored encoded (desktop 3.18.2+: `enc:v2…`): present, but only zcode can read them. */
      providersWithEncodedApiKey: string[];
      /** The whole file is encoded (not JSON): which providers have keys cannot be read. */
      encodedFile: boolean;
    };
    desktopLogin: { file: string; exists: boolean };
    cliConfig: { file: string; exists: boolean };
    environment: { ZCODE_MODEL: boolean; ZCODE_BASE_URL: boolean; ZCODE_API_KEY: boolean };
  };
  start?: { ok: boolean; error?: string; ms: number };
  verdict: { ok: boolean; summary: string; fixes: string[] };
}

const QUIET: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Run every check. `start:false` skips starting zcode (a quicker look). Never throws. */
export async function runDoctor(options: LocateOptions, { start = true, home = homedir() }: { start?: boolean; home?: string } = {}): Promise<DoctorReport> {
  const env = options.env ?? process.env;
  const report: DoctorReport = { zcode: { found: false, tried: [] }, configuration: readConfiguration(env, home), verdict: { ok: false, summary: '', fixes: [] } };
  let cli: ReturnType<typeof locateZcode> | undefined;
  try {
    cli = locateZcode(options);
    const file = cliFileOf(cli);
    const entry = cli.tried.find((t) => t.endsWith(`: ${file}`)) ?? '';
    report.zcode = { found: true, command: cli.command, args: cli.args, how: entry.slice(0, entry.indexOf(':')) || 'explicit', tried: cli.tried };
  } catch (error) {
    report.zcode = { found: false, tried: [], error: error instanceof Error ? error.message : String(error) };
  }
  if (cli) {
    const plan = buildLaunchEnv(cliFileOf(cli), env, defaultLaunchHost());
    const derived: Record<string, string> = {};
    for (const name of Object.values(PROVIDER_ENV)) if (plan.env[name]) derived[name] = plan.env[name];
    report.launch = {
      bundled: plan.bundled,
      ...(plan.providerTable ? { providerTable: plan.providerTable } : {}),
      tableCandidates: plan.tableCandidates,
      ...(plan.appVersion ? { appVersion: plan.appVersion } : {}),
      derived,
      removed: plan.changes.filter((c) => c.includes(' removed')).map((c) => c.split(' ')[0]),
      ...(plan.env.NODE_OPTIONS ? { nodeOptions: plan.env.NODE_OPTIONS } : {}),
    };
    report.version = await runVersionCommand(cli.command, [...cli.args, '--version'], plan.env);
    if (start) report.start = await tryStart(options);
  }
  report.verdict = verdict(report);
  return report;
}

function readConfiguration(env: NodeJS.ProcessEnv, home: string): DoctorReport['configuration'] {
  const source = defaultConfigSource({ ...env, HOME: env.HOME || home });
  const withKey: string[] = [];
  const withoutKey: string[] = [];
  const encodedKeys: string[] = [];
  const text = source.readText();
  const encodedFile = text !== undefined && isEncodedSecret(text.trim());
  if (text && !encodedFile) {
    try {
      const providers = record(record(JSON.parse(text))?.provider) ?? {};
      for (const [id, entry] of Object.entries(providers)) {
        // Presence only: a plain key, an `enc:v2…` string or an encoded envelope object all count; the value is never kept.
        const key = record(record(entry)?.options)?.apiKey;
        const present = (typeof key === 'string' && key.trim() !== '') || (typeof key === 'object' && key !== null);
        (present ? withKey : withoutKey).push(id);
        if (present && (typeof key !== 'string' || isEncodedSecret(key.trim()))) encodedKeys.push(id);
      }
    } catch {
      withoutKey.push('(config.json is not valid JSON)');
    }
  }
  const base = env.HOME || home;
  const login = path.join(base, '.zcode', 'v2', 'credentials.json');
  const cliConfig = path.join(base, '.zcode', 'cli', 'config.json');
  return {
    zcodeConfig: { file: source.file, exists: text !== undefined, providersWithApiKey: withKey, providersWithoutApiKey: withoutKey, providersWithEncodedApiKey: encodedKeys, encodedFile },
    desktopLogin: { file: login, exists: existsSync(login) },
    cliConfig: { file: cliConfig, exists: existsSync(cliConfig) },
    environment: { ZCODE_MODEL: !!env.ZCODE_MODEL, ZCODE_BASE_URL: !!env.ZCODE_BASE_URL, ZCODE_API_KEY: !!env.ZCODE_API_KEY },
  };
}

/** Start zcode for real and ask it something cheap (`session/list`). */
async function tryStart(options: LocateOptions): Promise<NonNullable<DoctorReport['start']>> {
  const started = Date.now();
  const backend = createZcodeBackend({ ...options, logger: QUIET, timeouts: { requestMs: 20_000, killGraceMs: 2000 } });
  try {
    await backend.listSessions({});
    return { ok: true, ms: Date.now() - started };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error), ms: Date.now() - started };
  } finally {
    const exited = new Promise<void>((resolve) => {
      backend.onDidExit(() => resolve());
      setTimeout(resolve, 5000).unref();
    });
    const running = backend.state === 'ready' || backend.state === 'starting';
    backend.dispose();
    if (running) await exited;
  }
}

/** A report made with `start:false`, completed with a start the caller made itself (the VS Code check). */
export function withStartOutcome(report: DoctorReport, start: NonNullable<DoctorReport['start']>): DoctorReport {
  const completed = { ...report, start };
  return { ...completed, verdict: verdict(completed) };
}

function verdict(r: DoctorReport): DoctorReport['verdict'] {
  const fixes: string[] = [];
  if (!r.zcode.found) {
    return { ok: false, summary: 'zcode was not found.', fixes: ['Install the ZCode desktop app (https://zcode.z.ai), or set ZCODE_BIN (VS Code: the "zcode.path" setting) to the zcode CLI.'] };
  }
  if (r.start && !r.start.ok) {
    return { ok: false, summary: 'zcode was found but does not start.', fixes: [r.start.error ?? 'Run zcode app-server --stdio in a terminal to see why.'] };
  }
  const c = r.configuration;
  // An encoded file hides which providers have keys: not a reason to say there are none.
  const hasKey = c.zcodeConfig.providersWithApiKey.length > 0 || c.zcodeConfig.encodedFile || c.cliConfig.exists || (c.environment.ZCODE_API_KEY && c.environment.ZCODE_MODEL);
  if (!hasKey) {
    fixes.push(
      c.desktopLogin.exists
        ? 'Only the desktop sign-in was found: Start Plan turns from the editor are refused with a captcha (code 3007). Add a GLM Coding Plan API key in the ZCode desktop app for editor sessions.'
        : 'No model credentials were found: sign in to the ZCode desktop app and add a GLM Coding Plan API key, or configure ~/.zcode/cli/config.json (or ZCODE_MODEL, ZCODE_BASE_URL, ZCODE_API_KEY).',
    );
  }
  if (r.launch?.bundled && !r.launch.providerTable) fixes.push(`The desktop app's provider table was not found (looked at ${r.launch.tableCandidates.join(', ')}): update or reinstall the ZCode desktop app.`);
  const ok = fixes.length === 0;
  return { ok, summary: ok ? 'zcode is ready for editor sessions.' : 'zcode starts, but editor sessions may fail.', fixes };
}

/** The report as text (what `--doctor` prints and the VS Code command shows). */
export function formatDoctorReport(r: DoctorReport): string {
  const yes = (b: boolean): string => (b ? 'yes' : 'no');
  const lines: string[] = ['zcode-acp doctor', ''];
  if (r.zcode.found) {
    lines.push(`zcode:          ${[r.zcode.command, ...(r.zcode.args ?? [])].join(' ')}`, `found by:       ${r.zcode.how}`);
  } else {
    lines.push('zcode:          not found', `why:            ${r.zcode.error ?? ''}`);
  }
  if (r.version) lines.push(`version:        ${r.version.text ?? `unknown (${r.version.error})`}`);
  if (r.launch) {
    lines.push(`desktop bundle: ${yes(r.launch.bundled)}`);
    if (r.launch.bundled) lines.push(`provider table: ${r.launch.providerTable ?? `not found (looked at ${r.launch.tableCandidates.join(', ')})`}`);
    if (r.launch.appVersion) lines.push(`app version:    ${r.launch.appVersion}`);
    for (const [name, value] of Object.entries(r.launch.derived)) lines.push(`sets:           ${name}=${value}`);
    if (r.launch.removed.length > 0) lines.push(`removes:        ${r.launch.removed.join(', ')} (the bridge's own variables)`);
    if (r.launch.nodeOptions) lines.push(`NODE_OPTIONS:   ${r.launch.nodeOptions}`);
  }
  const c = r.configuration;
  lines.push(
    `zcode config:   ${c.zcodeConfig.file} (${c.zcodeConfig.exists ? 'present' : 'missing'})`,
    c.zcodeConfig.encodedFile ? '  API keys for: unknown (the file is stored encoded)' : `  API keys for: ${c.zcodeConfig.providersWithApiKey.join(', ') || 'none'}`,
    ...(c.zcodeConfig.providersWithEncodedApiKey.length > 0 ? [`  encoded:     ${c.zcodeConfig.providersWithEncodedApiKey.join(', ')} (stored encoded, as desktop 3.18.2 and later do)`] : []),
    `desktop login:  ${yes(c.desktopLogin.exists)}`,
    `CLI config:     ${c.cliConfig.file} (${c.cliConfig.exists ? 'present' : 'missing'})`,
    `environment:    ZCODE_MODEL ${c.environment.ZCODE_MODEL ? 'set' : 'unset'}, ZCODE_BASE_URL ${c.environment.ZCODE_BASE_URL ? 'set' : 'unset'}, ZCODE_API_KEY ${c.environment.ZCODE_API_KEY ? 'set' : 'unset'}`,
  );
  if (r.start) lines.push(`starts:         ${r.start.ok ? `yes (${r.start.ms} ms)` : `no: ${r.start.error}`}`);
  lines.push('', `verdict:        ${r.verdict.ok ? 'OK' : 'PROBLEM'}: ${r.verdict.summary}`);
  for (const fix of r.verdict.fixes) lines.push(`fix:            ${fix}`);
  return `${lines.join('\n')}\n`;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
