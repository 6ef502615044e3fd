/**
 * Builds without `automation/*` (removed in 0.16.5: every method answers -32601 although the
 * names are still registered, seen live) still offer the model the Cron tools, whose jobs the
 * bridge cannot create, list or run. Those tools are kept from the model through
 * zcode's own `toolDenylist` on `session/create` (zcode's schemas); why is logged once.
 *
 * Presence is tested as docs/zcode-protocol.md "Listings, usage and quota" describes: empty params to `automation/list` answer
 * -32602 where the method exists and -32601 where it is gone. Any other outcome (a result, a
 * timeout) counts as present: nothing is hidden on a guess.
 */
import { ZcodeError } from './backend.ts';
import type { ZcodeBackend } from './backend.ts';
import type { Logger } from '../logger.ts';

/** The scheduling tools of zcode's tool set (BRIDGE: the names its Claude-Code-derived tools use). */
export const CRON_TOOLS: readonly string[] = ['CronCreate', 'CronDelete', 'CronList'];

export class AutomationProbe {
  private verdict: Promise<readonly string[] | undefined> | undefined;

  constructor(
    private readonly backend: Pick<ZcodeBackend, 'listAutomations'>,
    private readonly logger: Logger,
  ) {}

  /** The tools to deny on `session/create` (undefined: none). Asked once per bridge. */
  denylist(): Promise<readonly string[] | undefined> {
    this.verdict ??= this.probe();
    return this.verdict;
  }

  private async probe(): Promise<readonly string[] | undefined> {
    try {
      await this.backend.listAutomations();
    } catch (error) {
      if (error instanceof ZcodeError && error.code === -32601) {
        this.logger.info(`this zcode has no automation/* methods: the Cron tools (${CRON_TOOLS.join(', ')}) are kept from the model (toolDenylist), because their jobs could never run`);
        return CRON_TOOLS;
      }
    }
    return undefined;
  }

  /** zcode rejected the denylist (a build whose session/create does not know it): stop sending it. */
  rejected(error: unknown): boolean {
    if (!(error instanceof ZcodeError) || error.code !== -32602 || !/toolDenylist/i.test(error.message + JSON.stringify(error.data ?? ''))) return false;
    this.logger.info('this zcode does not take toolDenylist on session/create; creating sessions without it');
    this.verdict = Promise.resolve(undefined);
    return true;
  }
}
