import { useEffect } from 'preact/hooks';

/** Focus the first control of a new form, unless the user is typing somewhere else. */
export function useInitialFocus(ref: { current: HTMLElement | null }): void {
  useEffect(() => {
    const active = ref.current?.ownerDocument.activeElement;
    if (active && active !== ref.current?.ownerDocument.body) return;
    ref.current?.querySelector<HTMLElement>('select, input, textarea, button')?.focus();
  }, []);
}
