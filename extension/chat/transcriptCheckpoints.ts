/**
 * "Rewind to here" and "Fork from here" on the transcript's user messages: which message has which
 * checkpoint (`_zcode/session/checkpoints`, mapped by checkpointMap.ts), the rewind or fork itself,
 * and afterwards the transcript reloaded from what zcode now holds (`session/load` replays it).
 *
 * Builds differ (docs/zcode-protocol.md "Build families"): current ones have no `session/rewind`, some list no
 * checkpoints. Such a build's answer (-32601) is remembered per session and shown as the reason in
 * the disabled action's tooltip, instead of failing again on every click.
 */
import { CheckpointsRequest, RewindRequest, type ResultOf } from '../../bridge/acp/extensions/contractDescriptors.ts';
import type { SessionView, UserItem } from '../../webview-ui/viewModel.ts';
import { mapCheckpoints } from './checkpointMap.ts';
import type { ChatEnvironment, ChatHost, ChatSessions } from './chatPorts.ts';
import * as T from './transcript.ts';

export interface CheckpointDeps {
  host: ChatHost;
  sessions: ChatSessions;
  env: ChatEnvironment;
  state(): T.TranscriptState;
  queue(change: T.Change): void;
  showError(error: unknown): void;
}

/** A -32601 from the bridge: the zcode build has no such method. */
function unsupported(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === -32601;
}

/** `checkpointUnavailable` value: the build lists no checkpoints (the webview words it). */
export const NO_CHECKPOINT_LIST = 'noList';

export class TranscriptCheckpoints {
  /** What the build answered -32601 to (a build does not change while the bridge runs). */
  private readonly known: NonNullable<SessionView['checkpointUnavailable']> = {};

  constructor(private readonly deps: CheckpointDeps) {}

  /** Asks zcode for the session's checkpoints and marks each user message that has one. */
  async refresh(sessionId: string): Promise<void> {
    const { host, env } = this.deps;
    let result: ResultOf<typeof CheckpointsRequest>;
    try {
      result = await host.call(CheckpointsRequest, { sessionId });
    } catch (error) {
      env.log('warn', `chat: listing checkpoints failed: ${env.errorMessage(error)}`);
      return;
    }
    const state = this.deps.state();
    if (state.session.sessionId !== sessionId) return;
    const listless = result.latestOnly ? { rewind: NO_CHECKPOINT_LIST, fork: NO_CHECKPOINT_LIST } : {};
    if (result.latestOnly || this.known.rewind || this.known.fork) this.unavailable({ ...listless, ...this.known });
    const users = state.list.items.filter((i): i is UserItem => i.type === 'user');
    const map = mapCheckpoints(users, result.checkpoints ?? []);
    for (const item of users) {
      const checkpointId = map.get(item.id);
      if (item.checkpointId === checkpointId) continue;
      const { checkpointId: _old, ...rest } = item;
      this.deps.queue(T.putItem(state, checkpointId ? { ...rest, checkpointId } : rest));
    }
  }

  /** Rewinds to the message's checkpoint (after confirming), then reloads the transcript. */
  async rewind(itemId: string): Promise<void> {
    const target = this.target(itemId);
    if (!target) return;
    const { env, host, sessions } = this.deps;
    if (env.confirm && !(await env.confirm('rewind'))) return;
    try {
      await host.call(RewindRequest, { sessionId: target.sessionId, checkpointId: target.checkpointId });
    } catch (error) {
      if (unsupported(error)) this.unavailable({ rewind: env.errorMessage(error) });
      return this.deps.showError(error);
    }
    // What zcode now holds: the load replays the shortened history into a fresh transcript.
    await sessions.loadSession(target.sessionId).catch((error: unknown) => this.deps.showError(error));
  }

  /** Forks a new session from the message's checkpoint and shows it. */
  async fork(itemId: string): Promise<void> {
    const target = this.target(itemId);
    if (!target) return;
    try {
      await this.deps.sessions.fork(target.checkpointId);
    } catch (error) {
      if (unsupported(error)) this.unavailable({ fork: this.deps.env.errorMessage(error) });
      this.deps.showError(error);
    }
  }

  private target(itemId: string): { sessionId: string; checkpointId: string } | undefined {
    const state = this.deps.state();
    const item = state.list.items.find((i) => i.id === itemId);
    const sessionId = state.session.sessionId;
    if (item?.type !== 'user' || !item.checkpointId || !sessionId || state.session.running) return undefined;
    return { sessionId, checkpointId: item.checkpointId };
  }

  private unavailable(patch: NonNullable<SessionView['checkpointUnavailable']>): void {
    if (patch.rewind && patch.rewind !== NO_CHECKPOINT_LIST) this.known.rewind = patch.rewind;
    if (patch.fork && patch.fork !== NO_CHECKPOINT_LIST) this.known.fork = patch.fork;
    const state = this.deps.state();
    this.deps.queue(T.patchSession(state, { checkpointUnavailable: { ...state.session.checkpointUnavailable, ...patch } }));
  }
}
