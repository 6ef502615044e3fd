/**
 * zcode session settings (mode, model, thought level) as ACP session config options
 * (`session/new` / `session/load` results, `session/set_config_option`, `config_option_update`)
 * and as the legacy ACP mode state (`modes`, `session/set_mode`, `current_mode_update`).
 */
import type { SessionConfigOption, SessionConfigSelectOption, SessionModeState } from '@agentclientprotocol/sdk';
import { bt, type BridgeLocale } from '../l10n/messages.ts';
import type { ModelInfo, SessionSettings } from '../zcode/protocol.ts';

/** ACP config option ids (also their categories). */
export const CONFIG_ID = { mode: 'mode', model: 'model', thoughtLevel: 'thought_level' } as const;

/** Modes offered when zcode does not list its own (plan, build, edit, yolo: docs/zcode-protocol.md "Sessions"). */
const DEFAULT_MODES: readonly SessionConfigSelectOption[] = [
  { value: 'plan', name: 'Plan', description: 'Explore read-only and propose a plan for your approval before changing anything' },
  { value: 'build', name: 'Build', description: 'Edit files and run commands, asking before risky actions' },
  { value: 'edit', name: 'Edit', description: 'Apply file edits without asking; still asks before running commands' },
  { value: 'yolo', name: 'YOLO', description: 'Run every tool without asking for permission' },
];

/** Descriptions of modes some builds add. */
const EXTRA_MODES: Record<string, SessionConfigSelectOption> = {
  // Desktop 3.15 added it (zcode's mode enum); zcode documents no more about it than its name.
  guarded: { value: 'guarded', name: 'Guarded', description: 'zcode\'s guarded mode (desktop 3.15 and later): more careful about what runs without asking' },
  auto: { value: 'auto', name: 'Auto', description: 'Let zcode decide when to ask' },
};

/** Thought levels offered when zcode does not list its own. */
const DEFAULT_THOUGHT_LEVELS: readonly SessionConfigSelectOption[] = [
  { value: 'low', name: 'Low', description: 'Fast answers with little reasoning' },
  { value: 'medium', name: 'Medium', description: 'Balanced reasoning' },
  { value: 'high', name: 'High', description: 'Deeper reasoning for harder tasks' },
  { value: 'max', name: 'Max', description: 'The most reasoning the model allows' },
];

/** Used when neither zcode nor the caller names a current thought level (zcode's own default). */
const DEFAULT_THOUGHT_LEVEL = 'high';

/** Values to use where zcode's settings are silent (e.g. the mode the session was created with). */
export interface ConfigFallbacks {
  mode?: string;
  /** The modes the build takes when the settings list none (current builds never do; zcode/buildModes.ts). */
  modes?: readonly string[];
  /** Current model id. */
  model?: string;
  /** Models to offer when the settings list none. */
  models?: readonly ModelInfo[];
  thoughtLevel?: string;
  /** The language of the names and descriptions the bridge writes (l10n/messages.ts); English when absent. */
  locale?: BridgeLocale;
}

function titleCase(id: string): string {
  return id.length > 0 ? id[0].toUpperCase() + id.slice(1) : id;
}

/**
 * The value `value` of a select, named in `locale`: the bridge's names and descriptions of the modes
 * and levels it knows are translated; a value it does not know keeps its id, title-cased (zcode's word).
 */
function known(defaults: readonly SessionConfigSelectOption[], value: string, locale: BridgeLocale): SessionConfigSelectOption {
  const option = defaults.find((o) => o.value === value) ?? EXTRA_MODES[value];
  if (!option) return { value, name: titleCase(value) };
  return { ...option, name: bt(locale, option.name), ...(option.description ? { description: bt(locale, option.description) } : {}) };
}

/** The select values of `ids` (described when known), with `current` added if zcode did not list it. */
function selectValues(ids: readonly string[] | undefined, defaults: readonly SessionConfigSelectOption[], current: string, locale: BridgeLocale): SessionConfigSelectOption[] {
  const values = (ids && ids.length > 0 ? [...new Set(ids)] : defaults.map((o) => o.value)).map((id) => known(defaults, id, locale));
  if (!values.some((o) => o.value === current)) values.push(known(defaults, current, locale));
  return values;
}

/**
 * The ACP value of a model: its id, or `providerId/modelId` when another provider offers the same id
 * (current builds list models per provider; docs/zcode-protocol.md "Sessions", the snapshot).
 */
function modelValue(model: ModelInfo, all: readonly ModelInfo[] = []): string {
  const shared = model.providerId !== undefined && all.some((m) => m.modelId === model.modelId && m.providerId !== model.providerId);
  return shared ? `${model.providerId}/${model.modelId}` : model.modelId;
}

