/** When the chat notifies, and what a notification says of a turn (pure: see chatAttention.ts). */

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
