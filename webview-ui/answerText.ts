/**
 * A settled card's answer in the UI language: the host writes its fixed words in English
 * (`ANSWER_WORDS`, viewModel.ts) and this shows them translated; an option's name, the user's own
 * words and zcode's questions stay as sent.
 */
import { t } from './l10n.ts';
import { ANSWER_WORDS } from './viewModel.ts';

/** One fixed word, translated (each a literal `t` call, so the l10n test checks its zh-cn entry). */
function fixedWord(word: string): string | undefined {
  switch (word) {
    case ANSWER_WORDS.planApproved:
      return t('Plan approved');
    case ANSWER_WORDS.planRejected:
      return t('Plan rejected');
    case ANSWER_WORDS.declined:
      return t('Declined');
    case ANSWER_WORDS.cancelled:
      return t('Cancelled');
    case ANSWER_WORDS.submitted:
      return t('Submitted');
    case ANSWER_WORDS.dismissed:
      return t('Dismissed');
    default:
      return undefined;
  }
}

export function answerText(answer: string): string {
  const fixed = fixedWord(answer);
  if (fixed !== undefined) return fixed;
  if (answer.startsWith(ANSWER_WORDS.rejectedWithFeedback)) return t('Rejected with feedback: {0}', answer.slice(ANSWER_WORDS.rejectedWithFeedback.length));
  // A question form's summary: one "question: answer" line each, "skipped" for none.
  const skippedTail = `: ${ANSWER_WORDS.skipped}`;
  return answer
    .split('\n')
    .map((line) => (line.endsWith(skippedTail) ? `${line.slice(0, -ANSWER_WORDS.skipped.length)}${t('skipped')}` : line))
    .join('\n');
}
