/**
 * The bridge's slash commands in the prompt path: `/compact`, `/goal <action> [objective]`,
 * `/fork [checkpoint]`, `/rewind [checkpoint] [--cascade]`, `/steer <text>`, `/mode <mode>`,
 * `/thought <level>`.
 *
 * They do exactly what the `_zcode/session/*` methods do (the shared `SessionOperations`) and
 * report the result as agent text (`agent_message_chunk`), then end the prompt with `end_turn`
 * and the structured result under `_meta.zcode.command` for clients that want it. Bad usage and
 * refusals (nothing to steer, no checkpoint yet, a zcode build without the method …) are agent text
 * too, never a protocol error: the user typed a command and reads the answer in the chat. Only an
 * unknown session is a protocol error (-32002). Any other text — including unknown `/words` —
 * returns undefined and goes to zcode unchanged.
 */
import { randomUUID } from 'node:crypto';
import { RequestError } from '@agentclientprotocol/sdk';
import type { ContentBlock, PromptResponse } from '@agentclientprotocol/sdk';
import { buildConfigOptions, CONFIG_ID, selectOptionValues } from '../../translate/config.ts';
import { parseGoalArgs, parseSlashCommand, SLASH_COMMANDS, TUI_ONLY_COMMANDS, tuiOnlyCommand } from '../../translate/promptContent.ts';
import { windowLine } from '../../translate/quotaWindows.ts';
import { commandWord, skillPrompt } from '../../translate/zcodeCommands.ts';
import type { McpListResult } from '../../zcode/operationShapes.ts';
import type { SlashCommand } from '../../translate/promptContent.ts';
import type { BridgeContext, SlashCommandRunner } from '../context.ts';
import { assertNever } from '../requestErrors.ts';
import { SessionOperations } from './sessionOperations.ts';
import type { CompactResponse, GoalResponse, QuotaUnavailable, RewindResponse } from './contractDescriptors.ts';
import { bt, type BridgeLocale } from '../../l10n/messages.ts';

/** Usage lines shown when a command is used wrongly. */
export const SLASH_USAGE: Record<SlashCommand['name'], string> = {
  compact: '`/compact [instructions]` — compact the conversation history, optionally saying what to keep',
  goal: '`/goal [show]` · `/goal <objective>` · `/goal set <objective>` · `/goal replace <objective>` · `/goal clear` · `/goal pause` · `/goal resume`',
  fork: '`/fork [checkpoint]` — fork this session (the latest checkpoint when none is given)',
  rewind: '`/rewind [checkpoint] [--cascade]` — rewind to a checkpoint (the latest when none is given); `--cascade` also deletes forks made from the removed checkpoints',
  steer: '`/steer <instructions>` — add instructions to the running turn',
  mode: '`/mode <mode>` — switch the session mode',
  thought: '`/thought <level>` — set the thinking level',
  model: '`/model <model id>` — switch the model (`/model` lists them)',
  mcp: '`/mcp` — the MCP servers zcode has for this session and their state',
  init: '`/init [focus]` — zcode studies the project and writes AGENTS.md',
  resume: '`/resume` — the earlier conversations of this folder, to open from your client',
  quota: '`/quota` — what is left of your GLM Coding Plan windows',
};

/**
 * The prompt `/init` sends: zcode has no `/init` of its own on the wire, so the bridge asks for the
 * same work in words (an AGENTS.md the agent reads on later turns).
 */
export function initPrompt(focus: string): string {
  return (
    'Study this project and write (or update) AGENTS.md at its root: a short guide for coding agents with how to build, test and lint, ' +
    'the layout and conventions, and anything that must not be done. Keep what an existing AGENTS.md already says unless it is wrong.' +
    (focus ? `\n\nFocus on: ${focus}` : '')
  );
}

/** Outcome of one command: the text to show and the structured result for `_meta`. */
interface Reply {
  text: string;
  ok: boolean;
  result?: unknown;
}

