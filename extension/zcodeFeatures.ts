/**
 * What the running zcode can do, as the extension knows it: the bridge's answer to
 * `_zcode/agent/capabilities`, kept current by `_zcode/agent/capabilitiesChanged`. Every surface
 * that offers steer, rewind, retry, rename or fork-from-reply reads it here before the click
 * (context keys of the palette, the chat's buttons and their tooltips, the commands' guards), so
 * an unavailable action is shown as such with its reason instead of failing on use.
 *
 * Plain TypeScript (no vscode): extension.ts turns `contextKeys` into `setContext`, the chat and
 * the commands read `availability`. One owner: this class holds the only copy of the answer.
 */
import { CapabilitiesChangedNotification, CapabilitiesRequest, notificationOf } from '../bridge/acp/extensions/contractDescriptors.ts';
import type { ExtensionRequest, FeatureAvailability, ParamsOf, ResultOf, ZcodeCapabilities } from '../bridge/acp/extensions/contractDescriptors.ts';

type Disposable = { dispose(): unknown };
type Event<E> = (listener: (e: E) => unknown) => Disposable;

/** The features a surface of the extension offers (the keys of `ZcodeCapabilities` that are availabilities). */
export type Feature = Exclude<keyof ZcodeCapabilities, 'probed' | 'zcodeVersion' | 'v4' | 'modes'>;

export const FEATURES = [
  'steer',
  'rewindLatestPrompt',
  'rewindWithFiles',
  'rewindEarlier',
  'fileRewind',
  'retryTurn',
  'rename',
  'forkCheckpoint',
  'forkAssistant',
  'queueEdit',
] as const satisfies readonly Feature[];

/** What the features need of `ZcodeClientHost` (extension/acpClient.ts). */
export interface FeaturesHost {
  readonly state: string;
  call<D extends ExtensionRequest>(descriptor: D, params: ParamsOf<D>): Promise<ResultOf<D>>;
  readonly onExtNotification: Event<{ method: string; params: unknown }>;
  readonly onDidChangeState: Event<string>;
}

/** The context keys package.json's `enablement` / `when` clauses read (see `contextKeys`). */
export const FEATURE_CONTEXT_KEYS = {
  steer: 'zcode.can.steer',
  rewind: 'zcode.can.rewind',
  retryTurn: 'zcode.can.retryTurn',
  forkAssistant: 'zcode.can.forkAssistant',
  zcodeRename: 'zcode.can.zcodeRename',
} as const;

/**
 * Why `feature` cannot work, or undefined when it can or when nobody knows yet. Before the bridge
 * has probed zcode (`probed: false`: zcode not started, or a bridge that does not probe) an action
 * is let through and the bridge answers it: "not known" is not "unavailable", and refusing it
 * would take away what an older bridge still does.
 */
export function blockedReason(capabilities: ZcodeCapabilities, feature: Feature): string | undefined {
  if (!capabilities.probed) return undefined;
  const availability = capabilities[feature];
  return availability.available ? undefined : (availability.reason ?? '');
}

/**
 * The context keys for `capabilities`. Rewind is one palette entry offering every kind of rewind,
 * so it is enabled when any kind is; rename always works (a local title when zcode has none), its
 * key only says whether zcode itself keeps the title.
 */
export function contextKeys(capabilities: ZcodeCapabilities): Record<(typeof FEATURE_CONTEXT_KEYS)[keyof typeof FEATURE_CONTEXT_KEYS], boolean> {
  const on = (feature: Feature): boolean => blockedReason(capabilities, feature) === undefined;
  return {
    [FEATURE_CONTEXT_KEYS.steer]: on('steer'),
    [FEATURE_CONTEXT_KEYS.rewind]: on('rewindLatestPrompt') || on('rewindEarlier') || on('fileRewind'),
    [FEATURE_CONTEXT_KEYS.retryTurn]: on('retryTurn'),
    [FEATURE_CONTEXT_KEYS.forkAssistant]: on('forkAssistant'),
    [FEATURE_CONTEXT_KEYS.zcodeRename]: on('rename'),
  };
}

