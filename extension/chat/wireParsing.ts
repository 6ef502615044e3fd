/**
 * Loose, defensive parsing of values that cross into the host from the webview or from the
 * bridge's `_zcode/...` notifications (typed by the contract, but checked once at the boundary).
 */
import type { CreateElicitationResponse } from '@agentclientprotocol/sdk';
import type { BackgroundTaskView } from '../../webview-ui/contract.ts';

/** An elicitation answer from the webview: accept (with content values of the allowed types), decline or cancel. */
export function parseElicitationResponse(value: unknown): CreateElicitationResponse | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.action === 'decline' || r.action === 'cancel') return { action: r.action };
  if (r.action !== 'accept') return undefined;
  const content: Record<string, string | number | boolean | string[]> = {};
  if (typeof r.content === 'object' && r.content !== null) {
    for (const [k, v] of Object.entries(r.content)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') content[k] = v;
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) content[k] = v as string[];
    }
  }
  return { action: 'accept', content };
}

/** The task list of `_zcode/session/backgroundTasks` (unknown entries dropped). */
export function parseTasks(tasks: unknown[]): BackgroundTaskView[] {
  const out: BackgroundTaskView[] = [];
  for (const t of tasks) {
    if (typeof t !== 'object' || t === null) continue;
    const r = t as Record<string, unknown>;
    const id = typeof r.id === 'string' ? r.id : typeof r.taskId === 'string' ? r.taskId : undefined;
    if (!id) continue;
    out.push({
      id,
      kind: typeof r.kind === 'string' ? r.kind : 'agent',
      description: typeof r.description === 'string' ? r.description : id,
      status: typeof r.status === 'string' ? r.status : 'running',
      ...(typeof r.startedAt === 'string' ? { startedAt: r.startedAt } : {}),
      ...(typeof r.outputPath === 'string' ? { outputPath: r.outputPath } : {}),
    });
  }
  return out;
}
