/**
 * A new session's config before zcode has a session for it (a lazy placeholder, sessionTable.ts): the
 * options it is announced with, the choices a client makes on it, and how those choices reach zcode
 * once the session is created. Nothing here creates anything in zcode.
 */
import type { SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { applyConfigPatch, buildConfigOptions, CONFIG_ID, modelSelectionFor } from '../../translate/config.ts';
import type { ConfigPatch } from '../../translate/config.ts';
import type { ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import type { BuildModes } from '../../zcode/buildModes.ts';
import type { SessionSettings } from '../../zcode/protocol.ts';
import type { ModelOptionCache } from './modelCache.ts';
import { bt, type BridgeLocale } from '../../l10n/messages.ts';

export interface PlaceholderSources {
  defaultMode: string;
  modes?: BuildModes;
  /** The settings a draft showed for the workspace (modelDraft.ts), if one did. */
  drafted?: SessionSettings;
  /** The last model option seen (modelCache.ts). */
  models?: ModelOptionCache;
  /** The language of the bridge's names (l10n/messages.ts). */
  locale?: BridgeLocale;
}

/**
 * The options of a placeholder: the draft's model list and thought levels when a draft showed them,
 * never its mode (a new session starts in the default mode); else mode and thought level plus the last
 * model list seen, so clients see model support at `session/new`. Modes are the build's (buildModes.ts).
 */
export function placeholderOptions(sources: PlaceholderSources): SessionConfigOption[] {
  const fallbacks = { mode: sources.defaultMode, modes: sources.modes?.offered, locale: sources.locale };
  if (sources.drafted) {
    const options = buildConfigOptions({ ...sources.drafted, mode: undefined }, fallbacks);
    sources.models?.remember(options.find((o) => o.id === CONFIG_ID.model));
    return options;
  }
  const options = buildConfigOptions(undefined, fallbacks);
  const model = sources.models?.current;
  // The cached option was named in the language of its day.
  if (model && !options.some((o) => o.id === CONFIG_ID.model)) options.splice(1, 0, { ...model, name: bt(sources.locale ?? 'en', 'Model') });
  return options;
}

/** A choice on a placeholder: its new options and what to announce (nothing when it changed nothing). */
export function chosen(before: SessionConfigOption[], patch: ConfigPatch, locale: BridgeLocale = 'en'): { after: SessionConfigOption[]; updates: SessionUpdate[] } {
  const after = applyConfigPatch(before, patch, locale);
  if (after === before) return { after, updates: [] };
  const updates: SessionUpdate[] = [{ sessionUpdate: 'config_option_update', configOptions: after }];
  const mode = after.find((o) => o.id === CONFIG_ID.mode)?.currentValue;
  if (patch.mode !== undefined && typeof mode === 'string' && mode !== before.find((o) => o.id === CONFIG_ID.mode)?.currentValue) {
    updates.push({ sessionUpdate: 'current_mode_update', currentModeId: mode });
  }
  return { after, updates };
}

/** The part of a live session the choices change. */
export interface ChoiceTarget {
  readonly zcodeId: string;
  readonly settings: SessionSettings | undefined;
  configOptions: SessionConfigOption[];
  chosenModel: string | undefined;
}

/**
 * The model and thought level chosen before the zcode session existed go to zcode right after the
 * create, before anything is sent (the mode went with the create): the first prompt runs on the model
 * the user picked. setModel is not the workspace default (`persistAsWorkspaceLastUsed:false`).
 */
export async function applyChoices(backend: ZcodeBackend, logger: Logger, target: ChoiceTarget, pending: ConfigPatch): Promise<void> {
  // The options first: zcode echoes each change (`state.updated`), and an echo of what the client
  // already chose must be a no-op, not an announcement of a half-applied state.
  target.configOptions = applyConfigPatch(target.configOptions, { model: pending.model, thoughtLevel: pending.thoughtLevel });
  if (pending.thoughtLevel !== undefined) await backend.setThoughtLevel({ sessionId: target.zcodeId, thoughtLevel: pending.thoughtLevel });
  if (pending.model !== undefined) {
    const selection = modelSelectionFor(target.settings, pending.model, pending.thoughtLevel);
    // Kept first: should setModel fail, a later resume still applies it (sessionTable.ts reapplyModel).
    target.chosenModel = pending.model;
    await backend.setModel({ sessionId: target.zcodeId, ...selection });
  }
  logger.info(`applied the choices made before ${target.zcodeId} existed: ${JSON.stringify(pending)}`);
}
