/**
 * `session/event` notifications, parsed once at the boundary (design.md rule 2).
 *
 * Unknown event types are normal (zcode adds them: resource samples, new lifecycle steps): they
 * are logged at debug and skipped. A KNOWN type whose payload does not match is a real surprise
 * and is logged as a warning, but is skipped too — an event never brings the bridge down.
 */
import type { Logger } from './backend.ts';
import { ZcodeEvent } from './protocol.ts';

export const SESSION_EVENT_METHOD = 'session/event';

/** The `type`s `ZcodeEvent` knows, read from the schema itself so the two never drift. */
const KNOWN_TYPES: ReadonlySet<string> = new Set(ZcodeEvent.options.map((option) => option.shape.type.value));

/** Parse one `session/event` params object; undefined when it is skipped (and logged). */
export function parseZcodeEvent(params: unknown, logger: Logger): ZcodeEvent | undefined {
  const parsed = ZcodeEvent.safeParse(params);
  if (parsed.success) return parsed.data;
  const type = typeof params === 'object' && params !== null ? (params as { type?: unknown }).type : undefined;
  if (typeof type === 'string' && !KNOWN_TYPES.has(type)) {
    logger.debug(`skipping zcode event of unknown type "${type}"`);
  } else {
    logger.warn(`skipping malformed zcode event${typeof type === 'string' ? ` "${type}"` : ''}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return undefined;
}
