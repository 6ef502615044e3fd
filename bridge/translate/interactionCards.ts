/**
 * The card an interaction is shown on while it waits for the user (a pending `tool_call`, before
 * the dialog), and its id, so that a re-sent duplicate lands on the same card.
 */
import type { Interaction, Question } from '../zcode/protocol.ts';
import { textContent } from './content.ts';
import { toolCallCard, type CardOptions, type ToolCallStart } from './toolCards.ts';

// ---------------------------------------------------------------------------------------------
// The pending card
// ---------------------------------------------------------------------------------------------

/**
 * The id of the card an interaction is shown on: zcode's `toolCallId` when it names one, else a
 * stable id from the request id (`permission_<requestId>`, `plan_<requestId>`,
 * `questions_<requestId>`), so a re-sent duplicate lands on the same card.
 */
export function interactionCardId(interaction: Interaction): string {
  return interaction.params.toolCallId ?? `${interaction.kind}_${interaction.params.requestId}`;
}

function questionsMarkdown(questions: readonly Question[]): string {
  return questions
    .map((q) => [`**${q.header ? `${q.header}: ` : ''}${q.question}**`, ...q.options.map((o) => `- ${o.label}${o.description ? ` — ${o.description}` : ''}`)].join('\n'))
    .join('\n\n');
}

/**
 * The pending `tool_call` shown while an interaction waits for the user (before the dialog):
 * a permission shows the tool (title, kind, locations, diff …), a plan approval the plan
 * (switch_mode), questions the questions (AskUserQuestion card).
 */
export function pendingInteractionCard(interaction: Interaction, opts: Partial<CardOptions> = {}): ToolCallStart {
  const cardOpts: CardOptions = { cwd: opts.cwd ?? '', terminalOutput: opts.terminalOutput ?? false, ...(opts.locale ? { locale: opts.locale } : {}) };
  const id = interactionCardId(interaction);
  const meta = { requestId: interaction.params.requestId, interaction: interaction.kind };
  switch (interaction.kind) {
    case 'permission':
      return toolCallCard(id, interaction.params.toolName, interaction.params.input, 'pending', cardOpts, meta);
    case 'plan':
      return toolCallCard(id, interaction.params.toolName ?? 'ExitPlanMode', { plan: interaction.plan }, 'pending', cardOpts, meta);
    case 'questions': {
      const card = toolCallCard(id, interaction.params.toolName ?? 'AskUserQuestion', { questions: interaction.questions }, 'pending', cardOpts, meta);
      if (interaction.questions.length > 0) card.content = [textContent(questionsMarkdown(interaction.questions))];
      return card;
    }
  }
}
