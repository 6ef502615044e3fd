// Scenario selection: the prompt picks what the turn does. `[scenario:NAME]` anywhere in the prompt, or a
// prompt starting with `/sim NAME`, runs scenarios/NAME.json (data) or scenarios/NAME.mjs (generated steps);
// anything else runs `default`. A name may carry an argument after a colon: `deltas:200000`.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const DIR = fileURLToPath(new URL('./scenarios/', import.meta.url));
const NAME = '([A-Za-z0-9_.-]+(?::[A-Za-z0-9_.-]+)?)';
const TAG = new RegExp(`\\[scenario:${NAME}\\]`);
const SIM = new RegExp(`^\\s*/sim\\s+${NAME}`);

/** Which scenario a prompt asks for, and the prompt without the selector (for echoes and titles). */
export function parsePrompt(prompt) {
  const m = prompt.match(TAG) ?? prompt.match(SIM);
  if (!m) return { name: 'default', arg: undefined, text: prompt.trim() };
  const [name, arg] = m[1].split(':');
  return { name, arg, text: prompt.replace(m[0], '').trim() };
}

export function scenarioNames() {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json') || f.endsWith('.mjs'))
    .map((f) => f.replace(/\.(json|mjs)$/, ''))
    .sort();
}

/**
 * The steps of a scenario. JSON files hold `{ "description", "steps": [...] }`; .mjs files export
 * `steps({ prompt, text, arg, session, workspace })` returning the same kind of array.
 */
export async function loadSteps({ name, arg, text }, ctx) {
  const json = join(DIR, `${name}.json`);
  const mjs = join(DIR, `${name}.mjs`);
  if (existsSync(json)) return JSON.parse(readFileSync(json, 'utf8')).steps;
  if (existsSync(mjs)) {
    const mod = await import(pathToFileURL(mjs).href);
    return mod.steps({ ...ctx, text, arg });
  }
  return [
    { text: `Unknown simulator scenario \`${name}\`. Available scenarios: ${scenarioNames().map((n) => `\`${n}\``).join(', ')}.\n` },
  ];
}
