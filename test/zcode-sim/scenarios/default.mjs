// `default`: any prompt without a scenario selector. A short streamed markdown reply that echoes the prompt,
// with a little reasoning, so the demo feels alive. Mentions of "read", "search"/"grep" or "files"/"list"
// add a matching tool call on the real workspace.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export function steps({ text, workspace, attachments }) {
  const prompt = text || '(empty prompt)';
  const lower = prompt.toLowerCase();
  const out = [{ reasoning: `The user wrote: "${prompt.slice(0, 200)}". I am the ZCode simulator, so I will answer briefly.` }];
  out.push({ text: `You said: **${prompt.replace(/\*/g, '\\*').slice(0, 500)}**\n\n` });
  if (attachments?.length) out.push({ text: `I received ${attachments.length} image attachment(s).\n\n` });
  if (/\bread\b/.test(lower)) {
    const file = ['README.md', 'package.json'].find((f) => existsSync(join(workspace, f))) ?? 'README.md';
    out.push({ tool: 'Read', input: { file_path: '{{workspace}}/' + file, limit: 40 }, fallback: `# ${file}\n\n(the simulator could not find this file)\n` });
    out.push({ text: `That was the start of \`${file}\`.\n\n` });
  }
  if (/\b(search|grep)\b/.test(lower)) {
    out.push({ tool: 'Grep', input: { pattern: 'TODO', path: '.', output_mode: 'content' }, fallback: 'No matches found' });
    out.push({ text: 'Those are the TODOs I found.\n\n' });
  }
  if (/\b(files|list)\b/.test(lower)) {
    out.push({ tool: 'Glob', input: { pattern: '**/*.{ts,js,md,json}', path: '{{workspace}}' }, fallback: 'No files found' });
    out.push({ text: 'Those are the files in the workspace.\n\n' });
  }
  out.push({ text: 'This reply comes from the **zcode simulator**. Put `[scenario:NAME]` in a prompt (for example `[scenario:tools]` or `[scenario:plan]`) to run a scripted scenario.\n' });
  return out;
}
