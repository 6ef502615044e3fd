/**
 * ACP prompt content → what zcode's `session/send` takes (one string plus image attachments), and
 * the bridge's slash commands (`/compact /goal /fork /rewind /steer /mode /thought`).
 */
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk';
import type { ImageAttachment } from '../zcode/backend.ts';
import type { CheckpointTarget, GoalAction } from '../zcode/protocol.ts';
import { fenced } from './content.ts';
import { bt, type BridgeLocale } from '../l10n/messages.ts';

/** A prompt as zcode takes it. */
export interface ZcodePrompt {
  content: string;
  attachments: ImageAttachment[];
}

function basename(uri: string): string | undefined {
  const clean = uri.replace(/[?#].*$/, '');
  const name = clean.slice(clean.lastIndexOf('/') + 1);
  try {
    return name !== '' ? decodeURIComponent(name) : undefined;
  } catch {
    return name !== '' ? name : undefined;
  }
}

/** Rendered piece of a prompt: inline pieces join directly, block pieces sit on their own lines. */
interface Piece {
  text: string;
  block: boolean;
}

/**
 * Turn ACP prompt blocks into zcode's prompt:
 * - `text` as is; `resource_link` as a markdown link `[name](uri)` (both inline, joined without
 *   separators: clients split a sentence around mentions, e.g. "Explain ", link, " please");
 * - an embedded text resource inlined in a fenced block headed by its uri;
 * - an image (or an embedded blob with an image MIME type) → an attachment (base64 + MIME type);
 * - audio and other binary resources → a placeholder line saying they were left out.
 * Block pieces are separated from their neighbours by a blank line.
 */
export function promptToZcode(blocks: readonly ContentBlock[]): ZcodePrompt {
  const pieces: Piece[] = [];
  const attachments: ImageAttachment[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        pieces.push({ text: block.text, block: false });
        break;
      case 'resource_link':
        pieces.push({ text: `[${block.title ?? block.name}](${block.uri})`, block: false });
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) {
          pieces.push({ text: `${resource.uri}\n${fenced(resource.text)}`, block: true });
        } else if (resource.mimeType?.startsWith('image/')) {
          const name = basename(resource.uri);
          attachments.push({ type: 'image', mimeType: resource.mimeType, data: resource.blob, ...(name ? { name } : {}) });
        } else {
          pieces.push({ text: `[Binary resource not included: ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]`, block: true });
        }
        break;
      }
      case 'image': {
        const name = block.uri ? basename(block.uri) : undefined;
        attachments.push({ type: 'image', mimeType: block.mimeType, data: block.data, ...(name ? { name } : {}) });
        break;
      }
      case 'audio':
        pieces.push({ text: `[Audio attachment not included (${block.mimeType}): zcode does not accept audio]`, block: true });
        break;
      default: {
        const unknown = block as { type?: unknown };
        pieces.push({ text: `[Unsupported content not included: ${String(unknown.type)}]`, block: true });
      }
    }
  }
  let content = '';
  pieces.forEach((piece, i) => {
    const separate = i > 0 && (piece.block || pieces[i - 1].block);
    content = separate ? `${content.replace(/\n+$/, '')}\n\n${piece.text.replace(/^\n+/, '')}` : content + piece.text;
  });
  return { content, attachments };
}

// ---------------------------------------------------------------------------------------------
// Slash commands
// ---------------------------------------------------------------------------------------------

/** The bridge's own slash commands (anything else passes through to zcode as text). */
export const SLASH_COMMANDS = ['compact', 'goal', 'fork', 'rewind', 'steer', 'mode', 'thought', 'model', 'mcp', 'init', 'resume', 'quota'] as const;

/**
 * Commands of zcode's own terminal UI that mean nothing in an editor's chat: they get a friendly
 * one-line answer (slashCommands.ts) instead of going to the model as text.
 */
export const TUI_ONLY_COMMANDS = ['help', 'clear', 'exit', 'quit', 'login', 'logout', 'theme', 'config', 'doctor', 'vim', 'terminal-setup'] as const;
export type SlashCommandName = (typeof SLASH_COMMANDS)[number];

