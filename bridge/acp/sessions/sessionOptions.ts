/**
 * The config options the session table (sessionTable.ts) gives its sessions, and the language they
 * are named in: the placeholder set while zcode has no session (lazyChoices.ts), the set built from
 * zcode's settings once it has one, and what to announce when the one replaces the other. It owns
 * the bridge's language (l10n/language.ts): every name it builds is written in the language of now.
 * Nothing here talks to zcode or keeps per-session state.
 */
import type { SessionConfigOption, SessionUpdate } from '@agentclientprotocol/sdk';
import { buildConfigOptions, CONFIG_ID } from '../../translate/config.ts';
import type { ConfigPatch } from '../../translate/config.ts';
import type { SessionSettings } from '../../zcode/protocol.ts';
import type { BuildModes } from '../../zcode/buildModes.ts';
import type { BridgeLocale } from '../../l10n/messages.ts';
import { BridgeLanguage } from '../../l10n/language.ts';
import type { ModelOptionCache } from './modelCache.ts';
import type { ModelDraft } from './modelDraft.ts';
import { chosen, placeholderOptions } from './lazyChoices.ts';

export interface SessionOptionSources {
  defaultMode: string;
  /** The last model option seen (announced at `session/new`, modelCache.ts). */
  models?: ModelOptionCache;
  /** zcode's settings before any session, from a throwaway draft (modelDraft.ts). */
  draft?: ModelDraft;
  /** Which modes the build takes (zcode/buildModes.ts). */
  modes?: BuildModes;
  /** The client's language for the bridge's own words (l10n/language.ts); English when absent. */
  language?: BridgeLanguage;
}

export class SessionOptionBuilder {
  /** The language of the bridge's own words (forms, options, card titles, notices); its one owner. */
  readonly language: BridgeLanguage;

  constructor(private readonly sources: SessionOptionSources) {
    this.language = sources.language ?? new BridgeLanguage();
  }

  /** The language to write the bridge's own words in now. */
  get locale(): BridgeLocale {
    return this.language.current;
  }

  /** The options of a session zcode has no session for yet (with the workspace's draft, if one showed it). */
  placeholder(cwd?: string): SessionConfigOption[] {
    const { defaultMode, modes, models, draft } = this.sources;
    return placeholderOptions({ defaultMode, modes, models, drafted: cwd === undefined ? undefined : draft?.peek(cwd), locale: this.locale });
  }

  /** The options zcode's settings give a session; the model list is remembered for the next placeholder. */
  fromSettings(settings: SessionSettings): SessionConfigOption[] {
    const options = buildConfigOptions(settings, { mode: this.sources.defaultMode, modes: this.sources.modes?.offered, locale: this.locale });
    this.sources.models?.remember(options.find((o) => o.id === CONFIG_ID.model));
    return options;
  }

  /** A choice on a placeholder: its new options and the updates announcing them (lazyChoices.ts). */
  choose(before: SessionConfigOption[], patch: ConfigPatch): { after: SessionConfigOption[]; updates: SessionUpdate[] } {
    return chosen(before, patch, this.locale);
  }

  /**
   * A placeholder's zcode session exists: the client was given `given` (without a draft, mode and
   * thought level only, since zcode's models were unknown) and the session now has `current`. The
   * full set goes out once as `config_option_update` — without it a client shows no model picker —
   * plus `current_mode_update` if zcode did not take the mode given; nothing when the client already
   * has exactly these options (the draft showed the same list).
   */
  materializedUpdates(current: SessionConfigOption[], given: SessionConfigOption[]): SessionUpdate[] {
    if (JSON.stringify(current) === JSON.stringify(given)) return [];
    const updates: SessionUpdate[] = [{ sessionUpdate: 'config_option_update', configOptions: current }];
    const mode = current.find((o) => o.id === CONFIG_ID.mode)?.currentValue;
    if (typeof mode === 'string' && mode !== given.find((o) => o.id === CONFIG_ID.mode)?.currentValue) {
      updates.push({ sessionUpdate: 'current_mode_update', currentModeId: mode });
    }
    return updates;
  }
}
