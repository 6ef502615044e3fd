/**
 * v4 helpers for the simulator's self-tests: raw `v4/command` envelopes and queries over a `Sim` (simWire.ts),
 * and the violations a record file holds (the simulator checks every v4 message in and out against its own
 * transcription of zcode's schemas and records a mismatch).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { isEvent, readRecord, Sim, tempDir, type Msg } from './simWire.ts';

export const WS = { workspacePath: '/tmp/ws-v4', workspaceKey: '/tmp/ws-v4' };

/** A simulator of `profile` that records to a fresh file (`record`). */
export function v4Sim(profile = 'desktop-3.15', env: Record<string, string> = {}): { sim: Sim; record: string } {
  const record = join(tempDir(), 'record.jsonl');
  return { sim: new Sim(['--profile', profile], { ZCODE_SIM_RECORD: record, ...env }), record };
}

let counter = 0;
/** A fresh commandId. */
export const newId = (label = 'cmd') => `${label}-${++counter}-${process.pid}`;

/** Send one `v4/command` and return its ACK (the JSON-RPC result). */
export async function command(sim: Sim, sessionId: string | null, type: string, payload: unknown, extra: Record<string, unknown> = {}): Promise<Msg> {
  return sim.result('v4/command', { commandId: newId(type), clientId: 'self-test', sessionId, type, payload, issuedAt: Date.now(), ...extra });
}

/** rowsRange's tail (the CAS values and the rows). */
export async function rows(sim: Sim, sessionId: string, limit = 200): Promise<Msg> {
  return sim.result('v4/conversation/rowsRange', { sessionId, limit });
}

/** CAS fields from a rowsRange result. */
export const cas = (range: Msg) => ({ baseRevision: range.atRevision, baseLogEpoch: range.atLogEpoch });
export const targetOf = (row: Msg) => ({ rowId: row.rowId, entityId: row.entityId });

/** The next turn end of `sessionId` after message index `from`. */
export function turnEnd(sim: Sim, sessionId: string, from: number): Promise<Msg> {
  return sim.next((m) => isEvent(m, sessionId) && ['turn.completed', 'turn.failed'].includes(m.params.type), from);
}

export function event(sim: Sim, sessionId: string, type: string, from: number): Promise<Msg> {
  return sim.next((m) => isEvent(m, sessionId) && m.params.type === type, from);
}

/** A v4 turn: sendText on an idle session, then its end. Returns the ACK and the ending event. */
export async function v4Turn(sim: Sim, sessionId: string, text: string): Promise<{ ack: Msg; end: Msg; from: number }> {
  const from = sim.messages.length;
  const ack = await command(sim, sessionId, 'sendText', { text });
  assert.equal(ack.status, 'accepted', JSON.stringify(ack));
  return { ack, end: await turnEnd(sim, sessionId, from), from };
}

/** Violation texts in the record file (none → []). */
export function violations(record: string): string[] {
  try {
    return readRecord(record).filter((e) => e.violation).map((e) => e.violation);
  } catch {
    return [];
  }
}

/** The simulator sent nothing its own schemas refuse. */
export function assertSentValid(record: string): void {
  assert.deepEqual(violations(record).filter((v) => v.startsWith('zcode-sim sent')), []);
}
