/**
 * The ACP core's one doorway into bridge/translate's session translator, so that the core depends
 * on a handful of names (and a change of the translator's API is adapted here, once).
 */
import { createSessionTranslator, translateEvent } from '../translate/sessionTranslator.ts';
import type { SessionTranslatorState, TranslateResult, TurnSignal as TranslatorSignal } from '../translate/sessionTranslator.ts';
import type { ZcodeEvent } from '../zcode/protocol.ts';

export type TranslatorState = SessionTranslatorState;
export type TurnSignal = TranslatorSignal;

/** A translator for a new session runtime. */
export function newTranslator(cwd: string, terminalOutput: boolean): TranslatorState {
  return createSessionTranslator({ cwd, terminalOutput });
}

/**
 * Translate one event. `terminalOutput` is fixed when the translator is created (the merged client
 * capability at that moment); it is passed here only so a future translator can honour changes.
 */
export function translate(state: TranslatorState, event: ZcodeEvent, _terminalOutput: boolean): TranslateResult {
  return translateEvent(state, event);
}
