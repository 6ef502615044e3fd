/**
 * What a zcode tool call looks like on an ACP card: its kind, a human title and the files it
 * touches (the diff content of file edits is toolDiffs.ts, on top of these helpers). Pure functions of (tool name, input, cwd[, metadata]); the live
 * event translator and the `session/load` replay both use them, so the two always agree.
 *
 * Tool inputs come from the model and are read defensively: every field may be missing or of the
 * wrong type. Claude-style keys (`file_path`, `old_string`) and camelCase variants (`filePath`,
 * `oldString`) are both accepted.
 */
import { isAbsolute, normalize, relative, resolve, sep } from 'node:path';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { bt, type BridgeLocale } from '../l10n/messages.ts';

/** A tool's input as zcode sends it (a JSON object; anything else is treated as empty). */
export type ToolInput = Record<string, unknown>;

/** The tool names the bridge knows, in zcode's spelling. */
const KNOWN_TOOLS = [
  'Read',
  'NotebookRead',
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'Bash',
  'BashOutput',
  'KillShell',
  'KillBash',
  'Grep',
  'Glob',
  'LS',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'Agent',
  'Task',
  'ExitPlanMode',
  'AskUserQuestion',
] as const;
export type KnownTool = (typeof KNOWN_TOOLS)[number];

const BY_FOLDED = new Map<string, KnownTool>(KNOWN_TOOLS.map((name) => [fold(name), name]));

function fold(name: string): string {
  return name.toLowerCase().replace(/[_\-\s]/g, '');
}

/**
 * zcode's canonical spelling of a tool name. Only case and `_`/`-` separators are forgiven
 * (`bash`, `todo_write`, `Multi-Edit`); differently named tools (`read_file`) are not guessed.
 * Returns undefined for a tool the bridge does not know.
 */
export function canonicalToolName(toolName: string | undefined): KnownTool | undefined {
  if (!toolName) return undefined;
  return BY_FOLDED.get(fold(toolName));
}

const KINDS: Record<KnownTool, ToolKind> = {
  Read: 'read',
  NotebookRead: 'read',
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Bash: 'execute',
  BashOutput: 'execute',
  KillShell: 'execute',
  KillBash: 'execute',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  WebFetch: 'fetch',
  WebSearch: 'fetch',
  TodoWrite: 'think',
  Agent: 'other',
  Task: 'other',
  ExitPlanMode: 'switch_mode',
  AskUserQuestion: 'other',
};

/**
 * The ACP tool kind: Read→read, Write/Edit/MultiEdit→edit, Bash→execute, Grep/Glob→search,
 * WebFetch/WebSearch→fetch, TodoWrite→think, Agent/Task→other, ExitPlanMode→switch_mode,
 * anything unknown→other.
 */
export function toolKind(toolName: string | undefined): ToolKind {
  const known = canonicalToolName(toolName);
  return known ? KINDS[known] : 'other';
}

/** True for the tools whose output is a command's stdout/stderr (shown as a terminal). */
export function isShellTool(toolName: string | undefined): boolean {
  return canonicalToolName(toolName) === 'Bash';
}

/** True for the sub-agent tools (`Agent`, and its older name `Task`). */
export function isAgentTool(toolName: string | undefined): boolean {
  const known = canonicalToolName(toolName);
  return known === 'Agent' || known === 'Task';
}

/** True for the tools that change files and therefore carry diff content. */
export function isEditTool(toolName: string | undefined): boolean {
  const known = canonicalToolName(toolName);
  return known === 'Write' || known === 'Edit' || known === 'MultiEdit' || known === 'NotebookEdit';
}

// ---------------------------------------------------------------------------------------------
// Input accessors
// ---------------------------------------------------------------------------------------------

/** A plain-object view of an unknown value (arrays and primitives become `{}`). */
export function asRecord(value: unknown): ToolInput {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as ToolInput) : {};
}

