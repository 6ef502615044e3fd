/**
 * The chat transcript model: ACP `session/update`s (and the chat's own events: prompts sent,
 * forms shown/answered/withdrawn, errors, turn ends) reduced into view items.
 *
 * No I/O and no vscode: every function takes the state, changes it, and returns the `Change` the
 * webview needs (ops + session fields). The ops are applied to the host's own list with the same
 * `applyTranscriptOps` the webview uses, so a snapshot always equals what the patches built.
 */
import type {
  ContentBlock,
  SessionConfigOption,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk';
import {
  emptySessionView,
  type AttachmentSummary,
  type ErrorAction,
  type ChatSnapshot,
  type SessionView,
  type ToolItem,
  type TranscriptItem,
} from '../../webview-ui/viewModel.ts';
import { applyTranscriptOps, itemList, type ItemList, type TranscriptOp } from '../../webview-ui/transcriptOps.ts';
import { turnNoticeOf, type TurnNotice } from './turnNotices.ts';
import { foldToolCall, isOutputOnly, terminalOutput, toolItemId, type DiffSource } from './toolView.ts';

export interface TranscriptState {
  list: ItemList;
  session: SessionView;
  /** The item that receives the next text chunk of the same kind, while it is the last item. */
  openText?: { id: string; type: 'agent' | 'thought' | 'user'; messageId?: string };
  /** The current turn's plan card (a `plan` update replaces the whole list). */
  planId?: string;
  /** Full texts of every diff, by tool call id, for "Open Diff". */
  diffs: Map<string, DiffSource[]>;
  /** Text of our own prompt the bridge may echo back as `user_message_chunk`s. */
  echo?: string;
  /** Tool calls a question or plan form stands for: the form is their one card. */
  formTools?: Set<string>;
  /**
   * Tool calls whose card waits behind a pending shell permission (by tool call id): the permission
   * card shows the command, so the tool's card would say the same twice. The card (kept up to date
   * here) comes back below the answered permission, where its output will stream.
   */
  heldTools?: Map<string, { permissionId: string; item?: ToolItem }>;
  counter: number;
}

/** What changed: send it to the webview as (part of) a patch. */
export interface Change {
  ops: TranscriptOp[];
  session?: Partial<SessionView>;
}

export function createTranscript(session: Partial<SessionView> = {}): TranscriptState {
  return { list: itemList(), session: { ...emptySessionView(), ...session }, diffs: new Map(), counter: 0 };
}

export function snapshotOf(state: TranscriptState, seq: number): ChatSnapshot {
  return { seq, session: state.session, items: state.list.items };
}

/** Collects ops and session fields, applying each to the state at once (also used by transcriptInteractions.ts). */
export class ChangeBuilder {
  readonly change: Change = { ops: [] };
  constructor(private readonly state: TranscriptState) {}
  op(op: TranscriptOp): void {
    applyTranscriptOps(this.state.list, [op]);
    this.change.ops.push(op);
  }
  upsert(item: TranscriptItem): void {
    this.op({ op: 'upsert', item });
  }
  session(patch: Partial<SessionView>): void {
    Object.assign(this.state.session, patch);
    this.change.session = { ...this.change.session, ...patch };
  }
}

export function nextId(state: TranscriptState, prefix: string): string {
  state.counter += 1;
  return `${prefix}:${state.counter}`;
}

function lastItem(state: TranscriptState): TranscriptItem | undefined {
  return state.list.items[state.list.items.length - 1];
}

export function itemById(state: TranscriptState, id: string): TranscriptItem | undefined {
  const at = state.list.index.get(id);
  return at === undefined ? undefined : state.list.items[at];
}

/** Markdown-ish text for a content block in a message (text as is; others as a short reference). */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `[${block.title ?? block.name}](${block.uri})`;
    case 'resource':
      return 'text' in block.resource ? `\n\`\`\`\n${block.resource.text}\n\`\`\`\n` : `[${block.resource.uri}](${block.resource.uri})`;
    case 'image':
      return '[image]';
    case 'audio':
      return '[audio]';
    default:
      return '';
  }
}

