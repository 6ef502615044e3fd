/**
 * What the running zcode can do (`_zcode/agent/capabilities`), learned once per spawned process:
 * - the v4 command surface: `v4/commands/query` of a fresh id (v4Commands.ts `probe`);
 * - on a build without it, whether the legacy `session/steer` exists (seed builds 0.14.8–0.15.x):
 *   asked for a session id that cannot exist, so nothing is steered — -32601 means removed.
 * Every client gets `_zcode/agent/capabilitiesChanged` when the answer is known or changes (a new
 * process, e.g. after zcode was updated and restarted). Features the build lacks carry the reason
 * in the user's words and language (l10n/messages.ts; a client shows it before the click); the
 * operations refuse with the same words (`requireFeature`).
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { Disposable, ZcodeBackend } from '../../zcode/backend.ts';
import type { Logger } from '../../logger.ts';
import { ZcodeError } from '../../zcode/backend.ts';
import type { V4Probe } from '../../zcode/v4/v4Commands.ts';
import { CapabilitiesChangedNotification } from './contractDescriptors.ts';
import type { FeatureAvailability, ZcodeCapabilities } from './contractDescriptors.ts';
import { bt } from '../../l10n/messages.ts';
import type { BridgeLocale } from '../../l10n/messages.ts';

/** The features `requireFeature` guards (the availability keys of `ZcodeCapabilities`). */
export type Feature = Exclude<keyof ZcodeCapabilities, 'probed' | 'zcodeVersion' | 'v4' | 'modes'>;

/** A session id no zcode session can have: the legacy steer probe touches nothing. */
export const PROBE_SESSION_ID = 'zcode-bridge-capability-probe';

const noV4Reason = (locale: BridgeLocale): string =>
  bt(locale, 'this zcode build has no v4 commands (desktop 3.12 / CLI 0.16.5 and newer have them): update zcode to use it');

const available: FeatureAvailability = { available: true };
const missing = (reason: string): FeatureAvailability => ({ available: false, reason });

/** Before zcode has been started: nothing is known, and every feature says so. */
export function unprobedCapabilities(locale: BridgeLocale = 'en'): ZcodeCapabilities {
  const unknown = missing(bt(locale, 'zcode has not been started yet'));
  return {
    probed: false,
    v4: false,
    steer: unknown,
    rewindLatestPrompt: unknown,
    rewindWithFiles: unknown,
    rewindEarlier: unknown,
    fileRewind: unknown,
    retryTurn: unknown,
    rename: unknown,
    forkCheckpoint: unknown,
    forkAssistant: unknown,
    queueEdit: unknown,
    modes: [],
  };
}

/** What a build without v4 still has of the legacy methods v4 replaced (asked only when v4 is absent). */
export interface LegacyMethods {
  steer: boolean;
  rewind: boolean;
}

/** The capabilities of a probed process (pure: unit-tested per build family). */
export function capabilitiesOf(v4: V4Probe, legacy: LegacyMethods, locale: BridgeLocale = 'en'): ZcodeCapabilities {
  if (v4.present) {
    return {
      probed: true,
      v4: true,
      steer: available,
      rewindLatestPrompt: available,
      rewindWithFiles: available,
      rewindEarlier: available,
      fileRewind: available,
      retryTurn: available,
      rename: available,
      forkCheckpoint: available,
      forkAssistant: available,
      queueEdit: available,
      // The collaboration modes are the session's own (its config options): not a process fact.
      modes: [],
    };
  }
  const noV4 = missing(noV4Reason(locale));
  return {
    probed: true,
    v4: false,
    steer: legacy.steer
      ? available
      : missing(bt(locale, 'this zcode build can steer neither the legacy way (removed in 0.16) nor with v4 commands (desktop 3.12 / CLI 0.16.5 and newer): update zcode to use it')),
    rewindLatestPrompt: noV4,
    rewindWithFiles: noV4,
    // Seed builds (0.14.8–0.15.x) go back to an earlier checkpoint with the legacy session/rewind.
    rewindEarlier: legacy.rewind ? available : noV4,
    fileRewind: noV4,
    retryTurn: noV4,
    rename: missing(bt(locale, 'this zcode build has no v4 commands: the title is kept by this bridge only')),
    forkCheckpoint: available,
    forkAssistant: noV4,
    queueEdit: noV4,
    modes: [],
  };
}

export class ZcodeFeatures implements Disposable {
  /** The last probe's answer; undefined until one (the snapshot then says "not started" in today's language). */
  private current: ZcodeCapabilities | undefined;
  /** The probe of the running process (one at a time; dropped when it exits). */
  private probing: Promise<ZcodeCapabilities> | undefined;
  /** Whether this process has the legacy `session/steer` / `session/rewind` (asked only when v4 is absent). */
  private legacy: LegacyMethods = { steer: false, rewind: false };
  private readonly subscriptions: Disposable[];

