/**
 * A background task as the bridge announces it (`_zcode/session/backgroundTasks`, declared in
 * bridge/acp/extensions/contractDescriptors.ts, which also parses it) and as the tree view and the chat show it.
 * One type for all three layers: shared/ is the one folder bridge/, extension/ and webview-ui/
 * may all import, so it imports nothing itself (eslint.config.mjs).
 */

/** Sub-agent (`Agent`/`Task` with `run_in_background`) or shell (`Bash` with `run_in_background`). */
export type BackgroundTaskKind = 'agent' | 'bash';

export interface BackgroundTask {
  /** zcode's `taskId`. */
  id: string;
  kind: BackgroundTaskKind;
  description: string;
  /** zcode's status: `running`, `completed`, `failed`, `cancelled`, and on current builds `timed_out`, `spawn_error`, `lost`. */
  status: string;
  /** ISO 8601. */
  startedAt?: string;
  outputPath?: string;
  /** The tool call that launched the task, when known. */
  toolCallId?: string;
  /** The ACP card showing the task: the reused launch card (Bash) or `bg_<taskId>`. */
  cardId?: string;
}

/**
 * The kind of a task nothing else names (no tool name, no `kind` on the wire): zcode's shell
 * tasks have `exec_` ids, its sub-agents do not (docs/zcode-protocol.md "Background tasks and sub-agents").
 */
export function backgroundTaskKindOf(taskId: string): BackgroundTaskKind {
  return taskId.startsWith('exec_') ? 'bash' : 'agent';
}
