/**
 * Which collaboration modes the running zcode build takes: the one place the bridge keeps that fact.
 *
 * zcode's snapshots never list the modes (`settings.mode` is `{current}` only), so the bridge learns
 * them from the build itself: every build takes plan, build, edit and yolo; desktop 3.15 added
 * `guarded` to its strict mode enum. The model-list draft (acp/sessions/modelDraft.ts) asks for `guarded`
 * when it creates its throwaway session: accepted means the build has it, a -32602 about `mode`
 * means it has not. Until then the build's modes are unknown and the four base modes are offered.
 *
 * Readers: the mode picker (acp/sessions/sessionTable.ts → translate/config.ts) and anything that reports what
 * the build supports. Reset when zcode exits: the next process may be another build.
 */

/** The modes every build the bridge supports takes (seed builds and current ones alike). */
export const BASE_MODES: readonly string[] = ['plan', 'build', 'edit', 'yolo'];

/** The mode desktop 3.15 added (source: zcodeSessionModeSchema in zcode's legacy protocol types). */
export const GUARDED_MODE = 'guarded';

export class BuildModes {
  private guarded: boolean | undefined;

  /** The modes this build takes, in zcode's ids, or undefined while nothing was learned. */
  get known(): readonly string[] | undefined {
    if (this.guarded === undefined) return undefined;
    return this.guarded ? [...BASE_MODES, GUARDED_MODE] : BASE_MODES;
  }

  /** The modes to offer: the known ones, else the base four. */
  get offered(): readonly string[] {
    return this.known ?? BASE_MODES;
  }

  /** Whether it is still unknown if the build has `guarded` (the draft then asks). */
  get guardedUnknown(): boolean {
    return this.guarded === undefined;
  }

  /** The build answered a create with `mode: "guarded"`: accepted, or refused the value. */
  learnGuarded(has: boolean): void {
    this.guarded = has;
  }

  /** zcode exited: what the next process takes is learned again. */
  forget(): void {
    this.guarded = undefined;
  }
}
