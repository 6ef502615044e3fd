/**
 * The conversation as a markdown document (ZCode: Export Transcript, Copy All, Copy Message):
 * messages as text, thoughts and tool calls as collapsed `<details>` sections, diffs as fenced
 * `diff` blocks, shell output as fenced `console` blocks, answered prompts as quotes. Pure.
 */
import type { DiffLine, ToolItem, TranscriptItem } from '../../webview-ui/viewModel.ts';

/** A fence longer than any backtick run inside `text`, so the block cannot end early. */
function fence(text: string, info = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${info}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

/** `<summary>` holds inline HTML: keep the text literal. */
const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function details(summary: string, body: string[]): string {
  return [`<details>`, `<summary>${escapeHtml(summary)}</summary>`, '', ...body, '', `</details>`].join('\n');
}

const quote = (text: string): string => text.split('\n').map((l) => `> ${l}`).join('\n');

function diffText(path: string, lines: DiffLine[], truncated: boolean): string {
  const body = lines.map((l) => (l.t === '@' ? `@@ ${l.text}` : `${l.t}${l.text}`));
  if (truncated) body.push('@@ (diff shortened in the chat)');
  return fence([`--- ${path}`, `+++ ${path}`, ...body].join('\n'), 'diff');
}

function toolMarkdown(item: ToolItem): string {
  const body: string[] = [];
  if (item.input) body.push('Input:', '', fence(item.input, 'json'), '');
  for (const c of item.content) {
    if (c.type === 'text') body.push(c.text, '');
    else if (c.type === 'diff') body.push(`${c.isNew ? 'New file' : 'Edit'} \`${c.path}\` (+${c.added} −${c.removed}):`, '', diffText(c.path, c.lines, c.truncated), '');
    else if (c.type === 'resource') body.push(`Resource: ${c.name} (${c.uri})`, '');
  }
  if (item.terminal?.output) body.push('Output:', '', fence(item.terminal.output, 'console'), '');
  else if (item.output) body.push('Output:', '', fence(item.output), '');
  if (item.locations.length) body.push(`Files: ${item.locations.map((l) => `\`${l.path}${l.line ? `:${l.line}` : ''}\``).join(', ')}`);
  return details(`Tool: ${item.title} (${item.status})`, body.length ? body : ['(no details)']);
}

function itemMarkdown(item: TranscriptItem): string {
  switch (item.type) {
    case 'user': {
      const attached = item.attachments.map((a) => `- ${a.kind}: ${a.name}`);
      return [`**You:**`, '', item.text, ...(attached.length ? ['', 'Attached:', ...attached] : [])].join('\n');
    }
    case 'agent':
      return ['**zcode:**', '', item.text].join('\n');
    case 'thought':
      return details('Thought', [item.text]);
    case 'tool':
      return toolMarkdown(item);
    case 'plan':
      return ['**Plan:**', '', ...item.entries.map((e) => `- [${e.status === 'completed' ? 'x' : ' '}] ${e.content}${e.status === 'in_progress' ? ' (in progress)' : ''}`)].join('\n');
    case 'permission':
      return quote(`Permission: ${item.title} — ${item.state === 'pending' ? 'waiting' : item.state === 'withdrawn' ? 'withdrawn' : `answered: ${item.answer ?? ''}`}`);
    case 'elicitation':
      return quote(`${item.message}\n\n${item.state === 'pending' ? 'Waiting for an answer' : item.state === 'withdrawn' ? 'Withdrawn' : `Answer: ${item.answer ?? ''}`}`);
    case 'error':
      return quote(`**Error:** ${item.message}`);
    case 'notice':
      return quote(`${item.title}${item.description ? `\n\n${item.description}` : ''}`);
    case 'changes':
      return ['**Changed files:**', '', ...item.files.map((f) => `- \`${f.path}\` (${f.status}, +${f.added} −${f.removed})${f.undone ? ' — undone' : ''}`)].join('\n');
  }
}

/** `items` as one markdown document; with `title`, it starts with a `# title` heading. */
export function transcriptMarkdown(items: readonly TranscriptItem[], title?: string): string {
  const parts = items.map(itemMarkdown);
  if (title !== undefined) parts.unshift(`# ${title || 'ZCode conversation'}`);
  return `${parts.join('\n\n')}\n`;
}