/** Handle the prompt if it is one of the bridge's slash commands; undefined passes it to zcode. */
export const runSlashCommand: SlashCommandRunner = async (ctx, call) => {
  const text = promptText(call.prompt);
  if (text === undefined) return undefined;
  const word = commandWord(text);
  const own = word && ((SLASH_COMMANDS as readonly string[]).includes(word.name) || (TUI_ONLY_COMMANDS as readonly string[]).includes(word.name));
  const handle = ctx.peek(call.sessionId);
  const zcodeCommand = word && !own ? await ctx.commands.find(call.sessionId, word.name, handle ? { cwd: handle.cwd, zcodeSessionId: handle.zcodeSessionId } : undefined) : undefined;
  if (zcodeCommand && word) {
    // zcode's own commands go as typed (zcode resolves them); a skill is named to the model.
    ctx.logger.debug(`/${word.name} is a zcode ${zcodeCommand.kind} on ${call.sessionId}`);
    return zcodeCommand.kind === 'skill' ? { sendInstead: [{ type: 'text', text: skillPrompt(zcodeCommand, word.args) }] } : undefined;
  }
  const tuiOnly = tuiOnlyCommand(text);
  if (tuiOnly) {
    // zcode's terminal UI commands: say so in the chat rather than sending "/clear" to the model.
    const reply = bt(ctx.locale, "{0} belongs to zcode's own terminal UI and does nothing here; this chat's commands are in the / menu.", `\`/${tuiOnly}\``);
    ctx.sendUpdates(call.sessionId, [{ sessionUpdate: 'agent_message_chunk', messageId: randomUUID(), content: { type: 'text', text: reply } }]);
    return { stopReason: 'end_turn', _meta: { zcode: { command: { name: tuiOnly, ok: false, tuiOnly: true } } } } satisfies PromptResponse;
  }
  const command = parseSlashCommand(text);
  if (!command) return undefined;
  if (command.name === 'init') return { sendInstead: [{ type: 'text', text: initPrompt(command.args) }] };
  ctx.logger.debug(`slash command /${command.name} on ${call.sessionId}`);
  let reply: Reply;
  try {
    reply = await runCommand(ctx, call.sessionId, command, call.signal, call.holdEvents, call.holdsSession === true);
  } catch (error) {
    if (error instanceof RequestError && error.code === -32002) throw error;
    if (error instanceof RequestError && error.code === -32800) return { stopReason: 'cancelled' };
    reply = { ok: false, text: `⚠️ ${bt(ctx.locale, '/{0} failed: {1}', command.name, error instanceof Error ? error.message : String(error))}` };
  }
  ctx.sendUpdates(call.sessionId, [{ sessionUpdate: 'agent_message_chunk', messageId: randomUUID(), content: { type: 'text', text: reply.text } }]);
  const meta: Record<string, unknown> = { name: command.name, ok: reply.ok };
  if (reply.result !== undefined) meta.result = reply.result;
  return { stopReason: 'end_turn', _meta: { zcode: { command: meta } } } satisfies PromptResponse;
};

/**
 * Does this prompt act on the running turn rather than wait its turn? Only `/steer`: every other
 * prompt — zcode's commands, the bridge's `/compact`, `/rewind`, `/mode` … and plain text —
 * waits in the session's FIFO behind the prompts sent before it (docs/acp.md "Prompt queue").
 */
export function steersRunningTurn(prompt: readonly ContentBlock[]): boolean {
  const text = promptText(prompt);
  return text !== undefined && parseSlashCommand(text)?.name === 'steer';
}