/** Before any answer from the bridge (or after zcode stopped): nothing is known, each feature says why. */
export function unknownCapabilities(reason: string): ZcodeCapabilities {
  const unknown: FeatureAvailability = { available: false, reason };
  const features = Object.fromEntries(FEATURES.map((feature) => [feature, unknown])) as Record<Feature, FeatureAvailability>;
  return { probed: false, v4: false, modes: [], ...features };
}

export interface ZcodeFeaturesOptions {
  /** The reason every feature gives before zcode has been asked (localized by the caller). */
  notStartedReason: string;
  /** The reason after zcode stopped (a crash) until it answers again. */
  stoppedReason: string;
  /** Said for an unavailable feature the bridge gave no reason for. */
  noReason: string;
  /** Logs a failed capabilities request (the features stay as they were). */
  log?: (message: string) => void;
}

export class ZcodeFeatures {
  private current: ZcodeCapabilities;
  private readonly listeners = new Set<(capabilities: ZcodeCapabilities) => unknown>();
  private readonly subscriptions: Disposable[] = [];
  /** Bumped by every notification and reset: an answer to an older request must not overwrite newer news. */
  private generation = 0;
  private asking: Promise<void> | undefined;

  constructor(
    private readonly host: FeaturesHost,
    private readonly options: ZcodeFeaturesOptions,
  ) {
    this.current = unknownCapabilities(options.notStartedReason);
    this.subscriptions.push(
      host.onExtNotification((message) => {
        const changed = notificationOf(CapabilitiesChangedNotification, message);
        if (changed) this.set(changed);
      }),
      host.onDidChangeState((state) => this.onState(state)),
    );
    this.onState(host.state);
  }

  get capabilities(): ZcodeCapabilities {
    return this.current;
  }

  /** Whether `feature` works now, and if not why (the bridge's reason). */
  availability(feature: Feature): FeatureAvailability {
    return this.current[feature];
  }

  /** Why `feature` cannot work now (see `blockedReason`; never empty); undefined: offer it. */
  blocked(feature: Feature): string | undefined {
    const reason = blockedReason(this.current, feature);
    return reason === undefined ? undefined : reason || this.options.noReason;
  }

  /** Said for an unavailable feature the bridge gave no reason for. */
  get noReason(): string {
    return this.options.noReason;
  }

  /** Fires with the new capabilities whenever they change (never for an identical answer). */
  onDidChange(listener: (capabilities: ZcodeCapabilities) => unknown): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Asks the bridge now (also when an answer is known); concurrent calls share one request. */
  refresh(): Promise<void> {
    this.asking ??= this.ask().finally(() => (this.asking = undefined));
    return this.asking;
  }

  dispose(): void {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.listeners.clear();
  }

  private async ask(): Promise<void> {
    const generation = this.generation;
    try {
      const answer = await this.host.call(CapabilitiesRequest, {});
      if (generation === this.generation) this.set(answer);
    } catch (error) {
      this.options.log?.(`reading zcode's capabilities failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * zcode started (the bridge probes it when it starts, and says so by notification; asking once
   * covers a notification sent before this client listened) or stopped (nothing is known until it
   * answers again). `notStarted` asks nothing: the request would create the bridge.
   */
  private onState(state: string): void {
    if (state === 'crashed') {
      this.set(unknownCapabilities(this.options.stoppedReason));
      return;
    }
    if ((state === 'ready' || state === 'turnRunning') && !this.current.probed) void this.refresh();
  }

  private set(next: ZcodeCapabilities): void {
    this.generation++;
    if (JSON.stringify(next) === JSON.stringify(this.current)) return;
    this.current = next;
    for (const listener of [...this.listeners]) listener(next);
  }
}
