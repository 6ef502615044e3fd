/**
 * How the transcript changes: the ops a numbered `ChatPatch` carries, and the one function that
 * applies them. The host (extension/chat/transcript.ts) and the webview (webview-ui/store.ts) both
 * run `applyTranscriptOps`, so a snapshot always equals what the patches built. Pure: no DOM, no
 * Node APIs.
 */
import type { SessionView, TerminalView, TranscriptItem } from './viewModel.ts';

/** Terminal output kept per card (the tail; the webview shows fewer lines until expanded). */
export const TERMINAL_TAIL_LIMIT = 64 * 1024;

/** One change to the transcript. `append` adds streamed text without resending the item. */
export type TranscriptOp =
  | { op: 'upsert'; item: TranscriptItem }
  | { op: 'append'; id: string; field: 'text' | 'terminal'; text: string }
  | { op: 'remove'; id: string }
  | { op: 'clear' }
  /** Earlier history: `items` go before every item, in order (ids already present are skipped). */
  | { op: 'prepend'; items: TranscriptItem[] };

export interface ChatPatch {
  seq: number;
  ops: TranscriptOp[];
  /** Replaced session fields (each present field replaces the old value). */
  session?: Partial<SessionView>;
}

/** A transcript with an id index, shared by host and webview so both apply ops identically. */
export interface ItemList {
  items: TranscriptItem[];
  index: Map<string, number>;
}

export function itemList(items: TranscriptItem[] = []): ItemList {
  return { items, index: new Map(items.map((item, i) => [item.id, i])) };
}

/**
 * Applies ops to `list` in place: the array is replaced (`list.items` gets a new array) and every
 * changed item is a new object, so views can compare by identity. Unknown ids in `append`/`remove`
 * are ignored (a late delta for an item the user cleared must not throw).
 */
export function applyTranscriptOps(list: ItemList, ops: readonly TranscriptOp[]): void {
  if (ops.length === 0) return;
  let items = list.items.slice();
  let reindex = false;
  for (const op of ops) {
    switch (op.op) {
      case 'clear':
        items = [];
        reindex = true;
        list.index = new Map();
        break;
      case 'upsert': {
        const at = reindex ? items.findIndex((i) => i.id === op.item.id) : (list.index.get(op.item.id) ?? -1);
        if (at >= 0) items[at] = op.item;
        else {
          items.push(op.item);
          if (!reindex) list.index.set(op.item.id, items.length - 1);
        }
        break;
      }
      case 'append': {
        const at = reindex ? items.findIndex((i) => i.id === op.id) : (list.index.get(op.id) ?? -1);
        const item = items[at];
        if (!item) break;
        if (op.field === 'text' && (item.type === 'agent' || item.type === 'thought' || item.type === 'user')) {
          items[at] = { ...item, text: item.text + op.text };
        } else if (op.field === 'terminal' && item.type === 'tool' && item.terminal) {
          items[at] = { ...item, terminal: appendTerminal(item.terminal, op.text) };
        }
        break;
      }
      case 'prepend': {
        const present = reindex ? new Set(items.map((i) => i.id)) : list.index;
        items = [...op.items.filter((i) => !present.has(i.id)), ...items];
        reindex = true;
        break;
      }
      case 'remove': {
        const at = reindex ? items.findIndex((i) => i.id === op.id) : (list.index.get(op.id) ?? -1);
        if (at >= 0) {
          items.splice(at, 1);
          reindex = true;
        }
        break;
      }
    }
  }
  list.items = items;
  if (reindex) list.index = new Map(items.map((item, i) => [item.id, i]));
}

/** Appends shell output, keeping only the last `TERMINAL_TAIL_LIMIT` characters. */
function appendTerminal(terminal: TerminalView, data: string): TerminalView {
  const output = terminal.output + data;
  if (output.length <= TERMINAL_TAIL_LIMIT) return { ...terminal, output };
  return { ...terminal, output: output.slice(output.length - TERMINAL_TAIL_LIMIT), truncated: true };
}