/** The prompt as plain text when it is text only (a command with an attachment is not a command). */
function promptText(prompt: readonly ContentBlock[]): string | undefined {
  if (prompt.length === 0 || prompt.some((b) => b.type !== 'text')) return undefined;
  return prompt.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

function usage(locale: BridgeLocale, name: SlashCommand['name'], problem?: string): Reply {
  return { ok: false, text: `${problem ? `${problem}\n\n` : ''}${bt(locale, 'Usage: {0}', SLASH_USAGE[name])}` };
}

async function runCommand(ctx: BridgeContext, sessionId: string, command: SlashCommand, signal: AbortSignal, holdEvents: (() => void) | undefined, holdsSession: boolean): Promise<Reply> {
  const ops = new SessionOperations(ctx);
  const args = command.args;
  const L = ctx.locale;
  switch (command.name) {
    case 'compact': {
      // The text is zcode's compaction instructions (`session/compact {instructions}`).
      const result = await ops.compact({ sessionId, ...(args !== '' ? { instructions: args } : {}) }, signal, holdsSession);
      return { ok: result.outcome === 'compacted', text: compactText(result), result };
    }
    case 'goal': {
      const parsed = parseGoalArgs(args);
      if ('error' in parsed) return usage(L, 'goal', parsed.error);
      const result = await ops.goal({ sessionId, ...parsed });
      return { ok: true, text: goalText(L, parsed.action, result), result };
    }
    case 'fork': {
      const words = splitArgs(args);
      if (words.length > 1 || words.some((w) => w.startsWith('--'))) return usage(L, 'fork');
      const result = await ops.fork({ sessionId, checkpointId: words[0] });
      const from = words[0] && words[0].toLowerCase() !== 'latest' ? bt(L, 'checkpoint {0}', `\`${words[0]}\``) : bt(L, 'the latest checkpoint');
      return { ok: true, text: bt(L, 'Forked this session from {0} into a new session: {1}. Open it from the session list to continue there.', from, `\`${result.sessionId}\``), result };
    }
    case 'rewind': {
      const words = splitArgs(args);
      const cascade = words.includes('--cascade');
      const rest = words.filter((w) => w !== '--cascade');
      if (rest.length > 1 || rest.some((w) => w.startsWith('--'))) return usage(L, 'rewind');
      const result = await ops.rewind({ sessionId, checkpointId: rest[0], ...(cascade ? { cascade } : {}) }, signal, holdsSession);
      return { ok: true, text: rewindText(L, result, rest[0]), result };
    }
    case 'steer': {
      if (args === '') return usage(L, 'steer', bt(L, '/steer needs the instructions to add.'));
      const handle = ctx.peek(sessionId);
      if (!handle?.running) {
        return { ok: false, text: bt(L, 'Nothing to steer: no prompt is running on this session. Send the instructions as a normal prompt instead.') };
      }
      // The running turn's events after the steer wait until this reply has been written: the
      // client reads "steer sent" before the turn it steered can end (turns.ts `holdEvents`).
      holdEvents?.();
      const result = await ops.steer({ sessionId, content: args });
      return { ok: true, text: bt(L, 'Steer sent: zcode will take your instructions into account in the running turn.'), result };
    }
    case 'mcp':
      return mcpReply(ctx, sessionId);
    case 'quota':
      return quotaReply(ctx);
    case 'resume':
      return resumeReply(ctx, sessionId);
    case 'init':
      throw new Error('/init becomes a prompt before it gets here');
    case 'model':
    case 'mode':
    case 'thought': {
      const configId = command.name === 'mode' ? CONFIG_ID.mode : command.name === 'model' ? CONFIG_ID.model : CONFIG_ID.thoughtLevel;
      const words = splitArgs(args);
      const handle = await ctx.materialize(sessionId);
      const option = (handle.configOptions ?? buildConfigOptions(handle.settings)).find((o) => o.id === configId);
      const offered = option ? selectOptionValues(option).map((o) => o.value) : [];
      const choices = offered.length > 0 ? bt(L, ' Choose one of: {0}.', offered.map((v) => `\`${v}\``).join(', ')) : '';
      if (command.name === 'model' && words.length === 0) {
        const current = option?.currentValue;
        return { ok: true, text: offered.length > 0 ? bt(L, 'Model: {0}.', `\`${String(current)}\``) + choices : bt(L, 'zcode has not reported its models for this session yet.') };
      }
      if (words.length !== 1) return usage(L, command.name, bt(L, '/{0} needs exactly one value.', command.name) + choices);
      const value = words[0];
      const unknown = command.name === 'mode' ? 'Unknown mode {0}.' : command.name === 'model' ? 'Unknown model {0}.' : 'Unknown thinking level {0}.';
      if (offered.length > 0 && !offered.includes(value)) return usage(L, command.name, bt(L, unknown, `\`${value}\``) + choices);
      if (command.name === 'model') {
        await ctx.applyConfig(sessionId, { model: value });
        return { ok: true, text: bt(L, 'Model set to {0}.', `\`${value}\``), result: { model: value } };
      }
      if (command.name === 'mode') {
        const result = await ops.setMode({ sessionId, mode: value });
        return { ok: true, text: bt(L, 'Mode set to {0}.', `\`${value}\``), result };
      }
      const result = await ops.setThoughtLevel({ sessionId, thoughtLevel: value });
      return { ok: true, text: bt(L, 'Thinking level set to {0}.', `\`${value}\``), result };
    }
    default:
      return assertNever(command.name, 'slash command');
  }
}

/**
 * `/mcp`: zcode's view of the session's MCP servers (`mcp/list {workspace, mcpServers, mode:"status"}`,
 * docs/zcode-protocol.md "Listings, usage and quota"), one line per server with its state and, for a failure, why.
 */
async function mcpReply(ctx: BridgeContext, sessionId: string): Promise<Reply> {
  const L = ctx.locale;
  const handle = await ctx.materialize(sessionId);
  let result: McpListResult;
  try {
    result = await ctx.backend.listMcpServers({ workspacePath: handle.cwd, mcpServers: handle.mcpServers });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === -32601) return { ok: false, text: bt(L, 'This zcode build cannot list MCP servers (no `mcp/list`).') };
    throw error;
  }
  const statuses = result.statuses ?? {};
  const names = Object.keys(statuses);
  if (names.length === 0) return { ok: true, text: bt(L, 'No MCP servers are configured for this session.'), result };
  const lines = names.map((name) => {
    const s = statuses[name];
    const icon = s.status === 'connected' ? '✅' : s.status === 'failed' ? '❌' : '•';
    // The server's name, status word, transport and error are zcode's: only the tool count is ours.
    const tools = typeof s.toolCount === 'number' ? (s.toolCount === 1 ? bt(L, ', 1 tool') : bt(L, ', {0} tools', s.toolCount)) : '';
    return `${icon} \`${name}\` — ${s.status ?? bt(L, 'unknown')}${s.transport ? ` (${s.transport}${tools})` : ''}${s.error ? `: ${s.error}` : ''}`;
  });
  return { ok: true, text: `${bt(L, 'MCP servers:')}\n${lines.join('\n')}`, result };
}

