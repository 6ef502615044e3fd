/**
 * Fields zcode sends that the bridge does not read, logged ONCE each (unknown variants are
 * logged, never fatal). zcode builds add fields over time (current builds: the full
 * session snapshot, event `eventId` / `timestamp`, …); the boundary schemas pass them through, and
 * this note tells a maintainer what a new build brought without flooding the log.
 */
import * as z from 'zod';
import type { Logger } from '../logger.ts';

/** Envelope fields of `session/event` in either era (seed: sessionId/seq/type/payload; current adds the rest). */
const EVENT_ENVELOPE_KEYS = new Set(['sessionId', 'seq', 'type', 'payload', 'eventId', 'timestamp', 'turnId', 'traceId', 'deliveryKind']);

export class UnknownFields {
  private readonly seen = new Set<string>();

  constructor(private readonly logger: Logger) {}

  /** Top-level keys of a method result that its schema does not declare. */
  noteResult(method: string, raw: unknown, schema: z.ZodType): void {
    if (!(schema instanceof z.ZodObject) || !isRecord(raw)) return;
    const known = new Set(Object.keys(schema.shape as Record<string, unknown>));
    this.note(method, Object.keys(raw).filter((key) => !known.has(key)));
  }

  /** Envelope keys of a `session/event` the bridge does not know. */
  noteEvent(params: unknown): void {
    if (!isRecord(params)) return;
    this.note('session/event', Object.keys(params).filter((key) => !EVENT_ENVELOPE_KEYS.has(key)));
  }

  private note(where: string, keys: readonly string[]): void {
    const fresh = keys.filter((key) => !this.seen.has(`${where} ${key}`));
    if (fresh.length === 0) return;
    for (const key of fresh) this.seen.add(`${where} ${key}`);
    this.logger.debug(`zcode sent field(s) the bridge does not read in ${where}: ${fresh.join(', ')} (kept, ignored)`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
