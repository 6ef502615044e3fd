/**
 * The model option announced at `session/new`: a placeholder session has no zcode
 * session yet, so zcode's model list is unknown — and a client that sees no model option at
 * `session/new` concludes the agent has no model support (`acpx --model GLM-5.2 exec …` fails,
 * Zed shows no picker on a new thread). The last model option the bridge built from zcode's own
 * settings is kept here, in memory and in `<storageDir>/acp-model-options.json`, and offered for
 * new placeholders; the real list replaces it as soon as the session exists
 * (`config_option_update`). Until this bridge (or an earlier run) has seen a list once, nothing is
 * offered: the bridge never invents models, and never creates a zcode session just to ask.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { Logger } from '../../logger.ts';

const MODEL_CACHE_FILE = 'acp-model-options.json';

export class ModelOptionCache {
  private option: SessionConfigOption | undefined;
  private readonly file: string;

  constructor(
    private readonly storageDir: string,
    private readonly logger: Logger,
  ) {
    this.file = path.join(storageDir, MODEL_CACHE_FILE);
    this.option = this.read();
  }

  /** The last model option seen, if any. */
  get current(): SessionConfigOption | undefined {
    return this.option;
  }

  /** A model option built from zcode's settings; written when it changed. */
  remember(option: SessionConfigOption | undefined): void {
    if (!option || option.type !== 'select' || JSON.stringify(option) === JSON.stringify(this.option)) return;
    this.option = option;
    try {
      mkdirSync(this.storageDir, { recursive: true });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify({ version: 1, option })}\n`);
      renameSync(temp, this.file);
    } catch (error) {
      this.logger.debug(`could not keep the model list in ${this.file}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private read(): SessionConfigOption | undefined {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { version?: unknown; option?: SessionConfigOption };
      const option = parsed.option;
      if (parsed.version === 1 && option && option.type === 'select' && typeof option.currentValue === 'string' && Array.isArray(option.options)) return option;
    } catch {
      // No file yet, or unreadable: nothing known.
    }
    return undefined;
  }
}
