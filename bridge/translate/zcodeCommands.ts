/**
 * zcode's own commands in the slash menu: the session snapshot's `slashCommands`,
 * plugin commands and skills, merged after the bridge's own commands (pure; discovery is in
 * acp/extensions/commandCatalog.ts).
 *
 * How each one runs when typed:
 * - a snapshot command or a plugin command goes to zcode as the text typed: zcode resolves its own
 *   `/name` commands (its custom-command prompt resolver, as the reference bridge `william0wang/zcode-acp` relies on);
 * - a skill is invoked by naming it to the model, which loads the skill with its Skill tool
 *   ("Use the X skill …"); zcode's prompt already lists the skills it has.
 *
 * A name the bridge already uses, or one already taken by an earlier source, is skipped (first wins:
 * bridge, snapshot, plugins, skills). Names that could not be typed as one word are skipped too.
 */
import type { AvailableCommand } from '@agentclientprotocol/sdk';

export type ZcodeCommandKind = 'zcode' | 'plugin' | 'skill';

export interface ZcodeCommand {
  name: string;
  description: string;
  kind: ZcodeCommandKind;
  hint?: string;
  /** A skill's SKILL.md (named in the prompt so the model finds it). */
  path?: string;
}

export interface ZcodeCommandSources {
  snapshot: ReadonlyArray<{ name: string; description?: string; inputHint?: string }>;
  plugins: ReadonlyArray<{ name: string; description?: string; hint?: string }>;
  skills: ReadonlyArray<{ name: string; description?: string; path?: string }>;
}

const TYPABLE = /^[\w][\w:.-]*$/;
const MAX_DESCRIPTION = 200;

/** The zcode commands in menu order, without names in `reserved` (the bridge's own). */
export function mergeZcodeCommands(sources: ZcodeCommandSources, reserved: ReadonlySet<string>): ZcodeCommand[] {
  const taken = new Set(reserved);
  const out: ZcodeCommand[] = [];
  const add = (command: ZcodeCommand): void => {
    if (!TYPABLE.test(command.name) || taken.has(command.name)) return;
    taken.add(command.name);
    out.push(command);
  };
  for (const c of sources.snapshot) add({ name: c.name, description: c.description ?? '', kind: 'zcode', ...(c.inputHint ? { hint: c.inputHint } : {}) });
  for (const c of sources.plugins) add({ name: c.name, description: c.description ?? '', kind: 'plugin', ...(c.hint ? { hint: c.hint } : {}) });
  for (const c of sources.skills) add({ name: c.name, description: c.description ?? '', kind: 'skill', ...(c.path ? { path: c.path } : {}) });
  return out;
}

/** One zcode command as an ACP menu entry (the source in the description, so the user knows what it is). */
export function zcodeCommandEntry(command: ZcodeCommand): AvailableCommand {
  const label = command.kind === 'skill' ? 'Skill' : command.kind === 'plugin' ? 'Plugin command' : 'zcode command';
  const text = command.description.trim().replace(/\s+/g, ' ');
  const description = `${label}${text ? `: ${text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text}` : ''}`;
  const entry: AvailableCommand = { name: command.name, description };
  if (command.hint) entry.input = { hint: command.hint };
  else if (command.kind === 'skill') entry.input = { hint: '[what to do with it]' };
  return entry;
}

/** `/name rest` → `{name, args}` for any typable command name; undefined for other text (paths like `/etc/hosts`). */
export function commandWord(text: string): { name: string; args: string } | undefined {
  const m = /^\s*\/([\w][\w:.-]*)(?:\s+([\s\S]*))?$/.exec(text);
  return m ? { name: m[1], args: (m[2] ?? '').trim() } : undefined;
}

/** The prompt that invokes a skill: its name (and file) for the model, then what the user asked. */
export function skillPrompt(command: ZcodeCommand, args: string): string {
  const where = command.path ? ` (${command.path})` : '';
  return `Use the "${command.name}" skill${where} for this request.${args ? `\n\n${args}` : ''}`;
}
