/**
 * When each key that is down now went down, so that a decision card can refuse a key press that
 * began before the card appeared (an Enter meant for the editor, a held Space, a key repeating).
 *
 * Times are `event.timeStamp` (the same clock as `performance.now()`). A key whose start this page
 * never saw (it went down while another frame had focus, then focus arrived) counts as started
 * at `-Infinity`: before any card.
 */
export class KeyHistory {
  private readonly down = new Map<string, number>();
  /** The key released by the keyup being dispatched now (its entry is gone from `down`). */
  private released: { code: string; start: number } | undefined;

  /** Records key presses of `doc` (capture phase, so nothing inside can hide them); returns the undo. */
  observe(doc: Document): () => void {
    const onDown = (e: KeyboardEvent): void => {
      const code = keyCode(e);
      if (!this.down.has(code)) this.down.set(code, e.repeat ? -Infinity : e.timeStamp);
    };
    const onUp = (e: KeyboardEvent): void => {
      const code = keyCode(e);
      this.released = { code, start: this.down.get(code) ?? -Infinity };
      this.down.delete(code);
    };
    // Keys released while the page had no focus never send their keyup here.
    const onBlur = (): void => this.down.clear();
    const win = doc.defaultView;
    doc.addEventListener('keydown', onDown, true);
    doc.addEventListener('keyup', onUp, true);
    win?.addEventListener('blur', onBlur);
    return () => {
      doc.removeEventListener('keydown', onDown, true);
      doc.removeEventListener('keyup', onUp, true);
      win?.removeEventListener('blur', onBlur);
      this.down.clear();
    };
  }

  /** When the key of `e` (a keydown or keyup) went down. */
  startOf(e: KeyboardEvent): number {
    const code = keyCode(e);
    if (e.type === 'keyup') return this.released?.code === code ? this.released.start : -Infinity;
    return this.down.get(code) ?? (e.repeat ? -Infinity : e.timeStamp);
  }

  /** True when the key of `e` went down before `time`. */
  startedBefore(e: KeyboardEvent, time: number): boolean {
    return this.startOf(e) < time;
  }
}

const keyCode = (e: KeyboardEvent): string => e.code || e.key;
