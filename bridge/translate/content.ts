/**
 * Small content helpers shared by the live translator and the replay: turning zcode's loosely
 * typed tool results into text, fencing output, parsing sub-agent result metadata, and the
 * sliding-window arithmetic for zcode's cumulative output tails.
 */
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import { asRecord } from './toolInfo.ts';

/** A text block as tool call content. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** `text` in a markdown fence long enough not to be closed by backticks inside it. */
export function fenced(text: string, info = ''): string {
  const longestRun = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${fence}${info}\n${body}${fence}`;
}

/**
 * The text of a tool result's content. zcode sends a string, an array of MCP-style blocks
 * (`{type:"text", text}`), or an object; blocks without text and other objects are rendered as JSON.
 */
export function resultText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (typeof content === 'number' || typeof content === 'boolean') return String(content);
  if (Array.isArray(content)) return content.map(resultText).filter((t) => t !== '').join('\n');
  const record = asRecord(content);
  for (const key of ['text', 'output', 'content', 'message']) {
    const value = record[key];
    if (typeof value === 'string') return value;
    if (key === 'content' && Array.isArray(value)) return resultText(value);
  }
  return JSON.stringify(content, null, 2);
}

/** The text of an error value (`"msg"`, `{message}`, `Error`, anything else as JSON). */
export function errorText(error: unknown): string {
  if (error === undefined || error === null) return '';
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  const record = asRecord(error);
  if (typeof record.message === 'string') return record.message;
  return resultText(error);
}

/** Sub-agent statistics carried by an Agent result (the reference bridge's `_meta.subagent`). */
export interface SubagentMeta {
  agentId?: string;
  tokens?: number;
  toolUses?: number;
  durationMs?: number;
}

/**
 * Parse `agentId: …` and the `<usage>` block (`total_tokens`, `tool_uses`, `duration_ms`) from an
 * Agent result. Undefined when the text carries neither.
 */
export function parseSubagentResult(text: string): SubagentMeta | undefined {
  const meta: SubagentMeta = {};
  const agent = /agentId["']?\s*[:=]\s*["']?([\w.:-]+)/.exec(text);
  if (agent) meta.agentId = agent[1];
  const usage = /<usage>([\s\S]*?)<\/usage>/.exec(text)?.[1];
  if (usage !== undefined) {
    const num = (key: string): number | undefined => {
      const m = new RegExp(`${key}["']?\\s*[:=]\\s*(\\d+)`).exec(usage);
      return m ? Number(m[1]) : undefined;
    };
    const tokens = num('total_tokens');
    const toolUses = num('tool_uses');
    const durationMs = num('duration_ms');
    if (tokens !== undefined) meta.tokens = tokens;
    if (toolUses !== undefined) meta.toolUses = toolUses;
    if (durationMs !== undefined) meta.durationMs = durationMs;
  }
  return Object.keys(meta).length > 0 ? meta : undefined;
}

// ---------------------------------------------------------------------------------------------
// Cumulative tails
// ---------------------------------------------------------------------------------------------

/**
 * Length of the longest suffix of `a` that is a prefix of `b` (KMP, linear in the lengths).
 * E.g. overlap("hello wor", "world") = 3.
 */
export function suffixPrefixOverlap(a: string, b: string): number {
  if (a === '' || b === '') return 0;
  const pi = new Int32Array(b.length);
  for (let i = 1, k = 0; i < b.length; i++) {
    while (k > 0 && b.charCodeAt(i) !== b.charCodeAt(k)) k = pi[k - 1];
    if (b.charCodeAt(i) === b.charCodeAt(k)) k++;
    pi[i] = k;
  }
  let q = 0;
  for (let i = Math.max(0, a.length - b.length); i < a.length; i++) {
    const c = a.charCodeAt(i);
    while (q > 0 && (q === b.length || b.charCodeAt(q) !== c)) q = pi[q - 1];
    if (q < b.length && b.charCodeAt(q) === c) q++;
  }
  return q;
}

/**
 * An overlap shorter than this (when both strings are at least this long) is treated as chance,
 * not as a sliding window: a one-character "overlap" between a newline at the end of the old tail
 * and one at the start of an unrelated new tail must not eat that newline.
 */
const MIN_TAIL_OVERLAP = 8;

/**
 * The new data in a cumulative tail. zcode's `stdoutTail`/`stderrTail`/`outputTail` are the whole
 * output so far, or a window of its end once it grows. Rules, in order:
 * 1. unchanged → "";
 * 2. `next` extends `prev` → the appended suffix;
 * 3. the window slid: the longest suffix of `prev` that starts `next` is dropped from `next`
 *    (if it is at least `MIN_TAIL_OVERLAP` long, or as long as one of the strings);
 * 4. otherwise (output restarted / unrelated) → `next` whole.
 */
export function tailDelta(prev: string, next: string): string {
  if (next === prev) return '';
  if (next.startsWith(prev)) return next.slice(prev.length);
  const overlap = suffixPrefixOverlap(prev, next);
  if (overlap > 0 && overlap >= Math.min(MIN_TAIL_OVERLAP, prev.length, next.length)) return next.slice(overlap);
  return next;
}

/**
 * What a final text (a Bash result, a background task's final `outputTail`) adds to output that was
 * already streamed, whose latest cumulative tail is `streamedTail`:
 * - nothing streamed → the whole text;
 * - the text contains the streamed tail → what follows its last occurrence;
 * - the streamed tail ends with the start of the text (a later window) → the rest;
 * - no relation → "" (never duplicate output the user has already seen).
 */
export function unsentRemainder(streamedTail: string, text: string): string {
  if (streamedTail === '') return text;
  const at = text.lastIndexOf(streamedTail);
  if (at >= 0) return text.slice(at + streamedTail.length);
  const overlap = suffixPrefixOverlap(streamedTail, text);
  if (overlap > 0 && overlap >= Math.min(MIN_TAIL_OVERLAP, streamedTail.length, text.length)) return text.slice(overlap);
  return '';
}