/** `/quota`: the plan windows (quota.ts), or why there are none. */
async function quotaReply(ctx: BridgeContext): Promise<Reply> {
  const L = ctx.locale;
  const result = await ctx.quota.quota();
  if (!result.quota) return { ok: false, text: bt(L, 'No plan quota to show: {0}.', unavailableText(L, result.unavailable)), result };
  const q = result.quota;
  const head = `GLM Coding Plan${q.plan ? ` (${q.plan})` : ''}:`;
  const stale = q.stale
    ? `\n\n⚠️ ${bt(L, 'These figures are from {0} UTC; the latest refresh failed ({1}).', q.fetchedAt.slice(0, 16).replace('T', ' '), q.staleReason ?? bt(L, 'unknown reason'))}`
    : '';
  return { ok: true, text: `${head}\n${q.windows.map((w) => `- ${windowLine(w, L)}`).join('\n')}${stale}`, result };
}

/**
 * Why there is no quota, in `L` where the reason is the bridge's own fixed sentence (quotaWindows.ts);
 * the others name a path, a host or the provider's answer and stay as written.
 */
function unavailableText(L: BridgeLocale, unavailable: QuotaUnavailable | undefined): string {
  if (!unavailable) return bt(L, 'unknown reason');
  switch (unavailable.reason) {
    case 'auth':
      return bt(L, 'the provider refused the stored Coding Plan key');
    case 'rate_limited':
      return bt(L, 'the provider is rate limiting quota requests; try again in a minute');
    case 'no_key':
    case 'network':
    case 'unexpected':
      return unavailable.message;
    default:
      return assertNever(unavailable.reason, 'quota unavailable reason');
  }
}

