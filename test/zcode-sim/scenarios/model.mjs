// `model`: the answer names the model (and reasoning level) this turn ran on, so a test can see which model a
// prompt reached without reading zcode's state (fresh-install tests: the first prompt goes to the picked model).
export function steps({ session }) {
  const level = session.reasoningLevel ? ` (reasoning ${session.reasoningLevel})` : '';
  return [{ text: `This turn ran on model ${session.modelId}${level}.\n` }];
}
