/**
 * Which checkpoint belongs to which user message, for "Rewind to here" / "Fork from here". Pure.
 *
 * zcode makes one checkpoint per successful user turn (none for a failed, stopped or background
 * turn), labelled with the turn's prompt, and `_zcode/session/checkpoints` lists them oldest
 * first. A message's checkpoint is the state right after its turn: rewinding to it keeps the
 * message and its answer and removes everything later. Messages and checkpoints are matched in
 * order by label (contained in the message; a steer or a failed turn's message is skipped); checkpoints without a label
 * take the next message. When no label matches at all but the counts agree, they pair by position.
 */
import type { CheckpointInfo } from '../../bridge/acp/extensions/contractDescriptors.ts';

const normalize = (text: string): string => text.replace(/\s+/g, ' ').trim();

function matches(message: string, label: string): boolean {
  const m = normalize(message);
  const l = normalize(label).replace(/…$/, '');
  // Builds label a turn with the prompt's first line, shortened, some without a selector it held.
  return l !== '' && (m.includes(l) || (m !== '' && l.startsWith(m)));
}

/** Checkpoint id by user message id. */
export function mapCheckpoints(messages: readonly { id: string; text: string }[], checkpoints: readonly CheckpointInfo[]): Map<string, string> {
  const out = new Map<string, string>();
  let next = 0;
  for (const cp of checkpoints) {
    let at = -1;
    if (!cp.label) at = next < messages.length ? next : -1;
    else for (let j = next; j < messages.length && at < 0; j++) if (matches(messages[j].text, cp.label)) at = j;
    if (at < 0) continue;
    out.set(messages[at].id, cp.checkpointId);
    next = at + 1;
  }
  if (out.size === 0 && checkpoints.length > 0 && checkpoints.length === messages.length) {
    messages.forEach((m, i) => out.set(m.id, checkpoints[i].checkpointId));
  }
  return out;
}