/**
 * `/resume`: an agent cannot switch its client's conversation, so this lists the folder's other
 * conversations (zcode's `session/list`, under the ids the client knows) for the client's own list.
 */
async function resumeReply(ctx: BridgeContext, sessionId: string): Promise<Reply> {
  const L = ctx.locale;
  const handle = ctx.peek(sessionId);
  const cwd = handle?.cwd;
  const { sessions } = await ctx.backend.listSessions({ workspacePath: cwd });
  const others = sessions.filter((s) => s.sessionId !== handle?.zcodeSessionId).slice(0, 10);
  if (others.length === 0) return { ok: true, text: bt(L, 'There are no earlier conversations in this folder.'), result: { sessions: [] } };
  const lines = others.map((s) => `- **${s.title || bt(L, 'Untitled')}** — \`${s.sessionId}\`${typeof s.updatedAt === 'number' ? ` (${new Date(s.updatedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC)` : ''}`);
  const head = cwd ? bt(L, 'Earlier conversations in {0}:', `\`${cwd}\``) : bt(L, 'Earlier conversations:');
  return {
    ok: true,
    text: `${head}\n${lines.join('\n')}\n\n${bt(L, "Open one from your editor's conversation list (it loads with its history).")}`,
    result: { sessions: others.map((s) => ({ sessionId: s.sessionId, title: s.title ?? null })) },
  };
}

function splitArgs(args: string): string[] {
  return args.split(/\s+/).filter((w) => w !== '');
}

/** The outcome as the bridge wrote it (operationResults.ts `compactionOf`, in the client's language); the outcome word only if a response came without one. */
function compactText(result: CompactResponse): string {
  return result.message ?? result.outcome;
}

function goalText(L: BridgeLocale, action: string, result: GoalResponse): string {
  const goal = result.goal;
  // The objective is the user's text and the status zcode's word: both stay as they are.
  const describe = goal?.objective ? `**${goal.objective}**${goal.status ? ` (${goal.status})` : ''}` : undefined;
  const none = bt(L, '(none)');
  switch (action) {
    case 'show':
      return describe ? bt(L, 'Goal: {0}', describe) : bt(L, 'No goal is set. Set one with `/goal set <objective>`.');
    case 'clear':
      return bt(L, 'Goal cleared.');
    case 'set':
      return bt(L, 'Goal set: {0}', describe ?? none);
    case 'replace':
      return bt(L, 'Goal replaced: {0}', describe ?? none);
    case 'pause':
      return bt(L, 'Goal paused: {0}', describe ?? none);
    case 'resume':
      return bt(L, 'Goal resumed: {0}', describe ?? none);
    default:
      return describe ? bt(L, 'Goal: {0}', describe) : bt(L, 'No goal is set.');
  }
}

function rewindText(L: BridgeLocale, result: RewindResponse, requested: string | undefined): string {
  const target = result.checkpointId ?? (requested && requested.toLowerCase() !== 'latest' ? requested : undefined);
  let text = bt(L, 'Rewound the session to {0}', target ? bt(L, 'checkpoint {0}', `\`${target}\``) : bt(L, 'the latest checkpoint'));
  if (result.removedMessages !== undefined) text += result.removedMessages === 1 ? bt(L, ' (1 message removed)') : bt(L, ' ({0} messages removed)', result.removedMessages);
  text += bt(L, '.');
  if (result.removedSessions && result.removedSessions.length > 0) {
    const n = result.removedSessions.length;
    text += n === 1 ? bt(L, ' Also deleted 1 fork made from the removed checkpoints.') : bt(L, ' Also deleted {0} forks made from the removed checkpoints.', n);
  }
  return text;
}
