// Param checking shared by the method handlers. Wrong or missing params are the client's fault: -32602 plus
// a violation record (badParams). Session lookups and busy/eviction answers live here too.
import { SimError, badParams, isObject } from './util.mjs';
import { unknownSessionCode, unknownSessionMessage } from './acpCases.mjs';

export function paramsOf(p) {
  if (!isObject(p)) throw badParams('params must be an object');
  return p;
}
export function str(p, key) {
  if (typeof p[key] !== 'string' || p[key] === '') throw badParams(`"${key}" must be a non-empty string`);
  return p[key];
}
export function opt(p, key, type) {
  if (p[key] !== undefined && typeof p[key] !== type) throw badParams(`"${key}" must be a ${type}`);
  return p[key];
}
export function oneOf(p, key, values) {
  const v = str(p, key);
  if (!values.includes(v)) throw badParams(`"${key}" must be one of ${values.join(', ')} (got ${JSON.stringify(v)})`);
  return v;
}

/** The session named by params.sessionId; an unknown id is an error but not a shape violation. */
export function sessionOf(sv, p) {
  const id = str(p, 'sessionId');
  const session = sv.store.get(id);
  if (!session) throw new SimError(unknownSessionCode(sv), unknownSessionCode(sv) === -32004 ? `session not active: ${id}` : unknownSessionMessage(sv, id));
  return session;
}

/** Busy answer: 1308 "prompt is running" (quirk `busy-32010`: -32010). */
export function busyError(sv) {
  return sv.quirks.has('busy-32010') ? new SimError(-32010, 'a prompt is already running') : new SimError(1308, 'prompt is running');
}

/** send/read on an inactive session: -32004 (quirk `evict-once` evicts each session once). */
export function requireActive(sv, session) {
  if (sv.quirks.has('evict-once') && !session.flags.evictOnce) {
    session.flags.evictOnce = true;
    session.active = false;
  }
  if (!session.active) throw new SimError(-32004, `session not active: ${session.sessionId}`);
}

