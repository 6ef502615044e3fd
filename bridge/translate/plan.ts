/**
 * zcode todo lists (TodoWrite input, `session/read` todos) as the ACP `plan`.
 * ACP plans are always sent whole: the client replaces its list with each update.
 */
import type { PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionUpdate } from '@agentclientprotocol/sdk';
import { asRecord, stringField } from './toolInfo.ts';

const STATUS: Record<string, PlanEntryStatus> = {
  pending: 'pending',
  todo: 'pending',
  not_started: 'pending',
  open: 'pending',
  in_progress: 'in_progress',
  inprogress: 'in_progress',
  active: 'in_progress',
  running: 'in_progress',
  doing: 'in_progress',
  completed: 'completed',
  complete: 'completed',
  done: 'completed',
  // ACP has no "cancelled" entry status: a cancelled todo is finished work as far as the plan goes.
  cancelled: 'completed',
  canceled: 'completed',
};

/** zcode todo status → ACP entry status (`in-progress`, `done`, `cancelled` … tolerated; unknown → pending). */
function planEntryStatus(status: unknown): PlanEntryStatus {
  if (typeof status !== 'string') return 'pending';
  return STATUS[status.toLowerCase().replace(/[\s-]/g, '_')] ?? 'pending';
}

/** zcode todo priority → ACP priority (`high`/`medium`/`low`; unknown or missing → medium). */
function planEntryPriority(priority: unknown): PlanEntryPriority {
  if (typeof priority !== 'string') return 'medium';
  const p = priority.toLowerCase();
  return p === 'high' || p === 'medium' || p === 'low' ? p : 'medium';
}

/**
 * A todo list as ACP plan entries. Items are read defensively (`content`, else `text`/`title`/
 * `activeForm`); items without text are dropped. The original status is kept in
 * `_meta.zcode.status` when ACP has no exact equivalent (e.g. `cancelled`).
 */
export function todosToPlanEntries(todos: unknown): PlanEntry[] {
  if (!Array.isArray(todos)) return [];
  const entries: PlanEntry[] = [];
  for (const raw of todos) {
    const todo = asRecord(raw);
    const content = stringField(todo, 'content', 'text', 'title', 'activeForm');
    if (!content) continue;
    const status = planEntryStatus(todo.status);
    const entry: PlanEntry = { content, priority: planEntryPriority(todo.priority), status };
    if (typeof todo.status === 'string' && todo.status !== status) entry._meta = { zcode: { status: todo.status } };
    entries.push(entry);
  }
  return entries;
}

/** The `plan` session update for a todo list (always the complete list). */
export function planUpdate(todos: unknown): SessionUpdate {
  return { sessionUpdate: 'plan', entries: todosToPlanEntries(todos) };
}