  constructor(
    private readonly backend: ZcodeBackend,
    private readonly broadcast: (method: string, params: unknown) => void,
    private readonly logger: Logger,
    /** The bridge's language now (l10n/language.ts): the reasons are written at each probe. */
    private readonly locale: () => BridgeLocale = () => 'en',
  ) {
    this.subscriptions = [
      // Probed as soon as a process is up, so clients learn before they ask.
      backend.onDidChangeState((state) => {
        if (state === 'ready') void this.probe();
      }),
      backend.onDidExit(() => {
        this.probing = undefined;
      }),
    ];
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  /** The last answer (not probed while zcode has not been started). */
  get snapshot(): ZcodeCapabilities {
    return this.current ?? unprobedCapabilities(this.locale());
  }

  /** The capabilities of the running zcode, probing it if needed (starts zcode). */
  probe(): Promise<ZcodeCapabilities> {
    this.probing ??= this.runProbe();
    return this.probing;
  }

  /**
   * The capabilities for an operation about to use `feature`: probed first; refuses with the
   * reason when the build lacks it (`unsupportedByZcode`). `what` names the action in English, a
   * catalogue key (l10n/messages.ts): the refusal is in the client's language.
   */
  async requireFeature(feature: Feature, what: string): Promise<ZcodeCapabilities> {
    const caps = await this.probe();
    const availability = caps[feature];
    if (!availability.available) throw unsupportedByZcode(what, availability.reason ?? noV4Reason(this.locale()), this.locale());
    return caps;
  }

  private async runProbe(): Promise<ZcodeCapabilities> {
    const v4 = await this.backend.v4.probe();
    this.legacy = v4.present ? { steer: false, rewind: false } : { steer: await this.probeLegacySteer(), rewind: await this.probeLegacyRewind() };
    const next = capabilitiesOf(v4, this.legacy, this.locale());
    if (!v4.present) {
      const how = (legacy: boolean, method: string): string => (legacy ? `uses the legacy ${method}` : 'is unavailable');
      this.logger.info(`zcode has no v4 command surface (${v4.detail}): steer ${how(this.legacy.steer, 'session/steer')}, checkpoint rewind ${how(this.legacy.rewind, 'session/rewind')}; retry, rename in zcode and queue edits are unavailable`);
    }
    else this.logger.info('zcode has the v4 command surface: steer, rewind, retry, rename, queue edits and assistant forks go through it');
    const changed = JSON.stringify(next) !== JSON.stringify(this.snapshot);
    this.current = next;
    if (changed) this.broadcast(CapabilitiesChangedNotification.method, next);
    return next;
  }

  /** Like the steer probe: a rewind of a session that cannot exist touches nothing; -32601 means removed (0.16+). */
  private async probeLegacyRewind(): Promise<boolean> {
    try {
      await this.backend.rewind({ sessionId: PROBE_SESSION_ID, target: { kind: 'latestCheckpoint' } });
      return true;
    } catch (error) {
      return !(error instanceof ZcodeError && error.code === -32601);
    }
  }

  private async probeLegacySteer(): Promise<boolean> {
    try {
      await this.backend.steer({ sessionId: PROBE_SESSION_ID, content: 'capability probe' });
      return true;
    } catch (error) {
      // Removed: -32601. Any other refusal (no such session) means the method is there.
      return !(error instanceof ZcodeError && error.code === -32601);
    }
  }
}

/**
 * A `_zcode/*` operation the running zcode cannot do: a clear message, never a -32601 leak (the
 * bridge's method exists; zcode lacks what it needs). `data.reason` lets a client tell it apart.
 */
export function unsupportedByZcode(what: string, reason: string, locale: BridgeLocale = 'en'): RequestError {
  // `what` is the caller's English name of the action (a catalogue key, l10nCatalogue.test.ts reads them).
  return new RequestError(-32603, bt(locale, '{0} is not available: {1}', bt(locale, what), reason), { reason: 'unsupportedByZcode' });
}

/**
 * Steer (or another running-turn action) with no turn running: an invalid request for this
 * session's state, never -32000 (which ACP reserves for "authentication required").
 */
export function noRunningTurn(sessionId: string, what = 'steer'): RequestError {
  return new RequestError(-32602, `No prompt is running on session ${sessionId}: ${what} adds instructions to a running turn. Send them as a normal prompt instead.`, {
    reason: 'noRunningTurn',
    sessionId,
  });
}