function modelOption(model: ModelInfo, all: readonly ModelInfo[]): SessionConfigSelectOption {
  const option: SessionConfigSelectOption = { value: modelValue(model, all), name: model.displayName ?? model.name ?? model.modelId };
  // The provider goes back to zcode in `session/setModel` (modelSelectionFor); clients may show it.
  if (model.providerId !== undefined) option._meta = { zcode: { providerId: model.providerId } };
  return option;
}

/** What `session/setModel` needs for an ACP model value: the model id and, on current builds, provider and reasoning level. */
export interface ModelSelection {
  modelId: string;
  providerId?: string;
  reasoningLevel?: string;
}

/**
 * The selection for the ACP model `value` from zcode's settings. The reasoning level is the
 * model's `defaultLevel`, else the session's thought level when the model offers it, else the
 * model's last (deepest) level — some models fail the next turn without one (docs/zcode-protocol.md, `session/setModel`).
 * A value zcode did not list is sent as a bare id (seed builds take nothing else).
 */
export function modelSelectionFor(settings: SessionSettings | undefined, value: string, thoughtLevel?: string): ModelSelection {
  const models = settings?.model?.available ?? [];
  const model = models.find((m) => modelValue(m, models) === value) ?? models.find((m) => m.modelId === value);
  if (!model) return { modelId: value };
  const selection: ModelSelection = { modelId: model.modelId };
  if (model.providerId !== undefined) selection.providerId = model.providerId;
  const levels = model.reasoningLevels ?? [];
  const level = model.defaultReasoningLevel ?? (thoughtLevel !== undefined && levels.includes(thoughtLevel) ? thoughtLevel : levels.at(-1));
  if (level !== undefined) selection.reasoningLevel = level;
  return selection;
}

/**
 * The session's config options, in order mode, model, thought level (ids and categories `mode`,
 * `model`, `thought_level`). Each is a select whose values come from zcode's settings (`available`)
 * or the defaults (modes plan/build/edit/yolo, levels low/medium/high/max); the current value comes
 * from the settings, then `fallbacks`, then the first mode / `DEFAULT_THOUGHT_LEVEL`. The model
 * option is left out when no model is known at all.
 */
export function buildConfigOptions(settings: SessionSettings | undefined, fallbacks: ConfigFallbacks = {}): SessionConfigOption[] {
  const options: SessionConfigOption[] = [];
  const locale = fallbacks.locale ?? 'en';

  const modeIds = settings?.mode?.available;
  const mode = settings?.mode?.current ?? fallbacks.mode ?? modeIds?.[0] ?? DEFAULT_MODES[0].value;
  options.push({
    id: CONFIG_ID.mode,
    name: bt(locale, 'Mode'),
    description: bt(locale, 'How much zcode may do without asking'),
    category: 'mode',
    type: 'select',
    currentValue: mode,
    options: selectValues(modeIds ?? fallbacks.modes, DEFAULT_MODES, mode, locale),
  });

  const models = settings?.model?.available ?? fallbacks.models ?? [];
  const current = settings?.model?.current;
  // The current model of a current build is a selection `{providerId, modelId}`: match it to its option.
  const currentListed = current && models.find((m) => m.modelId === current.modelId && (current.providerId === undefined || m.providerId === undefined || m.providerId === current.providerId));
  const model = (currentListed ? modelValue(currentListed, models) : current?.modelId) ?? fallbacks.model ?? (models[0] ? modelValue(models[0], models) : undefined);
  if (model !== undefined) {
    const values = models.map((m) => modelOption(m, models));
    if (!values.some((o) => o.value === model)) values.push(current ? modelOption(current, models) : { value: model, name: model });
    options.push({ id: CONFIG_ID.model, name: bt(locale, 'Model'), category: 'model', type: 'select', currentValue: model, options: dedupe(values) });
  }

  const levelIds = settings?.thoughtLevel?.available;
  const level = settings?.thoughtLevel?.current ?? settings?.thoughtLevel?.defaultLevel ?? fallbacks.thoughtLevel ?? DEFAULT_THOUGHT_LEVEL;
  options.push({
    id: CONFIG_ID.thoughtLevel,
    name: bt(locale, 'Thought level'),
    description: bt(locale, 'How much the model reasons before answering'),
    category: 'thought_level',
    type: 'select',
    currentValue: level,
    options: selectValues(levelIds, DEFAULT_THOUGHT_LEVELS, level, locale),
  });
  return options;
}

