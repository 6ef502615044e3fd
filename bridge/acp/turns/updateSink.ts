/**
 * Where a session's updates leave the bridge. Consecutive text chunks of one message are merged
 * while zcode delivers a burst, so thousands of one-word deltas read in one go become a few
 * `session/update`s instead of thousands (each costs a JSON-RPC message, a write, and two schema
 * parses in the client's SDK).
 *
 * What must stay true, and the state that keeps it:
 * - Order: any other update (tool card, plan, usage …) first sends the pending text. Callers flush
 *   before anything that does not go through here (turn end, requests, extension notifications).
 * - Latency: text is held only within a burst. The owner flushes when zcode's reader has delivered
 *   everything it read (`ZcodeBackend.onDidDrainEvents`; the reader also stops every 64 KiB of a
 *   long burst, bridge/zcode/lineReader.ts), and at once for updates that do not come from zcode's
 *   events (sessionTable.ts `emit`). No timer decides when text goes out.
 * - Size: a chunk never holds more than MAX_TEXT.
 * - Merging never crosses a message (`messageId`), a kind (message vs thought) or `_meta`.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';

/** Most text held in one chunk. */
const MAX_TEXT = 64 * 1024;

type TextChunk = Extract<SessionUpdate, { sessionUpdate: 'agent_message_chunk' | 'agent_thought_chunk' }>;

function mergeable(update: SessionUpdate): update is TextChunk {
  return (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'agent_thought_chunk') && update.content.type === 'text';
}

function sameMessage(a: TextChunk, b: TextChunk): boolean {
  return a.sessionUpdate === b.sessionUpdate && a.messageId === b.messageId && (a._meta === b._meta || JSON.stringify(a._meta ?? null) === JSON.stringify(b._meta ?? null));
}

export class UpdateSink {
  private pending: TextChunk | undefined;
  private parts: string[] = [];
  private length = 0;

  constructor(private readonly send: (update: SessionUpdate) => void) {}

  push(update: SessionUpdate): void {
    if (!mergeable(update)) {
      this.flush();
      this.send(update);
      return;
    }
    const text = (update.content as { text: string }).text;
    if (this.pending && sameMessage(this.pending, update) && this.length + text.length <= MAX_TEXT) {
      this.parts.push(text);
      this.length += text.length;
      return;
    }
    this.flush();
    this.pending = update;
    this.parts = [text];
    this.length = text.length;
  }

  /** Text is waiting for a flush. */
  get holding(): boolean {
    return this.pending !== undefined;
  }

  /** Send the pending chunk now (before anything that must follow it). */
  flush(): void {
    const chunk = this.pending;
    if (!chunk) return;
    this.pending = undefined;
    const merged = this.parts.length === 1 ? chunk : { ...chunk, content: { ...chunk.content, text: this.parts.join('') } };
    this.parts = [];
    this.length = 0;
    this.send(merged);
  }
}
