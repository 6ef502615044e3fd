/**
 * Session config (mode, model, thought level): `session/set_config_option`, `session/set_mode`,
 * and changes zcode makes itself (`state.updated` → the translator's `config` signal).
 *
 * Every change that actually changes something is announced to every client as
 * `config_option_update` (the full list) and, for the mode, `current_mode_update`; a no-op (zcode
 * echoing a change the bridge just made) is not announced twice.
 *
 * A choice on a placeholder whose zcode session does not exist yet creates nothing: it is kept and
 * goes to zcode with the create (sessionTable.ts `choose`, `applyPending`), so picking a model right after
 * `session/new` and never prompting leaves nothing behind in zcode.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { applyConfigPatch, CONFIG_ID, modelSelectionFor, validateConfigValue } from '../../translate/config.ts';
import type { ConfigPatch } from '../../translate/config.ts';
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { SessionManager } from './sessionTable.ts';
import type { SessionRuntime } from './sessionRuntime.ts';

export type { ConfigPatch };

const KNOWN_IDS: ReadonlySet<string> = new Set(Object.values(CONFIG_ID));

export class ConfigService {
  constructor(
    private readonly sessions: SessionManager,
    private readonly backend: ZcodeBackend,
  ) {}

  /** `session/set_config_option`: validate, apply through zcode, announce; returns the full list. */
  async setOption(acpId: string, configId: string, value: unknown): Promise<SessionConfigOption[]> {
    await this.sessions.require(acpId);
    // Reject an unknown id before materializing anything.
    if (!KNOWN_IDS.has(configId)) throw RequestError.invalidParams({ configId }, `Unknown config option '${configId}'. Known options: ${[...KNOWN_IDS].join(', ')}`);
    const lazy = await this.sessions.unusedPlaceholderOptions(acpId);
    if (lazy) {
      const problem = validateConfigValue(lazy, configId, value);
      if (problem) throw RequestError.invalidParams({ configId, value }, problem);
      return this.sessions.choose(acpId, patchFor(configId, value as string));
    }
    const runtime = await this.sessions.materialize(acpId);
    const problem = validateConfigValue(runtime.configOptions, configId, value);
    if (problem) throw RequestError.invalidParams({ configId, value }, problem);
    await this.apply(runtime, patchFor(configId, value as string));
    return runtime.configOptions;
  }

  /** `session/set_mode`: like set_config_option for the `mode` option. */
  async setMode(acpId: string, modeId: string): Promise<void> {
    await this.sessions.require(acpId);
    const lazy = await this.sessions.unusedPlaceholderOptions(acpId);
    if (lazy) {
      const problem = validateConfigValue(lazy, CONFIG_ID.mode, modeId);
      if (problem) throw RequestError.invalidParams({ modeId }, problem);
      this.sessions.choose(acpId, { mode: modeId });
      return;
    }
    const runtime = await this.sessions.materialize(acpId);
    const problem = validateConfigValue(runtime.configOptions, CONFIG_ID.mode, modeId);
    if (problem) throw RequestError.invalidParams({ modeId }, problem);
    await this.apply(runtime, { mode: modeId });
  }

  /** Apply a change through zcode, then update and announce (used by the extension methods too). */
  async apply(runtime: SessionRuntime, patch: ConfigPatch): Promise<void> {
    const sessionId = runtime.zcodeId;
    if (patch.mode !== undefined) await this.backend.setMode({ sessionId, mode: patch.mode });
    if (patch.model !== undefined) {
      // Current builds need the provider (and a reasoning level) of the chosen model: from zcode's list.
      const thoughtLevel = runtime.configOptions.find((o) => o.id === CONFIG_ID.thoughtLevel)?.currentValue;
      const selection = modelSelectionFor(runtime.settings, patch.model, typeof thoughtLevel === 'string' ? thoughtLevel : undefined);
      await this.backend.setModel({ sessionId, ...selection });
      runtime.chosenModel = patch.model;
    }
    if (patch.thoughtLevel !== undefined) await this.backend.setThoughtLevel({ sessionId, thoughtLevel: patch.thoughtLevel });
    this.changed(runtime, patch);
  }

  /** A change zcode reports (or the bridge just made): update the options, announce if different. */
  changed(runtime: SessionRuntime, patch: ConfigPatch): void {
    const before = runtime.configOptions;
    const after = applyConfigPatch(before, patch, this.sessions.locale);
    if (after === before) return;
    runtime.configOptions = after;
    const updates: SessionUpdate[] = [{ sessionUpdate: 'config_option_update', configOptions: after }];
    const mode = after.find((o) => o.id === CONFIG_ID.mode);
    const previousMode = before.find((o) => o.id === CONFIG_ID.mode);
    if (mode && typeof mode.currentValue === 'string' && mode.currentValue !== previousMode?.currentValue) {
      updates.push({ sessionUpdate: 'current_mode_update', currentModeId: mode.currentValue });
    }
    this.sessions.events.emit(runtime, updates);
  }
}

function patchFor(configId: string, value: string): ConfigPatch {
  switch (configId) {
    case CONFIG_ID.mode:
      return { mode: value };
    case CONFIG_ID.model:
      return { model: value };
    case CONFIG_ID.thoughtLevel:
      return { thoughtLevel: value };
    default:
      throw RequestError.invalidParams({ configId }, `Unknown config option '${configId}'`);
  }
}
