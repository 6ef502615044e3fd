/**
 * What the views can ask of the host. Components get it from `ActionsContext`; `hostActions`
 * implements it over the contract; tests pass a recording fake.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { CreateElicitationResponse } from '@agentclientprotocol/sdk';
import {
  AnswerElicitationCommand,
  AnswerPermissionCommand,
  AttachContextRequest,
  CancelBackgroundTaskCommand,
  LoadEarlierCommand,
  CancelTurnCommand,
  CopyTextCommand,
  CopyTranscriptCommand,
  ForkSessionCommand,
  ListSessionsRequest,
  LoadSessionCommand,
  NewSessionCommand,
  PrepareSessionCommand,
  OpenDiffCommand,
  OpenLocationCommand,
  RemoveQueuedCommand,
  RemoveSteerCommand,
  RetryCommand,
  ErrorActionCommand,
  SetupActionCommand,
  RewindMessageCommand,
  ReviewChangesCommand,
  RewindToCommand,
  ForkFromCommand,
  UndoChangesCommand,
  SearchMentionsRequest,
  SendPromptCommand,
  SetConfigOptionCommand,
  SteerCommand,
  type MentionCandidate,
  type SessionSummary,
} from './contract.ts';
import type { Attachment, ErrorAction } from './viewModel.ts';
import type { HostChannel } from './ipc.ts';

export interface ChatActions {
  sendPrompt(text: string, attachments: Attachment[]): void;
  steer(text: string): void;
  /** Drop the deferred steer before it starts as the next turn. */
  removeSteer(): void;
  removeQueued(id: string): void;
  cancelTurn(): void;
  retry(itemId: string): void;
  /** A way out of "zcode was not found". */
  setupAction(action: 'locate' | 'openSettings' | 'install'): void;
  /** An error line's action other than Retry. */
  errorAction(action: Exclude<ErrorAction, 'retry'>): void;
  answerPermission(id: string, optionId: string | undefined): void;
  answerElicitation(id: string, response: CreateElicitationResponse): void;
  openDiff(toolCallId: string, index: number): void;
  openLocation(path: string, line?: number): void;
  copyText(text: string): void;
  /** The whole conversation as markdown to the clipboard. */
  copyTranscript(): void;
  setConfigOption(configId: string, value: string | boolean): void;
  newSession(): void;
  /** Make the session the first prompt would (a `/` was typed before it): its menu arrives. */
  prepareSession(): void;
  loadSession(sessionId: string): void;
  forkSession(): void;
  cancelBackgroundTask(taskId: string): void;
  /** The page of history before the first item (the bridge replayed only the tail). */
  loadEarlierHistory(): void;
  listSessions(): Promise<SessionSummary[]>;
  /** The multi-file diff of a turn's changes (or one file of it). */
  reviewChanges(changeSetId: string, path?: string): void;
  /** Undo a turn's changes to one file, or all of them. */
  undoChanges(changeSetId: string, path?: string): void;
  /** Rewind to a user message's checkpoint / fork from it. */
  rewindTo(itemId: string): void;
  forkFrom(itemId: string): void;
  /** zcode's own rewind at a user message: ask the latest prompt again, or undo its turn's file changes. */
  rewindMessage(itemId: string, action: 'askAgain' | 'filesOnly'): void;
  attachContext(source: 'selection' | 'activeFile' | 'pickFiles'): Promise<Attachment[]>;
  /** The `@` picker's candidates for `query`. */
  searchMentions(query: string): Promise<MentionCandidate[]>;
}

export function hostActions(channel: HostChannel): ChatActions {
  return {
    sendPrompt: (text, attachments) => channel.send(SendPromptCommand, { text, attachments }),
    steer: (text) => channel.send(SteerCommand, { text }),
    removeSteer: () => channel.send(RemoveSteerCommand, {}),
    removeQueued: (id) => channel.send(RemoveQueuedCommand, { id }),
    cancelTurn: () => channel.send(CancelTurnCommand, {}),
    retry: (itemId) => channel.send(RetryCommand, { itemId }),
    errorAction: (action) => channel.send(ErrorActionCommand, { action }),
    setupAction: (action) => channel.send(SetupActionCommand, { action }),
    answerPermission: (id, optionId) => channel.send(AnswerPermissionCommand, optionId ? { id, optionId } : { id, cancelled: true }),
    answerElicitation: (id, response) => channel.send(AnswerElicitationCommand, { id, response }),
    openDiff: (toolCallId, index) => channel.send(OpenDiffCommand, { toolCallId, index }),
    openLocation: (path, line) => channel.send(OpenLocationCommand, line ? { path, line } : { path }),
    copyText: (text) => channel.send(CopyTextCommand, { text }),
    copyTranscript: () => channel.send(CopyTranscriptCommand, {}),
    setConfigOption: (configId, value) => channel.send(SetConfigOptionCommand, { configId, value }),
    newSession: () => channel.send(NewSessionCommand, {}),
    prepareSession: () => channel.send(PrepareSessionCommand, {}),
    loadSession: (sessionId) => channel.send(LoadSessionCommand, { sessionId }),
    forkSession: () => channel.send(ForkSessionCommand, {}),
    cancelBackgroundTask: (taskId) => channel.send(CancelBackgroundTaskCommand, { taskId }),
    loadEarlierHistory: () => channel.send(LoadEarlierCommand, {}),
    listSessions: async () => (await channel.request(ListSessionsRequest, {})).sessions,
    reviewChanges: (changeSetId, path) => channel.send(ReviewChangesCommand, path ? { changeSetId, path } : { changeSetId }),
    undoChanges: (changeSetId, path) => channel.send(UndoChangesCommand, path ? { changeSetId, path } : { changeSetId }),
    rewindTo: (itemId) => channel.send(RewindToCommand, { itemId }),
    forkFrom: (itemId) => channel.send(ForkFromCommand, { itemId }),
    rewindMessage: (itemId, action) => channel.send(RewindMessageCommand, { itemId, action }),
    attachContext: async (source) => (await channel.request(AttachContextRequest, { source }, 120_000)).attachments,
    searchMentions: async (query) => (await channel.request(SearchMentionsRequest, { query })).candidates,
  };
}

/** Does nothing: the default when no provider is mounted. */
const noopActions: ChatActions = {
  sendPrompt() {},
  steer() {},
  removeSteer() {},
  removeQueued() {},
  cancelTurn() {},
  retry() {},
  errorAction() {},
  setupAction() {},
  answerPermission() {},
  answerElicitation() {},
  openDiff() {},
  openLocation() {},
  copyText() {},
  copyTranscript() {},
  setConfigOption() {},
  newSession() {},
  prepareSession() {},
  loadSession() {},
  forkSession() {},
  cancelBackgroundTask() {},
  loadEarlierHistory() {},
  listSessions: async () => [],
  reviewChanges() {},
  undoChanges() {},
  rewindTo() {},
  forkFrom() {},
  rewindMessage() {},
  attachContext: async () => [],
  searchMentions: async () => [],
};

export const ActionsContext = createContext<ChatActions>(noopActions);

export function useActions(): ChatActions {
  return useContext(ActionsContext);
}