function dedupe(values: SessionConfigSelectOption[]): SessionConfigSelectOption[] {
  const seen = new Set<string>();
  return values.filter((o) => (seen.has(o.value) ? false : (seen.add(o.value), true)));
}

/** Every value of a select option (flattening groups). */
export function selectOptionValues(option: SessionConfigOption): SessionConfigSelectOption[] {
  if (option.type !== 'select') return [];
  return option.options.flatMap((o) => ('group' in o ? o.options : [o]));
}

/** The legacy ACP mode state, derived from the `mode` config option (undefined if there is none). */
export function buildModeState(options: readonly SessionConfigOption[]): SessionModeState | undefined {
  const mode = options.find((o) => o.id === CONFIG_ID.mode);
  if (!mode || mode.type !== 'select') return undefined;
  return {
    currentModeId: mode.currentValue,
    availableModes: selectOptionValues(mode).map((o) => ({ id: o.value, name: o.name, ...(o.description ? { description: o.description } : {}) })),
  };
}

/**
 * Why `value` is not acceptable for `configId` (an unknown option, a wrong type, or a value the
 * option does not offer), or undefined when it is. The ACP layer turns a message into -32602.
 */
export function validateConfigValue(options: readonly SessionConfigOption[], configId: string, value: unknown): string | undefined {
  const option = options.find((o) => o.id === configId);
  if (!option) return `Unknown config option '${configId}'. Known options: ${options.map((o) => o.id).join(', ')}`;
  if (option.type === 'boolean') return typeof value === 'boolean' ? undefined : `Config option '${configId}' takes true or false`;
  if (typeof value !== 'string') return `Config option '${configId}' takes a string value`;
  const values = selectOptionValues(option).map((o) => o.value);
  return values.includes(value) ? undefined : `Invalid value '${value}' for '${configId}'. Expected one of: ${values.join(', ')}`;
}

/**
 * `options` with `configId` set to `value`. A select value zcode reports but did not list is added
 * (so the client can show it). Returns the same array when nothing changes, so callers can skip
 * announcing a no-op (`next !== prev`). Unknown ids are ignored.
 */
export function withConfigValue(options: SessionConfigOption[], configId: string, value: string | boolean, locale: BridgeLocale = 'en'): SessionConfigOption[] {
  const index = options.findIndex((o) => o.id === configId);
  if (index < 0) return options;
  const option = options[index];
  if (option.currentValue === value) return options;
  let next: SessionConfigOption;
  if (option.type === 'boolean') {
    if (typeof value !== 'boolean') return options;
    next = { ...option, currentValue: value };
  } else {
    if (typeof value !== 'string') return options;
    const listed = selectOptionValues(option).some((o) => o.value === value);
    const defaults = configId === CONFIG_ID.thoughtLevel ? DEFAULT_THOUGHT_LEVELS : configId === CONFIG_ID.mode ? DEFAULT_MODES : [];
    const values = listed || option.options.some((o) => 'group' in o) ? option.options : [...(option.options as SessionConfigSelectOption[]), known(defaults, value, locale)];
    next = { ...option, currentValue: value, options: values } as SessionConfigOption;
  }
  const copy = [...options];
  copy[index] = next;
  return copy;
}

/** A backend-side settings change (`state.updated` patch, the translator's `config` signal). */
export interface ConfigPatch {
  mode?: string;
  model?: string;
  thoughtLevel?: string;
}

/**
 * Apply a backend-side change. A model reported while the options have no model option adds one.
 * Same array back when nothing changed.
 */
export function applyConfigPatch(options: SessionConfigOption[], patch: ConfigPatch, locale: BridgeLocale = 'en'): SessionConfigOption[] {
  let next = options;
  if (patch.mode !== undefined) next = withConfigValue(next, CONFIG_ID.mode, patch.mode, locale);
  if (patch.model !== undefined) {
    if (next.some((o) => o.id === CONFIG_ID.model)) next = withConfigValue(next, CONFIG_ID.model, patch.model, locale);
    else {
      const modeIndex = next.findIndex((o) => o.id === CONFIG_ID.mode);
      const model: SessionConfigOption = {
        id: CONFIG_ID.model,
        name: bt(locale, 'Model'),
        category: 'model',
        type: 'select',
        currentValue: patch.model,
        options: [{ value: patch.model, name: patch.model }],
      };
      next = [...next.slice(0, modeIndex + 1), model, ...next.slice(modeIndex + 1)];
    }
  }
  if (patch.thoughtLevel !== undefined) next = withConfigValue(next, CONFIG_ID.thoughtLevel, patch.thoughtLevel, locale);
  return next;
}
