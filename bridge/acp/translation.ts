/**
 * The ACP core's way into bridge/translate's session translator, so that the core (sessionTable.ts,
 * sessionEvents.ts, context.ts, signals.ts, turnState.ts) depends on a handful of names (and a change
 * of the translator's API is adapted here, once). Not the only way in: sessionOperations.ts
 * (background-task lists and cancellations) and interactionRouter.ts (noting and settling
 * interactions) import sessionTranslator.ts directly, for what only they do.
 */
import { createSessionTranslator, translateEvent } from '../translate/sessionTranslator.ts';
import type { SessionTranslatorState, TranslateResult, TurnSignal as TranslatorSignal } from '../translate/sessionTranslator.ts';
import type { ZcodeEvent } from '../zcode/protocol.ts';
import type { BridgeLocale } from '../l10n/messages.ts';

export type TranslatorState = SessionTranslatorState;
export type TurnSignal = TranslatorSignal;

/** A translator for a new session runtime. */
export function newTranslator(cwd: string, terminalOutput: boolean, locale: BridgeLocale = 'en'): TranslatorState {
  return createSessionTranslator({ cwd, terminalOutput, locale });
}

/** Translate one event (the shell rendering mode is the state's `terminalOutput`, see below). */
export function translate(state: TranslatorState, event: ZcodeEvent): TranslateResult {
  return translateEvent(state, event);
}

/**
 * Switch how the translator renders shell cards (the merged client capability changed: a client
 * advertising `_meta.terminal_output` connected, or the last one left). Cards announced after this
 * use the new form; a card already open keeps the form it was announced with until it closes (a
 * terminal card cannot turn into text content half-way, nor the reverse), so a client that joins
 * during a long command sees that card's output only in the form it was opened with.
 */
export function setTerminalOutput(state: TranslatorState, terminalOutput: boolean): void {
  state.terminalOutput = terminalOutput;
}
