/**
 * Golden transcripts: the ACP traffic of one simulator scenario, normalized so that only behaviour
 * changes show up in review — ids, timestamps, durations, process ids and temp paths are replaced
 * by stable placeholders (numbered in order of appearance), and consecutive message chunks of one
 * message are merged (how zcode splits its text into deltas is not behaviour).
 */
import type { AnyMessage } from '@agentclientprotocol/sdk';
import type { TrafficEntry } from './traffic.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Id-like strings: prefix → placeholder name. Order matters (longer prefixes first). */
// `(?<![0-9A-Za-z])` instead of `\b`: ids are also embedded after an underscore (`bg_agent_…`).
const ID_PATTERNS: Array<[RegExp, string]> = [
  [/(?<![0-9A-Za-z])lazy_[0-9a-f-]{36}\b/g, 'session'],
  [/(?<![0-9A-Za-z])sess_[0-9a-f]+\b/g, 'zsession'],
  [/(?<![0-9A-Za-z])msg_[0-9a-f]+\b/g, 'msg'],
  [/(?<![0-9A-Za-z])call_[0-9a-f]+\b/g, 'call'],
  [/(?<![0-9A-Za-z])agent_[0-9a-f-]{36}\b/g, 'agent'],
  [/(?<![0-9A-Za-z])exec_[0-9a-f-]{36}\b/g, 'exec'],
  [/(?<![0-9A-Za-z])turn_[0-9a-f-]{36}\b/g, 'turn'],
  [/(?<![0-9A-Za-z])ckpt_[0-9a-f]+\b/g, 'ckpt'],
  [/(?<![0-9A-Za-z])(?:perm|input)_[0-9a-f]+\b/g, 'request'],
  [/(?<![0-9A-Za-z])trace_[0-9a-f]+\b/g, 'trace'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, 'uuid'],
];
/** Keys whose values vary between runs, or between transports (`sentBy`: the connection that sent a prompt). */
const VOLATILE_KEYS = new Set(['durationMs', 'startedAt', 'updatedAt', 'createdAt', 'pid', 'sentBy']);

export class Normalizer {
  private readonly names = new Map<string, string>();
  private readonly counters = new Map<string, number>();

  constructor(private readonly paths: Array<[string, string]> = []) {}

  /** Replace id-like substrings and temp paths in a string. */
  string(value: string): string {
    let out = value;
    for (const [path, name] of this.paths) out = out.split(path).join(name);
    for (const [pattern, kind] of ID_PATTERNS) out = out.replace(pattern, (id) => this.name(kind, id));
    return out;
  }

  value(value: unknown, key?: string): Json {
    if (key !== undefined && VOLATILE_KEYS.has(key) && value !== null && value !== undefined) return `<${key}>`;
    if (typeof value === 'string') return this.string(value);
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (typeof value === 'object' && value !== undefined) {
      const out: { [key: string]: Json } = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) out[this.string(k)] = this.value(v, k);
      return out;
    }
    return null;
  }

  private name(kind: string, id: string): string {
    const key = `${kind}:${id}`;
    let name = this.names.get(key);
    if (!name) {
      const n = (this.counters.get(kind) ?? 0) + 1;
      this.counters.set(kind, n);
      name = `<${kind}-${n}>`;
      this.names.set(key, name);
    }
    return name;
  }
}

interface ChunkKey {
  sessionId: string;
  kind: string;
  messageId: string | undefined;
  meta: string;
}

function chunkOf(msg: AnyMessage): ChunkKey | undefined {
  if (!('method' in msg) || msg.method !== 'session/update' || 'id' in msg) return undefined;
  const params = msg.params as { sessionId: string; update: { sessionUpdate: string; messageId?: string; content?: { type?: string }; _meta?: unknown } };
  const u = params.update;
  if ((u.sessionUpdate !== 'agent_message_chunk' && u.sessionUpdate !== 'agent_thought_chunk') || u.content?.type !== 'text') return undefined;
  return { sessionId: params.sessionId, kind: u.sessionUpdate, messageId: u.messageId, meta: JSON.stringify(u._meta ?? null) };
}

/** Merge runs of text chunks of the same message (same session, kind, message id and _meta). */
export function mergeChunks(entries: readonly TrafficEntry[]): TrafficEntry[] {
  const out: TrafficEntry[] = [];
  let last: { key: ChunkKey; entry: TrafficEntry } | undefined;
  for (const entry of entries) {
    const key = entry.dir === 'out' ? chunkOf(entry.msg) : undefined;
    if (key && last && JSON.stringify(last.key) === JSON.stringify(key)) {
      const target = (last.entry.msg as { params: { update: { content: { text: string } } } }).params.update.content;
      const source = (entry.msg as { params: { update: { content: { text: string } } } }).params.update.content;
      target.text += source.text;
      continue;
    }
    const copy = structuredClone(entry);
    out.push(copy);
    last = key ? { key, entry: copy } : undefined;
  }
  return out;
}

/** The transcript lines: `{"dir":"→bridge"|"←bridge", ...message without jsonrpc}`. */
export function transcript(entries: readonly TrafficEntry[], normalizer = new Normalizer()): string[] {
  return mergeChunks(entries).map(({ dir, msg }) => {
    const { jsonrpc: _drop, ...rest } = msg as AnyMessage & { jsonrpc?: string };
    return JSON.stringify({ dir: dir === 'in' ? 'client→bridge' : 'bridge→client', ...(normalizer.value(rest) as Record<string, Json>) });
  });
}
