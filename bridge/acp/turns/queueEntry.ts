/**
 * How a prompt appears in its session's queue (`_zcode/session/queue`, docs/acp.md "Prompt queue"):
 * one short line of its text, the client's own id of it, and who sent it. Who sent it is the same
 * record a prompt's echo to the other clients carries (`_meta.zcode.sentBy`, handlers.ts).
 */
import { basename } from 'node:path';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { ConnectedClient } from '../transport/clients.ts';
import type { PromptSender, QueuedPromptEntry } from '../extensions/notificationSchemas.ts';

/** A queue entry's text is for a chip or a list row, not for reading the prompt again. */
export const PROMPT_LINE_MAX = 200;

/** Who sent a prompt, as the bridge knows the client (nulls once it no longer does). */
export function promptSender(client: Pick<ConnectedClient, 'id' | 'info' | 'name'> | undefined): PromptSender {
  return {
    clientId: client?.id ?? null,
    kind: client?.info.kind ?? null,
    ...(client?.info.label ? { label: client.info.label } : {}),
    ...(client?.name ? { name: client.name } : {}),
  };
}

/**
 * The prompt as one line: its text blocks as they are (clients split a sentence around a mention,
 * so the pieces join without separators), an attachment by its name, whitespace runs as one space,
 * cut at `PROMPT_LINE_MAX` characters (an ellipsis marks the cut).
 */
export function promptLine(blocks: readonly ContentBlock[]): string {
  const line = blocks
    .map(blockText)
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(line);
  return chars.length <= PROMPT_LINE_MAX ? line : `${chars.slice(0, PROMPT_LINE_MAX - 1).join('')}…`;
}

/** A queue entry for a prompt (`promptId`: the client's `_meta.zcode.promptId`, when it named it). */
export function queueEntry(blocks: readonly ContentBlock[], sentBy: PromptSender, promptId?: string): QueuedPromptEntry {
  return { text: promptLine(blocks), ...(promptId !== undefined ? { promptId } : {}), sentBy };
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return ` ${block.name} `;
    case 'resource':
      return ` ${basename(block.resource.uri) || block.resource.uri} `;
    case 'image':
      return ` ${block.uri ? basename(block.uri) || block.uri : 'image'} `;
    case 'audio':
      return ' audio ';
    default: {
      // The SDK admits no other block; a future one is named by its type rather than dropped.
      const other: { type?: unknown } = block;
      return ` ${String(other.type)} `;
    }
  }
}
