/** A `ChatActions` that records every call (a fake, not a mock: no canned answers). */
import type { ChatActions } from '../../../webview-ui/actions.ts';
import type { MentionCandidate } from '../../../webview-ui/contract.ts';

export type Call = { name: keyof ChatActions; args: unknown[] };

/** `mentions` plays the host's search for the `@` picker (default: nothing matches). */
export function recordingActions(mentions: (query: string) => MentionCandidate[] = () => []): ChatActions & { calls: Call[] } {
  const calls: Call[] = [];
  const rec =
    (name: keyof ChatActions) =>
    (...args: unknown[]): void => {
      calls.push({ name, args });
    };
  return {
    calls,
    sendPrompt: rec('sendPrompt'),
    steer: rec('steer'),
    removeQueued: rec('removeQueued'),
    cancelTurn: rec('cancelTurn'),
    retry: rec('retry'),
    errorAction: rec('errorAction'),
    setupAction: rec('setupAction'),
    answerPermission: rec('answerPermission'),
    answerElicitation: rec('answerElicitation'),
    openDiff: rec('openDiff'),
    openLocation: rec('openLocation'),
    copyText: rec('copyText'),
    copyTranscript: rec('copyTranscript'),
    setConfigOption: rec('setConfigOption'),
    newSession: rec('newSession'),
    prepareSession: rec('prepareSession'),
    loadSession: rec('loadSession'),
    forkSession: rec('forkSession'),
    cancelBackgroundTask: rec('cancelBackgroundTask'),
    loadEarlierHistory: rec('loadEarlierHistory'),
    reviewChanges: rec('reviewChanges'),
    undoChanges: rec('undoChanges'),
    rewindTo: rec('rewindTo'),
    forkFrom: rec('forkFrom'),
    rewindMessage: rec('rewindMessage'),
    removeSteer: rec('removeSteer'),
    listSessions: async () => {
      calls.push({ name: 'listSessions', args: [] });
      return [];
    },
    attachContext: async (source) => {
      calls.push({ name: 'attachContext', args: [source] });
      return [];
    },
    searchMentions: async (query) => {
      calls.push({ name: 'searchMentions', args: [query] });
      return mentions(query);
    },
  };
}