function appendText(state: TranscriptState, b: ChangeBuilder, type: 'agent' | 'thought' | 'user', text: string, messageId: string | undefined): void {
  const open = state.openText;
  const last = lastItem(state);
  if (open && open.type === type && last?.id === open.id && (!messageId || !open.messageId || messageId === open.messageId)) {
    if (text) b.op({ op: 'append', id: open.id, field: 'text', text });
    return;
  }
  const id = nextId(state, type);
  b.upsert(type === 'user' ? { type, id, text, attachments: [] } : { type, id, text });
  state.openText = { id, type, messageId };
}

/** Reduces one `session/update` (for the session this transcript shows). */
export function applySessionUpdate(state: TranscriptState, update: SessionUpdate): Change {
  const b = new ChangeBuilder(state);
  const notice = turnNoticeOf(update);
  if (notice) {
    turnStatus(state, b, notice);
    return b.change;
  }
  switch (update.sessionUpdate) {
    case 'user_message_chunk': {
      const text = blockText(update.content);
      // Our own prompt echoed back (multi-client bridges broadcast it): already shown.
      if (state.echo !== undefined && text && state.echo.startsWith(text)) {
        state.echo = state.echo.slice(text.length);
        break;
      }
      state.echo = undefined;
      appendText(state, b, 'user', text, update.messageId ?? undefined);
      break;
    }
    case 'agent_message_chunk':
      appendText(state, b, 'agent', blockText(update.content), update.messageId ?? undefined);
      break;
    case 'agent_thought_chunk':
      appendText(state, b, 'thought', blockText(update.content), update.messageId ?? undefined);
      break;
    case 'tool_call':
    case 'tool_call_update': {
      if (state.formTools?.has(update.toolCallId)) break;
      const id = toolItemId(update.toolCallId);
      const held = state.heldTools?.get(update.toolCallId);
      if (held) {
        const output = terminalOutput(update);
        const item = held.item && output && isOutputOnly(update) ? held.item : foldToolCall(held.item, update).item;
        const terminal = item.terminal ?? { terminalId: output?.terminalId || update.toolCallId, output: '', truncated: false, exited: false };
        held.item = output ? { ...item, terminal: { ...terminal, output: terminal.output + output.data } } : item;
        break;
      }
      const prev = itemById(state, id);
      const output = terminalOutput(update);
      if (prev?.type === 'tool' && update.sessionUpdate === 'tool_call_update' && output && isOutputOnly(update)) {
        if (!prev.terminal) b.upsert({ ...prev, terminal: { terminalId: output.terminalId || update.toolCallId, output: '', truncated: false, exited: false } });
        b.op({ op: 'append', id, field: 'terminal', text: output.data });
        break;
      }
      const { item, diffs } = foldToolCall(prev?.type === 'tool' ? prev : undefined, update);
      if (diffs) state.diffs.set(update.toolCallId, diffs);
      b.upsert(item);
      if (output) b.op({ op: 'append', id, field: 'terminal', text: output.data });
      break;
    }
    case 'plan': {
      const existing = state.planId ? itemById(state, state.planId) : undefined;
      const id = existing ? existing.id : nextId(state, 'plan');
      state.planId = id;
      b.upsert({ type: 'plan', id, entries: update.entries });
      break;
    }
    case 'available_commands_update':
      b.session({ commands: update.availableCommands });
      break;
    case 'current_mode_update':
      b.session({ currentModeId: update.currentModeId, configOptions: withMode(state.session.configOptions, update.currentModeId) });
      break;
    case 'config_option_update':
      b.session({ configOptions: update.configOptions });
      break;
    case 'session_info_update':
      if (update.title !== undefined) b.session({ title: update.title ?? undefined });
      break;
    case 'usage_update':
      b.session({ usage: { used: update.used, size: update.size, cost: update.cost ?? null } });
      break;
    case 'notice': {
      const severity = update.severity === 'warning' || update.severity === 'error' ? update.severity : 'info';
      b.upsert({ type: 'notice', id: nextId(state, 'notice'), severity, title: update.title, ...(update.description ? { description: update.description } : {}) });
      break;
    }
    case 'compaction_update': {
      const id = `compaction:${update.compactionId}`;
      const prev = itemById(state, id);
      const title =
        update.status === 'in_progress' ? 'Compacting the conversation…'
        : update.status === 'completed' ? 'Conversation compacted'
        : update.status === 'cancelled' ? 'Compaction cancelled'
        : 'Compaction failed';
      const summary = update.summary?.map(blockText).join('') ?? (prev?.type === 'notice' ? prev.description : undefined);
      const description = update.error ?? summary;
      b.upsert({ type: 'notice', id, severity: update.status === 'failed' ? 'error' : 'info', title, ...(description ? { description } : {}) });
      break;
    }
    case 'compaction_summary_chunk': {
      const id = `compaction:${update.compactionId}`;
      const prev = itemById(state, id);
      const description = (prev?.type === 'notice' ? (prev.description ?? '') : '') + blockText(update.content);
      b.upsert({ type: 'notice', id, severity: 'info', title: prev?.type === 'notice' ? prev.title : 'Compacting the conversation…', description });
      break;
    }
    default:
      // A session update this client does not know yet (ACP adds variants): ignore it.
      break;
  }
  return b.change;
}