/** The first of `keys` that holds a non-empty string. */
export function stringField(input: ToolInput, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function numberField(input: ToolInput, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

/** The file a tool works on, as given by the model (may be relative). */
export function toolFilePath(input: ToolInput): string | undefined {
  return stringField(input, 'file_path', 'filePath', 'notebook_path', 'notebookPath', 'path');
}

/** `p` made absolute against `cwd` (ACP locations and diffs need absolute paths). */
export function absolutePath(p: string, cwd: string): string {
  return isAbsolute(p) ? normalize(p) : resolve(cwd, p);
}

/** `p` relative to `cwd` when it lies inside it, otherwise unchanged (for titles). */
export function displayPath(p: string, cwd: string): string {
  if (!isAbsolute(p)) return p;
  const rel = relative(cwd, p);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return p;
  return rel;
}

/**
 * `text` as a markdown code span. Multi-line text keeps its first line plus " …"; text that contains
 * backticks gets a longer delimiter so the span stays intact.
 */
export function codeSpan(text: string): string {
  const lines = text.trim().split(/\r?\n/);
  const line = lines.length > 1 ? `${lines[0]} …` : lines[0];
  const longestRun = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  if (longestRun === 0) return `\`${line}\``;
  const fence = '`'.repeat(longestRun + 1);
  return `${fence} ${line} ${fence}`;
}

// ---------------------------------------------------------------------------------------------
// Titles and locations
// ---------------------------------------------------------------------------------------------

function lineRange(input: ToolInput, locale: BridgeLocale): string {
  const offset = numberField(input, 'offset');
  const limit = numberField(input, 'limit');
  if (offset !== undefined && offset > 0 && limit !== undefined && limit > 0) return bt(locale, ' (lines {0}-{1})', offset, offset + limit - 1);
  if (offset !== undefined && offset > 0) return bt(locale, ' (from line {0})', offset);
  if (limit !== undefined && limit > 0) return bt(locale, ' (first {0} lines)', limit);
  return '';
}

/**
 * A human title for the card, e.g. "Read src/a.ts", "Edit src/a.ts", "Write new.ts",
 * "Run `npm test`", "Grep `pattern` in src", "Fetch https://…", "Search the web: q",
 * "Update plan", "Agent: <description>", "Plan ready for approval", in `locale` (l10n/messages.ts;
 * the paths, commands and questions in it stay as zcode sent them). Paths inside `cwd` are shown
 * relative to it. An unknown tool (or a known one without usable input) is titled by its name.
 */
export function toolTitle(toolName: string | undefined, input: unknown, cwd: string, locale: BridgeLocale = 'en'): string {
  const args = asRecord(input);
  const known = canonicalToolName(toolName);
  const fallback = toolName && toolName !== '' ? toolName : bt(locale, 'Tool');
  const file = toolFilePath(args);
  const shown = file !== undefined ? displayPath(file, cwd) : undefined;
  const t = (message: string, ...values: (string | number)[]): string => bt(locale, message, ...values);
  switch (known) {
    case 'Read':
    case 'NotebookRead':
      return shown ? t('Read {0}', shown) + lineRange(args, locale) : t('Read');
    case 'Write':
      return shown ? t('Write {0}', shown) : t('Write');
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return shown ? t('Edit {0}', shown) : t('Edit');
    case 'Bash': {
      const command = stringField(args, 'command', 'cmd');
      return command ? t('Run {0}', codeSpan(command)) : t('Run command');
    }
    case 'BashOutput': {
      const id = stringField(args, 'bash_id', 'shell_id', 'id');
      return id ? t('Read output of {0}', id) : t('Read background output');
    }
    case 'KillShell':
    case 'KillBash': {
      const id = stringField(args, 'shell_id', 'bash_id', 'id');
      return id ? t('Stop {0}', id) : t('Stop background command');
    }
    case 'Grep':
    case 'Glob': {
      // The tool's name stays: it is what the model called, and a user searching logs finds it.
      const pattern = stringField(args, 'pattern', 'query');
      if (!pattern) return known;
      const where = stringField(args, 'path');
      return where ? t('{0} {1} in {2}', known, codeSpan(pattern), displayPath(where, cwd)) : `${known} ${codeSpan(pattern)}`;
    }
    case 'LS': {
      const where = stringField(args, 'path');
      return t('List {0}', where ? displayPath(where, cwd) : '.');
    }
    case 'WebFetch': {
      const url = stringField(args, 'url');
      return url ? t('Fetch {0}', url) : t('Fetch');
    }
    case 'WebSearch': {
      const query = stringField(args, 'query', 'q');
      return query ? t('Search the web: {0}', query) : t('Search the web');
    }
    case 'TodoWrite':
      return t('Update plan');
    case 'Agent':
    case 'Task': {
      const description = stringField(args, 'description', 'subagent_type');
      return description ? t('Agent: {0}', description) : t('Agent');
    }
    case 'ExitPlanMode':
      return t('Plan ready for approval');
    case 'AskUserQuestion': {
      const questions = Array.isArray(args.questions) ? args.questions.map(asRecord) : [];
      if (questions.length === 1) {
        const q = stringField(questions[0], 'header', 'question');
        if (q) return t('Question: {0}', q);
      }
      return questions.length > 1 ? t('{0} questions', questions.length) : t('Question');
    }
    case undefined:
      return fallback;
  }
}

/**
 * The files a tool touches, as absolute paths (relative inputs resolve against `cwd`), with the
 * 1-based start line when the input names one (Read `offset`). Tools without a file give `[]`.
 */
export function toolLocations(toolName: string | undefined, input: unknown, cwd: string): ToolCallLocation[] {
  const args = asRecord(input);
  const known = canonicalToolName(toolName);
  switch (known) {
    case 'Read':
    case 'NotebookRead': {
      const file = toolFilePath(args);
      if (!file) return [];
      const offset = numberField(args, 'offset');
      const line = offset !== undefined && Number.isInteger(offset) && offset > 0 ? offset : undefined;
      return [line !== undefined ? { path: absolutePath(file, cwd), line } : { path: absolutePath(file, cwd) }];
    }
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit': {
      const file = toolFilePath(args);
      return file ? [{ path: absolutePath(file, cwd) }] : [];
    }
    case 'Grep':
    case 'Glob':
    case 'LS': {
      const where = stringField(args, 'path');
      return where ? [{ path: absolutePath(where, cwd) }] : [];
    }
    default:
      return [];
  }
}
