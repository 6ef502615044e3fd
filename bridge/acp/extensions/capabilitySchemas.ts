/**
 * What the running zcode can do, as the bridge reports it (`_zcode/agent/capabilities` and its
 * change notification; capabilities.ts learns it): zod schemas.
 */
import * as z from 'zod';

export const CapabilitiesParams = z.object({});
export type CapabilitiesParams = z.infer<typeof CapabilitiesParams>;

/**
 * One feature's availability on the zcode the bridge runs. `reason` says, in the user's words, why
 * it is unavailable (shown before the click: a disabled action's tooltip, a palette message).
 */
export const FeatureAvailability = z.object({ available: z.boolean(), reason: z.string().optional() });
export type FeatureAvailability = z.infer<typeof FeatureAvailability>;

/**
 * What the running zcode supports, learned by probing it once per spawned process (its `v4/*`
 * command surface answers or is missing) plus what the legacy methods told. Before zcode has been
 * started `probed` is false and every feature is reported with the reason "not known yet".
 */
export const ZcodeCapabilities = z.object({
  probed: z.boolean(),
  /** zcode's `--version` as printed, when known (informational only: behaviour is probed). */
  zcodeVersion: z.string().optional(),
  /** The `v4/command` surface answers. */
  v4: z.boolean(),
  /** Add instructions to the running turn. */
  steer: FeatureAvailability,
  /**
   * Ask the latest prompt again in place, optionally edited, keeping the files as they are
   * (`rewindTo`; the checkpoint rewind of seed builds is `_zcode/session/rewind`, not described here).
   */
  rewindLatestPrompt: FeatureAvailability,
  /** Same, and restore the files that turn changed. */
  rewindWithFiles: FeatureAvailability,
  /** Go back to an earlier message: a new session forked at its checkpoint (the original is kept). */
  rewindEarlier: FeatureAvailability,
  /** Undo one turn's file changes, keeping the conversation. */
  fileRewind: FeatureAvailability,
  /** Retry a failed turn without repeating the user's message in zcode's history. */
  retryTurn: FeatureAvailability,
  /** Rename a session in zcode itself (every client and the desktop app see the title). */
  rename: FeatureAvailability,
  /** Fork at a checkpoint (conversation and workspace). */
  forkCheckpoint: FeatureAvailability,
  /** Fork from an assistant reply (conversation only, works while the parent runs). */
  forkAssistant: FeatureAvailability,
  /** Edit or remove a prompt queued behind the running turn. */
  queueEdit: FeatureAvailability,
  /** The collaboration modes this build accepts, in zcode's own ids. */
  modes: z.array(z.string()),
});
export type ZcodeCapabilities = z.infer<typeof ZcodeCapabilities>;
