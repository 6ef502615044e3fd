/**
 * A probed v4 build's `ZcodeCapabilities` with every feature available, for tests of what the
 * extension does with them; `overrides` replaces any field.
 */
import type { ZcodeCapabilities } from '../../bridge/acp/extensions/contractDescriptors.ts';

export function allAvailable(overrides: Partial<ZcodeCapabilities> = {}): ZcodeCapabilities {
  const yes = { available: true };
  return {
    probed: true,
    v4: true,
    steer: yes,
    rewindLatestPrompt: yes,
    rewindWithFiles: yes,
    rewindEarlier: yes,
    fileRewind: yes,
    retryTurn: yes,
    rename: yes,
    forkCheckpoint: yes,
    forkAssistant: yes,
    queueEdit: yes,
    modes: [],
    ...overrides,
  };
}
