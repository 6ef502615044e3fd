/**
 * Shared helpers for the translate tests: literal zcode events parsed through the real wire schema,
 * and a feeder that validates every produced session update against the ACP JSON schema.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { ZcodeEvent } from '../../../../bridge/zcode/protocol.ts';
import { createSessionTranslator, translateEvent, type SessionTranslatorState, type TurnSignal } from '../../../../bridge/translate/sessionTranslator.ts';
import { assertValidSessionUpdates } from '../../../helpers/acpSchema.ts';

export const CWD = '/work/proj';
export const SESSION = 'sess_1';

let seq = 0;

/** A zcode `session/event`, parsed exactly as the backend client parses it. */
export function ev(type: string, payload: unknown): ZcodeEvent {
  return ZcodeEvent.parse({ sessionId: SESSION, seq: ++seq, type, payload });
}

/** A translator with deterministic message ids (`msg_1`, `msg_2`, …). */
export function translator(terminalOutput: boolean, extra: { contextWindow?: number } = {}): SessionTranslatorState {
  let n = 0;
  return createSessionTranslator({ cwd: CWD, terminalOutput, newId: () => `msg_${++n}`, ...extra });
}

/** Feed events; every update is schema-validated. */
export function feed(state: SessionTranslatorState, events: ZcodeEvent[]): { updates: SessionUpdate[]; signals: TurnSignal[] } {
  const updates: SessionUpdate[] = [];
  const signals: TurnSignal[] = [];
  for (const event of events) {
    const result = translateEvent(state, event);
    assertValidSessionUpdates(result.updates, SESSION);
    updates.push(...result.updates);
    signals.push(...result.signals);
  }
  return { updates, signals };
}

/** Updates only (schema-validated). */
export function updatesOf(state: SessionTranslatorState, events: ZcodeEvent[]): SessionUpdate[] {
  return feed(state, events).updates;
}