/**
 * A status line of the turn (one per turn: the newest replaces it). On a retry the failed
 * attempt's partial answer goes: the next attempt streams the answer again from its start.
 */
function turnStatus(state: TranscriptState, b: ChangeBuilder, notice: TurnNotice): void {
  const items = state.list.items;
  let start = items.length;
  while (start > 0 && items[start - 1].type !== 'user') start--;
  const turnId = items[start - 1]?.id ?? 'start';
  if (notice.kind === 'retrying') {
    for (const item of items.slice(start)) if (item.type === 'agent') b.op({ op: 'remove', id: item.id });
  }
  state.openText = undefined;
  const id = `status:${turnId}`;
  if (itemById(state, id)) b.op({ op: 'remove', id });
  b.upsert({ type: 'notice', id, severity: 'info', title: notice.text, status: true });
}

/** `current_mode_update` moves the mode option's value too. */
function withMode(options: SessionConfigOption[], modeId: string): SessionConfigOption[] {
  return options.map((o) => (o.category === 'mode' && o.type === 'select' && o.currentValue !== modeId ? { ...o, currentValue: modeId } : o));
}

/** The user sent a prompt: show it, start a new turn. */
export function addUserPrompt(state: TranscriptState, text: string, attachments: AttachmentSummary[]): Change {
  const b = new ChangeBuilder(state);
  const id = nextId(state, 'user');
  b.upsert({ type: 'user', id, text, attachments });
  state.openText = undefined;
  state.planId = undefined;
  state.echo = text;
  b.session({ running: true, steer: 'none' });
  return b.change;
}

/** A steer's text in the running turn: a user message that, unlike a prompt, starts no turn. */
export function addSteerMessage(state: TranscriptState, text: string): { id: string; change: Change } {
  const b = new ChangeBuilder(state);
  const id = nextId(state, 'user');
  b.upsert({ type: 'user', id, text, attachments: [] });
  state.openText = undefined;
  state.echo = text;
  return { id, change: b.change };
}

/** Takes an item out (a steer zcode refused). */
export function removeItem(state: TranscriptState, id: string): Change {
  const b = new ChangeBuilder(state);
  if (state.list.index.has(id)) b.op({ op: 'remove', id });
  return b.change;
}