export interface SlashCommand {
  name: SlashCommandName;
  /** Everything after the command name, trimmed ("" when none). */
  args: string;
}

/**
 * Recognise one of the bridge's slash commands at the start of a prompt (`/goal set ship it`
 * → `{name:"goal", args:"set ship it"}`). Unknown commands and other text → undefined.
 */
export function parseSlashCommand(text: string): SlashCommand | undefined {
  const m = /^\s*\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text);
  if (!m) return undefined;
  const name = m[1] as SlashCommandName;
  if (!SLASH_COMMANDS.includes(name)) return undefined;
  return { name, args: (m[2] ?? '').trim() };
}

/** The TUI-only command a prompt is (`/clear`, `/exit` …), if it is one and nothing else. */
export function tuiOnlyCommand(text: string): string | undefined {
  const m = /^\s*\/([a-z-]+)\s*$/.exec(text);
  return m && (TUI_ONLY_COMMANDS as readonly string[]).includes(m[1]) ? m[1] : undefined;
}

/**
 * The commands for `available_commands_update`, with descriptions (in `locale`: l10n/messages.ts)
 * and input hints (syntax, never translated).
 */
export function availableCommands(locale: BridgeLocale = 'en'): AvailableCommand[] {
  return [
    { name: 'compact', description: bt(locale, 'Compact the conversation history to free context') },
    {
      name: 'goal',
      description: bt(locale, 'Show or manage the session goal: show, set <objective>, replace <objective>, clear, pause, resume'),
      input: { hint: 'set <objective> | replace <objective> | show | clear | pause | resume' },
    },
    { name: 'fork', description: bt(locale, 'Fork this session into a new one (latest checkpoint, or the one given)'), input: { hint: '[checkpoint]' } },
    { name: 'rewind', description: bt(locale, 'Rewind the session to a checkpoint (latest if none given)'), input: { hint: '[checkpoint]' } },
    { name: 'steer', description: bt(locale, 'Add instructions to the running turn'), input: { hint: '<instructions>' } },
    { name: 'mode', description: bt(locale, 'Switch mode: plan, build, edit or yolo'), input: { hint: '<plan|build|edit|yolo>' } },
    { name: 'thought', description: bt(locale, 'Set the thinking level: low, medium, high or max'), input: { hint: '<low|medium|high|max>' } },
    { name: 'model', description: bt(locale, 'Switch the model (without a value: list the models)'), input: { hint: '[model id]' } },
    { name: 'mcp', description: bt(locale, 'Show the MCP servers zcode has for this session and whether they connected') },
    { name: 'init', description: bt(locale, 'Ask zcode to study this project and write its AGENTS.md (what to build, test and avoid)'), input: { hint: '[what to focus on]' } },
    { name: 'resume', description: bt(locale, 'List the earlier conversations of this folder to open again') },
    { name: 'quota', description: bt(locale, 'Show what is left of your GLM Coding Plan windows and when they reset') },
  ];
}

/**
 * `/goal` arguments as a zcode goal call, or an error message. No arguments means `show`; text whose
 * first word is not an action sets the goal to the whole text (`/goal ship the release`), as
 * zcode's own TUI does.
 */
export function parseGoalArgs(args: string): { action: GoalAction; objective?: string } | { error: string } {
  const m = /^(\S+)(?:\s+([\s\S]*))?$/.exec(args.trim());
  if (!m) return { action: 'show' };
  const action = m[1].toLowerCase();
  const objective = (m[2] ?? '').trim();
  switch (action) {
    case 'set':
    case 'replace':
      return objective !== '' ? { action, objective } : { error: `/goal ${action} needs an objective: /goal ${action} <objective>` };
    case 'show':
    case 'clear':
    case 'pause':
    case 'resume':
      return { action };
    default:
      return { action: 'set', objective: args.trim() };
  }
}

/** `/fork` and `/rewind` argument: none or "latest" → the latest checkpoint, anything else → that checkpoint id. */
export function parseCheckpointArg(args: string): CheckpointTarget {
  const id = args.trim();
  return id === '' || id.toLowerCase() === 'latest' ? { kind: 'latestCheckpoint' } : { kind: 'checkpoint', checkpointId: id };
}
