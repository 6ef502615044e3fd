/**
 * How a new decision card (permission, question form, plan review) treats focus and keys, so that
 * nobody approves something they never saw:
 *   - it takes focus only when the chat already had it and the window is focused
 *     (`document.hasFocus()` is false while the user types in an editor or a terminal), and not
 *     while the user is typing text in the chat (the composer, another form);
 *   - it then focuses its heading, never a decision button: the next Enter decides nothing;
 *   - a key that went down before the card appeared (see keyHistory.ts) does nothing inside it:
 *     its keydown/keyup are swallowed before any button, form or handler of the card sees them.
 */
import { createContext } from 'preact';
import { useContext, useLayoutEffect, useState } from 'preact/hooks';
import { KeyHistory } from '../keyHistory.ts';

/** The page's key history (boot.ts installs one observing the document). */
export const KeyHistoryContext = createContext<KeyHistory>(new KeyHistory());

export interface CardGuard {
  onKeyDownCapture(e: KeyboardEvent): void;
  onKeyUpCapture(e: KeyboardEvent): void;
}

export function useCardFocus(heading: { current: HTMLElement | null }): CardGuard {
  const keys = useContext(KeyHistoryContext);
  const [mountedAt] = useState(() => performance.now());
  useLayoutEffect(() => {
    const el = heading.current;
    const doc = el?.ownerDocument;
    if (!el || !doc?.hasFocus() || isTyping(doc.activeElement)) return;
    el.focus();
  }, []);
  const swallowEarlyKey = (e: KeyboardEvent): void => {
    if (!keys.startedBefore(e, mountedAt)) return;
    e.preventDefault();
    e.stopPropagation();
  };
  return { onKeyDownCapture: swallowEarlyKey, onKeyUpCapture: swallowEarlyKey };
}

/** The user is writing: a text field holding text has focus. */
function isTyping(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement) return el.value !== '';
  if (el instanceof HTMLInputElement) return !['button', 'checkbox', 'radio', 'submit', 'reset'].includes(el.type) && el.value !== '';
  return (el as HTMLElement).isContentEditable === true;
}
