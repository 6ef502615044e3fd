/**
 * ACP tool calls → the chat's tool cards. Pure functions: `tool_call` / `tool_call_update`
 * (lists replace, never merge, as ACP says) folded into a `ToolItem`, plus the terminal `_meta`
 * extension the bridge sends to clients that declared `_meta.terminal_output`:
 *   `_meta.terminal_info {terminal_id, cwd?}`, `_meta.terminal_output {terminal_id, data}`,
 *   `_meta.terminal_exit {terminal_id, exit_code, signal}`.
 */
import type { ToolCall, ToolCallContent, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { SubagentView, TerminalView, ToolContentView, ToolItem } from '../../webview-ui/viewModel.ts';
import { compactDiff } from './lineDiff.ts';

/** Raw input/output shown in a card is cut here (the card is a preview, not a log). */
const RAW_PREVIEW_LIMIT = 8 * 1024;

/** Full old/new texts of a diff content block, kept host-side for "Open Diff". */
export interface DiffSource {
  path: string;
  oldText: string | null;
  newText: string;
}

const TOOL_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

type ToolUpdate = (ToolCall | ToolCallUpdate) & { _meta?: Record<string, unknown> | null };

/** Pretty JSON (or the string itself), cut at `RAW_PREVIEW_LIMIT`. */
export function previewValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value, null, 2) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > RAW_PREVIEW_LIMIT ? `${text.slice(0, RAW_PREVIEW_LIMIT)}\n… (${text.length - RAW_PREVIEW_LIMIT} more characters)` : text;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The terminal output delta in an update, if any. */
export function terminalOutput(update: ToolUpdate): { terminalId: string; data: string } | undefined {
  const out = record(record(update._meta)?.terminal_output);
  if (!out || typeof out.data !== 'string') return undefined;
  return { terminalId: typeof out.terminal_id === 'string' ? out.terminal_id : '', data: out.data };
}

/** True when the update carries nothing but terminal output (then an `append` op is enough). */
export function isOutputOnly(update: ToolUpdate): boolean {
  const keys = Object.keys(update).filter((k) => k !== 'sessionUpdate' && k !== 'toolCallId' && k !== '_meta');
  const metaKeys = Object.keys(record(update._meta) ?? {});
  return keys.length === 0 && metaKeys.length === 1 && metaKeys[0] === 'terminal_output';
}

function contentView(content: ToolCallContent, diffIndex: number): ToolContentView {
  switch (content.type) {
    case 'diff': {
      const diff = compactDiff(content.oldText, content.newText);
      return { type: 'diff', index: diffIndex, path: content.path, isNew: content.oldText == null, ...diff };
    }
    case 'terminal':
      return { type: 'terminal', terminalId: content.terminalId };
    case 'content': {
      const block = content.content;
      switch (block.type) {
        case 'text':
          return { type: 'text', text: block.text };
        case 'resource_link':
          return { type: 'resource', uri: block.uri, name: block.title ?? block.name };
        case 'resource':
          return 'text' in block.resource ? { type: 'text', text: block.resource.text } : { type: 'resource', uri: block.resource.uri, name: block.resource.uri };
        case 'image':
          return { type: 'image', mimeType: block.mimeType };
        default:
          return { type: 'text', text: `[${block.type}]` };
      }
    }
    default:
      return { type: 'text', text: '' };
  }
}

function subagentOf(meta: Record<string, unknown> | undefined): SubagentView | undefined {
  const s = record(meta?.subagent);
  if (!s) return undefined;
  return { agentId: typeof s.agentId === 'string' ? s.agentId : undefined, tokens: num(s.tokens), toolUses: num(s.toolUses), durationMs: num(s.durationMs) };
}

/**
 * Folds a `tool_call` / `tool_call_update` into the card (`prev` undefined = new card).
 * Returns the card and, when the update carried diff content, the full diff sources.
 * Terminal output is NOT folded in here (the caller appends it, so it can send a small op).
 */
