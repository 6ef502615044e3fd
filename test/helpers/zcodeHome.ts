/**
 * A private HOME laid out like zcode's own folders (for the slash menu and quota tests): a user
 * skill, an enabled plugin in zcode's plugin cache with one command, and zcode's
 * `~/.zcode/v2/config.json` with a Coding Plan key. Plus a stand-in for the provider's quota
 * endpoint (a real HTTP server on loopback) answering the shape the reference bridge reads.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';

export const QUOTA_KEY = 'test-coding-plan-key';
/** 2030-01-01T05:00:00Z and 2030-01-07T00:00:00Z. */
export const RESET_5H = Date.UTC(2030, 0, 1, 5, 0, 0);
export const RESET_WEEK = Date.UTC(2030, 0, 7, 0, 0, 0);

export interface ZcodeHome {
  home: string;
  skillFile: string;
  pluginRoot: string;
  addPluginCommand(name: string, description: string): void;
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export function makeZcodeHome(): ZcodeHome {
  const home = mkdtempSync(path.join(tmpdir(), 'zcode-home-'));
  const skillFile = path.join(home, '.zcode', 'skills', 'deploy', 'SKILL.md');
  write(skillFile, '---\nname: deploy\ndescription: "Deploy the app to an environment"\n---\n\nRun the deploy script.\n');
  write(path.join(home, '.zcode', 'cli', 'config.json'), JSON.stringify({ plugins: { enabledPlugins: { 'reviewer@market': true } } }));
  const pluginRoot = path.join(home, '.zcode', 'cli', 'plugins', 'cache', 'market', 'reviewer', '1.2.0');
  const addPluginCommand = (name: string, description: string): void =>
    write(path.join(pluginRoot, 'commands', `${name}.md`), `---\ndescription: ${description}\nargument-hint: "[path]"\n---\n\nReview $ARGUMENTS.\n`);
  addPluginCommand('review', 'Review the working tree changes');
  write(path.join(home, '.zcode', 'v2', 'config.json'), JSON.stringify({ provider: { 'builtin:zai-coding-plan': { options: { apiKey: QUOTA_KEY } } } }));
  return { home, skillFile, pluginRoot, addPluginCommand };
}

export interface QuotaEndpoint {
  url: string;
  /** Requests seen, with their Authorization header. */
  readonly requests: Array<{ authorization: string | undefined }>;
  /** Answer 503 from now on (a provider outage). */
  fail(): void;
  close(): Promise<void>;
}

export async function startQuotaEndpoint(): Promise<QuotaEndpoint> {
  const requests: Array<{ authorization: string | undefined }> = [];
  let failing = false;
  const server: Server = createServer((req, res) => {
    requests.push({ authorization: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    if (failing) {
      res.statusCode = 503;
      res.end(JSON.stringify({ success: false, msg: 'service unavailable' }));
      return;
    }
    if (req.headers.authorization !== `Bearer ${QUOTA_KEY}`) {
      res.statusCode = 401;
      res.end(JSON.stringify({ success: false, code: 401, msg: 'invalid token' }));
      return;
    }
    res.end(
      JSON.stringify({
        code: 200,
        success: true,
        data: {
          level: 'pro',
          limits: [
            { type: 'TOKENS_LIMIT', unit: 3, number: 7, percentage: 40, nextResetTime: RESET_WEEK },
            { type: 'TOKENS_LIMIT', unit: 3, number: 5, usage: 1000, currentValue: 250, remaining: 750, nextResetTime: RESET_5H },
          ],
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/api/monitor/usage/quota/limit`,
    requests,
    fail: () => (failing = true),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * For a test file: a zcode HOME (`makeZcodeHome`) as this process's HOME — the in-process bridge, the
 * CLI it spawns and the simulator all read it — and the quota stand-in, started before the tests and
 * pointed at with `ZCODE_ACP_QUOTA_URL`, closed after them.
 */
export function useZcodeAccount(): { zhome: ZcodeHome; readonly quota: QuotaEndpoint } {
  const zhome = makeZcodeHome();
  process.env.HOME = zhome.home;
  let endpoint: QuotaEndpoint | undefined;
  before(async () => {
    endpoint = await startQuotaEndpoint();
    process.env.ZCODE_ACP_QUOTA_URL = endpoint.url;
  });
  after(() => endpoint?.close());
  return {
    zhome,
    get quota() {
      if (!endpoint) throw new Error('the quota endpoint starts in before()');
      return endpoint;
    },
  };
}
