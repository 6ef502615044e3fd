/**
 * The ACP tool cards of zcode tool calls, built the same way for the live stream
 * (sessionTranslator.ts) and the `session/load` replay (history.ts): the same tool, input and
 * result give the same kind, title, locations, diff and content on both paths.
 */
import type { SessionUpdate, ToolCallContent, ToolCallStatus } from '@agentclientprotocol/sdk';
import type { BridgeLocale } from '../l10n/messages.ts';
import { fenced, textContent } from './content.ts';
import {
  asRecord,
  canonicalToolName,
  isEditTool,
  isShellTool,
  stringField,
  toolKind,
  toolLocations,
  toolTitle,
  type ToolInput,
} from './toolInfo.ts';
import { toolDiffContent } from './toolDiffs.ts';

/** A `tool_call` session update. */
export type ToolCallStart = Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>;
/** A `tool_call_update` session update. */
export type ToolCallProgress = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;
/** `_meta` as ACP types it. */
export type Meta = { [key: string]: unknown };

/** How cards are rendered for one client audience. */
export interface CardOptions {
  /** Session working directory: relative paths resolve against it, titles are relative to it. */
  cwd: string;
  /**
   * The client advertised `clientCapabilities._meta.terminal_output`: shell output goes out as a
   * terminal block plus `_meta.terminal_info` / `terminal_output` / `terminal_exit`. Otherwise it
   * is fenced text content.
   */
  terminalOutput: boolean;
  /** The language of the card titles the bridge writes (l10n/messages.ts); English when absent. */
  locale?: BridgeLocale;
}

/** Info-string of the fence around shell output sent as text. */
const OUTPUT_FENCE_INFO = 'console';

/** `_meta.zcode` for a card: the zcode tool name (where the reference bridge used `_meta.claudeCode.toolName`) plus extras. */
export function zcodeMeta(toolName: string | undefined, extra?: Record<string, unknown>): Meta {
  return { zcode: { ...(toolName ? { toolName } : {}), ...extra } };
}

/** True when this tool's card is a terminal card for this audience. */
export function isTerminalCard(toolName: string | undefined, opts: CardOptions): boolean {
  return opts.terminalOutput && isShellTool(toolName);
}

/** `_meta.terminal_output` for a chunk of shell output. */
export function terminalOutputMeta(terminalId: string, data: string): Meta {
  return { terminal_output: { terminal_id: terminalId, data } };
}

/** `_meta.terminal_exit` closing a terminal card. */
export function terminalExitMeta(terminalId: string, exitCode: number): Meta {
  return { terminal_exit: { terminal_id: terminalId, exit_code: exitCode, signal: null } };
}

/** The exit code a result reports (`exitCode`/`exit_code`/`code`), else 0 on success and 1 on failure. */
export function exitCodeOf(result: unknown, success: boolean): number {
  const r = asRecord(result);
  for (const key of ['exitCode', 'exit_code', 'code']) {
    const value = r[key];
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  }
  return success ? 0 : 1;
}

/** Fenced shell output as text content (non-terminal clients). */
export function shellTextContent(output: string): ToolCallContent {
  return textContent(fenced(output, OUTPUT_FENCE_INFO));
}

/**
 * The content a card starts with: the diff for file edits, the plan for ExitPlanMode, the terminal
 * block for shell commands on terminal clients; nothing otherwise.
 */
function initialContent(toolCallId: string, toolName: string | undefined, input: ToolInput, opts: CardOptions): ToolCallContent[] {
  if (isEditTool(toolName)) return toolDiffContent(toolName, input, opts.cwd);
  if (canonicalToolName(toolName) === 'ExitPlanMode') {
    const plan = stringField(input, 'plan');
    return plan ? [textContent(plan)] : [];
  }
  if (isTerminalCard(toolName, opts)) return [{ type: 'terminal', terminalId: toolCallId }];
  return [];
}

/**
 * The `tool_call` that opens a card: title, kind, locations and raw input from the tool, initial
 * content (see `initialContent`), `_meta.zcode.toolName`, and `_meta.terminal_info` for terminal
 * cards (the terminal id is the tool call id).
 */
export function toolCallCard(
  toolCallId: string,
  toolName: string | undefined,
  input: ToolInput | undefined,
  status: ToolCallStatus,
  opts: CardOptions,
  extraZcodeMeta?: Record<string, unknown>,
): ToolCallStart {
  const args = input ?? {};
  const card: ToolCallStart = {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: toolTitle(toolName, args, opts.cwd, opts.locale),
    kind: toolKind(toolName),
    status,
    rawInput: args,
  };
  if (toolName) card.name = toolName;
  const locations = toolLocations(toolName, args, opts.cwd);
  if (locations.length > 0) card.locations = locations;
  const content = initialContent(toolCallId, toolName, args, opts);
  if (content.length > 0) card.content = content;
  const meta: Meta = zcodeMeta(toolName, extraZcodeMeta);
  if (isTerminalCard(toolName, opts)) meta.terminal_info = { terminal_id: toolCallId, cwd: opts.cwd };
  card._meta = meta;
  return card;
}

/** How a tool call ended. */
export interface ToolOutcome {
  success: boolean;
  /** The result text (success) or error text (failure). */
  text: string;
  /** Result metadata (e.g. an edit's structured patch). */
  metadata?: unknown;
}

/**
 * The content of a finished card on a non-terminal path, or undefined to leave the card's content
 * as it is (ACP content lists replace):
 * - failure → the error text;
 * - Edit/Write/MultiEdit → their diff (refined from the result metadata when it has a patch);
 * - TodoWrite / ExitPlanMode → unchanged (the plan is shown elsewhere / already on the card);
 * - Bash → the output, fenced;
 * - anything else → the result text.
 */
export function completionContent(toolName: string | undefined, input: ToolInput, opts: CardOptions, outcome: ToolOutcome): ToolCallContent[] | undefined {
  const { success, text } = outcome;
  if (!success) return text !== '' ? [textContent(text)] : undefined;
  if (isEditTool(toolName)) {
    const diffs = toolDiffContent(toolName, input, opts.cwd, outcome.metadata);
    if (diffs.length > 0) return diffs;
    return text !== '' ? [textContent(text)] : undefined;
  }
  const known = canonicalToolName(toolName);
  if (known === 'TodoWrite' || known === 'ExitPlanMode') return undefined;
  if (text === '') return undefined;
  if (isShellTool(toolName)) return [shellTextContent(text)];
  return [textContent(text)];
}
