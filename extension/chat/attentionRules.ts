/**
 * When the chat notifies, and what a notification says of a turn (pure: see chatAttention.ts).
 * Also what it still owes: a request kept quiet because the chat looked visible, told once the
 * chat is seen to hide while the request still waits (AttentionMemory).
 */
import type { ChatAttentionEvent } from './chatPorts.ts';

/** `zcode.notifications`. */
export type NotificationsSetting = 'off' | 'whenHidden' | 'always';

const SUMMARY_LENGTH = 140;

/** First line of `text`, shortened: the body of a notification. */
export function summaryLine(text: string, max = SUMMARY_LENGTH): string {
  const line = text.replace(/[#>*_`]/g, '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Whether `event` deserves a notification now. */
export function shouldNotify(setting: NotificationsSetting, chatVisible: boolean, windowFocused: boolean): boolean {
  if (setting === 'off') return false;
  if (setting === 'always') return true;
  return !chatVisible || !windowFocused;
}

/** What the extension believes of the chat when an event arrives. */
export interface AttentionContext {
  setting: NotificationsSetting;
  chatVisible: boolean;
  windowFocused: boolean;
}

type Request = Extract<ChatAttentionEvent, { kind: 'needsInput' }>;

/**
 * The extension learns that the user left the chat after the workbench has already switched: the
 * view's `visible` changes (onDidChangeVisibility) some time after the side bar shows another view.
 * A request arriving in that gap is judged "on screen" and kept quiet, and nothing would tell it
 * later. So a quiet request is held, and told when the chat is seen to hide, once, while it still
 * waits (no answer or withdrawal since); the user using the chat (its keyboard focus) settles it.
 * A turn's end is not held: it waits for nothing, and told on a later hide it would mostly be stale
 * news of a turn the user watched end before moving on.
 * One instance per chat; its owner feeds it every event and signal in the order they happen.
 */
export class AttentionMemory {
  private held: Request | undefined;
  private pending = 0;

  /** `event` happened: whether to notify now (if not, a request may be owed when the chat hides). */
  arrived(event: ChatAttentionEvent, context: AttentionContext): boolean {
    const now = shouldNotify(context.setting, context.chatVisible, context.windowFocused);
    // The newest request is the one to name; one told now is owed no more. A turn's end, told or
    // not, leaves a held request as it is.
    if (event.kind === 'needsInput') this.held = now || context.setting === 'off' ? undefined : event;
    return now;
  }

  /**
   * The number of requests waiting changed. A drop means one was answered or withdrawn: a held
   * request is then no longer owed (the count cannot say which one went; the badge counts the rest).
   */
  pendingChanged(count: number): void {
    if (count < this.pending) this.held = undefined;
    this.pending = count;
  }

  /** The user is in the chat (its webview took the keyboard): they have seen what it shows. */
  chatSeen(): void {
    this.held = undefined;
  }

  /** The chat was hidden: the request to notify now, if one is owed (at most once). */
  chatHidden(setting: NotificationsSetting): Request | undefined {
    const owed = this.held;
    this.held = undefined;
    return owed && setting !== 'off' && this.pending > 0 ? owed : undefined;
  }
}