/** The turn ended (prompt response or error). */
export function endTurn(state: TranscriptState, outcome: { stopReason: StopReason } | { error: string; action?: ErrorAction }): Change {
  const b = new ChangeBuilder(state);
  state.openText = undefined;
  state.echo = undefined;
  // A steer's outcome outlives its turn (until the next prompt): delivered, or deferred — the next
  // turn's input, its chip offers Remove. One still waiting for news when the turn ended says nothing.
  const steer = state.session.steer;
  b.session({ running: false, steer: steer === 'deferred' || steer === 'drained' ? steer : 'none' });
  if ('error' in outcome) {
    const action = outcome.action ?? 'retry';
    // One line per failed turn: the retry status line (if any) is replaced by it.
    const status = state.list.items.findLast((i) => i.type === 'notice' && i.status);
    if (status && state.list.items.indexOf(status) > state.list.items.findLastIndex((i) => i.type === 'user')) b.op({ op: 'remove', id: status.id });
    b.upsert({ type: 'error', id: nextId(state, 'error'), message: outcome.error, retryable: action === 'retry', action });
    return b.change;
  }
  switch (outcome.stopReason) {
    case 'cancelled':
      b.upsert({ type: 'notice', id: nextId(state, 'notice'), severity: 'info', title: 'Stopped.' });
      break;
    case 'max_tokens':
      b.upsert({ type: 'notice', id: nextId(state, 'notice'), severity: 'warning', title: 'The response hit the token limit and was cut off.' });
      break;
    case 'max_turn_requests':
      b.upsert({ type: 'notice', id: nextId(state, 'notice'), severity: 'warning', title: 'The turn hit its request limit and stopped.' });
      break;
    case 'refusal':
      b.upsert({ type: 'error', id: nextId(state, 'error'), message: 'zcode declined to continue this request.', retryable: true });
      break;
    default:
      break;
  }
  return b.change;
}

/** Shows a non-turn error (e.g. a failed session switch); not retryable. */
export function addError(state: TranscriptState, message: string, retryable = false): Change {
  const b = new ChangeBuilder(state);
  b.upsert({ type: 'error', id: nextId(state, 'error'), message, retryable });
  state.openText = undefined;
  return b.change;
}

/** Adds an item the host built itself (a changes card), or replaces it (same id). */
export function putItem(state: TranscriptState, item: TranscriptItem): Change {
  const b = new ChangeBuilder(state);
  b.upsert(item);
  if (state.openText && state.openText.id !== item.id) state.openText = undefined;
  return b.change;
}

/** The item is in the transcript. */
export function hasItem(state: TranscriptState, id: string): boolean {
  return state.list.index.has(id);
}

/** Session fields that do not come from updates (connection, queue, steer, tasks…). */
export function patchSession(state: TranscriptState, patch: Partial<SessionView>): Change {
  const b = new ChangeBuilder(state);
  b.session(patch);
  return b.change;
}

/** Appends `b` to `a` (for batching several changes into one patch). */
export function mergeChanges(a: Change, b: Change): Change {
  return { ops: [...a.ops, ...b.ops], ...(a.session || b.session ? { session: { ...a.session, ...b.session } } : {}) };
}

/**
 * An earlier page of the history (`_zcode/session/loadEarlier`): its updates are reduced on their
 * own, as a replay of just that page, and the items go before everything shown, in order. What the
 * page says about the session (usage, commands, mode, title) is older than what is shown: ignored.
 * Item ids come from this transcript's counter, so they never collide with the items shown.
 */
export function prependHistory(state: TranscriptState, updates: readonly SessionUpdate[]): Change {
  const page = createTranscript();
  page.counter = state.counter;
  for (const update of updates) applySessionUpdate(page, update);
  state.counter = page.counter;
  for (const [toolCallId, diffs] of page.diffs) if (!state.diffs.has(toolCallId)) state.diffs.set(toolCallId, diffs);
  const b = new ChangeBuilder(state);
  if (page.list.items.length > 0) b.op({ op: 'prepend', items: page.list.items });
  return b.change;
}
