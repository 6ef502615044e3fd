/**
 * What the chat shows of zcode's capabilities: for each of its actions that depends on the running
 * zcode (steer, the rewinds, retry, fork from a reply), why it cannot work, so the webview marks it
 * before the click. Pure: the capabilities come from extension/zcodeFeatures.ts through the
 * chat's environment.
 */
import type { ZcodeCapabilities } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { FeatureUnavailable } from '../../webview-ui/viewModel.ts';
import { blockedReason } from '../zcodeFeatures.ts';

/** What the chat needs of `ZcodeFeatures`. */
export interface ChatFeatures {
  readonly capabilities: ZcodeCapabilities;
  /** Said for an unavailable feature the bridge gave no reason for. */
  readonly noReason: string;
  onDidChange(listener: (capabilities: ZcodeCapabilities) => unknown): { dispose(): unknown };
}

const CHAT_FEATURES = ['steer', 'rewindLatestPrompt', 'rewindWithFiles', 'rewindEarlier', 'fileRewind', 'retryTurn', 'forkAssistant'] as const satisfies readonly (keyof FeatureUnavailable)[];

/** The reasons of the unavailable chat actions (an empty object: everything can be tried); `noReason` stands in for a missing one. */
export function featureUnavailable(capabilities: ZcodeCapabilities, noReason: string): FeatureUnavailable {
  const out: FeatureUnavailable = {};
  for (const feature of CHAT_FEATURES) {
    const reason = blockedReason(capabilities, feature);
    if (reason !== undefined) out[feature] = reason || noReason;
  }
  return out;
}
