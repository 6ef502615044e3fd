/**
 * Where a session's updates leave the bridge. Consecutive text chunks of one message are merged
 * while zcode is streaming faster than the event loop turns over, so a burst of thousands of
 * one-word deltas becomes a few `session/update`s instead of thousands (each costs a JSON-RPC
 * message, a write, and two schema parses in the client's SDK).
 *
 * What must stay true:
 * - Order: any other update (tool card, plan, usage …) first sends the pending text. Callers flush
 *   before anything that does not go through here (turn end, requests, extension notifications).
 * - Latency: a chunk is held only while more deltas keep arriving. The flush runs two event-loop
 *   turns after the last append. zcode's connection gives every non-delta message a turn of its own
 *   and delivers a burst of text/reasoning deltas within one turn, yielding every 64 KiB of input
 *   (bridge/zcode/lineReader.ts), so a paced stream goes out at once and a burst is cut every
 *   MAX_AGE_MS / MAX_TEXT so the client sees progress.
 * - Merging never crosses a message (`messageId`), a kind (message vs thought) or `_meta`.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';

/** Longest a chunk may be held during a burst. */
const MAX_AGE_MS = 4;
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
  private startedAt = 0;
  /** Appends since the flush was (re)scheduled: non-zero means zcode is still streaming. */
  private appendsSinceCheck = 0;
  private scheduled = false;

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
      this.appendsSinceCheck++;
      return;
    }
    this.flush();
    this.pending = update;
    this.parts = [text];
    this.length = text.length;
    this.startedAt = performance.now();
    this.appendsSinceCheck = 0;
    this.schedule();
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

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Two turns: zcode's connection delivers the next message in the turn after ours.
    setImmediate(() =>
      setImmediate(() => {
        this.scheduled = false;
        if (!this.pending) return;
        const streaming = this.appendsSinceCheck > 0;
        this.appendsSinceCheck = 0;
        if (streaming && performance.now() - this.startedAt < MAX_AGE_MS) this.schedule();
        else this.flush();
      }),
    );
  }
}
