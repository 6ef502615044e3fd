// `long`: a turn of ~10 s at speed 1 (6 rounds of a ~100-word paragraph plus a tool). At speed 0 it still
// emits ~300 deltas with event-loop yields and holds a 250 ms floor delay per round, so a cancel or a steer
// sent when the first event arrives always lands mid-turn.
const WORDS = 'the cache layer keeps hot entries in memory and falls back to disk when the working set grows so every read checks the index first and every write invalidates the entry before it updates the backing store which keeps readers from seeing stale data'.split(' ');

function paragraph(round) {
  const words = [];
  for (let i = 0; i < 100; i++) words.push(WORDS[(i * 7 + round * 3) % WORDS.length]);
  return `**Step ${round}.** ${words.join(' ')}.\n\n`;
}

const TOOLS = [
  (r) => ({ tool: 'Read', input: { file_path: `{{workspace}}/src/module${r}.ts` }, fallback: `export const module${r} = ${r};\n` }),
  (r) => ({ tool: 'Grep', input: { pattern: `module${r}`, path: 'src', output_mode: 'content' }, fallback: `src/module${r}.ts:1:export const module${r} = ${r};` }),
  (r) => ({
    tool: 'Bash',
    input: { command: `npm test -- --grep module${r}`, description: `Test module ${r}` },
    progress: [{ stdout: `running module${r} tests\n` }, { stdout: 'ok 1\nok 2\n' }, { stdout: 'pass 2, fail 0\n' }],
  }),
];

/** `long:N` runs N rounds (default 6): a test that must act while the turn runs gives itself room (>= 250 ms a round). */
export function steps({ arg } = {}) {
  const rounds = Number.isInteger(Number(arg)) && Number(arg) > 0 ? Number(arg) : 6;
  const out = [{ reasoning: 'This is a long task: I will go module by module and test as I go.' }];
  for (let r = 1; r <= rounds; r++) {
    out.push({ text: paragraph(r) });
    out.push({ ...TOOLS[(r - 1) % TOOLS.length](r), durationMs: 300 });
    out.push({ delay: 200, floorMs: 250 });
  }
  out.push({ text: `All ${rounds === 6 ? 'six' : rounds} modules are done and their tests pass.\n` });
  return out;
}