export function foldToolCall(prev: ToolItem | undefined, update: ToolUpdate): { item: ToolItem; diffs?: DiffSource[] } {
  const meta = record(update._meta);
  const kind = update.kind && TOOL_KINDS.has(update.kind) ? update.kind : (prev?.kind ?? ('other' as ToolKind));
  const title = update.title ?? prev?.title ?? 'Tool call';
  const item: ToolItem = {
    type: 'tool',
    id: prev?.id ?? toolItemId(update.toolCallId),
    toolCallId: update.toolCallId,
    title,
    kind,
    status: update.status ?? prev?.status ?? 'pending',
    input: 'rawInput' in update && update.rawInput !== undefined ? previewValue(update.rawInput) : prev?.input,
    output: 'rawOutput' in update && update.rawOutput !== undefined ? previewValue(update.rawOutput) : prev?.output,
    content: prev?.content ?? [],
    locations: update.locations ? update.locations.map((l) => ({ path: l.path, line: l.line })) : (prev?.locations ?? []),
    terminal: prev?.terminal,
    subagent: subagentOf(meta) ?? prev?.subagent,
    background: prev?.background,
  };
  let diffs: DiffSource[] | undefined;
  if (update.content) {
    diffs = [];
    item.content = update.content.map((c) => {
      if (c.type === 'diff') diffs!.push({ path: c.path, oldText: c.oldText ?? null, newText: c.newText });
      return contentView(c, c.type === 'diff' ? diffs!.length - 1 : -1);
    });
    const terminalBlock = update.content.find((c) => c.type === 'terminal');
    if (terminalBlock && !item.terminal) item.terminal = newTerminal(terminalBlock.terminalId);
  }
  const info = record(meta?.terminal_info);
  if (info) {
    const terminalId = typeof info.terminal_id === 'string' ? info.terminal_id : (item.terminal?.terminalId ?? update.toolCallId);
    item.terminal = { ...(item.terminal ?? newTerminal(terminalId)), ...(typeof info.cwd === 'string' ? { cwd: info.cwd } : {}) };
  }
  const exit = record(meta?.terminal_exit);
  if (exit) {
    item.terminal = {
      ...(item.terminal ?? newTerminal(typeof exit.terminal_id === 'string' ? exit.terminal_id : update.toolCallId)),
      exited: true,
      exitCode: num(exit.exit_code) ?? null,
      signal: typeof exit.signal === 'string' ? exit.signal : null,
    };
  }
  if (terminalOutput(update) && !item.terminal) item.terminal = newTerminal(terminalOutput(update)!.terminalId || update.toolCallId);
  // The bridge tags background cards `_meta.zcode {background: true, taskId}`; a cancel adds
  // `_meta.backgroundTask.cancelled` (zcode's `session/cancelBackgroundTask`).
  const backgroundMeta = record(meta?.backgroundTask);
  const zcodeMeta = record(meta?.zcode);
  if (backgroundMeta || zcodeMeta?.background === true || title.startsWith('[background]') || prev?.background) {
    const taskId = typeof zcodeMeta?.taskId === 'string' ? zcodeMeta.taskId : prev?.background?.taskId;
    item.background = { cancelled: backgroundMeta?.cancelled === true || prev?.background?.cancelled === true, ...(taskId ? { taskId } : {}) };
  }
  // zcode 3.15+ says which Agent call a sub-agent's tool belongs to: the card is shown under it.
  const parentId = typeof zcodeMeta?.parentToolCallId === 'string' ? zcodeMeta.parentToolCallId : undefined;
  if (parentId) item.parent = { toolCallId: parentId, ...(typeof zcodeMeta?.agentType === 'string' ? { agentType: zcodeMeta.agentType } : {}) };
  else if (prev?.parent) item.parent = prev.parent;
  return diffs && diffs.length ? { item, diffs } : { item };
}

function newTerminal(terminalId: string): TerminalView {
  return { terminalId, output: '', truncated: false, exited: false };
}

/** Transcript item id of a tool call's card. */
export function toolItemId(toolCallId: string): string {
  return `tool:${toolCallId}`;
}
